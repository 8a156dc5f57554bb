"""Every case of tests/vectors/{shortid,obfuscate,uuid7,template}.json (shared with the Rust,
Node and JVM tests): short strings, keyed obfuscation, UUIDv7 and order-number templates."""

import uuid
from datetime import datetime, timedelta, timezone

import pytest

import idmint

from conftest import OBFUSCATE, SHORTID, TEMPLATE, UUID7

# Written out here, not taken from idmint, so the test checks the package's own table.
CLASS_OF_KIND = {
    "invalid_id": idmint.InvalidId,
    "invalid_key": idmint.InvalidKey,
    "invalid_encoding": idmint.InvalidEncoding,
    "invalid_template": idmint.InvalidTemplate,
    "invalid_uuid": idmint.InvalidUuid,
    "check_digit_mismatch": idmint.CheckDigitMismatch,
    "value_out_of_range": idmint.ValueOutOfRange,
}

ENCODINGS = ("base62", "base62-fixed", "base32", "base32-fixed")


def rfc3339(text: str) -> datetime:
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert dt.tzinfo is not None
    return dt


def ids(cases, *keys):
    out = []
    for c in cases:
        for k in ("name", *keys):
            if k in c:
                out.append(f"{c[k]!r}" if k != "name" else c[k])
                break
        else:
            out.append(None)
    return out


def expect(kind, call):
    cls = CLASS_OF_KIND[kind]
    with pytest.raises(cls) as info:
        call()
    assert type(info.value) is cls and info.value.kind == kind
    assert isinstance(info.value, ValueError)
    return info.value


# --- shortid.json -------------------------------------------------------------------------


def test_encoding_names_are_the_cores():
    assert idmint.ENCODINGS == ENCODINGS


@pytest.mark.parametrize("case", SHORTID["valid"], ids=ids(SHORTID["valid"], "value"))
def test_shortid_valid(case):
    value = int(case["value"])
    for enc in ENCODINGS:
        assert idmint.encode(value, enc) == case[enc], enc
        assert idmint.decode(case[enc], enc) == value, enc
    assert idmint.encode(value) == case["base62"]  # the default encoding
    assert idmint.decode(case["base62"]) == value


def test_shortid_fixed_forms_sort_like_the_numbers():
    values = sorted(int(c["value"]) for c in SHORTID["valid"])
    for enc in ("base62-fixed", "base32-fixed"):
        texts = [idmint.encode(v, enc) for v in values]
        assert texts == sorted(texts), enc


@pytest.mark.parametrize("case", SHORTID["aliases"], ids=ids(SHORTID["aliases"], "text"))
def test_shortid_aliases(case):
    assert idmint.decode(case["text"], case["encoding"]) == int(case["value"])


@pytest.mark.parametrize("case", SHORTID["invalid"], ids=ids(SHORTID["invalid"], "text"))
def test_shortid_invalid(case):
    err = expect(case["error"], lambda: idmint.decode(case["text"], case["encoding"]))
    assert f"invalid {case['encoding']}" in str(err)


# --- obfuscate.json -----------------------------------------------------------------------


@pytest.mark.parametrize("case", OBFUSCATE["valid"], ids=ids(OBFUSCATE["valid"], "id"))
def test_obfuscate_valid(case):
    key = idmint.Key(case["key"])
    id_, shown = int(case["id"]), int(case["obfuscated"])
    for ring in (idmint.Keyring.from_text(case["key"]), idmint.Keyring([key]), idmint.Keyring([case["key"]])):
        assert ring.obfuscate(id_) == shown
        assert 0 <= shown < 2**63
        assert ring.reveal(shown) == id_
        assert ring.reveal(shown, version=key.version) == id_
        assert ring.obfuscate_tagged(id_) == case["tagged"]
        assert ring.reveal_tagged(case["tagged"]) == id_
    assert idmint.split_tagged(case["tagged"]) == (key.version, shown)


def test_obfuscate_vectors_with_every_key_in_one_ring():
    """Rotation: one ring holding all the vectors' keys reveals each with the key it names."""
    keys = sorted({c["key"] for c in OBFUSCATE["valid"]})
    ring = idmint.Keyring.from_text("# vectors\n\n" + "\n".join(keys) + "\n")
    assert ring.versions == sorted(idmint.Key(k).version for k in keys)
    assert ring.active_version == max(ring.versions)
    for case in OBFUSCATE["valid"]:
        version = idmint.Key(case["key"]).version
        assert ring.reveal_tagged(case["tagged"]) == int(case["id"])
        assert ring.reveal(int(case["obfuscated"]), version) == int(case["id"])
        if version == ring.active_version:
            assert ring.obfuscate_tagged(int(case["id"])) == case["tagged"]


@pytest.mark.parametrize("case", OBFUSCATE["invalid_ids"], ids=ids(OBFUSCATE["invalid_ids"]))
def test_obfuscate_invalid_ids(case):
    ring = idmint.Keyring.from_text(OBFUSCATE["valid"][0]["key"])
    for call in (
        lambda: ring.obfuscate(int(case["id"])),
        lambda: ring.obfuscate_tagged(int(case["id"])),
        lambda: ring.reveal(int(case["id"])),
    ):
        err = expect(case["error"], call)
        assert case["id"] in str(err)


@pytest.mark.parametrize("case", OBFUSCATE["invalid_keys"], ids=ids(OBFUSCATE["invalid_keys"]))
def test_obfuscate_invalid_keys(case):
    for call in (
        lambda: idmint.Key(case["key"]),
        lambda: idmint.Key.from_text(case["key"]),
        lambda: idmint.Keyring([case["key"]]),
    ):
        expect(case["error"], call)
    # a key file with only this line: the key ring refuses it too (empty text: no keys at all)
    err = expect(case["error"], lambda: idmint.Keyring.from_text(case["key"]))
    if case["key"]:
        assert "line 1" in str(err)


@pytest.mark.parametrize("case", OBFUSCATE["invalid_tagged"], ids=ids(OBFUSCATE["invalid_tagged"]))
def test_obfuscate_invalid_tagged(case):
    ring = idmint.Keyring.from_text(case["keyring"])
    expect(case["error"], lambda: ring.reveal_tagged(case["tagged"]))


# --- uuid7.json ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", UUID7["valid"], ids=ids(UUID7["valid"]))
def test_uuid7_valid(case):
    std = uuid.UUID(case["uuid"])
    for given in (case["uuid"], case["uuid"].upper(), case["ulid"], std, std.bytes, idmint.Uuid7(case["uuid"])):
        u = idmint.parse_uuid7(given)
        assert str(u) == case["uuid"]
        assert u.uuid == std and isinstance(u.uuid, uuid.UUID)
        assert u.int == std.int == int(u)
        assert u.bytes == std.bytes == bytes(u)
        assert u.time_ms == case["time_ms"]
        assert u.time == rfc3339(case["time"])
        assert u.time.utcoffset().total_seconds() == 0
        assert u.rand_a == case["rand_a"]
        assert u.rand_b == int(case["rand_b"], 16)
        assert u.ulid == case["ulid"]
        assert u == std and hash(u) == hash(std)
    assert idmint.Uuid7.from_parts(case["time_ms"], case["rand_a"], int(case["rand_b"], 16)) == std
    assert std.version == 7


@pytest.mark.parametrize("case", UUID7["forms"], ids=ids(UUID7["forms"], "text"))
def test_uuid7_forms(case):
    u = idmint.parse_uuid7(case["text"])
    assert str(u) == case["uuid"]
    assert idmint.Uuid7(case["text"]) == u


@pytest.mark.parametrize(
    "case", UUID7["invalid"] + UUID7["invalid_ulids"], ids=ids(UUID7["invalid"] + UUID7["invalid_ulids"])
)
def test_uuid7_invalid(case):
    err = expect(case["error"], lambda: idmint.parse_uuid7(case["text"]))
    assert "UUIDv7" in str(err)
    expect(case["error"], lambda: idmint.Uuid7(case["text"]))


def test_uuid7_invalid_as_stdlib_uuid_and_bytes():
    """Vectors that are UUIDs to the stdlib but not version 7 / variant 10 are refused as
    uuid.UUID and as bytes too (the stdlib also reads braced and URN text, which are then v7)."""
    checked = 0
    for case in UUID7["invalid"]:
        try:
            std = uuid.UUID(case["text"])
        except ValueError:
            continue
        if std.version == 7 and std.variant == uuid.RFC_4122:
            assert idmint.parse_uuid7(std) == std
            continue
        expect("invalid_uuid", lambda: idmint.parse_uuid7(std))
        expect("invalid_uuid", lambda: idmint.parse_uuid7(std.bytes))
        checked += 1
    assert checked >= 4


# --- template.json ------------------------------------------------------------------------


def template_of(case):
    return idmint.Template(case["template"], tz=case["offset"], check=case["check"], label=case["label"])


@pytest.mark.parametrize("case", TEMPLATE["valid"], ids=ids(TEMPLATE["valid"]))
def test_template_valid(case):
    t = template_of(case)
    assert t.pattern == case["template"] and t.check == case["check"]
    seq = int(case["sequence"])
    assert t.format(case["time_ms"], seq) == case["formatted"]
    as_datetime = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=case["time_ms"])
    assert t.format(as_datetime, seq) == case["formatted"]
    assert t.format(as_datetime.isoformat(), seq) == case["formatted"]
    parts = t.parse(case["formatted"])
    assert parts.asdict() == case["parts"]
    for name in ("year", "month", "day", "hour", "minute", "second", "label", "check"):
        assert getattr(parts, name) == case["parts"].get(name), name
    assert parts.sequence == seq
    assert parts == t.parse(case["formatted"])


@pytest.mark.parametrize("case", TEMPLATE["invalid_templates"], ids=ids(TEMPLATE["invalid_templates"]))
def test_template_invalid_templates(case):
    err = expect(case["error"], lambda: idmint.Template(case["template"]))
    assert "invalid template" in str(err)
    expect(case["error"], lambda: idmint.OrderNumbers(case["template"]))


@pytest.mark.parametrize("case", TEMPLATE["invalid_parse"], ids=ids(TEMPLATE["invalid_parse"]))
def test_template_invalid_parse(case):
    expect(case["error"], lambda: template_of(case).parse(case["text"]))


@pytest.mark.parametrize("case", TEMPLATE["invalid_format"], ids=ids(TEMPLATE["invalid_format"]))
def test_template_invalid_format(case):
    err = expect(case["error"], lambda: template_of(case).format(case["time_ms"], int(case["sequence"])))
    assert case["sequence"] in str(err)


@pytest.mark.parametrize("case", TEMPLATE["daily"], ids=ids(TEMPLATE["daily"]))
def test_template_daily(case):
    clock = idmint.ManualClock(case["times_ms"][0])
    orders = idmint.OrderNumbers(template_of(case), clock=clock)
    got = []
    for t in case["times_ms"]:
        clock.set(t)
        got.append(orders.next())
    assert got == case["formatted"]


def test_display_vectors_are_not_empty():
    assert len(SHORTID["valid"]) > 20 and len(SHORTID["invalid"]) > 20
    assert len(OBFUSCATE["valid"]) > 20 and OBFUSCATE["invalid_keys"] and OBFUSCATE["invalid_tagged"]
    assert len(UUID7["valid"]) >= 5 and UUID7["invalid"] and UUID7["invalid_ulids"]
    assert len(TEMPLATE["valid"]) >= 10 and TEMPLATE["daily"] and TEMPLATE["invalid_parse"]

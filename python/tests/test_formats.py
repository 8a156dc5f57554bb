"""tests/vectors/formats.json (shared with the Rust, Node and JVM tests): 64-bit layouts and
`idmint.parse` of every format, then a second check against each format's own library."""

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest

import idmint

from conftest import load

FORMATS = load("formats.json")

CLASS_OF_KIND = {
    "invalid_id": idmint.InvalidId,
    "invalid_object_id": idmint.InvalidObjectId,
    "invalid_layout": idmint.InvalidLayout,
}


def ids(cases):
    return [c.get("name", c.get("layout")) for c in cases]


def rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("case", FORMATS["presets"], ids=ids(FORMATS["presets"]))
def test_unsigned_presets(case):
    layout = idmint.Layout(case["layout"])
    assert layout.spec == case["spec"]
    assert layout.total_bits == case["total_bits"] == 64
    assert layout.unsigned and layout.preset == case["layout"]
    assert case["layout"] in idmint.UNSIGNED_PRESETS
    assert layout.max_id == 2**64 - 1


@pytest.mark.parametrize("case", FORMATS["snowflakes"], ids=ids(FORMATS["snowflakes"]))
def test_snowflakes_of_64_bits_decompose_and_compose(case):
    layout = idmint.Layout(case["layout"])
    for id in (case["id"], int(case["id"])):
        p = layout.decompose(id)
        assert p.timestamp_ms == case["time_ms"]
        assert p.time == rfc3339(case["time"])
        assert p.fields == case["fields"]
        assert p.sequence == case["sequence"]
    again = layout.compose(case["time_ms"], sequence=case["sequence"], **case["fields"])
    assert again == int(case["id"])
    d = idmint.parse(case["id"], layout)
    assert (d.format, d.value, d.timestamp_ms, d.time_text) == ("snowflake", int(case["id"]), case["time_ms"], case["time"])


@pytest.mark.parametrize("case", FORMATS["invalid_snowflakes"], ids=ids(FORMATS["invalid_snowflakes"]))
def test_invalid_snowflakes(case):
    layout = idmint.Layout(case["layout"])
    for id in (case["id"], int(case["id"])):
        with pytest.raises(CLASS_OF_KIND[case["error"]]):
            layout.decompose(id)
        with pytest.raises(CLASS_OF_KIND[case["error"]]):
            idmint.parse(id, case["layout"])


@pytest.mark.parametrize("case", FORMATS["invalid_layouts"], ids=ids(FORMATS["invalid_layouts"]))
def test_invalid_layouts(case):
    with pytest.raises(CLASS_OF_KIND[case["error"]]):
        idmint.Layout(case["layout"])


@pytest.mark.parametrize("case", FORMATS["decode"], ids=ids(FORMATS["decode"]))
def test_decode(case):
    d = idmint.parse(case["text"], case["layout"])
    assert d.format == case["format"]
    assert d.id == str(d) == case["id"]
    assert d.value == (None if case["value"] is None else int(case["value"]))
    assert d.timestamp_ms == case["time_ms"]
    assert d.time_text == case["time"]
    if case["time"] is None:
        assert d.time is None
    else:
        assert d.time is not None and d.timestamp_ms is not None
        assert d.time == datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=d.timestamp_ms)
        assert d.time.strftime("%Y-%m-%dT%H:%M:%S") == case["time"][:19]
    assert d.parts == case["parts"]
    for name, value in case["parts"].items():
        assert getattr(d, name) == value
    assert d.layout == (case["layout"] if case["format"] == "snowflake" else None)
    assert d.asdict()["format"] == case["format"]
    assert d == idmint.parse(case["text"], case["layout"])
    if case["value"] is not None and case["format"] != "tsid":
        # an int reads as its decimal text does
        assert idmint.parse(int(case["text"]), case["layout"]) == d


@pytest.mark.parametrize("case", FORMATS["invalid"], ids=ids(FORMATS["invalid"]))
def test_invalid(case):
    with pytest.raises(CLASS_OF_KIND[case["error"]]):
        idmint.parse(case["text"])


def test_unrecognised_text_lists_the_formats_tried():
    with pytest.raises(idmint.InvalidId, match="formats tried") as e:
        idmint.parse("hello")
    for name in ("ObjectId", "UUID", "ULID", "KSUID", "xid", "TSID"):
        assert name in str(e.value)
    with pytest.raises(idmint.InvalidArgument):
        idmint.parse("1", format="guid")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        idmint.parse(b"01ARZ3NDEKTSV4RRFFQ69G5FAV")  # type: ignore[arg-type]


def test_discord_docs_example():
    d = idmint.parse(175928847299117063, "discord")
    assert d.time == datetime(2016, 4, 30, 11, 18, 25, 796000, tzinfo=timezone.utc)
    assert (d.worker, d.process, d.sequence) == (1, 0, 7)
    assert d.fields == {"worker": 1, "process": 0}
    assert idmint.parse("01ARZ3NDEKTSV4RRFFQ69G5FAV").fields == {}
    assert idmint.Layout("discord").decompose(175928847299117063).fields == {"worker": 1, "process": 0}


def test_a_decimal_without_a_layout_is_an_integer_and_guess_gives_every_preset():
    d = idmint.parse(175928847299117063)
    assert (d.format, d.value, d.time, d.layout) == ("integer", 175928847299117063, None, None)
    readings = idmint.guess("175928847299117063")
    assert all(r.format == "snowflake" for r in readings)
    assert {r.layout for r in readings} <= set(idmint.PRESETS + idmint.UNSIGNED_PRESETS)
    discord = next(r for r in readings if r.layout == "discord")
    assert discord == idmint.parse(175928847299117063, "discord")
    top = idmint.guess(2**63)
    assert {r.layout for r in top} <= set(idmint.UNSIGNED_PRESETS) and top
    with pytest.raises(idmint.InvalidId):
        idmint.guess(2**64)
    with pytest.raises(idmint.InvalidId):
        idmint.guess(-1)


def test_format_reads_digits_as_a_tsid():
    assert idmint.parse("0123456789012").format == "integer"
    d = idmint.parse("0123456789012", format="tsid")
    assert d.format == "tsid" and d.id == "0123456789012"


def test_the_top_bit_round_trips():
    layout = idmint.Layout("discord")
    id = layout.compose("2100-01-01T00:00:00Z", worker=31, process=17, sequence=4095)
    assert id >= 2**63
    p = layout.decompose(id)
    assert p.fields == {"worker": 31, "process": 17} and p.sequence == 4095
    assert p.time == datetime(2100, 1, 1, tzinfo=timezone.utc)
    assert layout.compose(p.time, sequence=p.sequence, **p.fields) == id
    assert idmint.parse(str(id), layout).value == id
    assert layout.decompose(2**64 - 1).sequence == 4095
    with pytest.raises(idmint.InvalidId):
        idmint.Layout("twitter").decompose(2**63)


def test_minting_64_bit_ids_needs_the_opt_in():
    with pytest.raises(idmint.InvalidLayout, match="unsigned") as e:
        idmint.Snowflake("discord", worker=1, process=0)
    assert "2^53" in str(e.value) or "BIGINT" in str(e.value)
    clock = idmint.ManualClock("2100-01-01T00:00:00Z")
    gen = idmint.Snowflake("discord", unsigned=True, worker=1, process=2, clock=clock)
    a, b = gen.next_id(), gen.next_id()
    assert 2**63 <= a < b < 2**64
    assert gen.parse(b).sequence == 1 and gen.parse(b).process == 2
    again = idmint.Snowflake("discord", unsigned=True, worker=1, process=2, clock=clock, resume_after=b)
    assert again.next_id() > b


def test_a_million_64_bit_ids_from_4_threads_are_unique():
    gen = idmint.Snowflake("discord", unsigned=True, worker=3, process=4)

    def draw(_):
        return gen.next_ids(250_000)

    with ThreadPoolExecutor(4) as pool:
        batches = list(pool.map(draw, range(4)))
    assert len({i for batch in batches for i in batch}) == 1_000_000


# The second check: each format's own library reads the same values.


def decode_cases(fmt):
    return [c for c in FORMATS["decode"] if c["format"] == fmt]


@pytest.mark.parametrize("case", decode_cases("uuid"), ids=ids(decode_cases("uuid")))
def test_uuid_matches_the_stdlib(case):
    d = idmint.parse(case["text"])
    u = uuid.UUID(case["text"])
    assert d.id == str(u)
    if u.variant == uuid.RFC_4122:
        assert d.version == u.version
    if d.version == 1:
        gregorian = u.time  # 100 ns since 1582-10-15
        assert d.timestamp == gregorian
        assert d.timestamp_ms == (gregorian - 0x01B21DD213814000) // 10_000
        assert d.clock_seq == u.clock_seq and int(d.node, 16) == u.node


@pytest.mark.parametrize("case", decode_cases("ulid"), ids=ids(decode_cases("ulid")))
def test_ulid_matches_python_ulid(case):
    ulid = pytest.importorskip("ulid")
    u = ulid.ULID.from_str(case["text"].upper())
    d = idmint.parse(case["text"])
    assert d.id == str(u)
    assert d.timestamp_ms == u.milliseconds
    assert d.random == u.bytes[6:].hex()


@pytest.mark.parametrize("case", decode_cases("ksuid"), ids=ids(decode_cases("ksuid")))
def test_ksuid_matches_a_ksuid_library(case):
    cyksuid = pytest.importorskip("cyksuid.v2")
    k = cyksuid.parse(case["text"])
    d = idmint.parse(case["text"])
    assert d.payload == k.payload.hex()
    assert d.timestamp_ms == int(k.timestamp) * 1000
    assert d.time == k.datetime

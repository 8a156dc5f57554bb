"""Every case of tests/vectors/ (shared with the Rust, Node and JVM tests)."""

from datetime import datetime, timezone

import bson
import pytest

import idmint

from conftest import OBJECTID, SNOWFLAKE

# Written out here, not taken from idmint, so the test checks the package's own table.
CLASS_OF_KIND = {
    "invalid_layout": idmint.InvalidLayout,
    "value_out_of_range": idmint.ValueOutOfRange,
    "unknown_field": idmint.UnknownField,
    "missing_field": idmint.MissingField,
    "time_out_of_range": idmint.TimeOutOfRange,
    "epoch_in_future": idmint.EpochInFuture,
    "layout_exhausted": idmint.LayoutExhausted,
    "clock_moved_backwards": idmint.ClockMovedBackwards,
    "invalid_id": idmint.InvalidId,
    "invalid_object_id": idmint.InvalidObjectId,
    "invalid_argument": idmint.InvalidArgument,
}


def rfc3339(text: str) -> datetime:
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert dt.tzinfo is not None
    return dt


def ids(cases):
    return [c.get("name", c.get("hex", c.get("layout"))) for c in cases]


@pytest.mark.parametrize("case", SNOWFLAKE["valid"], ids=ids(SNOWFLAKE["valid"]))
def test_valid_decompose(case):
    layout = idmint.Layout(case["layout"])
    for given in (int(case["id"]), case["id"]):
        for parts in (layout.decompose(given), idmint.parse(given, case["layout"]), idmint.parse(given, layout)):
            assert parts.timestamp_ms == case["time_ms"]
            assert parts.time == rfc3339(case["time"])
            assert parts.time.utcoffset().total_seconds() == 0
            if isinstance(parts, idmint.Decoded):
                # idmint.parse: every part, the sequence last, in layout order
                assert (parts.format, parts.value) == ("snowflake", int(case["id"]))
                assert list(parts.parts.items()) == [*case["fields"].items(), ("sequence", case["sequence"])]
                assert list(parts.fields.items()) == list(case["fields"].items())
            else:
                assert parts.fields == case["fields"]
                assert list(parts.fields) == list(case["fields"])  # layout order
            assert parts.sequence == case["sequence"]
            for name, value in case["fields"].items():
                assert getattr(parts, name) == value
            d = parts.asdict()
            assert d["timestamp_ms"] == case["time_ms"] and d["sequence"] == case["sequence"]
            assert d["time"] == rfc3339(case["time"])
            assert {k: d[k] for k in case["fields"]} == case["fields"]


@pytest.mark.parametrize("case", SNOWFLAKE["valid"], ids=ids(SNOWFLAKE["valid"]))
def test_valid_compose(case):
    layout = idmint.Layout(case["layout"])
    expected = int(case["id"])
    assert layout.compose(case["time_ms"], sequence=case["sequence"], **case["fields"]) == expected
    assert layout.compose(case["time_ms"], sequence=case["sequence"], fields=case["fields"]) == expected
    assert layout.compose(rfc3339(case["time"]), sequence=case["sequence"], **case["fields"]) == expected
    assert layout.compose(case["time"], sequence=case["sequence"], **case["fields"]) == expected
    assert layout.compose(str(case["time_ms"]), sequence=case["sequence"], **case["fields"]) == expected


@pytest.mark.parametrize("case", SNOWFLAKE["invalid_ids"], ids=ids(SNOWFLAKE["invalid_ids"]))
def test_invalid_ids(case):
    assert case["error"] == "invalid_id"
    layout = idmint.Layout(case["layout"])
    givens = [case["id"]]
    try:
        givens.append(int(case["id"]))  # the same value as a Python int, where it is one
    except ValueError:
        pass
    for given in givens:
        for call in (lambda: layout.decompose(given), lambda: idmint.parse(given, case["layout"])):
            with pytest.raises(idmint.InvalidId) as info:
                call()
            assert isinstance(info.value, ValueError)
            assert info.value.kind == "invalid_id"
            assert "invalid id" in str(info.value)


@pytest.mark.parametrize("case", SNOWFLAKE["invalid_parts"], ids=ids(SNOWFLAKE["invalid_parts"]))
def test_invalid_parts(case):
    layout = idmint.Layout(case["layout"])
    parts = case["parts"]
    cls = CLASS_OF_KIND[case["error"]]
    with pytest.raises(cls) as info:
        layout.compose(parts["time_ms"], sequence=parts["sequence"], fields=parts["fields"])
    assert info.value.kind == case["error"]
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("case", SNOWFLAKE["invalid_layouts"], ids=ids(SNOWFLAKE["invalid_layouts"]))
def test_invalid_layouts(case):
    assert case["error"] == "invalid_layout"
    for call in (
        lambda: idmint.Layout(case["layout"]),
        lambda: idmint.Snowflake(case["layout"]),
        lambda: idmint.parse(0, case["layout"]),
    ):
        with pytest.raises(idmint.InvalidLayout) as info:
            call()
        assert info.value.kind == "invalid_layout"
        assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("case", SNOWFLAKE["exhausts_at"], ids=ids(SNOWFLAKE["exhausts_at"]))
def test_exhausts_at(case):
    layout = idmint.Layout(case["layout"])
    assert layout.exhausts_at_ms == case["exhausts_at_ms"]
    assert layout.exhausts_at == rfc3339(case["exhausts_at"])


@pytest.mark.parametrize("case", OBJECTID["valid"], ids=ids(OBJECTID["valid"]))
def test_objectid_valid(case):
    for oid in (
        idmint.ObjectId(case["hex"]),
        idmint.ObjectId.from_hex(case["hex"]),
        idmint.ObjectId(bytes.fromhex(case["hex"])),
        idmint.ObjectId.from_parts(case["time_s"], bytes.fromhex(case["random"]), case["counter"]),
    ):
        assert str(oid) == case["hex"] == oid.hex
        assert bytes(oid) == bytes.fromhex(case["hex"])
        assert oid.timestamp == case["time_s"]
        assert oid.generation_time == rfc3339(case["time"])
        assert oid.random == bytes.fromhex(case["random"])
        assert oid.counter == case["counter"]
        theirs = bson.ObjectId(str(oid))
        assert theirs.binary == bytes(oid)
        assert theirs.generation_time == oid.generation_time
        assert idmint.ObjectId(str(theirs)) == oid


@pytest.mark.parametrize("case", OBJECTID["uppercase_input"], ids=ids(OBJECTID["uppercase_input"]))
def test_objectid_uppercase(case):
    assert str(idmint.ObjectId(case["hex"])) == case["canonical"]
    assert str(idmint.ObjectId.from_hex(case["hex"])) == case["canonical"]


@pytest.mark.parametrize("case", OBJECTID["invalid"], ids=ids(OBJECTID["invalid"]))
def test_objectid_invalid(case):
    assert case["error"] == "invalid_object_id"
    for call in (lambda: idmint.ObjectId(case["hex"]), lambda: idmint.ObjectId.from_hex(case["hex"])):
        with pytest.raises(idmint.InvalidObjectId) as info:
            call()
        assert info.value.kind == "invalid_object_id"
        assert isinstance(info.value, ValueError)
    assert not idmint.ObjectId.is_valid(case["hex"])
    # pymongo agrees
    assert not bson.ObjectId.is_valid(case["hex"])


def test_vectors_are_not_empty():
    assert len(SNOWFLAKE["valid"]) > 10 and len(SNOWFLAKE["invalid_layouts"]) > 10
    assert len(OBJECTID["valid"]) > 3
    assert {c["layout"] for c in SNOWFLAKE["exhausts_at"]} == set(idmint.PRESETS)
    assert datetime(2000, 1, 1, tzinfo=timezone.utc)  # keeps the import honest

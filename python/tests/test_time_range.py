"""Layout.min_id_at / max_id_at, the bounds of a time-range query on an ID column: every case
of tests/vectors/time_range.json (shared with the other languages and the PostgreSQL tests)."""

from datetime import datetime, timezone

import pytest

import idmint

from conftest import load

TIME_RANGE = load("time_range.json")


def names(cases):
    return [c["name"] for c in cases]


@pytest.mark.parametrize("case", TIME_RANGE["valid"], ids=names(TIME_RANGE["valid"]))
def test_the_ticks_first_and_last_id_as_core_computes_them(case):
    layout = idmint.Layout(case["layout"])
    lo, hi = layout.min_id_at(case["time_ms"]), layout.max_id_at(case["time_ms"])
    assert (lo, hi) == (int(case["min_id"]), int(case["max_id"]))
    # Every form of a time names the same tick.
    at = datetime.fromtimestamp(case["time_ms"] / 1000, tz=timezone.utc)
    if at.microsecond % 1000 == 0:
        assert layout.min_id_at(at) == lo
    assert layout.max_id_at(case["time"]) == hi
    # The bounds are that tick's, and the ID below the first is the tick before's.
    assert layout.decompose(lo).timestamp_ms == case["tick_ms"]
    assert layout.decompose(hi).timestamp_ms == case["tick_ms"]
    if lo > 0:
        assert layout.decompose(lo - 1).timestamp_ms < case["tick_ms"]


@pytest.mark.parametrize("case", TIME_RANGE["invalid"], ids=names(TIME_RANGE["invalid"]))
def test_a_time_outside_the_layout_is_refused_naming_the_range(case):
    layout = idmint.Layout(case["layout"])
    for bound in (layout.min_id_at, layout.max_id_at):
        with pytest.raises(idmint.Error) as e:
            bound(case["time_ms"])
        assert e.value.kind == case["error"]
        assert isinstance(e.value, idmint.TimeOutOfRange)
        msg = str(e.value)
        assert str(case["time_ms"]) in msg and f"{case['min_ms']}..{case['end_ms']}" in msg, msg


def test_a_time_that_is_no_time_is_a_typed_error():
    layout = idmint.Layout("twitter")
    with pytest.raises(idmint.Error) as e:
        layout.min_id_at("yesterday")
    assert e.value.kind == "invalid_argument"
    with pytest.raises(TypeError):
        layout.max_id_at(1.5)

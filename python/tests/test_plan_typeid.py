"""The planner, the migration check, TypeIDs and start_above: every case of
tests/vectors/plan.json, typeid.json and start_above.json (shared with the other languages)."""

import uuid
from datetime import datetime, timezone

import pytest

import idmint

from conftest import load

PLAN = load("plan.json")
TYPEID = load("typeid.json")
START_ABOVE = load("start_above.json")


def names(cases):
    return [c["name"] for c in cases]


@pytest.mark.parametrize("case", PLAN["valid"], ids=names(PLAN["valid"]))
def test_plan_meets_each_need_as_the_oracle_does(case):
    n = case["need"]
    got = idmint.plan(n["nodes"], n["rate"], n["years"], start=n["start_ms"], width=n["width"])
    assert [
        {
            "spec": p.spec, "tick_ms": p.tick_ms, "time_bits": p.time_bits,
            "node_bits": p.node_bits, "sequence_bits": p.sequence_bits, "nodes": p.nodes,
            "cap_per_second": p.cap_per_second, "end_ms": p.end_ms, "end": p.end_text,
            "beyond_2_53_ms": p.beyond_2_53_ms,
        }
        for p in got
    ] == case["layouts"]
    for p in got:
        assert p.layout.spec == p.spec
        assert p.end == datetime.fromisoformat(p.end_text.replace("Z", "+00:00"))
        assert (p.beyond_2_53 is None) == (p.beyond_2_53_ms is None)


@pytest.mark.parametrize("case", PLAN["impossible"], ids=names(PLAN["impossible"]))
def test_plan_refuses_an_impossible_need_with_the_arithmetic(case):
    n = case["need"]
    with pytest.raises(idmint.InvalidArgument) as e:
        idmint.plan(n["nodes"], n["rate"], n["years"], start=n["start_ms"], width=n["width"])
    assert e.value.kind == case["error"]
    assert f"= {case['bound_bits']} bits" in str(e.value)


def test_plan_reads_rates_as_text_and_refuses_bad_arguments():
    assert idmint.plan(1024, "4M/s", 69, start="2010-11-04T01:42:54.657Z")[0].spec == (
        "time:41@1ms,worker:10,sequence:12,epoch=1288834974657")
    with pytest.raises(idmint.InvalidArgument, match="bigint"):
        idmint.plan(1, 1, 1, width="53")
    with pytest.raises(idmint.InvalidArgument, match="nodes"):
        idmint.plan(0, 1, 1)
    with pytest.raises(idmint.InvalidArgument, match="rate"):
        idmint.plan(1, "1.5", 1)


def test_plan_starts_today_by_default():
    # today, 00:00 UTC (read before and after, in case the call crosses midnight)
    day = 86_400_000
    before = int(datetime.now(timezone.utc).timestamp() * 1000) // day * day
    epoch = int(idmint.plan(1, 1, 1)[0].spec.rsplit("epoch=", 1)[1])
    after = int(datetime.now(timezone.utc).timestamp() * 1000) // day * day
    assert epoch in (before, after)


def test_check_migration_names_when_a_later_epoch_becomes_safe():
    later = "time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z"
    m = idmint.check_migration("twitter", later, above=1541815603606036480, at="2026-01-01T00:00:00Z")
    assert not m and not m.safe
    assert m.safe_from_ms == 2071664685449
    assert m.safe_from == datetime.fromisoformat("2035-08-25T14:24:45.449+00:00")
    wider = "time:38@1ms,worker:12,sequence:13,epoch=1700000000000"
    assert idmint.check_migration("twitter", wider, at=1767225600000)


@pytest.mark.parametrize("case", TYPEID["valid"], ids=names(TYPEID["valid"]))
def test_typeid_valid_vectors_round_trip(case):
    t = idmint.TypeId(case["typeid"])
    assert (t.prefix, str(t.uuid)) == (case["prefix"], case["uuid"])
    assert str(t) == case["typeid"]
    assert idmint.TypeId.from_uuid(case["prefix"], uuid.UUID(case["uuid"])) == t
    assert idmint.TypeId.from_uuid(case["prefix"], case["uuid"]) == t


@pytest.mark.parametrize("case", TYPEID["invalid"], ids=names(TYPEID["invalid"]))
def test_typeid_invalid_vectors_are_refused(case):
    assert case["error"] == "invalid_id"
    with pytest.raises(idmint.InvalidId) as e:
        idmint.TypeId(case["typeid"])
    assert e.value.kind == "invalid_id"


def test_typeid_generator_mints_increasing_typeids_of_its_prefix():
    clock = idmint.ManualClock(0x01890A5DAC96)
    gen = idmint.TypeIdGenerator("user", clock=clock)
    a, b = gen.next_typeid(), gen.next_typeid()
    assert a < b and a.prefix == "user" and str(a).startswith("user_01h455vb4p")
    assert a.time == datetime.fromtimestamp(0x01890A5DAC96 / 1000, timezone.utc)
    many = gen.next_ids(100)
    assert many == sorted(many) and len(set(many)) == 100
    assert idmint.TypeIdGenerator("").next()[0] in "01234567"
    with pytest.raises(idmint.InvalidArgument, match="prefix"):
        idmint.TypeIdGenerator("User")


@pytest.mark.parametrize("case", START_ABOVE["cases"], ids=names(START_ABOVE["cases"]))
def test_start_above_starts_above_or_refuses_naming_when(case):
    clock = idmint.ManualClock(case["clock_ms"])
    make = lambda: idmint.Snowflake(  # noqa: E731
        case["layout"], nodes=case["nodes"], start_above=int(case["above"]),
        on_rollback=case["on_rollback"], clock=clock)
    if "first_id" in case:
        gen = make()
        first = gen.next_id()
        assert first == int(case["first_id"])
        assert first > int(case["above"]) and gen.next_id() > first
    else:
        with pytest.raises(idmint.InvalidArgument) as e:
            make()
        assert e.value.kind == case["error"]
        assert case["above"] in str(e.value)
        assert (case["from"] or "never pass it") in str(e.value)


def test_start_above_refuses_what_is_no_id():
    with pytest.raises(idmint.InvalidId):
        idmint.Snowflake("twitter", datacenter=0, worker=0, start_above=-1)
    with pytest.raises(idmint.InvalidId):
        idmint.Snowflake("twitter", datacenter=0, worker=0, start_above=2**64)

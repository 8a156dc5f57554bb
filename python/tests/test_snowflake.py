import pickle
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

import idmint

UTC = timezone.utc


def test_issue_example_runs_in_a_fresh_interpreter(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", "import idmint; print(idmint.Snowflake(datacenter=0, worker=1).next_id())"],
        check=True,
        cwd=tmp_path,  # not python/, whose idmint/ has no compiled module
        capture_output=True,
        text=True,
    ).stdout
    parts = idmint.parse(int(out), "twitter")
    assert (parts.datacenter, parts.worker) == (0, 1)


def test_a_missing_node_field_is_an_error():
    # Node values come from the fields given, random_nodes=True or a lease; never a silent 0.
    with pytest.raises(idmint.MissingField, match="datacenter"):
        idmint.Snowflake(worker=7)
    with pytest.raises(idmint.MissingField):
        idmint.Snowflake()
    gen = idmint.Snowflake(datacenter=0, worker=7)
    assert gen.nodes == {"datacenter": 0, "worker": 7}
    parts = gen.parse(gen.next_id())
    assert (parts.datacenter, parts.worker, parts.sequence) == (0, 7, 0)


def test_random_nodes_only_fill_what_is_not_given():
    seen = set()
    for _ in range(20):
        gen = idmint.Snowflake(datacenter=3, random_nodes=True)
        assert gen.nodes["datacenter"] == 3
        assert 0 <= gen.nodes["worker"] <= 31
        seen.add(gen.nodes["worker"])
    assert len(seen) > 1  # 20 draws of 32 values all equal: 1 in 32^19


def test_nodes_mapping_and_keywords():
    gen = idmint.Snowflake("time:41,clock:10,sequence:12", nodes={"clock": 5})
    assert gen.nodes == {"clock": 5}
    assert idmint.Snowflake(nodes={"worker": 1}, datacenter=0, worker=2).nodes["worker"] == 2


def test_ids_increase_and_decompose():
    gen = idmint.Snowflake("sonyflake", machine=513)
    a = gen.next_id()
    batch = gen.next_ids(10_000)
    b = gen.next_id()
    assert isinstance(a, int) and isinstance(batch, list) and len(batch) == 10_000
    seq = [a, *batch, b]
    assert all(x < y for x, y in zip(seq, seq[1:]))
    assert all(gen.parse(i).machine == 513 for i in (a, b, batch[0], batch[-1]))
    assert gen.next_ids(0) == []
    assert gen.stats.issued == 10_002


def test_parse_gives_a_frozen_parts():
    gen = idmint.Snowflake(datacenter=2, worker=3)
    parts = gen.parse(gen.next_id())
    assert parts.time.tzinfo is not None and parts.time.utcoffset() == timedelta(0)
    assert parts.time == datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=parts.timestamp_ms)
    assert list(parts.asdict()) == ["time", "timestamp_ms", "datacenter", "worker", "sequence"]
    with pytest.raises(AttributeError):
        parts.sequence = 5
    with pytest.raises(AttributeError):
        parts.worker = 5
    with pytest.raises(AttributeError):
        parts.shard
    same = gen.parse(str(gen.compose(parts.time, sequence=parts.sequence)))
    assert same == parts and hash(same) == hash(parts)
    assert idmint.parse(str(gen.compose(parts.time, sequence=parts.sequence)), "twitter").parts == {
        **parts.fields,
        "sequence": parts.sequence,
    }
    assert "worker=3" in repr(parts)


def test_compose_defaults_to_the_generators_nodes():
    gen = idmint.Snowflake(datacenter=4, worker=9)
    t = datetime(2024, 5, 1, 12, 0, 0, 123000, tzinfo=UTC)
    i = gen.compose(t, sequence=7)
    p = gen.parse(i)
    assert (p.time, p.datacenter, p.worker, p.sequence) == (t, 4, 9, 7)
    assert gen.parse(gen.compose(t, worker=1)).worker == 1
    # a time between two ticks is floored to its tick
    assert idmint.Layout("sonyflake").compose(t + timedelta(milliseconds=5), machine=1) == idmint.Layout(
        "sonyflake"
    ).compose(t, machine=1)


@pytest.mark.parametrize(
    "epoch",
    [1_700_000_000_000, "1700000000000", "2023-11-14T22:13:20Z", datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC),
     datetime(2023, 11, 15, 0, 13, 20, tzinfo=timezone(timedelta(hours=2)))],
)
def test_epoch_forms(epoch):
    assert idmint.Layout("twitter", epoch=epoch).epoch_ms == 1_700_000_000_000
    gen = idmint.Snowflake(epoch=epoch, datacenter=0, worker=1)
    assert gen.layout.epoch_ms == 1_700_000_000_000
    assert gen.layout.epoch == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert gen.layout.preset is None  # a preset given a new epoch is no longer that preset
    i = gen.next_id()
    assert idmint.parse(i, epoch=epoch).timestamp_ms == gen.parse(i).timestamp_ms
    assert idmint.parse(i, epoch=epoch) == idmint.parse(i, gen.layout)
    assert idmint.parse(i, gen.layout).parts == {**gen.parse(i).fields, "sequence": gen.parse(i).sequence}


def test_layout_objects():
    twitter = idmint.Layout()
    assert twitter == idmint.Layout("twitter") and hash(twitter) == hash(idmint.Layout("twitter"))
    assert twitter.preset == "twitter"
    assert twitter.spec == str(twitter) == "time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657"
    assert [(f.name, f.bits, f.shift, f.kind, f.max) for f in twitter.fields] == [
        ("datacenter", 5, 17, "node", 31),
        ("worker", 5, 12, "node", 31),
        ("sequence", 12, 0, "sequence", 4095),
    ]
    assert twitter.node_fields == ["datacenter", "worker"]
    assert (twitter.time_bits, twitter.tick_ms, twitter.total_bits) == (41, 1, 63)
    assert twitter.max_id == 2**63 - 1
    assert twitter.ids_per_second_cap == 4_096_000.0
    custom = idmint.Layout("time:40@10ms,sequence:8,region:3,machine:12,epoch=2024-01-01T00:00:00Z")
    assert custom.epoch == datetime(2024, 1, 1, tzinfo=UTC)
    assert custom != twitter
    assert idmint.Layout(custom) == custom
    assert custom.with_epoch(0).epoch_ms == 0
    for lay in (twitter, custom, custom.with_epoch("2025-01-01T00:00:00Z")):
        assert pickle.loads(pickle.dumps(lay)) == lay
    assert repr(twitter) == "Layout('twitter')" or repr(twitter) == 'Layout("twitter")'
    gen = idmint.Snowflake(custom, region=1, machine=2)
    assert gen.layout == custom
    assert "region=1" in repr(gen)


def test_on_exhausted_wait_and_borrow():
    spec = "time:41,worker:10,sequence:2"  # 4 IDs per ms
    clock = idmint.ManualClock(1_700_000_000_000)
    waiting = idmint.Snowflake(spec, clock=clock, worker=1)
    ids = waiting.next_ids(12)
    assert [waiting.parse(i).timestamp_ms for i in ids] == [1_700_000_000_000 + k // 4 for k in range(12)]
    assert clock.slept_ms == 2 and waiting.stats.waits >= 1

    clock2 = idmint.ManualClock(1_700_000_000_000)
    borrowing = idmint.Snowflake(spec, clock=clock2, worker=1, on_exhausted="borrow:10")
    assert borrowing.on_exhausted == "borrow:10"
    ids = [borrowing.next_id() for _ in range(12)]
    assert clock2.slept_ms == 0
    assert borrowing.stats.lead_ms == 2 and borrowing.stats.max_lead_ms == 2
    assert all(x < y for x, y in zip(ids, ids[1:]))


def test_on_rollback_policies():
    start = 1_700_000_000_000
    clock = idmint.ManualClock(start)
    erroring = idmint.Snowflake(clock=clock, datacenter=0, worker=1)
    assert erroring.on_rollback == "error"
    erroring.next_id()
    clock.set(start - 50)
    with pytest.raises(idmint.ClockMovedBackwards):
        erroring.next_id()
    assert erroring.stats.rollbacks == 1

    clock = idmint.ManualClock(start)
    waiting = idmint.Snowflake(clock=clock, datacenter=0, worker=1, on_rollback="wait:100")
    a = waiting.next_id()
    clock.set(start - 50)
    b = waiting.next_id()  # the manual clock "sleeps" forward
    assert b > a and clock.slept_ms == 50
    clock.set(start - 500)
    with pytest.raises(idmint.ClockMovedBackwards):
        waiting.next_id()

    clock = idmint.ManualClock(start)
    going_on = idmint.Snowflake(clock=clock, datacenter=0, worker=1, on_rollback="continue")
    a = going_on.next_id()
    clock.set(start - 1_000)
    b = going_on.next_id()
    assert b > a and going_on.parse(b).timestamp_ms == start


def test_clocks():
    assert idmint.Snowflake(random_nodes=True).clock == "monotonic"
    assert idmint.Snowflake(clock="monotonic", random_nodes=True).clock == "monotonic"
    wall = idmint.Snowflake(clock="wall", datacenter=0, worker=1)
    assert wall.clock == "wall" and wall.parse(wall.next_id()).worker == 1
    manual = idmint.ManualClock(datetime(2024, 1, 1, tzinfo=UTC))
    assert manual.now_ms == 1_704_067_200_000
    manual.advance(5)
    manual.set("2024-01-01T00:00:01Z")
    assert manual.now_ms == 1_704_067_201_000
    gen = idmint.Snowflake(clock=manual, random_nodes=True)
    assert gen.clock == "manual"
    assert gen.parse(gen.next_id()).time == datetime(2024, 1, 1, 0, 0, 1, tzinfo=UTC)


def test_stats_object():
    gen = idmint.Snowflake(random_nodes=True)
    gen.next_ids(5)
    s = gen.stats
    assert s.asdict() == {"issued": 5, "waits": s.waits, "rollbacks": 0, "lead_ms": s.lead_ms, "max_lead_ms": s.max_lead_ms}
    assert "issued=5" in repr(s)
    with pytest.raises(AttributeError):
        s.issued = 1


def test_generator_is_frozen():
    gen = idmint.Snowflake(random_nodes=True)
    with pytest.raises(AttributeError):
        gen.layout = idmint.Layout("sonyflake")
    with pytest.raises(AttributeError):
        gen.anything = 1

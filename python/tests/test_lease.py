"""Worker leases from Python: 16 generators in 4 processes share a range of 8 values on a real
store (SQLite, PostgreSQL, etcd, ZooKeeper); exactly 8 lease, the other 8 get NoFreeLease, and
the 8 mint 2M IDs without a duplicate. On each store a held lease is renewed, and released on
close(), on leaving a `with` block and on garbage collection, and the next holder starts above
the fence the last one left."""

import gc
import json
import multiprocessing
import time
from pathlib import Path

import pytest

import idmint
from conftest import server_url, unique_tag
from lease_worker import run

PROCESSES, PER_PROCESS, RANGE = 4, 4, 8
TOTAL = 2_000_000


# The lease stores each test runs on: SQLite needs no server, the others come from tests/run.sh.
STORES = ["sqlite", "postgres", "etcd", "zk"]


def lease_url(kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'leases.db'}"
    # A table (SQL) or key prefix (etcd, ZooKeeper) of its own per run: the servers keep their
    # data between runs.
    name = unique_tag("leases").replace("-", "_")
    option = "table" if kind == "postgres" else "prefix"
    return f"{server_url(kind)}?{option}={name}"


@pytest.mark.parametrize("kind", STORES)
def test_sixteen_generators_eight_values(kind, tmp_path):
    url = lease_url(kind, tmp_path)
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(PROCESSES)
    outs = [str(tmp_path / f"lease-{i}.json") for i in range(PROCESSES)]
    per_generator = TOTAL // RANGE
    procs = [
        ctx.Process(target=run, args=(url, PER_PROCESS, per_generator, out, barrier)) for out in outs
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
        assert p.exitcode == 0
    results = [json.loads(Path(o).read_text(encoding="utf-8")) for o in outs]
    leased = [v for r in results for v in r["leased"]]
    refused = [k for r in results for k in r["refused"]]
    assert sorted(leased) == list(range(RANGE))
    assert refused == ["no_free_lease"] * (PROCESSES * PER_PROCESS - RANGE)
    ids = [i for r in results for i in r["ids"]]
    assert len(ids) == TOTAL
    assert len(set(ids)) == TOTAL, f"{TOTAL - len(set(ids))} duplicates"


def held(url: str) -> list[int]:
    return [i.value for i in idmint.lease_list(url) if i.state == "held"]


@pytest.mark.parametrize("kind", STORES)
def test_release_on_close_context_exit_and_gc(kind, tmp_path):
    url = lease_url(kind, tmp_path)
    one = dict(lease=url, lease_range=(3, 3))
    gen = idmint.Snowflake(**one, lease_holder="first")
    info = idmint.lease_list(url)
    assert [(i.value, i.state, i.holder) for i in info] == [(3, "held", "first")]
    assert isinstance(info[0], idmint.LeaseInfo) and info[0].expires_in_ms > 0
    assert info[0].asdict()["value"] == 3 and "held" in repr(info[0])
    with pytest.raises(idmint.NoFreeLease):
        idmint.Snowflake(**one)
    assert gen.nodes == {"datacenter": 0, "worker": 3}
    last = gen.next_id()
    gen.close()
    assert held(url) == [] and gen.closed
    with pytest.raises(idmint.Closed):
        gen.next_id()
    with pytest.raises(idmint.Closed):
        gen.nodes

    with idmint.Snowflake(**one) as again:
        assert again.next_id() > last  # the fence the first holder left
        assert held(url) == [3]
    assert held(url) == []

    dropped = idmint.Snowflake(**one)
    assert held(url) == [3]
    del dropped
    gc.collect()
    assert held(url) == []


@pytest.mark.parametrize("kind", STORES)
def test_a_held_lease_is_renewed(kind, tmp_path):
    # Without renewals a lease's expires_in_ms only falls; the background renewal (every TTL/3)
    # moves its end forward, seen as a reading above the one before. The verdict waits on that
    # event, not on a clock: a lease left unrenewed lapses and fails the state check first.
    url = lease_url(kind, tmp_path)
    with idmint.Snowflake(lease=url, lease_range=(2, 2), lease_holder="renewed") as gen:
        before = None
        deadline = time.monotonic() + 120
        while True:
            (info,) = idmint.lease_list(url)
            assert (info.value, info.state, info.holder) == (2, "held", "renewed")
            if before is not None and info.expires_in_ms > before:
                break
            assert time.monotonic() < deadline, f"no renewal seen: {info!r}"
            before = info.expires_in_ms
            time.sleep(0.05)
        assert gen.next_id() > 0


def test_lease_options_are_checked(tmp_path):
    url = f"sqlite:{tmp_path / 'leases.db'}"
    with pytest.raises(idmint.InvalidArgument, match="first <= last <= 1023"):
        idmint.Snowflake(lease=url, lease_range=(0, 1024))
    with pytest.raises(idmint.InvalidArgument, match="`lease range` = -1: first <= last"):
        idmint.Snowflake(lease=url, lease_range=(-1, 3))
    with pytest.raises(idmint.InvalidArgument, match=f"`lease range` = {2**64}"):
        idmint.Snowflake(lease=url, lease_range=(0, 2**64))
    with pytest.raises(TypeError, match="lease_range"):
        idmint.Snowflake(lease=url, lease_range=[0, 3])
    with pytest.raises(idmint.InvalidArgument, match="`lease_ttl` = -2"):
        idmint.Snowflake(lease=url, lease_ttl=-2)
    with pytest.raises(idmint.InvalidArgument, match="lease_holder"):
        idmint.Snowflake(datacenter=0, worker=0, lease_holder="x")
    # Node values come from one source only.
    with pytest.raises(idmint.InvalidArgument):
        idmint.Snowflake(lease=url, worker=1, datacenter=0)
    with pytest.raises(idmint.Error):
        idmint.lease_list("ftp://nowhere")


def test_lease_ttl_and_freeze_take_timedeltas(tmp_path):
    from datetime import timedelta

    url = f"sqlite:{tmp_path / 'leases.db'}"
    with idmint.Snowflake(lease=url, lease_ttl=timedelta(seconds=30), lease_freeze=5) as gen:
        info = idmint.lease_list(url, timeout=5)
        assert info[0].expires_in_ms > 20_000
        assert gen.next_id() > 0


def test_high_water_mark_and_resume_after(tmp_path):
    mark = tmp_path / "node.hwm"
    clock = idmint.ManualClock(1_700_000_000_000)
    with idmint.Snowflake(datacenter=1, worker=1, clock=clock, high_water_mark=mark) as gen:
        gen.next_id()
    assert mark.exists()
    clock.set(1_699_999_995_000)  # "restarted" with the clock 5 s behind
    with idmint.Snowflake(datacenter=1, worker=1, clock=clock, high_water_mark=str(mark)) as gen:
        with pytest.raises(idmint.ClockMovedBackwards):
            gen.next_id()

    layout = idmint.Layout("twitter")
    last = layout.compose(1_700_000_005_000, datacenter=1, worker=2, sequence=9)
    clock = idmint.ManualClock(1_700_000_005_000)
    gen = idmint.Snowflake(datacenter=1, worker=2, clock=clock, resume_after=last)
    assert gen.next_id() > last
    with pytest.raises(idmint.InvalidId):
        idmint.Snowflake(datacenter=1, worker=2, resume_after=-1)

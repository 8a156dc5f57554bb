"""``idmint.RedisSnowflake`` against the real Redis of tests/run.sh (``IDMINT_TEST_REDIS_URL``): 4
processes x 4 threads draw 80,000 IDs (0 duplicates, every one of the worker's shard under the
``redis-lua`` layout), bad arguments raise the core's typed errors, close and asyncio."""

import asyncio
from pathlib import Path

import pytest

import idmint
from conftest import server_url, unique_tag
from draw_threads import run_workers

WORKER = Path(__file__).with_name("redis_snowflake_worker.py")
PROCESSES, THREADS, PER_THREAD = 4, 4, 5_000


@pytest.fixture
def url() -> str:
    return server_url("redis")


def shard_of(id: int) -> int:
    return idmint.parse(id, "redis-lua").shard


def test_processes_and_threads_never_share_an_id(url, tmp_path):
    tag = unique_tag("rsf")
    ids = run_workers(WORKER, url, tag, PER_THREAD, THREADS, PROCESSES, tmp_path)
    assert len(ids) == PROCESSES * THREADS * PER_THREAD
    assert len(set(ids)) == len(ids), f"{len(ids) - len(set(ids))} duplicates"
    assert {shard_of(i) for i in ids} == {7}


def test_runs_shards_and_one_round_trip(url):
    with idmint.RedisSnowflake(url, tag=unique_tag("rsf"), shard=53) as gen:
        assert gen.layout.preset == "redis-lua"
        assert gen.servers == [url]
        before = gen.stats["round_trips"]
        run = gen.next_ids(100)
        assert gen.stats["round_trips"] == before + 1
        assert len(run) == 100 and run == sorted(set(run))
        assert {shard_of(i) for i in run} == {53}
        assert shard_of(gen.next_id()) == 53
        user_shard = 123_456_789 % 4096
        assert shard_of(gen.next_id_for(user_shard)) == user_shard
        assert {shard_of(i) for i in gen.next_ids_for(9, 10)} == {9}
    # A list of URLs is the same set as the comma-separated text; any one-node layout.
    with idmint.RedisSnowflake(
        [url], tag=unique_tag("rsf"), layout="time:41,shard:10,sequence:12", batch=10
    ) as gen:
        id = gen.next_id_for(1023)
        assert idmint.parse(id, gen.layout).shard == 1023


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        ({"shard": 4096}, idmint.ValueOutOfRange, "4096"),
        ({"shard": -1}, idmint.ValueOutOfRange, "-1"),
        ({"shard": 2**70}, idmint.ValueOutOfRange, str(2**70)),
        ({"batch": 0}, idmint.InvalidArgument, "batch"),
        ({"batch": -5}, idmint.InvalidArgument, "-5"),
        ({"counter_ttl_secs": 1}, idmint.InvalidArgument, "counter_ttl_secs"),
        ({"resume_after_ms": -1}, idmint.InvalidArgument, "resume_after_ms"),
        ({"tag": "no spaces"}, idmint.InvalidTag, "no spaces"),
        ({"layout": "twitter"}, idmint.InvalidLayout, "exactly one node field"),
        ({"op_timeout": 0}, idmint.InvalidArgument, "op_timeout"),
        ({"op_timeout": "1s"}, TypeError, "op_timeout"),
        ({"shard": "7"}, TypeError, "shard"),
    ],
)
def test_bad_options_are_typed_errors(url, kwargs, error, text):
    with pytest.raises(error, match=text):
        idmint.RedisSnowflake(url, **kwargs)


def test_bad_calls_and_servers_are_typed_errors(url):
    with pytest.raises(idmint.InvalidArgument, match="redis"):
        idmint.RedisSnowflake("")
    with pytest.raises(TypeError, match="urls"):
        idmint.RedisSnowflake(6379)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="urls"):
        idmint.RedisSnowflake([url, 1])  # type: ignore[list-item]
    with pytest.raises(idmint.StoreUnavailable):
        idmint.RedisSnowflake("redis://127.0.0.1:1", op_timeout=0.2, max_wait=0.3)
    with idmint.RedisSnowflake(url, tag=unique_tag("rsf")) as gen:
        with pytest.raises(idmint.MissingField, match="shard"):
            gen.next_id()
        with pytest.raises(idmint.ValueOutOfRange, match="4096"):
            gen.next_id_for(4096)
        with pytest.raises(idmint.ValueOutOfRange, match="-3"):
            gen.next_id_for(-3)
        with pytest.raises(idmint.InvalidArgument, match="k"):
            gen.next_ids_for(1, 0)
        with pytest.raises(idmint.InvalidArgument, match=str(2**64)):
            gen.next_ids_for(1, 2**64)
        with pytest.raises(idmint.ValueOutOfRange, match="-1"):
            gen.next_ids_for(-1, 10)


def test_close(url):
    gen = idmint.RedisSnowflake(url, tag=unique_tag("rsf"), shard=1)
    with gen:
        gen.next_id()
        assert not gen.closed
    assert gen.closed
    with pytest.raises(idmint.Closed):
        gen.next_id()
    with pytest.raises(idmint.Closed):
        gen.next_ids(3)
    gen.close()  # twice is harmless
    assert "closed" in repr(gen)


def test_asyncio(url):
    async def main() -> list[int]:
        gen = await idmint.RedisSnowflake.connect(url, tag=unique_tag("rsf"), shard=2, batch=10)
        async with gen:
            ids = [await gen.next_id_async() for _ in range(25)]
            ids += await gen.next_ids_async(50)
            ids.append(await gen.next_id_for_async(3))
            ids += await gen.next_ids_for_async(4, 5)
        assert gen.closed
        with pytest.raises(idmint.Closed):
            await gen.next_id_async()
        with pytest.raises(idmint.InvalidArgument):
            await idmint.RedisSnowflake.connect(url, batch=0)
        return ids

    ids = asyncio.run(main())
    assert len(set(ids)) == len(ids) == 81
    assert [shard_of(i) for i in ids[-6:]] == [3, 4, 4, 4, 4, 4]

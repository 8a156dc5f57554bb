"""idmint.SegmentClient: the core's segment client from Python, in memory and on SQLite; the
waits on a store made slow (Redis under CLIENT PAUSE) release the GIL and never block asyncio."""

import asyncio
import gc
import socket
import threading
import time
from datetime import timedelta
from urllib.parse import urlparse

import pytest

import idmint
from conftest import server_url, unique_tag


def test_tag_handle_draws_increasing_ids_and_contiguous_runs():
    with idmint.SegmentClient("memory:") as client:
        orders = client.tag("orders")
        a, b = orders.next_id(), orders.next_id()
        assert 1 <= a < b
        run = orders.next_ids(100)
        assert isinstance(run, range) and len(run) == 100 and run.step == 1
        assert run.start > b
        big = orders.next_ids(5_000)  # above the step: straight from the store
        assert len(big) == 5_000 and big.start >= run.stop
        assert orders.next_id() not in big
        assert orders.tag == "orders" and repr(orders) == 'Tag("orders")'
        assert client.store == "memory:" and repr(client) == 'SegmentClient("memory:")'


def test_ids_never_repeat_across_threads():
    with idmint.SegmentClient("memory:", default_step=50) as client:
        tag = client.tag("t")
        out: list[list[int]] = [[] for _ in range(4)]

        def draw(i: int) -> None:
            out[i] = [tag.next_id() for _ in range(20_000)] + list(tag.next_ids(7))

        threads = [threading.Thread(target=draw, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        every = [i for ids in out for i in ids]
        assert len(every) == 4 * 20_007 and len(set(every)) == len(every)


def test_create_tag_with_start_step_and_description(tmp_path):
    url = f"sqlite:{tmp_path / 'ids.db'}"
    with idmint.SegmentClient(url) as client:
        assert client.create_tag("legacy", start=5_000_001, step=10, description="old orders") is True
        assert client.create_tag("legacy", start=1) is False  # existed: unchanged
        legacy = client.tag("legacy")
        assert legacy.next_id() == 5_000_001
        assert legacy.metrics.step >= 10
    # A second client on the same file continues after the ranges the first one took.
    with idmint.SegmentClient(url) as again:
        assert again.tag("legacy").next_id() > 5_000_001


def test_options_and_default_tag(tmp_path):
    url = f"sqlite:{tmp_path / 'ids.db'}"
    with idmint.SegmentClient(url) as first:
        first.create_tag("base", start=100)
    with idmint.SegmentClient(
        url,
        refill_at=10,
        max_step=5_000,
        default_step=20,
        auto_create=False,
        default_tag="base",
        max_wait=timedelta(seconds=2),
        op_timeout=1.5,
    ) as client:
        other = client.tag("other")  # unknown, auto-create off: falls back to the default tag
        assert other.tag == "base" and other.next_id() >= 100
    with idmint.SegmentClient(url, auto_create=False) as strict:
        with pytest.raises(idmint.UnknownTag, match="nope"):
            strict.tag("nope")
        with pytest.raises(LookupError):
            strict.tag("nope")


def test_metrics_are_a_frozen_native_object():
    with idmint.SegmentClient("memory:") as client:
        t = client.tag("b")
        t.next_id()
        client.tag("a").next_id()
        m = t.metrics
        assert isinstance(m, idmint.TagMetrics)
        assert (m.tag, m.refills, m.store_errors, m.last_error) == ("b", 1, 0, None)
        assert m.remaining == m.step - 1
        assert isinstance(m.max_refill_latency, timedelta)
        assert m.mean_refill_latency <= m.max_refill_latency
        d = m.asdict()
        assert d["tag"] == "b" and d["remaining"] == m.remaining and set(d) >= {"last_refill_latency"}
        assert "refills=1" in repr(m)
        with pytest.raises(AttributeError):
            m.remaining = 0
        assert [x.tag for x in client.metrics] == ["a", "b"]


def test_close_stops_everything():
    client = idmint.SegmentClient("memory:")
    tag = client.tag("t")
    tag.next_id()
    client.close()
    client.close()  # harmless
    for call in (tag.next_id, lambda: tag.next_ids(3), lambda: client.tag("t"), lambda: client.create_tag("x")):
        with pytest.raises(idmint.Closed):
            call()
    with idmint.SegmentClient("memory:") as c:
        t = c.tag("t")
    with pytest.raises(idmint.Closed):
        t.next_id()
    # A client dropped without close() goes away with its runtime.
    c = idmint.SegmentClient("memory:")
    c.tag("t").next_id()
    del c
    gc.collect()


@pytest.mark.parametrize(
    "kwargs, kind, text",
    [
        ({"refill_at": 300}, idmint.InvalidArgument, "`refill_at` = 300: a share in percent, 0..=99"),
        ({"refill_at": -1}, idmint.InvalidArgument, "`refill_at` = -1"),
        ({"max_step": 0}, idmint.InvalidArgument, "`max_step` = 0: 1..=1099511627776"),
        ({"default_step": -5}, idmint.InvalidArgument, "`default_step` = -5"),
        ({"default_step": 2**70}, idmint.InvalidArgument, f"`default_step` = {2**70}"),
        ({"max_wait": -1}, idmint.InvalidArgument, "`max_wait` = -1: a duration in seconds"),
        ({"op_timeout": float("nan")}, idmint.InvalidArgument, "`op_timeout` = NaN"),
        ({"max_wait": "1s"}, TypeError, "max_wait must be a datetime.timedelta or seconds"),
        ({"max_step": 1.5}, TypeError, "max_step must be an int"),
        ({"default_tag": "no pe"}, idmint.InvalidTag, "not allowed"),
    ],
)
def test_bad_options_name_the_value(kwargs, kind, text):
    with pytest.raises(kind) as e:
        idmint.SegmentClient("memory:", **kwargs)
    assert text in str(e.value)


def test_bad_arguments_name_the_value():
    with pytest.raises(idmint.InvalidArgument, match="store"):
        idmint.SegmentClient("ftp://example.com")
    with idmint.SegmentClient("memory:") as client:
        with pytest.raises(idmint.InvalidTag, match="not allowed"):
            client.tag("no pe")
        tag = client.tag("t")
        for n in (0, -1, 2**41, 2**80):
            with pytest.raises(idmint.InvalidArgument, match=f"`n` = {n}"):
                tag.next_ids(n)
        with pytest.raises(TypeError):
            tag.next_ids("3")
        with pytest.raises(idmint.InvalidArgument, match="`start` = -1"):
            client.create_tag("x", start=-1)
        with pytest.raises(idmint.InvalidArgument, match="`start` = 0"):
            client.create_tag("x", start=0)
        with pytest.raises(idmint.InvalidArgument, match="`step` = 0"):
            client.create_tag("x", step=0)
        with pytest.raises(idmint.InvalidArgument, match="description"):
            client.create_tag("x", description="d" * 300)


def test_unreachable_store_is_store_unavailable():
    # A port nothing listens on (bound, then closed), a short op timeout.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(idmint.StoreUnavailable) as e:
        idmint.SegmentClient(f"redis://127.0.0.1:{port}", op_timeout=0.5)
    assert isinstance(e.value, ConnectionError)


# ---- asyncio ---------------------------------------------------------------------------------


def test_asyncio_surface():
    async def main() -> list[int]:
        client = await idmint.SegmentClient.connect("memory:", default_step=10)
        async with client:
            assert await client.create_tag_async("a", start=50, step=10) is True
            tag = await client.tag_async("a")
            ids = [await tag.next_id_async() for _ in range(25)]  # crosses refills
            run = await tag.next_ids_async(5)
            big = await tag.next_ids_async(100)  # above the step: in the executor
            assert isinstance(run, range) and len(run) == 5 and len(big) == 100
            with pytest.raises(idmint.InvalidArgument):
                await tag.next_ids_async(0)
            ids += list(run) + list(big)
        with pytest.raises(idmint.Closed):
            await tag.next_id_async()
        with pytest.raises(idmint.InvalidArgument):
            await idmint.SegmentClient.connect("memory:", refill_at=500)
        other = await idmint.SegmentClient.connect("memory:")
        await other.close_async()
        return ids

    ids = asyncio.run(main())
    assert ids[0] == 50 and len(set(ids)) == len(ids) == 130
    assert ids == sorted(ids)


# ---- waits on a slow store -------------------------------------------------------------------


def pause_redis(url: str, ms: int) -> None:
    """CLIENT PAUSE: Redis answers no client for `ms` ms (DEBUG SLEEP is off in Redis 7)."""
    u = urlparse(url)
    with socket.create_connection((u.hostname, u.port or 6379), timeout=5) as s:
        arg = str(ms).encode()
        s.sendall(b"*3\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n$%d\r\n%s\r\n" % (len(arg), arg))
        assert s.recv(64).startswith(b"+OK")


PAUSE_MS = 600


def test_a_wait_on_the_store_releases_the_gil():
    url = server_url("redis")
    with idmint.SegmentClient(url, max_wait=10, op_timeout=10) as client:
        tag = client.tag(unique_tag("gil"))  # loaded, nothing fetched yet: the first ID waits
        pause_redis(url, PAUSE_MS)
        got: list[int] = []
        waiter = threading.Thread(target=lambda: got.append(tag.next_id()))
        waiter.start()
        # Python keeps running while the waiter is in the store call: with the GIL held there,
        # this loop would not get past its first sleep until the pause ended.
        ticks = 0
        while waiter.is_alive():
            time.sleep(0.002)
            ticks += 1
        waiter.join()
        assert got and got[0] >= 1
        assert ticks >= 20, f"only {ticks} ticks while the store was paused {PAUSE_MS} ms"


def test_asyncio_loop_keeps_ticking_while_a_refill_waits():
    url = server_url("redis")

    async def main() -> tuple[int, int]:
        client = await idmint.SegmentClient.connect(url, max_wait=10, op_timeout=10)
        async with client:
            tag = await client.tag_async(unique_tag("aio"))
            pause_redis(url, PAUSE_MS)
            task = asyncio.ensure_future(tag.next_id_async())
            ticks = 0
            while not task.done():
                await asyncio.sleep(0.002)
                ticks += 1
            return await task, ticks

    first, ticks = asyncio.run(main())
    assert first >= 1
    # A call that blocked the loop would be done before the first tick.
    assert ticks >= 20, f"only {ticks} loop ticks while the store was paused {PAUSE_MS} ms"

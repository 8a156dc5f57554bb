"""Sharing generators between threads: no duplicates, order per thread, GIL released in next_ids.

Snowflake, ObjectId, UUIDv7 (one generator, and idmint.uuid7()) and daily order numbers."""

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import idmint

THREADS = 8


def run_threads(work):
    barrier = threading.Barrier(THREADS)

    def task(i):
        barrier.wait()
        return work(i)

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(task, range(THREADS)))


def test_one_snowflake_shared_by_8_threads_has_no_duplicates():
    gen = idmint.Snowflake(datacenter=0, worker=1)

    def work(i):
        out = []
        for k in range(200):
            out.extend(gen.next_ids(50) if (i + k) % 2 else [gen.next_id() for _ in range(50)])
        return out

    results = run_threads(work)
    for ids in results:
        assert all(a < b for a, b in zip(ids, ids[1:])), "a thread saw IDs go backwards"
    every = [i for ids in results for i in ids]
    duplicates = len(every) - len(set(every))
    assert duplicates == 0, f"{duplicates} duplicate IDs across {THREADS} threads"
    assert gen.stats.issued == len(every) == THREADS * 200 * 50


def test_objectids_from_8_threads_have_no_duplicates():
    results = run_threads(lambda i: [idmint.ObjectId() for _ in range(20_000)])
    every = [o for oids in results for o in oids]
    assert len(set(every)) == len(every) == THREADS * 20_000


def test_generators_per_worker_do_not_collide():
    results = run_threads(lambda i: idmint.Snowflake(datacenter=0, worker=i).next_ids(20_000))
    every = [i for ids in results for i in ids]
    assert len(set(every)) == len(every)
    assert {idmint.parse(ids[0], "twitter").worker for ids in results} == set(range(THREADS))


def test_one_uuid7_generator_shared_by_8_threads_has_no_duplicates():
    gen = idmint.Uuid7Generator()

    def work(i):
        out = []
        for k in range(100):
            out.extend(gen.next_uuids(50) if (i + k) % 2 else [gen.next() for _ in range(50)])
        return out

    results = run_threads(work)
    for uuids in results:
        assert all(a < b for a, b in zip(uuids, uuids[1:])), "a thread saw UUIDs go backwards"
    every = [u for uuids in results for u in uuids]
    duplicates = len(every) - len(set(every))
    assert duplicates == 0, f"{duplicates} duplicate UUIDs across {THREADS} threads"
    assert len(every) == THREADS * 100 * 50
    assert all(u.version == 7 for u in every)
    # One generator is strictly increasing across threads: (ms, counter) is never reused.
    assert len({(u.int >> 64) for u in every}) == len(every)


def test_uuid7_from_8_threads_has_no_duplicates():
    results = run_threads(lambda i: [idmint.uuid7() for _ in range(5_000)])
    every = [u for uuids in results for u in uuids]
    assert len(set(every)) == len(every) == THREADS * 5_000
    for uuids in results:
        assert uuids == sorted(uuids)


def test_order_numbers_from_8_threads_have_no_duplicates():
    clock = idmint.ManualClock(1_716_309_000_000)
    orders = idmint.OrderNumbers(idmint.Template("%Y%M%D%6S", tz="+08:00", check="luhn"), clock=clock)
    results = run_threads(lambda i: [orders.next() for _ in range(2_000)])
    every = [n for numbers in results for n in numbers]
    assert len(set(every)) == len(every) == THREADS * 2_000
    template = orders.template
    assert sorted(template.parse(n).sequence for n in every) == list(range(1, THREADS * 2_000 + 1))


def test_next_ids_releases_the_gil():
    """While one thread is inside next_ids (which waits for ticks), another thread runs Python.

    With a long switch interval, a thread holding the GIL is not preempted, so the counter can
    only move during the call if next_ids let go of the GIL.
    """
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        return  # free-threaded: there is no GIL to release
    gen = idmint.Snowflake(datacenter=0, worker=1)
    counter = [0]
    stop = threading.Event()
    started = threading.Event()

    def spin():
        started.set()
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # gives the GIL back, so the main thread is never starved

    old = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    t = threading.Thread(target=spin)
    t.start()
    try:
        started.wait()
        before = counter[0]
        ids = gen.next_ids(400_000)  # at least 98 ms at twitter's 4096 IDs per ms
        after = counter[0]
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)
    assert len(ids) == 400_000
    assert after > before, "another thread could not run while next_ids was minting"

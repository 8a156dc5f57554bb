"""Segment IDs from real stores, across OS processes: 4 processes x 2 threads draw 250k IDs each
from one tag (2M per store) through SQLite, PostgreSQL, MariaDB, Redis (plain and sharded), etcd
and ZooKeeper; the parent collects every ID and counts duplicates."""

from pathlib import Path

import pytest

from conftest import server_url, unique_tag
from draw_threads import run_workers

WORKER = Path(__file__).with_name("segment_worker.py")
PROCESSES, THREADS, PER_THREAD = 4, 2, 250_000


def store_url(kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'segments.db'}"
    if kind == "redis-sharded":
        return server_url("redis") + "?shards=4"
    return server_url(kind)


def draw_in_processes(url: str, tag: str, tmp_path: Path) -> list[int]:
    return run_workers(WORKER, url, tag, PER_THREAD, THREADS, PROCESSES, tmp_path)


@pytest.mark.parametrize("kind", ["sqlite", "postgres", "mysql", "redis", "redis-sharded", "etcd", "zk"])
def test_processes_and_threads_never_share_an_id(kind, tmp_path):
    url = store_url(kind, tmp_path)
    ids = draw_in_processes(url, unique_tag("procs"), tmp_path)
    assert len(ids) == PROCESSES * THREADS * PER_THREAD
    assert len(set(ids)) == len(ids), f"{len(ids) - len(set(ids))} duplicates"
    assert min(ids) >= 1

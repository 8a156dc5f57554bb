"""Segment IDs from real stores, across OS processes: 4 processes x 2 threads draw 250k IDs each
from one tag (2M per store) through SQLite, PostgreSQL, MariaDB and Redis (plain and sharded);
the parent collects every ID and counts duplicates."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import server_url, unique_tag

WORKER = Path(__file__).with_name("segment_worker.py")
PROCESSES, THREADS, PER_THREAD = 4, 2, 250_000


def store_url(kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'segments.db'}"
    if kind == "redis-sharded":
        return server_url("redis") + "?shards=4"
    return server_url(kind)


def draw_in_processes(url: str, tag: str, tmp_path: Path) -> list[int]:
    outs = [tmp_path / f"ids-{i}.txt" for i in range(PROCESSES)]
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), url, tag, str(PER_THREAD), str(THREADS), str(out)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for out in outs
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    ids: list[int] = []
    for out in outs:
        ids.extend(map(int, out.read_text(encoding="ascii").split()))
    return ids


@pytest.mark.parametrize("kind", ["sqlite", "postgres", "mysql", "redis", "redis-sharded"])
def test_processes_and_threads_never_share_an_id(kind, tmp_path):
    url = store_url(kind, tmp_path)
    ids = draw_in_processes(url, unique_tag("procs"), tmp_path)
    assert len(ids) == PROCESSES * THREADS * PER_THREAD
    assert len(set(ids)) == len(ids), f"{len(ids) - len(set(ids))} duplicates"
    assert min(ids) >= 1

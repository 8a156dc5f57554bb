"""Generators built before fork() and used in the parent and the children: no ID the parent
issues comes out of a child too. `os.fork()` and multiprocessing's "fork" start method.

- Snowflake with random nodes: the child draws new node values;
- Snowflake with a lease: the child takes a lease of its own;
- Snowflake with explicit nodes: the child refuses with `Forked`;
- SegmentClient: the child refuses with `Forked`; a client opened in the child works;
- ObjectId and Uuid7Generator: the child mints its own.
"""

import json
import multiprocessing
import os
from pathlib import Path

import pytest

import idmint

N = 300
# 18 random node bits: a child redrawing the parent's values (the documented 2^-bits chance of
# random nodes) is a 1 in 262,144 event; 4 sequence bits keep 300 IDs within ~20 ms.
RANDOM_LAYOUT = "time:41,worker:18,sequence:4"


class Generators:
    def __init__(self, tmp: Path) -> None:
        self.segment_url = f"sqlite:{tmp / 'segments.db'}"
        self.random = idmint.Snowflake(RANDOM_LAYOUT, random_nodes=True)
        self.leased = idmint.Snowflake(lease=f"sqlite:{tmp / 'leases.db'}", lease_range=(0, 7))
        self.explicit = idmint.Snowflake(datacenter=1, worker=1)
        self.client = idmint.SegmentClient(self.segment_url)
        self.tag = self.client.tag("fork")
        self.uuids = idmint.Uuid7Generator()
        # Everything has state before the fork: a buffered range, issued sequence numbers.
        self.mint(10)

    def mint(self, n: int) -> dict[str, list]:
        return {
            "random": [self.random.next_id() for _ in range(n)],
            "leased": [self.leased.next_id() for _ in range(n)],
            "explicit": [self.explicit.next_id() for _ in range(n)],
            "segment": [self.tag.next_id() for _ in range(n)],
            "objectid": [str(idmint.ObjectId()) for _ in range(n)],
            "uuid7": [str(self.uuids.next()) for _ in range(n)],
        }

    def close(self) -> None:
        self.client.close()
        self.leased.close()


def kind_of(call) -> str:
    try:
        call()
    except idmint.Error as e:
        return e.kind
    return "no error"


def child_work(gens: Generators, out: str) -> None:
    """What a child does with the parent's generators; its IDs go to `out` as JSON."""
    result = {
        "random": [gens.random.next_id() for _ in range(N)],
        "leased": [gens.leased.next_id() for _ in range(N)],
        "objectid": [str(idmint.ObjectId()) for _ in range(N)],
        "uuid7": [str(gens.uuids.next()) for _ in range(N)],
        "explicit_error": kind_of(gens.explicit.next_id),
        "segment_error": kind_of(gens.tag.next_id),
        "leased_value": gens.leased.nodes,
    }
    with idmint.SegmentClient(gens.segment_url) as fresh:
        tag = fresh.tag("fork")
        result["segment"] = [tag.next_id() for _ in range(N)]
    Path(out).write_text(json.dumps(result), encoding="utf-8")


def forked_child(gens: Generators, out: str) -> None:
    """multiprocessing target (fork start method: `gens` is the parent's, not a pickled copy)."""
    child_work(gens, out)


def check(parent: dict[str, list], children: list[dict], gens: Generators) -> None:
    for child in children:
        assert child["explicit_error"] == "forked"
        assert child["segment_error"] == "forked"
        assert child["leased_value"] != gens.leased.nodes, "the child took the parent's lease"
    for key in ("random", "leased", "segment", "objectid", "uuid7"):
        every = list(parent[key]) + [i for c in children for i in c[key]]
        assert len(every) == len(parent[key]) + N * len(children)
        assert len(set(every)) == len(every), f"{key}: {len(every) - len(set(every))} duplicates"


def test_os_fork(tmp_path):
    gens = Generators(tmp_path)
    try:
        outs = [str(tmp_path / f"child-{i}.json") for i in range(2)]
        pids = []
        for out in outs:
            pid = os.fork()
            if pid == 0:  # the child: never return into pytest
                code = 1
                try:
                    child_work(gens, out)
                    code = 0
                finally:
                    os._exit(code)
            pids.append(pid)
        parent = gens.mint(N)
        for pid in pids:
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
        children = [json.loads(Path(o).read_text(encoding="utf-8")) for o in outs]
        check(parent, children, gens)
    finally:
        gens.close()


def test_multiprocessing_fork_start_method(tmp_path):
    gens = Generators(tmp_path)
    try:
        ctx = multiprocessing.get_context("fork")
        outs = [str(tmp_path / f"mp-{i}.json") for i in range(2)]
        procs = [ctx.Process(target=forked_child, args=(gens, out)) for out in outs]
        for p in procs:
            p.start()
        parent = gens.mint(N)
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        children = [json.loads(Path(o).read_text(encoding="utf-8")) for o in outs]
        check(parent, children, gens)
    finally:
        gens.close()


def test_the_parent_keeps_working_after_a_fork(tmp_path):
    gens = Generators(tmp_path)
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        ids = gens.mint(5)
        assert all(len(v) == 5 for v in ids.values())
    finally:
        gens.close()


if not hasattr(os, "fork"):
    pytest.skip("no fork() on this platform", allow_module_level=True)

"""idmint against the Python ID libraries people use today, in one process, on one thread.

    pip install ./python pymongo snowflake-id uuid-utils
    python python/bench.py            # add --quick for a short smoke run

Each row is the best of several repeats (the least disturbed by other processes); the ratio
column compares idmint with the baseline named in that row, and the goal column says what the
row is meant to show. Prints a Markdown table and writes it to docs/bench/python.md, with the
date, machine and command on top (IDMINT_BENCH_WRITE=0: print only).
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
import timeit
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

# Run as `python python/bench.py`, this file's folder comes first on sys.path, and its idmint/
# (sources, no compiled module) would hide the installed package.
_HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import idmint  # noqa: E402


@dataclass
class Row:
    operation: str
    ours: float  # per second
    baseline_name: str
    baseline: float | None  # per second
    goal: str
    met: bool | None


def rate(fn, number: int, repeat: int, per_call: int = 1) -> float:
    """Calls (times per_call) per second, best of `repeat` runs of `number` calls."""
    best = min(timeit.Timer(fn).repeat(repeat=repeat, number=number))
    return number * per_call / best


def fmt(per_second: float | None) -> str:
    if per_second is None:
        return "n/a"
    if per_second >= 1e6:
        return f"{per_second / 1e6:.2f} M/s"
    return f"{per_second / 1e3:.0f} k/s"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "CPU model unknown"


def version(dist: str) -> str:
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return f"{dist} (not installed)"


def write_report(lines: list[str], load: tuple[float, ...]) -> None:
    """docs/bench/python.md: the printed table under the date, machine and command of this run."""
    root = _HERE.parent
    path = root / "docs" / "bench" / "python.md"
    script = os.path.relpath(Path(sys.argv[0]).resolve(), root)
    header = [
        "# Python package benchmark",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC",
        f"- machine: {platform.system().lower()} {platform.machine()}, {cpu_model()} × {os.cpu_count()} CPUs, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        f"- runtime: Python {platform.python_version()} ({sys.implementation.name}), idmint {idmint.__version__}, "
        + ", ".join(version(d) for d in ("pymongo", "snowflake-id", "uuid-utils")),
        f"- command: `{shlex.join(['python', script, *sys.argv[1:]])}` (from the repository root)",
        "",
        "Written by the bench; running the command again replaces this file.",
        "",
    ]
    path.write_text("\n".join(header + lines) + "\n")
    print(f"\nwrote {os.path.relpath(path)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations (smoke run, not for numbers)")
    args = ap.parse_args()
    scale = 0.05 if args.quick else 1.0
    repeat = 2 if args.quick else 5

    def n(count: int) -> int:
        return max(1, int(count * scale))

    try:
        import bson
    except ImportError:
        bson = None
    try:
        from snowflake import Snowflake as SfidSnowflake, SnowflakeGenerator
    except ImportError:
        SfidSnowflake = SnowflakeGenerator = None
    try:
        import uuid_utils
    except ImportError:
        uuid_utils = None

    rows: list[Row] = []

    # ObjectId
    ours = rate(idmint.ObjectId, n(1_000_000), repeat)
    theirs = rate(bson.ObjectId, n(300_000), repeat) if bson else None
    ratio = ours / theirs if theirs else None
    rows.append(Row("`ObjectId()`", ours, "pymongo `bson.ObjectId()`", theirs, ">= 3x", ratio >= 3 if ratio else None))

    oid = idmint.ObjectId()
    ours = rate(lambda: str(idmint.ObjectId()), n(500_000), repeat)
    theirs = rate(lambda: str(bson.ObjectId()), n(200_000), repeat) if bson else None
    rows.append(Row("`str(ObjectId())`", ours, "`str(bson.ObjectId())`", theirs, "-", None))

    # Snowflake
    gen = idmint.Snowflake(datacenter=0, worker=1)
    cap = gen.layout.ids_per_second_cap
    ours = rate(gen.next_id, n(4_000_000), repeat)
    theirs = None
    if SnowflakeGenerator:
        sfid = SnowflakeGenerator(1)
        theirs = rate(sfid.__next__, n(1_000_000), repeat)
    rows.append(
        Row(
            "`Snowflake.next_id()` (twitter)",
            ours,
            "snowflake-id `next(SnowflakeGenerator)`",
            theirs,
            f">= 95% of cap {fmt(cap)}: {ours / cap:.1%}",
            ours >= 0.95 * cap,
        )
    )
    ours = rate(lambda: gen.next_ids(1000), n(4_000), repeat, per_call=1000)
    rows.append(
        Row(
            "`Snowflake.next_ids(1000)` (twitter)",
            ours,
            "-",
            None,
            f"at the cap {fmt(cap)}: {ours / cap:.1%}",
            ours >= 0.95 * cap,
        )
    )
    if uuid_utils:
        theirs = rate(uuid_utils.uuid7, n(1_000_000), repeat)
        rows.append(Row("`Snowflake.next_id()` (twitter)", rows[2].ours, "uuid-utils `uuid7()`", theirs, "-", None))

    # Segment IDs from memory against this package's own snowflake, on a layout whose 22-bit
    # sequence (4.2 G IDs/s) never caps it: both rows measure the cost of one call.
    wide = idmint.Snowflake("time:40,worker:1,sequence:22", epoch="2024-01-01T00:00:00Z", worker=0)
    with idmint.SegmentClient("memory:") as client:
        tag = client.tag("bench")
        tag.next_id()
        ours = rate(tag.next_id, n(4_000_000), repeat)
    theirs = rate(wide.next_id, n(4_000_000), repeat)
    ratio = ours / theirs
    rows.append(
        Row(
            "`Tag.next_id()` (segment, `memory:`)",
            ours,
            "idmint `Snowflake.next_id()` (`time:40,worker:1,sequence:22`, epoch 2024)",
            theirs,
            ">= 1x",
            ratio >= 1.0,
        )
    )
    print(f"segment Tag.next_id() / Snowflake.next_id() (22-bit sequence): {ratio:.2f}")

    # parse
    some_id = gen.next_id()
    epoch = gen.layout.epoch_ms
    theirs = rate(lambda: SfidSnowflake.parse(some_id, epoch), n(300_000), repeat) if SfidSnowflake else None
    for label, fn in (
        ("`idmint.parse(id, layout)`", lambda: idmint.parse(some_id, "twitter")),
        ("`Snowflake.parse(id)`", lambda: gen.parse(some_id)),
    ):
        ours = rate(fn, n(1_000_000), repeat)
        ratio = ours / theirs if theirs else None
        rows.append(Row(label, ours, "snowflake-id `Snowflake.parse(id, epoch)`", theirs, ">= 2x", ratio >= 2 if ratio else None))
    p = gen.parse(some_id)
    ours = rate(lambda: gen.parse(some_id).time, n(500_000), repeat)
    theirs = rate(lambda: SfidSnowflake.parse(some_id, epoch).datetime_tz(), n(200_000), repeat) if SfidSnowflake else None
    rows.append(Row("`parse(id).time` (datetime)", ours, "snowflake-id `.parse(id, epoch).datetime_tz()`", theirs, "-", None))
    assert p.worker == 1  # the parse really decoded

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    lines = [
        f"idmint {idmint.__version__} | Python {platform.python_version()} ({sys.implementation.name}) | "
        f"{platform.machine()} | {os.cpu_count()} CPUs | load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        + (" | QUICK RUN" if args.quick else ""),
        "",
        "| operation | idmint | baseline | baseline rate | idmint / baseline | goal | met |",
        "|---|---:|---|---:|---:|---|:-:|",
    ]
    for r in rows:
        ratio = f"{r.ours / r.baseline:.2f}x" if r.baseline else "-"
        met = "-" if r.met is None else ("yes" if r.met else "**no**")
        lines.append(f"| {r.operation} | {fmt(r.ours)} | {r.baseline_name} | {fmt(r.baseline)} | {ratio} | {r.goal} | {met} |")
    print("\n".join(lines))
    if os.environ.get("IDMINT_BENCH_WRITE") != "0":
        write_report(lines, load)
    return 0


if __name__ == "__main__":
    sys.exit(main())

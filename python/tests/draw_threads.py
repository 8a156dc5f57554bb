"""The shape every multi-process uniqueness worker here shares: THREADS threads each draw COUNT
IDs, and the process writes every ID to OUTFILE, one decimal a line. segment_worker.py and
redis_snowflake_worker.py differ only in the generator and the per-thread draw."""

import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable


def draw_in_threads(draw: Callable[[], list[int]], threads: int) -> list[list[int]]:
    """Runs ``draw`` once on each of ``threads`` threads; re-raises the first error."""
    results: list[list[int]] = [[] for _ in range(threads)]
    errors: list[BaseException] = []

    def run(slot: int) -> None:
        try:
            results[slot] = draw()
        except BaseException as e:  # reported by the calling thread
            errors.append(e)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    return results


def write_ids(outfile: str, results: list[list[int]]) -> None:
    with open(outfile, "w", encoding="ascii") as out:
        for ids in results:
            out.write("\n".join(map(str, ids)))
            out.write("\n")


def worker_args(doc: str | None) -> tuple[str, str, int, int, str]:
    """``URL TAG COUNT THREADS OUTFILE`` from the command line, or exit with the usage text."""
    if len(sys.argv) != 6:
        sys.exit(doc)
    url, tag, count, threads, outfile = sys.argv[1:]
    return url, tag, int(count), int(threads), outfile


def run_workers(
    worker: Path, url: str, tag: str, per_thread: int, threads: int, processes: int, tmp: Path
) -> list[int]:
    """Runs ``processes`` copies of the worker script at once and returns every ID they wrote."""
    outs = [tmp / f"ids-{i}.txt" for i in range(processes)]
    procs = [
        subprocess.Popen(
            [sys.executable, str(worker), url, tag, str(per_thread), str(threads), str(out)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for out in outs
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    return [int(x) for out in outs for x in out.read_text(encoding="ascii").split()]

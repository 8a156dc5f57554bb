"""Draws segment IDs from one tag in THREADS threads and writes them to OUTFILE, one decimal ID
a line: ``python segment_worker.py URL TAG COUNT THREADS OUTFILE`` (COUNT IDs per thread).

Used by test_segment_stores.py (4 such processes per store) and by the mixed run of the Python,
Node and Java packages on one PostgreSQL tag. Exits non-zero on any error.
"""

import idmint
from draw_threads import draw_in_threads, worker_args, write_ids


def main(url: str, tag: str, count: int, threads: int, outfile: str) -> None:
    with idmint.SegmentClient(url) as client:
        nxt = client.tag(tag).next_id
        results = draw_in_threads(lambda: [nxt() for _ in range(count)], threads)
    write_ids(outfile, results)


if __name__ == "__main__":
    main(*worker_args(__doc__))

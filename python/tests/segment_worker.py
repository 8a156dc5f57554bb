"""Draws segment IDs from one tag in THREADS threads and writes them to OUTFILE, one decimal ID
a line: ``python segment_worker.py URL TAG COUNT THREADS OUTFILE`` (COUNT IDs per thread).

Used by test_segment_stores.py (4 such processes per store) and by the mixed run of the Python,
Node and Java packages on one PostgreSQL tag. Exits non-zero on any error.
"""

import sys
import threading

import idmint


def main(url: str, tag: str, count: int, threads: int, outfile: str) -> None:
    with idmint.SegmentClient(url) as client:
        handle = client.tag(tag)
        results: list[list[int]] = [[] for _ in range(threads)]
        errors: list[BaseException] = []

        def draw(slot: int) -> None:
            try:
                nxt = handle.next_id
                results[slot] = [nxt() for _ in range(count)]
            except BaseException as e:  # reported by the main thread
                errors.append(e)

        workers = [threading.Thread(target=draw, args=(i,)) for i in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if errors:
            raise errors[0]
    with open(outfile, "w", encoding="ascii") as out:
        for ids in results:
            out.write("\n".join(map(str, ids)))
            out.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    url, tag, count, threads, outfile = sys.argv[1:]
    main(url, tag, int(count), int(threads), outfile)

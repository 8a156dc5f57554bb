"""Draws snowflake IDs minted on Redis (shard 7) in THREADS threads and writes them to OUTFILE, one
decimal ID a line: ``python redis_snowflake_worker.py URL[,URL...] TAG COUNT THREADS OUTFILE``
(COUNT IDs per thread; half by ``next_id``, half by runs of ``next_ids(100)``).

Used by test_redis_snowflake.py (4 such processes). Exits non-zero on any error.
"""

import sys
import threading

import idmint

SHARD = 7


def main(urls: str, tag: str, count: int, threads: int, outfile: str) -> None:
    with idmint.RedisSnowflake(urls, tag=tag, shard=SHARD) as gen:
        results: list[list[int]] = [[] for _ in range(threads)]
        errors: list[BaseException] = []

        def draw(slot: int) -> None:
            try:
                nxt = gen.next_id
                ids = [nxt() for _ in range(count // 2)]
                while len(ids) < count:
                    ids.extend(gen.next_ids(min(100, count - len(ids))))
                results[slot] = ids
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
    urls, tag, count, threads, outfile = sys.argv[1:]
    main(urls, tag, int(count), int(threads), outfile)

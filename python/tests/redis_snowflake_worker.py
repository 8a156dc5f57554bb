"""Draws snowflake IDs minted on Redis (shard 7) in THREADS threads and writes them to OUTFILE, one
decimal ID a line: ``python redis_snowflake_worker.py URL[,URL...] TAG COUNT THREADS OUTFILE``
(COUNT IDs per thread; half by ``next_id``, half by runs of ``next_ids(100)``).

Used by test_redis_snowflake.py (4 such processes). Exits non-zero on any error.
"""

import idmint
from draw_threads import draw_in_threads, worker_args, write_ids

SHARD = 7


def main(urls: str, tag: str, count: int, threads: int, outfile: str) -> None:
    with idmint.RedisSnowflake(urls, tag=tag, shard=SHARD) as gen:

        def draw() -> list[int]:
            nxt = gen.next_id
            ids = [nxt() for _ in range(count // 2)]
            while len(ids) < count:
                ids.extend(gen.next_ids(min(100, count - len(ids))))
            return ids

        results = draw_in_threads(draw, threads)
    write_ids(outfile, results)


if __name__ == "__main__":
    main(*worker_args(__doc__))

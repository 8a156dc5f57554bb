"""The application process of tests/pg.sh: mints with the layout the database mints with,
leasing its node value from the same ``idmint_workers`` table as the database's background
worker, while that database takes inserts with ``DEFAULT idmint_snowflake()``.

    python pg_lease_minter.py URL RANGE COUNT UNTIL_GONE OUTFILE

Leases a value of RANGE (``FIRST..LAST``), mints COUNT IDs, releases (the fence stays in the
row), and again, while the file UNTIL_GONE exists (at least twice). Writes every ID to OUTFILE,
one decimal a line, and the number of rounds to stdout."""

import os
import sys

import idmint


def main(url: str, value_range: str, count: int, until_gone: str, outfile: str) -> None:
    first, last = (int(v) for v in value_range.split(".."))
    rounds = 0
    with open(outfile, "w", encoding="utf-8") as out:
        while rounds < 2 or os.path.exists(until_gone):
            with idmint.Snowflake(
                layout="twitter", lease=url, lease_range=(first, last), lease_ttl=6.0,
                lease_holder="tests/pg.sh python",
            ) as gen:
                out.write("\n".join(map(str, gen.next_ids(count))) + "\n")
            rounds += 1
    print(rounds)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])

"""One process of the lease test (test_lease.py): builds GENERATORS generators leasing from URL
in the range 0..=7, waits at a barrier until every process has tried, mints COUNT IDs with each
generator that got a lease, waits again, and closes them. Writes JSON to OUTFILE:
``{"leased": [values], "refused": [error kinds], "ids": [...]}``."""

import json
import sys

import idmint


def run(url: str, generators: int, count: int, outfile: str, barrier) -> None:
    leased, refused = [], []
    for i in range(generators):
        try:
            leased.append(idmint.Snowflake(lease=url, lease_range=(0, 7), lease_holder=f"gen-{i}"))
        except idmint.Error as e:
            refused.append(e.kind)
    barrier.wait(120)  # every generator of every process has tried while the leases are held
    ids: list[int] = []
    for gen in leased:
        ids.extend(gen.next_ids(count))
    values = [gen.nodes["worker"] + 32 * gen.nodes["datacenter"] for gen in leased]
    barrier.wait(120)  # nobody releases before everybody minted
    for gen in leased:
        gen.close()
    with open(outfile, "w", encoding="utf-8") as out:
        json.dump({"leased": values, "refused": refused, "ids": ids}, out)


if __name__ == "__main__":
    sys.exit("run by test_lease.py through multiprocessing")

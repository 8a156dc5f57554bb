#!/usr/bin/env python3
"""Prints the figures of a tests/run.sh run as the Markdown tables of docs/ci.md.

    python3 tests/ci_figures.py [TARGET_DIR]      (default: target)

Reads what the run left in TARGET_DIR: test-times.tsv (each section's seconds), test-prep/times.tsv
(each background install or tool build: its wall time, from the start of the run) and cargo's
--timings reports (cargo-timings/cargo-timing-*.html: per compile, its wall time, how many units
it built, the CPU time they took and the units that took longest).
"""
import glob
import json
import os
import re
import sys


def tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def minutes(seconds):
    seconds = int(round(float(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def timing_report(path):
    """(what, wall seconds, units, unit seconds summed, [(seconds, unit)]) of one report."""
    with open(path) as f:
        html = f.read()
    start = html.index("const UNIT_DATA = ") + len("const UNIT_DATA = ")
    units, _ = json.JSONDecoder().raw_decode(html[start:])
    wall = re.search(r"Total time:</td><td>([0-9.]+)s", html)
    # The profile tells the check builds (clippy, doc: dev) from the test build (ci); the doc
    # pass is the one that documents.
    profile = re.search(r"Profile:</td><td>([^<]*)", html)
    if any("(doc)" in u["target"] for u in units):
        what = "cargo doc"
    elif profile and profile.group(1) == "dev":
        what = "cargo clippy"
    else:
        what = f"cargo test --profile {profile.group(1) if profile else '?'}"
    top = sorted(((u["duration"], f'{u["name"]}{u["target"]}') for u in units), reverse=True)[:5]
    return what, float(wall.group(1)) if wall else 0.0, len(units), sum(u["duration"] for u in units), top


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "target"
    rows = tsv(os.path.join(target, "test-times.tsv"))
    if rows:
        print("| section | m:ss | |\n|---|---|---|")
        for r in rows:
            print(f"| {r[0]} | {minutes(r[1])} | {r[2] if len(r) > 2 else ''} |")
        print()
    prep = tsv(os.path.join(target, "test-prep", "times.tsv"))
    if prep:
        print("| background job (from the run's start) | m:ss | |\n|---|---|---|")
        for r in prep:
            print(f"| {r[0]} | {minutes(r[1])} | {r[2]} |")
        print()
    reports = sorted(glob.glob(os.path.join(target, "cargo-timings", "cargo-timing-*.html")))
    if reports:
        print("| compile | wall m:ss | units | CPU m:ss | longest units (s) |\n|---|---|---|---|---|")
        for path in reports:
            what, wall, n, cpu, top = timing_report(path)
            longest = ", ".join(f"{name} {d:.0f}" for d, name in top)
            print(f"| {what} | {minutes(wall)} | {n} | {minutes(cpu)} | {longest} |")


if __name__ == "__main__":
    main()

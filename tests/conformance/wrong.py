#!/usr/bin/env python3
"""A deliberately wrong implementation, to show the runner catches one: it passes each request
to a real implementation and corrupts the answers of one op (`--op OP`) before handing them
back. cli/tests/conformance.rs runs run.py against it and expects a failure naming that op.

    python3 tests/conformance/wrong.py --op compose -- idmint conformance

An ok answer gets its first field changed (a number + 1, a string with "0" appended, a
boolean flipped, a list or object emptied); an error answer gets another kind.
"""

import argparse
import json
import subprocess
import sys


def corrupt_value(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        return v + 1
    if isinstance(v, str):
        return v + "0"
    if isinstance(v, list):
        return [] if v else [0]
    if isinstance(v, dict):
        return {} if v else {"x": 0}
    return 0  # null


def corrupt(answer):
    if "error" in answer:
        kind = "invalid_argument" if answer["error"] != "invalid_argument" else "invalid_id"
        return dict(answer, error=kind)
    result = answer["ok"]
    if isinstance(result, dict) and result:
        first = next(iter(result))
        return {"ok": dict(result, **{first: corrupt_value(result[first])})}
    return {"ok": corrupt_value(result)}


def main():
    argv = sys.argv[1:]
    at = argv.index("--")
    p = argparse.ArgumentParser(prog="wrong.py")
    p.add_argument("--op", required=True)
    a = p.parse_args(argv[:at])
    real = subprocess.Popen(argv[at + 1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    for line in sys.stdin:
        real.stdin.write(line)
        real.stdin.flush()
        answer = json.loads(real.stdout.readline())
        if json.loads(line).get("op") == a.op:
            answer = corrupt(answer)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    real.stdin.close()
    return real.wait()


if __name__ == "__main__":
    sys.exit(main())

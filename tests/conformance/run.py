#!/usr/bin/env python3
"""The idmint conformance runner (docs/spec.md, "The conformance protocol").

Points tests/vectors/*.json at an implementation under test: starts it as a subprocess,
sends one JSON request a line on its stdin, reads one JSON answer a line from its stdout
({"ok": RESULT} or {"error": KIND, "message": TEXT}), compares each answer with what the
vector says, and prints pass/fail counts per file and group and the first mismatches.
Exit status 0 only when every check passed (and at least one ran).

    python3 tests/conformance/run.py -- idmint conformance
    python3 tests/conformance/run.py --only typeid.json -- ./my-impl --conformance
    python3 tests/conformance/run.py --list-ops

Python 3.8+ standard library only. The runner holds no expected value of its own: every
expected result and error kind comes from the vector files.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_VECTORS = os.path.normpath(os.path.join(HERE, "..", "vectors"))

# The ops, their request fields and result fields, as docs/spec.md defines them ("?" marks an
# optional field). --list-ops prints this table.
OPS = {
    "layout": ("layout", "spec, preset, total_bits, unsigned, exhausts_at_ms, exhausts_at"),
    "decompose": ("layout, id", "time_ms, time, fields, sequence"),
    "compose": ("layout, time_ms, fields, sequence", "id"),
    "decode": ("text, layout?, format?", "format, id, value, time_ms, time, layout, parts"),
    "objectid": ("text", "hex, time_s, time, random, counter"),
    "uuid7": ("text, ulid?", "uuid, time_ms, time, rand_a, rand_b, ulid"),
    "typeid_parse": ("text", "typeid, prefix, uuid"),
    "typeid_encode": ("prefix, uuid", "typeid"),
    "shortid_encode": ("encoding, value", "text"),
    "shortid_decode": ("encoding, text", "value"),
    "plan": ("need", "layouts"),
    "health": ("observations", "status, reasons, lease, tags"),
    "layout_remaining": ("layout, nodes, clock_ms", "remaining_s, status, warns"),
    "start_above": ("layout, nodes, above, clock_ms, on_rollback", "first_id"),
    "time_range": ("layout, time_ms", "min_id, max_id"),
    "obfuscate_key": ("key", "version, text"),
    "obfuscate": ("key, id", "obfuscated, tagged"),
    "reveal": ("key, obfuscated", "id"),
    "reveal_tagged": ("keyring, tagged", "id"),
    "template": ("template, label?, offset?, check?", "template, sequence_width, capacity"),
    "template_format": ("template, label?, offset?, check?, time_ms, sequence", "formatted"),
    "template_parse": ("template, label?, offset?, check?, text", "parts"),
    "template_daily": ("template, label?, offset?, check?, times_ms", "formatted"),
}


class Check:
    """One request and what its answer must be: `want` (fields of the result that must equal
    the vector's) or `error` (the kind), and optionally text the error message must contain."""

    def __init__(self, op, args, want=None, error=None, message_contains=None, label=""):
        self.op, self.args, self.want, self.error = op, args, want, error
        self.message_contains, self.label = message_contains, label

    def request(self):
        return dict(self.args, op=self.op)


def pick(case, *keys):
    return {k: case[k] for k in keys}


def tmpl(case, *more):
    return pick(case, "template", "label", "offset", "check", *more)


def checks_for(file, group, case, vectors):
    """The checks one vector asks for. A valid case is usually read both ways (decompose and
    compose, parse and encode), so it can give more than one check."""
    name = case.get("name", "")
    err = case.get("error")
    if file in ("snowflake.json", "formats.json") and group in ("valid", "snowflakes"):
        yield Check("decompose", pick(case, "layout", "id"),
                    want=pick(case, "time_ms", "time", "fields", "sequence"), label=name)
        yield Check("compose", pick(case, "layout", "time_ms", "fields", "sequence"),
                    want={"id": case["id"]}, label=name)
    elif file in ("snowflake.json", "formats.json") and group in ("invalid_ids", "invalid_snowflakes"):
        yield Check("decompose", pick(case, "layout", "id"), error=err, label=name)
    elif file == "snowflake.json" and group == "invalid_parts":
        yield Check("compose", dict(case["parts"], layout=case["layout"]), error=err, label=name)
    elif group == "invalid_layouts":
        yield Check("layout", pick(case, "layout"), error=err, label=name)
    elif file == "snowflake.json" and group == "exhausts_at":
        yield Check("layout", pick(case, "layout"), want=pick(case, "exhausts_at_ms", "exhausts_at"),
                    label=case["layout"])
    elif file == "formats.json" and group == "presets":
        yield Check("layout", pick(case, "layout"), want=pick(case, "spec", "total_bits"),
                    label=case["layout"])
    elif file == "formats.json" and group == "decode":
        yield Check("decode", pick(case, "text", "layout"),
                    want=pick(case, "format", "id", "value", "time_ms", "time", "parts"), label=name)
    elif file == "formats.json" and group == "invalid":
        yield Check("decode", {"text": case["text"], "layout": None}, error=err, label=name)
    elif file == "objectid.json" and group == "valid":
        yield Check("objectid", {"text": case["hex"]},
                    want=dict(pick(case, "hex", "time_s", "time", "random", "counter")), label=case["hex"])
    elif file == "objectid.json" and group == "uppercase_input":
        yield Check("objectid", {"text": case["hex"]}, want={"hex": case["canonical"]}, label=case["hex"])
    elif file == "objectid.json" and group == "invalid":
        yield Check("objectid", {"text": case["hex"]}, error=err, label=name)
    elif file == "uuid7.json" and group == "valid":
        yield Check("uuid7", {"text": case["uuid"]},
                    want=pick(case, "uuid", "time_ms", "time", "rand_a", "rand_b", "ulid"), label=name)
        yield Check("uuid7", {"text": case["ulid"], "ulid": True}, want={"uuid": case["uuid"]},
                    label=name + " (ULID)")
    elif file == "uuid7.json" and group == "forms":
        yield Check("uuid7", {"text": case["text"], "ulid": bool(case.get("ulid"))},
                    want={"uuid": case["uuid"]}, label=case["text"])
    elif file == "uuid7.json" and group in ("invalid", "invalid_ulids"):
        yield Check("uuid7", {"text": case["text"], "ulid": group == "invalid_ulids"}, error=err,
                    label=name)
    elif file == "typeid.json" and group == "valid":
        yield Check("typeid_parse", {"text": case["typeid"]}, want=pick(case, "prefix", "uuid"), label=name)
        yield Check("typeid_encode", pick(case, "prefix", "uuid"), want={"typeid": case["typeid"]},
                    label=name)
    elif file == "typeid.json" and group == "invalid":
        yield Check("typeid_parse", {"text": case["typeid"]}, error=err, label=name)
    elif file == "shortid.json" and group == "valid":
        for enc in ("base62", "base62-fixed", "base32", "base32-fixed"):
            yield Check("shortid_encode", {"encoding": enc, "value": case["value"]},
                        want={"text": case[enc]}, label=f"{enc} {case['value']}")
            yield Check("shortid_decode", {"encoding": enc, "text": case[enc]},
                        want={"value": case["value"]}, label=f"{enc} {case[enc]}")
    elif file == "shortid.json" and group == "aliases":
        yield Check("shortid_decode", pick(case, "encoding", "text"), want={"value": case["value"]},
                    label=f"{case['encoding']} {case['text']}")
    elif file == "shortid.json" and group == "invalid":
        yield Check("shortid_decode", pick(case, "encoding", "text"), error=err,
                    label=f"{case['encoding']} {case['text']!r}")
    elif file == "plan.json" and group == "valid":
        yield Check("plan", pick(case, "need"), want={"layouts": case["layouts"]}, label=name)
    elif file == "plan.json" and group == "impossible":
        yield Check("plan", pick(case, "need"), error=err,
                    message_contains=f"= {case['bound_bits']} bits", label=name)
    elif file == "health.json" and group == "valid":
        yield Check("health", pick(case, "observations"), want=case["expected"], label=name)
    elif file == "health.json" and group == "invalid":
        yield Check("health", pick(case, "observations"), error=err, label=name)
    elif file == "health.json" and group == "layout_remaining":
        yield Check("layout_remaining", pick(case, "layout", "nodes", "clock_ms"),
                    want=pick(case, "remaining_s", "status", "warns"), label=name)
    elif file == "start_above.json" and group == "cases":
        args = pick(case, "layout", "nodes", "above", "clock_ms", "on_rollback")
        if err:
            # the refusal names the ID and, where there is one, the time it becomes possible
            yield Check("start_above", args, error=err, message_contains=case["from"] or case["above"],
                        label=name)
        else:
            yield Check("start_above", args, want=pick(case, "first_id"), label=name)
    elif file == "time_range.json" and group == "valid":
        yield Check("time_range", pick(case, "layout", "time_ms"), want=pick(case, "min_id", "max_id"),
                    label=name)
    elif file == "time_range.json" and group == "invalid":
        yield Check("time_range", pick(case, "layout", "time_ms"), error=err, label=name)
    elif file == "obfuscate.json" and group == "valid":
        label = f"{case['key'][:16]}… {case['id']}"
        yield Check("obfuscate", pick(case, "key", "id"), want=pick(case, "obfuscated", "tagged"), label=label)
        yield Check("reveal", pick(case, "key", "obfuscated"), want={"id": case["id"]}, label=label)
        yield Check("reveal_tagged", {"keyring": case["key"], "tagged": case["tagged"]},
                    want={"id": case["id"]}, label=label)
    elif file == "obfuscate.json" and group == "invalid_ids":
        # The group names no key: any valid key refuses these IDs, so the first valid case's
        # key (from the vectors, not from this runner) serves.
        key = vectors["valid"][0]["key"]
        yield Check("obfuscate", {"key": key, "id": case["id"]}, error=err, label=name)
        yield Check("reveal", {"key": key, "obfuscated": case["id"]}, error=err, label=name)
    elif file == "obfuscate.json" and group == "invalid_keys":
        yield Check("obfuscate_key", pick(case, "key"), error=err, label=name)
    elif file == "obfuscate.json" and group == "invalid_tagged":
        yield Check("reveal_tagged", pick(case, "keyring", "tagged"), error=err, label=name)
    elif file == "template.json" and group == "valid":
        yield Check("template_format", tmpl(case, "time_ms", "sequence"),
                    want={"formatted": case["formatted"]}, label=name)
        yield Check("template_parse", dict(tmpl(case), text=case["formatted"]),
                    want={"parts": case["parts"]}, label=name)
    elif file == "template.json" and group == "invalid_templates":
        yield Check("template", pick(case, "template"), error=err, label=name)
    elif file == "template.json" and group == "invalid_parse":
        yield Check("template_parse", tmpl(case, "text"), error=err, label=name)
    elif file == "template.json" and group == "invalid_format":
        yield Check("template_format", tmpl(case, "time_ms", "sequence"), error=err, label=name)
    elif file == "template.json" and group == "daily":
        yield Check("template_daily", tmpl(case, "times_ms"), want={"formatted": case["formatted"]},
                    label=name)
    else:
        raise KeyError(f"{file}: no rule for group {group!r}")


def same(want, got):
    """JSON equality with numbers compared by value (1700000060 == 1700000060.0) and never
    equal to booleans; objects must have exactly the same keys."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(want) is type(got) and want == got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return want == got
    if isinstance(want, dict) and isinstance(got, dict):
        return want.keys() == got.keys() and all(same(want[k], got[k]) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(same(w, g) for w, g in zip(want, got))
    return type(want) is type(got) and want == got


def judge(check, answer):
    """None when the answer is what the vector says, else why not."""
    if not isinstance(answer, dict) or ("ok" in answer) == ("error" in answer):
        return f"not an answer of the protocol: {json.dumps(answer)[:300]}"
    if check.error is not None:
        if "error" not in answer:
            return f"wanted error {check.error!r}, got ok {json.dumps(answer['ok'])[:300]}"
        if answer["error"] != check.error:
            return f"wanted error {check.error!r}, got {answer['error']!r}: {answer.get('message', '')}"
        if check.message_contains and check.message_contains not in str(answer.get("message", "")):
            return f"error message lacks {check.message_contains!r}: {answer.get('message', '')!r}"
        return None
    if "error" in answer:
        return f"wanted ok, got error {answer['error']!r}: {answer.get('message', '')}"
    result = answer["ok"]
    if not isinstance(result, dict):
        return f"result is not an object: {json.dumps(result)[:300]}"
    wrong = [k for k in check.want if k not in result or not same(check.want[k], result[k])]
    if wrong:
        return "; ".join(
            f"{k}: wanted {json.dumps(check.want[k])[:200]}, got "
            f"{json.dumps(result[k])[:200] if k in result else '(missing)'}" for k in wrong)
    return None


class Implementation:
    """The implementation under test: one subprocess, one request and one answer at a time."""

    def __init__(self, command):
        self.command = command
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", bufsize=1)

    def ask(self, request):
        line = json.dumps(request, ensure_ascii=True)
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError(f"the implementation exited (status {self.proc.wait()}) before "
                               f"the request {line[:200]}")
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the implementation exited (status {self.proc.wait()}) without "
                               f"answering {line[:200]}")
        try:
            return json.loads(answer)
        except ValueError:
            return {"unreadable": answer.rstrip("\n")[:300]}

    def close(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        return self.proc.wait()


def vector_files(directory, only):
    names = sorted(f for f in os.listdir(directory) if f.endswith(".json"))
    if only:
        wanted = [os.path.basename(o) for o in only]
        missing = [w for w in wanted if w not in names]
        if missing:
            sys.exit(f"run.py: no vector file {', '.join(missing)} in {directory}")
        names = [n for n in names if n in wanted]
    return names


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    command = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1:]
    p = argparse.ArgumentParser(
        prog="run.py", usage="run.py [options] -- COMMAND [ARGS...]",
        description="Run tests/vectors/*.json against an implementation speaking the "
                    "conformance protocol of docs/spec.md on its stdin and stdout.")
    p.add_argument("--vectors", default=DEFAULT_VECTORS, help="the vector directory (default: %(default)s)")
    p.add_argument("--only", action="append", metavar="FILE", help="run this vector file only (repeatable)")
    p.add_argument("--show", type=int, default=5, metavar="N", help="mismatches to print (default 5)")
    p.add_argument("--list-ops", action="store_true", help="print the ops, their fields and the groups using them")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object at the end")
    a = p.parse_args(argv)

    files = vector_files(a.vectors, a.only)
    plans = []  # (file, group, [checks])
    for f in files:
        with open(os.path.join(a.vectors, f), encoding="utf-8") as fh:
            data = json.load(fh)
        for group, cases in data.items():
            if isinstance(cases, list):
                plans.append((f, group, [c for case in cases for c in checks_for(f, group, case, data)]))

    if a.list_ops:
        uses = {}
        for f, group, checks in plans:
            for c in checks:
                uses.setdefault(c.op, [])
                if f"{f} {group}" not in uses[c.op]:
                    uses[c.op].append(f"{f} {group}")
        for op, (req, res) in OPS.items():
            print(f"{op}\n  request: {req}\n  result:  {res}\n  vectors: {', '.join(uses.get(op, [])) or '-'}")
        return 0
    if not command:
        p.error("give the implementation's command after --")

    impl = Implementation(command)
    total = failed = 0
    shown = []
    summary = []
    try:
        for f, group, checks in plans:
            passed = 0
            for c in checks:
                why = judge(c, impl.ask(c.request()))
                if why is None:
                    passed += 1
                elif len(shown) < a.show:
                    shown.append(f"{f} {group} [{c.op}] {c.label}: {why}\n    request: "
                                 f"{json.dumps(c.request(), ensure_ascii=False)[:300]}")
            total += len(checks)
            failed += len(checks) - passed
            ops = sorted({c.op for c in checks})
            summary.append({"file": f, "group": group, "ops": ops, "passed": passed, "failed": len(checks) - passed})
            mark = "ok  " if passed == len(checks) else "FAIL"
            print(f"{mark} {f:16} {group:20} {passed:4}/{len(checks):<4} ({', '.join(ops)})")
    except RuntimeError as e:
        print(f"FAIL {e}")
        impl.close()
        return 1
    status = impl.close()
    for s in shown:
        print(f"mismatch: {s}")
    if failed > len(shown):
        print(f"… and {failed - len(shown)} more mismatches")
    print(f"{total - failed}/{total} checks passed in {len(files)} files; "
          f"{failed} failed; implementation exit status {status}")
    if a.json:
        print(json.dumps({"passed": total - failed, "failed": failed, "files": files, "groups": summary}))
    return 0 if failed == 0 and total > 0 and status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

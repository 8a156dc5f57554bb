#!/usr/bin/env python3
"""The forge's workflows (.github/workflows/*.yml) call only what exists, as it accepts it.

    python3 tests/workflows.py              # check every workflow (CI, section policy)
    python3 tests/workflows.py --self-test  # planted faults are found

actionlint checks the YAML and the expressions; this checks what actionlint cannot know:
- every `run:` line that calls a script of the repository (tests/*.sh, tests/*.py, go/test.sh,
  bindings/c/test.sh, ...) names a file that exists and is executable;
- `tests/run.sh` gets only sections it defines (section_NAME in tests/run.sh),
  `tests/packages.sh` only the steps its `case` accepts and `tests/publish.sh` nothing or
  `upload KIND` of a KIND it has, with `${{ matrix.X }}` expanded to each value of the job's
  matrix;
- ci.yml's matrix names every section of tests/run.sh's ALL, so no section is left out on the
  forge.
Standard library only: the few YAML forms used (`run:` lines and blocks, flow lists in
`matrix:`) are read with regular expressions, and a form it does not know is an error.
"""

import os
import re
import shlex
import shutil
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def sections(root):
    text = open(os.path.join(root, "tests/run.sh"), encoding="utf-8").read()
    defined = set(re.findall(r"(?m)^section_(\w+)\(\) \{", text))
    m = re.search(r"(?m)^ALL=\(([^)]*)\)$", text)
    return defined, m.group(1).split() if m else []


def package_steps(root):
    text = open(os.path.join(root, "tests/packages.sh"), encoding="utf-8").read()
    steps = set()
    # The arms of the `case $what in` at the end: `a | b | c) ...`.
    tail = text[text.rindex("case $what in"):]
    for arm in re.findall(r"(?m)^\s+([\w |-]+)\)", tail):
        steps |= {a.strip() for a in arm.split("|")}
    steps.discard("*")
    return steps


def upload_kinds(root):
    """The KINDs `tests/publish.sh upload KIND` accepts (the arms `"upload X"` of its last case)."""
    text = open(os.path.join(root, "tests/publish.sh"), encoding="utf-8").read()
    return set(re.findall(r'"upload (\w+)"', text[text.rindex("case "):]))


def runs(text):
    """Each `run:` command of a workflow, as (line number, command text)."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(?:- )?run: ?(.*)$", lines[i])
        if m:
            indent, first = len(m.group(1)), m.group(2).strip()
            if first in ("|", ">", "|-", ">-"):
                body = []
                j = i + 1
                while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                    body.append(lines[j].strip())
                    j += 1
                out += [(i + 2 + k, b) for k, b in enumerate(body) if b]
                i = j
                continue
            out.append((i + 1, first))
        i += 1
    return out


def matrix_values(text):
    """Each matrix key's values, from flow lists `key: [a, b]` under `matrix:`."""
    values = {}
    m = re.search(r"(?m)^(\s*)matrix:\n((?:\1\s+.*\n)+)", text)
    if m:
        for key, items in re.findall(r"(?m)^\s+(\w+): \[([^\]]*)\]", m.group(2)):
            values[key] = [v.strip().strip("\"'") for v in items.split(",") if v.strip()]
    return values


def expand(command, matrix):
    """The command once for each value of the matrix keys it names."""
    keys = re.findall(r"\$\{\{\s*matrix\.(\w+)\s*\}\}", command)
    if not keys:
        return [command]
    key = keys[0]
    if key not in matrix:
        return [None]
    return [c for v in matrix[key] for c in expand(re.sub(r"\$\{\{\s*matrix\." + key + r"\s*\}\}", v, command), matrix)]


def check(root=ROOT):
    problems = []
    defined, all_sections = sections(root)
    steps = package_steps(root)
    uploads = upload_kinds(root)
    wf_dir = os.path.join(root, ".github/workflows")
    files = sorted(f for f in os.listdir(wf_dir) if f.endswith((".yml", ".yaml")))
    if not files:
        problems.append(".github/workflows: no workflow")
    for name in files:
        text = open(os.path.join(wf_dir, name), encoding="utf-8").read()
        matrix = matrix_values(text)
        for line, command in runs(text):
            for c in expand(command, matrix):
                where = f"{name}:{line}"
                if c is None:
                    problems.append(f"{where}: names a matrix key the job's matrix does not list: {command}")
                    continue
                try:
                    words = shlex.split(c)
                except ValueError as e:
                    problems.append(f"{where}: cannot be read ({e}): {c}")
                    continue
                for k, w in enumerate(words):
                    if not re.fullmatch(r"(?:\./)?(?:tests|go|bindings|pg|java|node|python|web|\.ci)/[\w./-]+\.(?:sh|py)|\.ci/run", w):
                        continue
                    path = os.path.join(root, w)
                    if not os.path.isfile(path) or not os.access(path, os.X_OK):
                        problems.append(f"{where}: {w} is not an executable file of the repository")
                        continue
                    args = [a for a in words[k + 1:] if not a.startswith("-")]
                    args = args[: next((i for i, a in enumerate(args) if a in ("&&", "||", ";", "|")), len(args))]
                    if w.endswith("tests/run.sh"):
                        for a in args:
                            if a not in defined:
                                problems.append(f"{where}: tests/run.sh has no section {a!r} (sections: {' '.join(sorted(defined))})")
                    if w.endswith("tests/publish.sh") and args and (args[0] != "upload" or args[1:2] and args[1] not in uploads or len(args) != 2):
                        problems.append(f"{where}: tests/publish.sh takes no arguments or `upload KIND` (KIND: {' '.join(sorted(uploads))}), not {' '.join(args)!r}")
                    if w.endswith("tests/packages.sh"):
                        for a in args:
                            if a not in steps:
                                problems.append(f"{where}: tests/packages.sh has no step {a!r} (steps: {' '.join(sorted(steps))})")
        if name == "ci.yml":
            missing = [s for s in all_sections if s not in matrix.get("section", [])]
            if missing:
                problems.append(f"ci.yml: the matrix leaves out tests/run.sh's sections {' '.join(missing)}")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("tests", ".github"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(tmp, d), symlinks=True,
                            ignore=shutil.ignore_patterns("vectors", "packages", "__pycache__"))
        assert not check(tmp), check(tmp)
        ci = os.path.join(tmp, ".github/workflows/ci.yml")
        text = open(ci, encoding="utf-8").read()
        planted = text.replace("section: [rust, ", "section: [rust, pyton, ", 1)
        planted = planted.replace("run: tests/run.sh", "run: tests/runn.sh --force rust && tests/run.sh", 1)
        assert planted != text
        with open(ci, "w", encoding="utf-8") as f:
            f.write(planted + "      - run: tests/packages.sh build publsh\n      - run: tests/publish.sh upload pypi\n")
        problems = check(tmp)
        want = ["has no section 'pyton'", "tests/runn.sh is not an executable", "has no step 'publsh'",
                "not 'upload pypi'"]
        for w in want:
            assert any(w in p for p in problems), (w, problems)
        with open(ci, "w", encoding="utf-8") as f:
            f.write(text.replace(", policy]", "]"))
        assert any("leaves out tests/run.sh's sections policy" in p for p in check(tmp)), check(tmp)
    print("workflows.py self-test: an unknown section and step, a missing script and a section left out are found")


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return 0
    if argv:
        sys.exit(__doc__)
    problems = check()
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print("workflows: every command a workflow runs exists and takes the arguments given")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

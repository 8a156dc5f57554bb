#!/usr/bin/env python3
"""One version everywhere: every manifest that names idmint's own version (Cargo, pyproject,
the package.json files, the poms, the PostgreSQL extension's PGXN file, the test consumers).

    python3 tests/version.py              # check: every place names the same version (CI)
    python3 tests/version.py set 0.2.0    # write 0.2.0 into every place
    python3 tests/version.py --expect 0.2.0  # check, and that it is 0.2.0 (release.yml: the tag's)
    python3 tests/version.py --self-test  # a planted mismatch is found, `set` mends it

Each place is a file and a regular expression whose group 1 is the version, expected to match
exactly as many times as PLACES says (a manifest that gains or loses an occurrence is an error
too, so a new one cannot slip past). Python's version comes from Cargo (`dynamic`, maturin),
the extension's control file from pg/Cargo.toml (`@CARGO_VERSION@`) and the Go module from its
tag (`go/vX.Y.Z`, docs/c.md): they hold none. Standard library only.
"""

import os
import re
import shutil
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

V = r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)"
NPM_PLATFORMS = sorted(os.listdir(os.path.join(ROOT, "node", "npm")))

# (path, pattern, how many matches)
PLACES = [
    ("Cargo.toml", rf'(?m)^version = "{V}"$', 1),
    ("Cargo.toml", rf'(?m)^idmint-(?:core|server) = \{{ path = "\w+", version = "{V}" \}}$', 2),
    ("pg/Cargo.toml", rf'(?m)^version = "{V}"$', 1),
    ("python/pyproject.toml", rf'"idmint-stores=={V}"', 1),
    ("node/package.json", rf'(?m)^  "version": "{V}",$', 1),
    ("node/stores/package.json", rf'(?m)^  "version": "{V}",$', 1),
    ("node/stores/package.json", rf'(?m)^    "idmint": "{V}"$', 1),
    ("web/package.json", rf'(?m)^  "version": "{V}",$', 1),
    *[(f"node/npm/{p}/package.json", rf'(?m)^  "version": "{V}",$', 1) for p in NPM_PLATFORMS],
    ("java/pom.xml", rf"(?m)^  <version>{V}</version>$", 1),
    ("java/stores/pom.xml", rf"(?m)^  <version>{V}</version>$", 1),
    ("java-spring/pom.xml", rf"(?m)^  <version>{V}</version>$", 1),
    ("java-spring/pom.xml", rf"<idmint\.version>{V}</idmint\.version>", 1),
    ("tests/packages/maven/pom.xml", rf"<artifactId>idmint(?:-stores)?</artifactId>\s*<version>{V}</version>", 2),
    ("pg/pgxn/META.json", rf'(?m)^  "version": "{V}",$', 1),
    ("pg/pgxn/META.json", rf'"file": "pg/sql/idmint--{V}\.sql"', 1),
    ("pg/pgxn/META.json", rf'(?m)^      "version": "{V}"$', 1),
]


def read_all(root):
    """Every place's versions, or the problems found reading them."""
    found, problems = [], []
    for path, pattern, count in PLACES:
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            problems.append(f"{path}: cannot be read ({e.strerror})")
            continue
        versions = re.findall(pattern, text)
        if len(versions) != count:
            problems.append(f"{path}: {len(versions)} matches of /{pattern}/, expected {count}")
        found += [(path, v) for v in versions]
    return found, problems


def check(root=ROOT):
    found, problems = read_all(root)
    versions = sorted({v for _, v in found})
    if len(versions) > 1:
        # Name the odd ones out against the workspace's version.
        main = next(v for p, v in found if p == "Cargo.toml")
        for path, v in found:
            if v != main:
                problems.append(f"{path}: version {v}, but Cargo.toml's workspace has {main}")
    return versions, problems


def set_version(version, root=ROOT):
    if not re.fullmatch(V, version):
        sys.exit(f"version.py: {version!r} is not a semver version (MAJOR.MINOR.PATCH[-PRE])")
    for path in sorted({p for p, _, _ in PLACES}):
        full = os.path.join(root, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        for p, pattern, _ in PLACES:
            if p == path:
                text = re.sub(pattern, lambda m: m.group(0).replace(m.group(1), version), text)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        for path in {p for p, _, _ in PLACES}:
            os.makedirs(os.path.join(tmp, os.path.dirname(path)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, path), os.path.join(tmp, path))
        _, problems = check(tmp)
        assert not problems, problems
        planted = os.path.join(tmp, "node/stores/package.json")
        with open(planted, encoding="utf-8") as f:
            text = f.read()
        with open(planted, "w", encoding="utf-8") as f:
            f.write(re.sub(r'"idmint": "[^"]+"', '"idmint": "9.9.9"', text))
        _, problems = check(tmp)
        assert any("node/stores/package.json: version 9.9.9" in p for p in problems), problems
        set_version("1.2.3-rc.1", tmp)
        versions, problems = check(tmp)
        assert versions == ["1.2.3-rc.1"] and not problems, (versions, problems)
    assert main(["--expect", "0.0.0-not-this"]) == 1, "--expect passed a version the manifests do not name"
    print("version.py self-test: a planted mismatch found, `set` mended it")


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return 0
    expect = None
    if len(argv) == 2 and argv[0] == "set":
        set_version(argv[1])
        argv = []
    elif len(argv) == 2 and argv[0] == "--expect":
        expect, argv = argv[1], []
    if argv:
        sys.exit(__doc__)
    versions, problems = check()
    if expect is not None and not problems and versions != [expect]:
        problems.append(f"the manifests name {versions[0]}, the tag {expect}: `tests/version.py set {expect}` before tagging")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"version.py: {len(problems)} problem(s); `tests/version.py set X.Y.Z` writes one version everywhere", file=sys.stderr)
        return 1
    print(f"one version everywhere: {versions[0]} ({len(PLACES)} places)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

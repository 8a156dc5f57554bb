#!/usr/bin/env python3
"""Checks that the crates of third_party/ reach only the release's libraries, and only while they
replace what Cargo.lock resolves (third_party/README.md).

    python3 tests/third_party.py             # the checkout (tests/run.sh rust, tests/packages.sh)
    python3 tests/third_party.py --self-test # the checks against broken copies of a workspace

Each directory third_party/NAME is crate NAME at some version with a few lines marked `idmint:`.
tests/packages/patched/cargo patches them in, on cargo's command line, for the release's libraries
only (etcd-client for all of them, the other two for the macOS cross-builds); a Mac building
idmint itself (cargo, the sdist, Homebrew) must get the crates.io crates, which read the
Keychain. So this fails when:

- the checked-in workspace patches one in (a `[patch]` entry, or a path dependency on it): Cargo.lock
  then names it without a crates.io source, and every build would use it;
- Cargo.lock no longer resolves the crate from crates.io, or resolves another version than the
  patched one (an upgrade): cargo would then skip the patch with only a warning ("was not used in
  the crate graph") and the macOS build would link Apple's frameworks, or fail to link. Port the
  `idmint:` lines to the new version, or drop the patch.
"""

import pathlib
import sys
import tempfile
import tomllib

CRATES_IO = "registry+https://github.com/rust-lang/crates.io-index"


def problems(root):
    """What is wrong with the workspace at ROOT, one sentence each; empty if nothing."""
    root = pathlib.Path(root)
    lock = tomllib.loads((root / "Cargo.lock").read_text())
    locked = {}
    for p in lock.get("package", []):
        locked.setdefault(p["name"], []).append(p)
    manifest = tomllib.loads((root / "Cargo.toml").read_text())
    patched = {n for table in manifest.get("patch", {}).values() for n in table}
    out = []
    crates = sorted(d for d in (root / "third_party").iterdir() if (d / "Cargo.toml").is_file())
    if not crates:
        out.append("third_party/ holds no crate: drop this check and tests/packages/patched/cargo")
    for d in crates:
        package = tomllib.loads((d / "Cargo.toml").read_text())["package"]
        name, version = package["name"], package["version"]
        where = f"third_party/{d.name}"
        if name != d.name:
            out.append(f"{where} holds crate {name}: the directory must be named after its crate")
        if name in patched:
            out.append(
                f"Cargo.toml patches {name} for every build: only the release's libraries may "
                "(tests/packages/patched/cargo)"
            )
        entries = locked.get(name, [])
        if not entries:
            out.append(f"Cargo.lock has no {name}: nothing uses it any more, drop {where}")
        for e in entries:
            if e.get("source") is None:
                out.append(
                    f"Cargo.lock resolves {name} {e['version']} from a path: the checked-in "
                    f"workspace uses {where} in every build (a Mac's too); only the release's "
                    "libraries may patch it in"
                )
            elif e["source"] != CRATES_IO:
                out.append(f"Cargo.lock resolves {name} from {e['source']}, not crates.io")
            elif e["version"] != version:
                out.append(
                    f"Cargo.lock has {name} {e['version']}, {where} is {version}: the release "
                    f"build's patch would go unused; port the `idmint:` lines to {e['version']} "
                    "or drop the patch"
                )
    return out


def self_test():
    """Each check fails on a workspace broken its way, and passes on a sound one."""
    lock_entry = '[[package]]\nname = "{n}"\nversion = "{v}"\n{s}\n'
    registry = f'source = "{CRATES_IO}"'

    def workspace(tmp, lock, manifest="", crate=("demo", "1.2.3"), dir_name="demo"):
        root = pathlib.Path(tmp)
        (root / "third_party" / dir_name).mkdir(parents=True)
        (root / "third_party" / dir_name / "Cargo.toml").write_text(
            f'[package]\nname = "{crate[0]}"\nversion = "{crate[1]}"\n'
        )
        (root / "Cargo.toml").write_text("[workspace]\n" + manifest)
        (root / "Cargo.lock").write_text("version = 4\n\n" + lock)
        return problems(root)

    cases = [
        ("sound", lock_entry.format(n="demo", v="1.2.3", s=registry), "", None),
        (
            "patched in Cargo.toml",
            lock_entry.format(n="demo", v="1.2.3", s=""),
            '[patch.crates-io]\ndemo = { path = "third_party/demo" }\n',
            "Cargo.toml patches demo",
        ),
        ("a path in Cargo.lock", lock_entry.format(n="demo", v="1.2.3", s=""), "", "from a path"),
        (
            "upgraded",
            lock_entry.format(n="demo", v="1.2.4", s=registry),
            "",
            "Cargo.lock has demo 1.2.4, third_party/demo is 1.2.3",
        ),
        (
            "a second version beside it",
            lock_entry.format(n="demo", v="1.2.3", s=registry) + lock_entry.format(n="demo", v="2.0.0", s=registry),
            "",
            "Cargo.lock has demo 2.0.0",
        ),
        ("no longer used", lock_entry.format(n="other", v="1.0.0", s=registry), "", "Cargo.lock has no demo"),
    ]
    for what, lock, manifest, want in cases:
        with tempfile.TemporaryDirectory() as tmp:
            got = workspace(tmp, lock, manifest)
        if want is None:
            assert not got, f"{what}: {got}"
        else:
            assert any(want in g for g in got), f"{what}: expected {want!r} in {got}"
    with tempfile.TemporaryDirectory() as tmp:
        got = workspace(tmp, lock_entry.format(n="demo", v="1.2.3", s=registry), dir_name="misnamed")
    assert any("must be named after its crate" in g for g in got), got
    print(f"tests/third_party.py self-test: {len(cases) + 1} cases")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = pathlib.Path(__file__).resolve().parent.parent
    found = problems(root)
    for p in found:
        print(f"third_party: {p}", file=sys.stderr)
    if not found:
        print("third_party/: patched in by the release's libraries only, each the version Cargo.lock resolves")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

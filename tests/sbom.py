#!/usr/bin/env python3
"""The release's SBOMs (issue 51): one CycloneDX 1.5 document per artifact that holds compiled
Rust, listing exactly the Rust crates built into that artifact.

    tests/sbom.py make  PACKAGES_DIR   write every artifact's SBOM (the release matrix's `sbom` step)
    tests/sbom.py check PACKAGES_DIR   every artifact has its SBOM, and it lists what it holds
    tests/sbom.py --self-test          the check fails on a planted fault (an SBOM missing, a crate
                                       too many, a crate missing)

Where each SBOM is:
  python/*.whl        inside, as PEP 770 says: <dist-info>/sboms/<crate>.cyclonedx.json, the
                      one maturin writes, trimmed (below), RECORD updated
  maven-repo/.../idmint[-stores]-V.jar   beside it as idmint[-stores]-V-cyclonedx.json, deployed
                      with the jar under the classifier `cyclonedx` (as cyclonedx-maven-plugin
                      names it); one document for the jar's libraries of every platform
  everything else     sbom/<artifact>.cdx.json, for the release page: each npm addon package,
                      the wasm package, each C archive and Go library, each static `idmint`

What "exactly" means: the crates `cargo tree -e normal` resolves for the crate, features and
target(s) the artifact was built with (its normal dependencies, proc-macros included, build and
dev dependencies not). The generators list more: maturin 1.16 and cargo-cyclonedx 0.5.9 both
read `cargo metadata`, whose resolve is the whole workspace's (the server's axum, the tests'
workspace-hack) and, with maturin, every target's. The slim wheel's SBOM named sqlx, redis and
axum, none of which it holds. So each generated SBOM is trimmed to cargo tree's set: components
and dependency edges outside it are dropped. `check` then reads the SBOM as it ships (out of the
wheel, beside the jar) and compares it both ways with cargo tree's set, computed again.

cargo is whatever `cargo` is on PATH: tests/packages.sh runs this under `released`, so the
patched etcd-client (third_party/) is the one resolved, as in the build. The macOS libraries a
Linux machine builds with zig also patch rustls-native-certs and whoami in (tests/packages.sh
macos_patched; third_party/README.md), which then bring no security-framework or
core-foundation: their trees are resolved with those patches too. Those a Mac built with
Apple's SDK (`tests/packages.sh native`; IDMINT_SBOM_NATIVE names their npm keys) are not.
"""
import base64
import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CDX_BIN = Path(os.environ.get("IDMINT_CARGO_CYCLONEDX", "cargo-cyclonedx"))

# Each platform of the release matrix, by every name the packages give it:
# (Rust target, wheel platform tag, npm key, JNA prefix in the jar, Go's lib/ directory).
# Windows is the GNU ABI everywhere (docs/release.md: cgo links only GNU-ABI archives, and the
# npm, wheel and jar libraries are built the same way so one ABI is tested).
PLATFORMS = [
    ("x86_64-unknown-linux-gnu", "manylinux_2_17_x86_64", "linux-x64-gnu", "linux-x86-64", "linux_amd64"),
    ("aarch64-unknown-linux-gnu", "manylinux_2_17_aarch64", "linux-arm64-gnu", "linux-aarch64", "linux_arm64"),
    ("x86_64-unknown-linux-musl", "musllinux_1_2_x86_64", "linux-x64-musl", None, "linux_amd64_musl"),
    ("aarch64-unknown-linux-musl", "musllinux_1_2_aarch64", "linux-arm64-musl", None, "linux_arm64_musl"),
    ("x86_64-pc-windows-gnu", "win_amd64", "win32-x64-gnu", "win32-x86-64", "windows_amd64"),
    ("x86_64-apple-darwin", "macosx_10_12_x86_64", "darwin-x64", "darwin-x86-64", "darwin_amd64"),
    ("aarch64-apple-darwin", "macosx_11_0_arm64", "darwin-arm64", "darwin-aarch64", "darwin_arm64"),
]
# the static `idmint` (tests/image.sh: bin/idmint-<zig triple>)
STATIC = {"x86_64-linux-musl": "x86_64-unknown-linux-musl", "aarch64-linux-musl": "aarch64-unknown-linux-musl"}
WASM = "wasm32-unknown-unknown"


def macos_patches():
    """The crates tests/packages.sh's macos_patched adds for the zig-built macOS libraries."""
    m = re.search(r'IDMINT_PATCHES="\$RELEASE_PATCHES ([^"]+)" released', (ROOT / "tests/packages.sh").read_text())
    if not m:
        raise SystemExit("tests/packages.sh: no macos_patched line (IDMINT_PATCHES=\"$RELEASE_PATCHES ...\" released)")
    return m.group(1).split()


def by(index, name):
    for p in PLATFORMS:
        if p[index] == name:
            return p[0]
    raise SystemExit(f"no platform of the release matrix is named {name!r}")


def variant(stores):
    return ["--no-default-features"] + (["--features", "stores"] if stores else [])


class Artifact:
    """One artifact: what it was built from (crates, features, targets) and where its SBOM is."""

    def __init__(self, path, crates, features, targets, sbom, inside=False, native_ok=True):
        self.path, self.crates, self.features, self.targets = Path(path), crates, features, targets
        self.sbom, self.inside = Path(sbom), inside
        # Built with the macOS patches: a macOS target of an artifact a Mac did not build (the
        # Go and C libraries never are: native_ok=False).
        native = set(os.environ.get("IDMINT_SBOM_NATIVE", "").split())
        self.macos_patched = any(
            "apple-darwin" in t and not (native_ok and next(p[2] for p in PLATFORMS if p[0] == t) in native)
            for t in targets)

    def __repr__(self):
        return f"{self.path.name} ({' '.join(self.crates)} {' '.join(self.features)} {' '.join(self.targets)})"


def artifacts(out):
    """Every artifact of PACKAGES_DIR that holds compiled Rust, found by its name."""
    out, found = Path(out), []
    side = out / "sbom"
    for whl in sorted(out.glob("python/*.whl")):
        dist, tags = whl.name.split("-")[0], whl.stem.split("-")[-1]
        tag = next((t for t in tags.split(".") if not t.startswith("manylinux2014")), tags)
        found.append(Artifact(whl, ["idmint-python"], variant(dist == "idmint_stores"), [by(1, tag)],
                              "sboms/", inside=True))
    for tgz in sorted(out.glob("npm/*.tgz")):
        m = re.fullmatch(r"idmint-(stores-)?([a-z0-9]+-[a-z0-9]+(?:-[a-z]+)?)-[0-9][^-]*\.tgz", tgz.name)
        if m and any(p[2] == m.group(2) for p in PLATFORMS):
            found.append(Artifact(tgz, ["idmint-node"], variant(bool(m.group(1))), [by(2, m.group(2))],
                                  side / f"{tgz.stem}.cdx.json"))
        elif tgz.name.startswith("idmint-web-"):
            found.append(Artifact(tgz, ["idmint-wasm", "idmint-wasm-extras"], [], [WASM],
                                  side / f"{tgz.stem}.cdx.json"))
    for jar in sorted(out.glob("maven-repo/io/idmint/idmint*/*/idmint*-[0-9]*.jar")):
        if jar.stem.endswith(("-sources", "-javadoc")):
            continue
        stores = jar.parent.parent.name == "idmint-stores"
        with zipfile.ZipFile(jar) as z:
            prefixes = sorted({n.split("/")[-2] for n in z.namelist() if re.search(r"idmint_jvm\.[a-z]+$", n)})
        found.append(Artifact(jar, ["idmint-jvm"], variant(stores), [by(3, p) for p in prefixes],
                              jar.with_name(f"{jar.stem}-cyclonedx.json")))
    for lib in sorted(out.glob("go/module/lib/*/libidmint*.a")):
        found.append(Artifact(lib, ["idmint-c"], variant(lib.name == "libidmint_stores.a"), [by(4, lib.parent.name)],
                              side / f"go-{lib.parent.name}-{lib.stem}.cdx.json", native_ok=False))
    for tgz in sorted(out.glob("go/c/idmint-c-*.tar.gz")):
        m = re.fullmatch(r"idmint-c-(stores-)?[0-9][^-]*-(.+)\.tar\.gz", tgz.name)
        if not m:
            raise SystemExit(f"{tgz.name}: not named idmint-c[-stores]-VERSION-KEY.tar.gz")
        found.append(Artifact(tgz, ["idmint-c"], variant(bool(m.group(1))), [by(2, m.group(2))],
                              side / f"{tgz.name[:-len('.tar.gz')]}.cdx.json", native_ok=False))
    for binary in sorted(out.glob("bin/idmint-*")):
        triple = binary.name[len("idmint-"):]
        if triple in STATIC:
            found.append(Artifact(binary, ["idmint-cli"], [], [STATIC[triple]], side / f"{binary.name}.cdx.json"))
    return found


def tree(art):
    """The (name, version) of every crate cargo resolves into the artifact's build."""
    crates = set()
    env = dict(os.environ)
    if art.macos_patched:
        env["IDMINT_PATCHES"] = " ".join([env.get("IDMINT_PATCHES", "")] + macos_patches()).strip()
    for crate in art.crates:
        cmd = ["cargo", "tree", "--quiet", "-p", crate, *art.features, "-e", "normal",
               "--prefix", "none"]
        for t in art.targets:
            cmd += ["--target", t]
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
        if out.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr}")
        for line in out.stdout.splitlines():
            if line.strip():
                name, version = line.split()[:2]
                crates.add((name, version.lstrip("v")))
    return crates


def listed(bom):
    """(name, version) of each component, the described crate included."""
    comps = {(c["name"], c["version"]) for c in bom.get("components", [])}
    root = bom["metadata"]["component"]
    return comps | {(root["name"], root["version"])}


def trim(bom, keep):
    """A copy of the BOM with every component, and every dependency edge, outside `keep` dropped."""
    kept = [c for c in bom.get("components", []) if (c["name"], c["version"]) in keep]
    refs = {c["bom-ref"] for c in kept} | {bom["metadata"]["component"]["bom-ref"]}
    return {**bom, "components": kept, "dependencies": [
        {**d, "dependsOn": [r for r in d.get("dependsOn", []) if r in refs]}
        for d in bom.get("dependencies", []) if d["ref"] in refs
    ]}


def wheel_entry(whl):
    """maturin's Rust SBOM in the wheel (<dist-info>/sboms/<crate>.cyclonedx.json), if one."""
    with zipfile.ZipFile(whl) as z:
        hits = [n for n in z.namelist() if re.search(r"\.dist-info/sboms/[^/]+\.cyclonedx\.json$", n)]
    return hits[0] if len(hits) == 1 else None


def rewrite_wheel(whl, entry, data):
    """Replaces one file of the wheel and its RECORD line (hash and size), entries in order."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    tmp = whl.with_suffix(".tmp")
    with zipfile.ZipFile(whl) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == entry:
                body = data
            elif info.filename.endswith(".dist-info/RECORD"):
                lines = [f"{entry},sha256={digest},{len(data)}" if line.split(",")[0] == entry else line
                         for line in body.decode().splitlines()]
                body = ("\n".join(lines) + "\n").encode()
            dst.writestr(info, body)
    tmp.replace(whl)


def generated(members):
    """cargo-cyclonedx's SBOM of each workspace member named, with every feature and every target
    (a superset of any one artifact's crates, trimmed per artifact). It writes beside each
    member's Cargo.toml; the files are read and removed."""
    name = f"idmint-sbom-{os.getpid()}"
    cmd = [str(CDX_BIN), "cyclonedx", "--quiet", "--all-features", "--target", "all", "--format", "json",
           "--spec-version", "1.5", "--no-build-deps", "--override-filename", name]
    subprocess.run(cmd, cwd=ROOT, check=True)
    boms = {}
    for path in ROOT.glob(f"**/{name}.json"):
        bom = json.loads(path.read_text())
        path.unlink()
        boms[bom["metadata"]["component"]["name"]] = bom
    missing = sorted(set(members) - set(boms))
    if missing:
        raise SystemExit(f"cargo-cyclonedx wrote no SBOM for {', '.join(missing)}")
    return boms


def make(out):
    arts = artifacts(out)
    if not arts:
        raise SystemExit(f"no artifact with Rust in {out}")
    members = {c for a in arts if not a.inside for c in a.crates}
    boms = generated(members) if members else {}
    for art in arts:
        keep = tree(art)
        if art.inside:
            bom = shipped(art)
            if bom is None:
                raise SystemExit(f"{art.path.name}: maturin wrote no (or more than one) <dist-info>/sboms/*.cyclonedx.json")
            # (the release runs `sbom` twice: a wheel trimmed before is left as it is)
            trimmed = trim(bom, keep)
            if trimmed != bom:
                rewrite_wheel(art.path, wheel_entry(art.path), (json.dumps(trimmed, indent=2) + "\n").encode())
        else:
            # One document per artifact: the first crate's, with the others' components merged
            # in (the wasm package's two modules).
            bom = json.loads(json.dumps(boms[art.crates[0]]))
            for extra in art.crates[1:]:
                seen = {c["bom-ref"] for c in bom["components"]}
                root = boms[extra]["metadata"]["component"]
                bom["components"] += [c for c in boms[extra]["components"] + [root] if c["bom-ref"] not in seen]
                bom["dependencies"] += boms[extra]["dependencies"]
            art.sbom.parent.mkdir(parents=True, exist_ok=True)
            art.sbom.write_text(json.dumps(trim(bom, keep), indent=2) + "\n")
        print(f"  {art.path.name}: {len(keep)} crates -> {art.sbom.name if not art.inside else 'inside, ' + str(art.sbom)}")


def shipped(art):
    """The SBOM as it ships: read out of the wheel, or from its file."""
    if art.inside:
        entry = wheel_entry(art.path)
        if entry is None:
            return None
        with zipfile.ZipFile(art.path) as z:
            return json.loads(z.read(entry))
    return json.loads(art.sbom.read_text()) if art.sbom.is_file() else None


def check_one(art, bom, want):
    """The faults of one artifact's SBOM (empty when it is right)."""
    if bom is None:
        return [f"{art.path.name}: no SBOM ({art.sbom})"]
    if bom.get("bomFormat") != "CycloneDX" or not str(bom.get("specVersion", "")).startswith("1."):
        return [f"{art.path.name}: {art.sbom.name} is not a CycloneDX document"]
    have = listed(bom)
    faults = []
    if want - have:
        faults.append(f"{art.path.name}: its SBOM does not list {sorted(want - have)[:8]} ({len(want - have)} crates)")
    if have - want:
        faults.append(f"{art.path.name}: its SBOM lists {sorted(have - want)[:8]}, not built into it ({len(have - want)} crates)")
    return faults


def check(out, expect_kinds=()):
    arts = artifacts(out)
    faults = []
    for kind in expect_kinds:
        if not any(kind in str(a.path) for a in arts):
            faults.append(f"no {kind} artifact in {out}")
    for art in arts:
        faults += check_one(art, shipped(art), tree(art))
    for f in faults:
        print(f"FAULT {f}", file=sys.stderr)
    if faults:
        raise SystemExit(f"{len(faults)} SBOM fault(s) in {out}")
    print(f"  {len(arts)} artifacts, each with its SBOM listing exactly its crates")


def self_test():
    """Plants each fault in a copy of a real SBOM of the slim host wheel's crates."""
    host = PLATFORMS[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        tgz = out / "npm" / f"idmint-{host[2]}-0.0.0.tgz"
        tgz.parent.mkdir()
        tgz.write_bytes(b"")
        (art,) = artifacts(out)
        want = tree(art)
        assert ("napi", next(v for n, v in want if n == "napi")) in want, "cargo tree of the addon names napi"
        assert not any(n == "sqlx-core" for n, _ in want), "the slim addon holds no sqlx"
        root = next((n, v) for n, v in want if n == "idmint-node")
        comps = [{"bom-ref": f"{n} {v}", "name": n, "version": v} for n, v in sorted(want - {root})]
        good = {"bomFormat": "CycloneDX", "specVersion": "1.5",
                "metadata": {"component": {"bom-ref": "root", "name": root[0], "version": root[1]}},
                "components": comps, "dependencies": []}
        assert check_one(art, good, want) == [], check_one(art, good, want)
        extra = json.loads(json.dumps(good))
        extra["components"].append({"bom-ref": "x", "name": "sqlx-core", "version": "0.8.6"})
        assert "not built into it" in check_one(art, extra, want)[0]
        assert trim(extra, want)["components"] == comps, "trim drops the crate too many"
        short = json.loads(json.dumps(good))
        short["components"] = short["components"][1:]
        assert "does not list" in check_one(art, short, want)[0]
        assert "no SBOM" in check_one(art, None, want)[0]
        # and through the files: no SBOM beside the artifact fails check()
        said = io.StringIO()
        try:
            with contextlib.redirect_stderr(said):
                check(out)
        except SystemExit as e:
            assert "1 SBOM fault" in str(e) and "no SBOM" in said.getvalue(), (e, said.getvalue())
        else:
            raise AssertionError("check passed an artifact without its SBOM")
        art.sbom.parent.mkdir(parents=True)
        art.sbom.write_text(json.dumps(good))
        check(out)
        # `make` on a wheel: maturin's SBOM with a crate too many is trimmed in place, RECORD
        # follows, and a second `make` leaves the wheel as it is.
        out = Path(tmp) / "wheel"
        whl = out / "python" / f"idmint-0.0.0-cp310-abi3-{host[1]}.whl"
        whl.parent.mkdir(parents=True)
        whl.touch()
        (wart,) = artifacts(out)
        wwant = tree(wart)
        wroot = next((n, v) for n, v in wwant if n == "idmint-python")
        wbom = {**good, "metadata": {"component": {"bom-ref": "root", "name": wroot[0], "version": wroot[1]}},
                "components": [{"bom-ref": f"{n} {v}", "name": n, "version": v} for n, v in sorted(wwant - {wroot})]
                + [{"bom-ref": "x", "name": "sqlx-core", "version": "0.8.6"}]}
        entry = "idmint-0.0.0.dist-info/sboms/idmint-python.cyclonedx.json"
        with zipfile.ZipFile(whl, "w") as z:
            z.writestr(entry, json.dumps(wbom))
            z.writestr("idmint-0.0.0.dist-info/RECORD", f"{entry},sha256=stale,1\nidmint-0.0.0.dist-info/RECORD,,\n")
        assert "not built into it" in check_one(wart, shipped(wart), wwant)[0]
        with contextlib.redirect_stdout(io.StringIO()):
            make(out)
        assert check_one(wart, shipped(wart), wwant) == []
        with zipfile.ZipFile(whl) as z:
            data, record = z.read(entry), z.read("idmint-0.0.0.dist-info/RECORD").decode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert f"{entry},sha256={digest},{len(data)}" in record.splitlines(), record
        before = whl.stat().st_mtime_ns
        with contextlib.redirect_stdout(io.StringIO()):
            make(out)
        assert whl.stat().st_mtime_ns == before, "a second make rewrote a trimmed wheel"
    print("sbom.py self-test: a missing SBOM, a crate too many and a crate missing each fail the check;"
          " make trims a wheel's SBOM with its RECORD, once")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--self-test"]:
        self_test()
    elif len(args) >= 2 and args[0] == "make":
        make(args[1])
    elif len(args) >= 2 and args[0] == "check":
        check(args[1], args[2:])
    else:
        raise SystemExit(__doc__)

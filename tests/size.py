#!/usr/bin/env python3
"""docs/bench/size.md, the one source of the packages' sizes (issue 48): every artifact that
tests/packages.sh built (both variants: the slim default packages and the stores add-ons), beside
the packages users compare idmint with, fetched in the same run, and the time to load each.

    tests/packages.sh build            # (release: tests/packages.sh release) fills target/packages/
    python3 tests/size.py [--out target/packages] [--runs 11] [--write docs/bench/size.md]

What it measures:
- each artifact compressed (the file a user downloads) and unpacked (the sum of its members, what
  lands on disk); each native library as it ships;
- the peers: `pip download` (manylinux x86-64 wheels), `npm pack` and `mvn dependency:get`;
- load time, the median of --runs runs, each in a fresh process on this machine: `import idmint`
  plus the first snowflake ID against `import uuid` plus `uuid4()`; `require('idmint')` plus the
  first ID against `require('bson')` plus an ObjectId; in a JVM already started, the first
  idmint Snowflake class load plus the first ID against cosid-core's MillisecondSnowflakeId.
- the issue's goals, each as a ratio from this run.

A figure depends on the machine's load: run it on a quiet machine (the load average is written
with the figures). Nothing here fails on a size or a time; it reports them.
"""

import argparse
import datetime
import fnmatch
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The peers of issue 48, as a user fetches them.
PY_PEERS = ["uuid-utils", "fastuuid", "orjson", "pydantic-core"]
NPM_PEERS = ["@napi-rs/uuid-linux-x64-gnu", "bson", "@sapphire/snowflake"]
# (group:artifact:version: the versions this machine's Maven mirror serves, newest first that resolved)
MAVEN_PEERS = [
    "me.ahoo.cosid:cosid-core:2.13.3",
    "com.github.luben:zstd-jni:1.5.7-28",
    "org.xerial:sqlite-jdbc:3.54.1.0",
    "org.bitcoindevkit:bdk-jvm:2.2.0",
]
# Today's packages, before issue 48 (its text, measured 2026-11-28: each as fetched, the npm
# platform package's tarball; 16 MB unpacked): the add-ons' goal is half.
BEFORE = {"wheel": 6_550_000, "npm linux-x64-gnu": 7_080_000, "jar": 37_500_000}


def run(cmd, **kw):
    p = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if p.returncode != 0:
        # the command's own words, which CalledProcessError alone would not show
        sys.stderr.write(p.stderr[-2000:])
        p.check_returncode()
    return p.stdout


def unpacked(path):
    """The bytes a package puts on disk: the sum of its members."""
    name = path.name
    if name.endswith((".whl", ".jar", ".zip")):
        with zipfile.ZipFile(path) as z:
            return sum(i.file_size for i in z.infolist())
    if name.endswith((".tgz", ".tar.gz")):
        with tarfile.open(path) as t:
            return sum(m.size for m in t.getmembers() if m.isfile())
    return path.stat().st_size


def artifacts(out):
    rows = []
    for pattern in ("python/*.whl", "python/*.tar.gz", "npm/*.tgz", "maven-repo/io/idmint/*/*/*.jar"):
        for f in sorted(out.glob(pattern)):
            rows.append((f.name, f.stat().st_size, unpacked(f)))
    natives = sorted((out / "natives").glob("*")) if (out / "natives").is_dir() else []
    return rows, [(f.name, f.stat().st_size) for f in natives]


def peer_row(name, f):
    return name, f, f.stat().st_size, unpacked(f), ""


def fetch_peers(work):
    """Each peer as a user gets it, in this run: (name, file or None, compressed, unpacked, note)."""
    got = []
    py = work / "pip"
    for name in PY_PEERS:
        try:
            run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                 "--platform", "manylinux_2_17_x86_64", "--python-version", "3.11", "-d", str(py), name])
            f = next(p for p in py.glob("*.whl") if p.name.split("-")[0].replace("_", "-") == name)
            got.append(peer_row("pip " + name, f))
        except (subprocess.CalledProcessError, StopIteration) as e:
            got.append(("pip " + name, None, None, None, f"not fetched: {e}"))
    npm = work / "npm"
    npm.mkdir(parents=True, exist_ok=True)
    for name in NPM_PEERS:
        try:
            tgz = run(["npm", "pack", "--silent", name], cwd=npm).split()[-1]
            got.append(peer_row("npm " + name, npm / tgz))
        except subprocess.CalledProcessError as e:
            got.append(("npm " + name, None, None, None, f"not fetched: {e.stderr.strip()[-120:]}"))
    m2 = pathlib.Path.home() / ".m2" / "repository"
    for gav in MAVEN_PEERS:
        group, artifact, version = gav.split(":")
        f = m2.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.jar")
        try:
            run(["mvn", "-q", "-B", "dependency:get", f"-Dartifact={gav}", "-Dtransitive=false"])
            got.append(peer_row("maven " + gav, f))
        except subprocess.CalledProcessError:
            got.append(("maven " + gav, None, None, None, "not fetched: the Maven mirror here did not serve it"))
    return got


def median_ms(cmd, runs, **kw):
    """The median of what CMD prints (milliseconds, one number), each run a fresh process."""
    return statistics.median(float(run(cmd, **kw).split()[-1]) for _ in range(runs))


PY_PROBE = """
import time
t = time.perf_counter()
{body}
print((time.perf_counter() - t) * 1000)
"""

NODE_PROBE = """
const t = process.hrtime.bigint();
{body}
console.log(Number(process.hrtime.bigint() - t) / 1e6);
"""

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>size</groupId><artifactId>probe</artifactId><version>1</version>
  <dependencies><dependency>
    <groupId>{0}</groupId><artifactId>{1}</artifactId><version>{2}</version>
  </dependency></dependencies>
</project>
"""

JAVA_PROBE = """
public final class Probe {
    public static void main(String[] args) throws Exception {
        long t = System.nanoTime();
        long id;
        if (args[0].equals("idmint")) {
            id = new io.idmint.Snowflake(1, 7).nextId();
        } else {
            id = new me.ahoo.cosid.snowflake.MillisecondSnowflakeId(7).generate();
        }
        long ns = System.nanoTime() - t;
        if (id <= 0) throw new AssertionError(id);
        System.out.println(ns / 1e6);
    }
}
"""


def load_times(out, work, peers, runs):
    """(what, idmint's median ms, peer, peer's median ms) per language; None where not measurable."""
    rows = []
    # Python: the slim wheel in a fresh venv (pip picks this machine's from those built).
    venv = work / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    py = str(venv / "bin" / "python")
    run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-index",
         "--find-links", str(out / "python"), "idmint"])
    mine = median_ms([py, "-c", PY_PROBE.format(body="import idmint\nidmint.Snowflake(datacenter=1, worker=7).next_id()")], runs)
    peer = median_ms([py, "-c", PY_PROBE.format(body="import uuid\nuuid.uuid4()")], runs)
    rows.append(("`import idmint` + the first snowflake ID", mine, "`import uuid` + `uuid4()`", peer))

    # Node: the slim npm package and its linux-x64-gnu platform package, beside bson.
    proj = work / "node"
    proj.mkdir()
    (proj / "package.json").write_text('{"name": "size-probe", "private": true}\n')
    tgz = [str(p) for p in (out / "npm").glob("idmint-[0-9]*.tgz")] + [str(p) for p in (out / "npm").glob("idmint-linux-x64-gnu-*.tgz")]
    bson = [str(f) for n, f, *_ in peers if n == "npm bson" and f]
    run(["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent", *tgz, *bson], cwd=proj)
    mine = median_ms(["node", "-e", NODE_PROBE.format(body="const m = require('idmint'); new m.Snowflake({ layout: 'twitter', datacenter: 1, worker: 7 }).nextId();")], runs, cwd=proj)
    peer = median_ms(["node", "-e", NODE_PROBE.format(body="const b = require('bson'); new b.ObjectId();")], runs, cwd=proj) if bson else None
    rows.append(("`require('idmint')` + the first snowflake ID", mine, "`require('bson')` + an ObjectId", peer))

    # JVM: the first class load and ID in a started JVM, the default jar against cosid-core. Each
    # class path is Maven's for a project depending on the one library (the local repository
    # packages.sh installed io.idmint into).
    repo = out / "maven-repo"
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    cps = {}
    for key, dep in (("idmint", ("io.idmint", "idmint", version)), ("cosid", MAVEN_PEERS[0].split(":"))):
        d = work / f"mvn-{key}"
        d.mkdir()
        (d / "pom.xml").write_text(POM.format(*dep))
        try:
            run(["mvn", "-q", "-B", f"-Dmaven.repo.local={repo}", "dependency:build-classpath",
                 f"-Dmdep.outputFile={d / 'cp.txt'}"], cwd=d)
            cps[key] = (d / "cp.txt").read_text().strip()
        except subprocess.CalledProcessError as e:
            rows.append((f"the JVM's first ID ({key})", None, f"not measured: {e.stdout.strip()[-200:]}", None))
    if len(cps) == 2:
        (work / "Probe.java").write_text(JAVA_PROBE)
        run(["javac", "-d", str(work), "-cp", f"{cps['idmint']}:{cps['cosid']}", str(work / "Probe.java")])
        mine = median_ms(["java", "-cp", f"{work}:{cps['idmint']}", "Probe", "idmint"], runs)
        peer = median_ms(["java", "-cp", f"{work}:{cps['cosid']}", "Probe", "cosid"], runs)
        rows.append(("the first `io.idmint.Snowflake` + ID (class load, native library)", mine,
                     "cosid-core's first `MillisecondSnowflakeId` + ID", peer))
    return rows


def kb(n):
    return f"{n / 1000:,.0f} KB" if n < 1_000_000 else f"{n / 1_000_000:,.2f} MB"


def find(rows, pattern):
    """(compressed, unpacked) of the artifact whose file name matches PATTERN (fnmatch), or None."""
    return next(((packed, disk) for name, packed, disk in rows if fnmatch.fnmatchcase(name, pattern)), None)


def goals(rows, peers):
    """(goal, idmint, peer or today, ratio, met) rows, from this run's figures."""
    peer = {n: (packed, disk) for n, f, packed, disk, _ in peers if f}
    out = []

    def add(goal, mine, theirs, limit):
        if mine is None or theirs is None:
            out.append((goal, "not built", "", "", "—"))
            return
        ratio = mine / theirs
        out.append((goal, kb(mine), kb(theirs), f"{ratio:.2f}×", "met" if ratio <= limit else "not met"))

    # (the default packages' names are a prefix of the add-ons': the patterns tell them apart)
    slim_whl = find(rows, "idmint-*-manylinux*x86_64*.whl")
    stores_whl = find(rows, "idmint_stores-*-manylinux*x86_64*.whl")
    slim_npm = find(rows, "idmint-linux-x64-gnu-*.tgz")
    stores_npm = find(rows, "idmint-stores-linux-x64-gnu-*.tgz")
    slim_jar = find(rows, "idmint-[0-9]*[0-9].jar")
    stores_jar = find(rows, "idmint-stores-[0-9]*[0-9].jar")
    uu = peer.get("pip uuid-utils")
    add("slim wheel (manylinux x86-64) ≤ 2× uuid-utils's", slim_whl and slim_whl[0], uu and uu[0], 2)
    nr = peer.get("npm @napi-rs/uuid-linux-x64-gnu")
    add("slim npm linux-x64-gnu, unpacked, ≤ 2× @napi-rs/uuid's", slim_npm and slim_npm[1], nr and nr[1], 2)
    zj = peer.get("maven com.github.luben:zstd-jni:1.5.7-28")
    add("slim jar (every platform's library) ≤ zstd-jni's jar", slim_jar and slim_jar[0], zj and zj[0], 1)
    add("with the stores: wheel ≤ 50 % of today's", stores_whl and stores_whl[0], BEFORE["wheel"], 0.5)
    add("with the stores: npm linux-x64-gnu ≤ 50 % of today's", stores_npm and stores_npm[0], BEFORE["npm linux-x64-gnu"], 0.5)
    add("with the stores: jar ≤ 50 % of today's", stores_jar and stores_jar[0], BEFORE["jar"], 0.5)
    # What a user of the stores downloads: the add-on and the default package it depends on.
    for what, slim, stores, before in (
        ("`pip install 'idmint[stores]'`", slim_whl, stores_whl, "wheel"),
        ("`npm install idmint idmint-stores`, the linux-x64-gnu packages", slim_npm, stores_npm, "npm linux-x64-gnu"),
        ("io.idmint:idmint + io.idmint:idmint-stores", slim_jar, stores_jar, "jar"),
    ):
        both = slim and stores and slim[0] + stores[0]
        add(f"{what}: both packages ≤ 50 % of today's", both, BEFORE[before], 0.5)
    return out


def markdown(out, rows, natives, peers, times, goal_rows, runs):
    load = os.getloadavg()
    lines = [
        "# Package sizes and load times",
        "",
        "Written by `python3 tests/size.py --write docs/bench/size.md` from the packages of",
        f"`tests/packages.sh` in `{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}`"
        f" (cargo profile `{os.environ.get('IDMINT_CARGO_PROFILE', 'release')}`), with the peers fetched in the",
        "same run. Do not edit by hand: run it again.",
        "",
        f"- run: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()},"
        f" {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end",
        f"- load times: the median of {runs} runs, each in a fresh process",
        "",
        "## Goals (issue 48)",
        "",
        "| goal | idmint | against | ratio | |",
        "|---|---:|---:|---:|---|",
    ]
    lines += [f"| {g} | {m} | {t} | {r} | {ok} |" for g, m, t, r, ok in goal_rows]
    lines += ["", "## Load time", "", "| idmint | ms | peer | ms | ratio |", "|---|---:|---|---:|---:|"]
    for what, mine, peer_what, peer in times:
        ratio = f"{mine / peer:.2f}×" if mine and peer else ""
        lines.append(f"| {what} | {mine:.1f} | {peer_what} | {peer:.1f} | {ratio} |" if mine and peer
                     else f"| {what} | | {peer_what} | | |")
    lines += ["", "## idmint's artifacts", "",
              "`idmint-*` are the slim default packages; `idmint_stores-*` / `idmint-stores*` the stores add-ons.", "",
              "| artifact | compressed | unpacked |", "|---|---:|---:|"]
    lines += [f"| {n} | {p:,} | {d:,} |" for n, p, d in rows]
    lines += ["", "## The native libraries as they ship", "", "| library | bytes |", "|---|---:|"]
    lines += [f"| {n} | {s:,} |" for n, s in natives]
    lines += ["", "## The peers, fetched in this run", "", "| package | compressed | unpacked | |", "|---|---:|---:|---|"]
    for name, f, packed, disk, note in peers:
        lines.append(f"| {name} ({f.name}) | {packed:,} | {disk:,} | |" if f else f"| {name} | | | {note} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("IDMINT_PACKAGES_DIR", str(ROOT / "target" / "packages")))
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--write", help="the markdown file to write (docs/bench/size.md)")
    args = ap.parse_args()
    out = pathlib.Path(args.out).resolve()
    if not (out / "python").is_dir():
        sys.exit(f"size: no packages in {out}: run tests/packages.sh build first")
    rows, natives = artifacts(out)
    with tempfile.TemporaryDirectory(prefix="idmint-size.") as tmp:
        work = pathlib.Path(tmp)
        peers = fetch_peers(work)
        times = load_times(out, work, peers, args.runs)
        text = markdown(out, rows, natives, peers, times, goals(rows, peers), args.runs)
    if args.write:
        pathlib.Path(args.write).write_text(text)
        print(f"size: wrote {args.write}")
    else:
        print(text)


if __name__ == "__main__":
    main()

#!/bin/bash
# Run inside a foreign root filesystem by tests/packages.sh (smoke_in), as root in a chroot, from
# the folder it was copied to: python/ (the wheels, smoke.py), node/ (the tarballs, smoke.*js),
# maven/ (the consumer's compiled JUnit test, cp.txt: its classpath in repo/, the launcher) and
# vectors/. Each package is installed and run by this system's own python3, node and java where
# they are new enough for the package; the others are left to the symbol-version check.
set -euo pipefail
w=$(cd "$(dirname "$0")" && pwd)
if command -v cargo || command -v rustc || command -v rustup; then
    echo "in-rootfs: a Rust tool is reachable here" >&2
    exit 1
fi
case $(uname -m) in
    aarch64) key=linux-arm64-gnu ;;
    x86_64) key=linux-x64-gnu ;;
    *) echo "in-rootfs: no package for $(uname -m)" >&2; exit 1 ;;
esac
echo "  $(uname -m), $(ldd --version | head -1), no cargo/rustc/rustup on PATH"

if command -v python3 >/dev/null && python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "  $(python3 --version): a venv, pip install --no-index --find-links <the wheels> idmint, then 'idmint[stores]', smoke.py after each"
    python3 -m venv "$w/python/venv"
    "$w/python/venv/bin/pip" install --quiet --disable-pip-version-check --no-index \
        --find-links "$w/python" idmint
    (cd "$w/python" && venv/bin/python smoke.py "$w/vectors" slim)
    "$w/python/venv/bin/pip" install --quiet --disable-pip-version-check --no-index \
        --find-links "$w/python" 'idmint[stores]'
    (cd "$w/python" && venv/bin/python smoke.py "$w/vectors" stores)
else
    echo "  python: $(python3 --version 2>/dev/null || echo "no python3 here (this system's is older than 3.10)"): the wheels are checked by their symbols"
fi

if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 18 ]; then
    echo "  node $(node --version): npm install --offline idmint + idmint-$key, smoke.cjs and smoke.mjs; again with idmint-stores + idmint-stores-$key"
    cd "$w/node"
    npm init -y >/dev/null
    npm install --offline --no-audit --no-fund --silent ./idmint-[0-9]*.tgz ./idmint-$key-*.tgz
    node smoke.cjs "$w/vectors"
    node smoke.mjs "$w/vectors"
    npm install --offline --no-audit --no-fund --silent ./idmint-stores-[0-9]*.tgz ./idmint-stores-$key-*.tgz
    node smoke.cjs "$w/vectors"
    node smoke.mjs "$w/vectors"
else
    echo "  node: $(node --version 2>/dev/null || echo "no node here (this system's is older than 18)"): the addons are checked by their symbols"
fi

java=$(ls -d /usr/lib/jvm/java-17-openjdk-*/bin/java | head -1)
echo "  $("$java" -version 2>&1 | head -1): the Maven consumer's JUnit test (the jar from repo/)"
cd "$w/maven"
"$java" -Didmint.vectors="$w/vectors" -Didmint.repo="$w/maven/repo" \
    -jar launcher/junit-platform-console-standalone-*.jar execute --disable-banner \
    --details=summary --fail-if-no-tests --class-path "test-classes:$(cat cp.txt)" \
    --select-class smoke.SmokeTest >junit.log 2>&1 || {
    cat junit.log >&2
    exit 1
}
grep -E "tests (successful|failed)" junit.log

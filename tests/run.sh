#!/usr/bin/env bash
# Runs every idmint test: `tests/run.sh` for all, or name sections (`tests/run.sh rust`).
# It installs what a bare machine lacks, and does nothing when it is already there, so it is
# both the README's test command and what CI (.ci/run) calls on a fresh clone.
#
# Every section builds in the one target/ directory: on a fresh machine with 2 cores, compiling
# idmint-core and the shared dependencies once per section would cost more than the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

step() { printf '\n==> %s\n' "$*"; }

ensure_rust_components() {
    local have
    have=$(rustup component list --installed 2>/dev/null || true)
    for c in rustfmt clippy; do
        grep -q "^$c" <<<"$have" || rustup component add "$c"
    done
}

section_rust() {
    ensure_rust_components
    step "vectors match their independent oracle"
    python3 tests/vectors/generate.py --check
    step "cargo fmt"
    cargo fmt --all -- --check
    step "cargo clippy"
    cargo clippy --workspace --all-targets -- -D warnings
    step "cargo doc (every public item documented, links resolve)"
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
    step "cargo test (release: the uniqueness tests mint tens of millions of IDs)"
    cargo test --workspace --release
}

section_python() {
    # python/.venv holds maturin, pytest and pymongo, and idmint built by `pip install ./python`
    # (the user's path). The wheel is rebuilt only when a source it is built from changed;
    # cargo builds it in target/ with the other sections.
    local venv=python/.venv
    local py=$venv/bin/python stamp=$venv/.idmint-built
    if [ ! -x "$py" ]; then
        step "python venv ($venv)"
        python3 -m venv "$venv"
    fi
    step "python test tools"
    "$py" -m pip install --quiet --disable-pip-version-check "maturin>=1.16,<2" "pytest>=8" "pymongo>=4"
    if [ -f "$stamp" ] && "$py" -c "import idmint" 2>/dev/null && [ -z "$(find core/src core/Cargo.toml \
        bindings/python python/idmint python/pyproject.toml python/README.md Cargo.toml Cargo.lock \
        -newer "$stamp" -type f -not -path '*/__pycache__/*' -print -quit)" ]; then
        step "pip install ./python: up to date"
    else
        step "pip install ./python (cargo builds the abi3 extension)"
        touch "$stamp.new"
        "$py" -m pip install --quiet --disable-pip-version-check \
            --force-reinstall --no-deps ./python
        mv "$stamp.new" "$stamp"
    fi
    step "pytest python/tests"
    "$venv/bin/pytest" -q python/tests
}

section_jvm() {
    # The JVM package (java/): mvn runs java/build-native.sh, which builds bindings/jvm and its
    # in-workspace generator bindings/jvm/bindgen (uniffi-bindgen-java pinned to the glue's uniffi)
    # in release, generates the internal io.idmint.ffi Java into java/target and puts the .so where
    # the jar carries it.
    step "mvn test (java/: JUnit 5 through Surefire)"
    (cd java && IDMINT_JVM_TARGET_DIR="$ROOT/target" mvn -q -B -Dstyle.color=never test)
}

section_node() {
    # node/ (the npm package `idmint`): npm ci when package-lock.json changed (devDependencies: bson
    # for the interop tests, the bench's peers), then scripts/build.js (cargo build --release -p
    # idmint-node, copied to node/idmint.<platform>-<arch>.node; a no-op when up
    # to date), then node --test over node/test (the shared suite and node/test/native).
    local stamp=node/node_modules/.package-lock.json
    if [ ! -f "$stamp" ] || [ node/package-lock.json -nt "$stamp" ]; then
        step "npm ci (node/)"
        (cd node && npm ci --ignore-scripts --no-audit --no-fund)
    fi
    step "build the native addon (node/scripts/build.js)"
    node node/scripts/build.js
    step "node --test (node/test: shared suite + native-only tests)"
    (cd node && node --test test/)
}
section_web() {
    # node/web (the npm package `idmint-web`): idmint-core in wasm32 through the glue crate
    # bindings/wasm. Installs what a bare machine lacks, each only when missing: the wasm32 target,
    # wasm-bindgen-cli at the exact version the workspace pins the `wasm-bindgen` crate to, Debian's
    # chromium (driven by playwright-core, a devDependency), npm deps. Then builds node/web/pkg
    # (in target/), runs the shared suite (node/test/*.test.mjs) and node/web/test/*.test.mjs
    # against idmint-web in Node and in headless Chromium, and drives the demo page.
    local wb sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    wb=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' Cargo.toml)
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        step "rustup target add wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi
    if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $wb" ]; then
        step "cargo install wasm-bindgen-cli $wb"
        cargo install wasm-bindgen-cli --version "$wb" --force
    fi
    if [ ! -x /usr/bin/chromium ]; then
        step "apt-get install chromium"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
    fi
    local stamp=node/web/node_modules/.package-lock.json
    if [ ! -f "$stamp" ] || [ node/web/package-lock.json -nt "$stamp" ]; then
        step "npm ci (node/web/)"
        (cd node/web && npm ci --no-audit --no-fund)
    fi
    step "build node/web/pkg (cargo, wasm-bindgen --target web, wasm-opt)"
    node node/web/build.mjs
    step "node --test: the shared suite and the web cases against idmint-web, in Node"
    (cd node && IDMINT_TARGET=web node --test test/*.test.mjs web/test/*.test.mjs)
    step "headless Chromium: the same suite, then the demo (screenshot node/web/test/out/demo.png)"
    node node/web/test/run-browser.mjs
}
section_segment() {
    # Segment IDs against real servers: Redis, PostgreSQL and MariaDB on loopback, free ports,
    # a temp data dir, stopped by PID on exit. Tests fail (not skip) without their server here.
    ensure_rust_components
    local features=sqlite,postgres,mysql,redis
    step "segment: clippy and docs with every store feature"
    cargo clippy -p idmint-core --all-targets --features "$features" -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc -p idmint-core --no-deps --quiet --features "$features"
    step "segment: test servers (apt-installed if missing)"
    tests/servers.sh install
    export IDMINT_SERVERS_DIR
    IDMINT_SERVERS_DIR=$(mktemp -d /tmp/idmint-servers.XXXXXX)
    trap 'tests/servers.sh stop >/dev/null 2>&1 || true; rm -rf "$IDMINT_SERVERS_DIR"' EXIT
    eval "$(tests/servers.sh start)"
    export IDMINT_REQUIRE_SERVERS=1
    step "segment: cargo test (stores, 4 processes x 2 threads each, killed servers; worker leases)"
    cargo test -p idmint-core --release --features "$features" --lib \
        --test segment_client --test segment_stores --test segment_faults --test daily_counters \
        --test lease
    # One at a time: one of these kills Redis, which the others lease from.
    step "segment: worker leases on every store (16 generators in 4 processes, SIGKILL, Redis killed)"
    cargo test -p idmint-core --release --features "$features" --test lease_stores -- --test-threads=1
    # Each doctest links on its own (edition 2021): the client's with only `segment` (no
    # database drivers: quick links), then the few of the store modules with their features.
    step "segment: doctests"
    cargo test -p idmint-core --features segment --doc -- segment
    cargo test -p idmint-core --features "$features" --doc -- \
        segment::sqlite segment::postgres segment::mysql segment::redis segment::open_store segment::orders lease
    tests/servers.sh stop
    trap - EXIT
    rm -rf "$IDMINT_SERVERS_DIR"
}

ALL=(rust python jvm node web segment)
SECTIONS=("$@")
[ ${#SECTIONS[@]} -eq 0 ] && SECTIONS=("${ALL[@]}")
for s in "${SECTIONS[@]}"; do
    declare -F "section_$s" >/dev/null || { echo "unknown section '$s'; sections: ${ALL[*]}" >&2; exit 2; }
    step "section $s"
    "section_$s"
done
step "all passed: ${SECTIONS[*]}"

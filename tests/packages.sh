#!/usr/bin/env bash
# The release build: every package a user installs, built from this checkout, then installed as a
# user would, each into a clean project, with no Rust toolchain on PATH. tests/run.sh (section
# packages) runs it in the cargo profile `ci`; a release runs it as it is (profile `release`).
#
#   tests/packages.sh [build] [smoke]     both when none is named
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
TOOLS=$TARGET/packages-tools
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
# The one Vite the browser smoke test bundles with (from the npm registry).
VITE=7.3.8

step() { printf '\n==> %s\n' "$*"; }
die() {
    echo "packages: $*" >&2
    exit 1
}

tools() {
    [ -x "$TOOLS/bin/python" ] || python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check \
        "maturin>=1.16,<2" "auditwheel>=6,<7"
}

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

build_python() {
    step "python: maturin build (abi3, cargo profile $PROFILE), auditwheel show"
    (cd python && "$TOOLS/bin/maturin" build --quiet --profile "$PROFILE" --out "$OUT/python" \
        --auditwheel check)
    local wheels=("$OUT"/python/*.whl)
    [ ${#wheels[@]} -eq 1 ] || die "expected one wheel, got: ${wheels[*]}"
    # maturin tags the wheel with the oldest manylinux its glibc symbols allow; auditwheel, the
    # tool PyPI's guidance names, must find the same tag (and no library outside the policy).
    local tag shown
    tag=$(basename "${wheels[0]}" .whl | awk -F- '{print $NF}')
    case $tag in manylinux_*) ;; *) die "$(basename "${wheels[0]}") is not tagged manylinux_*" ;; esac
    shown=$("$TOOLS/bin/auditwheel" show "${wheels[0]}")
    echo "$shown" | tr '\n' ' ' | sed 's/  */ /g' | cut -c1-160
    echo
    grep -q "platform tag: \"$tag\"" <<<"$shown" || die "auditwheel show does not confirm $tag: $shown"
}

build_node() {
    local key
    key=$(node -p "require('./node/platform.js').platformKey()")
    [ -f "node/npm/$key/package.json" ] || die "no platform package for $key (node/npm/$key/package.json)"
    step "npm: the addon (node/scripts/build.js, cargo profile $PROFILE) as idmint-$key"
    node node/scripts/build.js
    local stage=$OUT/stage
    rm -rf "$stage"
    mkdir -p "$stage/platform" "$stage/main" "$OUT/npm"
    cp "node/npm/$key/package.json" "node/npm/$key/README.md" "$stage/platform/"
    cp "node/idmint.$key.node" "$stage/platform/"
    (cd "$stage/platform" && npm pack --silent --pack-destination "$OUT/npm" >/dev/null)

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
    (cd java && IDMINT_JVM_TARGET_DIR=${IDMINT_JVM_TARGET_DIR:-$TARGET} \
        mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$repo" -Dmaven.test.skip=true install)
    local dir=$repo/io/idmint/idmint/$VERSION f
    for f in "idmint-$VERSION.jar" "idmint-$VERSION-sources.jar" "idmint-$VERSION-javadoc.jar" "idmint-$VERSION.pom"; do
        [ -s "$dir/$f" ] || die "mvn install left no $f in $dir"
    done
    jar tf "$dir/idmint-$VERSION.jar" | grep -E '^[a-z0-9-]+/(libidmint_jvm\.(so|dylib)|idmint_jvm\.dll)$' ||
        die "the jar carries no native library"
}

sizes() {
    local repo=$OUT/maven-repo/io/idmint/idmint/$VERSION f
    {
        for f in "$OUT"/python/*.whl "$OUT"/npm/*.tgz "$repo/idmint-$VERSION.jar" \
            "$repo/idmint-$VERSION-sources.jar" "$repo/idmint-$VERSION-javadoc.jar"; do
            printf '%s\t%s\n' "$(basename "$f")" "$(stat -c %s "$f")"
        done
        f=$(tar -tzf "$OUT"/npm/idmint-linux-*.tgz | grep '\.node$')
        printf '%s (in its tarball)\t%s\n' "$(basename "$f")" \
            "$(tar -xzOf "$OUT"/npm/idmint-linux-*.tgz "$f" | wc -c)"
        f=$(jar tf "$repo/idmint-$VERSION.jar" | grep 'libidmint_jvm')
        printf '%s (in the jar)\t%s\n' "$f" "$(python3 -c 'import sys, zipfile
print(zipfile.ZipFile(sys.argv[1]).getinfo(sys.argv[2]).file_size)' "$repo/idmint-$VERSION.jar" "$f")"
        # Two modules: the main one, and the display IDs' (loaded on demand).
        for f in $(tar -tzf "$OUT"/npm/idmint-web-*.tgz | grep '\.wasm$'); do
            printf '%s\t%s\n' "$(basename "$f")" "$(tar -xzOf "$OUT"/npm/idmint-web-*.tgz "$f" | wc -c)"
            printf '%s gzip -9\t%s\n' "$(basename "$f")" "$(tar -xzOf "$OUT"/npm/idmint-web-*.tgz "$f" | gzip -9 | wc -c)"
        done
    } >"$OUT/sizes.tsv"
    step "artifacts (bytes; also $OUT/sizes.tsv)"
    awk -F'\t' '{ printf "  %-44s %10d  (%.1f KiB)\n", $1, $2, $2 / 1024 }' "$OUT/sizes.tsv"
}

build() {
    check_versions
    [ -x "$TOOLS/bin/maturin" ] && [ -x "$TOOLS/bin/auditwheel" ] || tools
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
    as_user "$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
        "$OUT"/python/*.whl
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
            "$OUT"/npm/idmint-linux-*.tgz &&
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
    step "every package installed and ran without a Rust toolchain"
}

[ $# -gt 0 ] || set -- build smoke
for what in "$@"; do
    case $what in
        tools | build | smoke) "$what" ;;
        *) die "usage: tests/packages.sh [tools] [build] [smoke]" ;;
    esac
done

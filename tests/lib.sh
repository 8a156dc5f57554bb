# Install helpers shared by tests/run.sh and the packages' own test scripts (node/scripts/test.sh,
# web/scripts/test.sh): each installs only what is missing, so a second run does nothing.
# Source it from the repository root or give IDMINT_ROOT.

IDMINT_ROOT=${IDMINT_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo

apt_packages() { # the Debian packages the named sections need and this machine lacks
    local s need=()
    for s in "$@"; do
        case $s in
            rust | segment)
                command -v redis-server >/dev/null || need+=(redis-server)
                compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || need+=(postgresql)
                command -v mariadbd >/dev/null || need+=(mariadb-server)
                ;;
            web | packages) [ -x /usr/bin/chromium ] || need+=(chromium) ;;
            server) command -v promtool >/dev/null || need+=(prometheus) ;;
        esac
    done
    printf '%s\n' "${need[@]}" | sort -u | grep . || true
}

apt_install() {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

npm_ci() { # npm_ci DIR [ARGS]: npm ci when package-lock.json changed since the last one
    local dir=$1
    shift
    if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
        [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
        (cd "$dir" && npm ci --no-audit --no-fund "$@")
    fi
}

WASM_BINDGEN=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' "$IDMINT_ROOT/Cargo.toml")
# wasm-bindgen-cli at the exact version the workspace pins the `wasm-bindgen` crate to. Built at
# the lowest CPU priority, so on a small machine it takes only what the main build leaves idle,
# and without LTO at opt-level 1: it runs for a second on a small .wasm, a faster build matters
# more than a faster tool.
wasm_bindgen_cli() {
    [ "$(wasm-bindgen --version 2>/dev/null)" = "wasm-bindgen $WASM_BINDGEN" ] && return 0
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
        CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$IDMINT_ROOT/target}/tools" \
        nice -n 19 cargo install wasm-bindgen-cli --version "$WASM_BINDGEN" --force
}

# The JVM package's Java generator (bindings/jvm/bindgen with `generate`: uniffi-bindgen-java,
# about six minutes of one core to compile though its two large crates are at opt-level 0) is
# built in a target directory of its own outside the repository, as wasm-bindgen-cli is
# installed outside it: a new clone on a machine that built it once compiles it again only when
# its pinned version, the toolchain or the profile changed. java/build-native.sh reads the
# variable; jvm_bindgen builds the generator alone, at the lowest CPU priority.
export IDMINT_JVM_BINDGEN_TARGET_DIR=${IDMINT_JVM_BINDGEN_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/idmint/jvm-bindgen}
jvm_bindgen() {
    nice -n 19 "$IDMINT_ROOT/java/build-native.sh" --generator
}

# rustfmt and clippy, and the wasm32 target when `web` runs: one job, as rustup changes the
# toolchain's files and two of it at once could clash.
rustup_parts() {
    local have
    have=$(rustup component list --installed 2>/dev/null || true)
    for c in rustfmt clippy; do
        grep -q "^$c" <<<"$have" || rustup component add "$c"
    done
    if [ "${1:-}" = wasm ]; then
        rustup target list --installed | grep -qx wasm32-unknown-unknown ||
            rustup target add wasm32-unknown-unknown
        # The browser's modules (web/build.mjs) are built on nightly with the standard library
        # rebuilt for them (-Z build-std): that needs nightly's rust-src and its wasm32 target.
        rustup run nightly rustc -V >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
        have=$(rustup component list --installed --toolchain nightly 2>/dev/null || true)
        grep -q "^rust-src" <<<"$have" || rustup component add rust-src --toolchain nightly
        grep -q "^rust-std-wasm32-unknown-unknown" <<<"$have" ||
            rustup target add wasm32-unknown-unknown --toolchain nightly
    fi
}

# cargo-fuzz at the version fuzz/README.md names, on the nightly toolchain the fuzz targets build
# with (installed with a minimal profile when missing). Built at the lowest CPU priority, as
# wasm-bindgen-cli is.
CARGO_FUZZ=0.13.2
cargo_fuzz() {
    rustup run nightly rustc -V >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
    [ "$(cargo fuzz --version 2>/dev/null)" = "cargo-fuzz $CARGO_FUZZ" ] && return 0
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$IDMINT_ROOT/target}/tools" \
        nice -n 19 cargo install cargo-fuzz --version "$CARGO_FUZZ" --locked --force
}

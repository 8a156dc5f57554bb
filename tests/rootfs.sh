#!/usr/bin/env bash
# The Debian root filesystems the packages' smoke tests run in (tests/packages.sh smoke-foreign):
# what a user on another system has, with no Rust toolchain in it.
#
#   tests/rootfs.sh NAME     prints the root filesystem's path, making it first when missing
#
# NAME is one of:
#   bookworm-arm64    Debian 12 for ARM64 (aarch64): python3 + python3-venv, nodejs + npm,
#                     openjdk-17-jre-headless, run through Debian's qemu-user-static (binfmt_misc)
#   bullseye-amd64    Debian 11 for x86-64, glibc 2.31: openjdk-17-jre-headless (its python3 3.9
#                     and nodejs 12 are older than the packages' minimums, so they are left out:
#                     the wheel and addon are checked by their symbol versions instead)
#   pg13-bullseye     the PostgreSQL extension's (tests/pg.sh with IDMINT_PG=N, tests/packages.sh
#   pg15-bookworm     pg): Debian 11, 12, 13 and forky (testing, 2026; the first suite that
#   pg17-trixie       carries PostgreSQL 18) for x86-64 with that release's postgresql-N and
#   pg18-forky        postgresql-server-dev-N, what cargo-pgrx needs to build against them (a C
#                     compiler, libclang for bindgen), dpkg-dev and faketime. The extension is
#                     built inside, with this machine's Rust toolchain bound in for the build
#                     only, so it links against that release's glibc; its .deb is installed and
#                     tested inside.
#
# Made once with debootstrap from Debian's mirror and kept outside the repository
# (IDMINT_ROOTFS_DIR, default ~/.cache/idmint/rootfs), so a fresh clone reuses them; a half-made
# one (an interrupted run) is never used: the tree is built under NAME.tmp and renamed when done.
# NAME.include records its package list: one made before the list grew gets what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh

DIR=${IDMINT_ROOTFS_DIR:-$HOME/.cache/idmint/rootfs}
MIRROR=${IDMINT_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# qemu-user-static registers itself with binfmt_misc through systemd-binfmt, which a container
# has not run: register the interpreter from the package's own binfmt.d entry (flag F: the
# kernel opens it now, so it works inside the chroot too).
binfmt_arm64() {
    [ -e /proc/sys/fs/binfmt_misc/register ] ||
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
        cat /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register
}

# apt_in_rootfs TREE PACKAGES: apt-get install of PACKAGES (space-separated) inside TREE. A
# testing suite's Release file is valid for a week only, and the mirror may serve one past that
# (forky's was 23 days past on 2026-11-29): its signature is still checked, its age is not.
apt_in_rootfs() {
    cp /etc/resolv.conf "$1/etc/resolv.conf"
    chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get -o Acquire::Check-Valid-Until=false update -qq &&
            apt-get install -y -qq --no-install-recommends $2 && apt-get clean"
}

make_rootfs() {
    local name=$1 suite arch include extra=""
    case $name in
        bookworm-arm64)
            suite=bookworm arch=arm64
            # npm comes after, from apt inside: debootstrap's own resolver cannot order its
            # hundred node-* dependencies.
            include=python3,python3-venv,nodejs,openjdk-17-jre-headless
            extra=npm
            ;;
        bullseye-amd64)
            suite=bullseye arch=amd64
            include=openjdk-17-jre-headless
            ;;
        pg13-bullseye | pg15-bookworm | pg17-trixie | pg18-forky)
            suite=${name#*-} arch=amd64
            local major=${name%%-*}
            major=${major#pg}
            # libssl-dev: cargo-pgrx itself is built in the oldest of them (its glibc), with openssl-sys
            # dpkg-dev: dpkg-shlibdeps, for the .deb's Depends; faketime: tests/pg.sh's clock step
            include=postgresql-$major,postgresql-server-dev-$major,gcc,libc6-dev,libclang-dev,make,pkg-config,ca-certificates,libssl-dev,dpkg-dev,faketime
            ;;
        *)
            echo "rootfs: unknown root filesystem '$name' (bookworm-arm64, bullseye-amd64, pg13-bullseye, pg15-bookworm, pg17-trixie, pg18-forky)" >&2
            exit 2
            ;;
    esac
    [ "$arch" = arm64 ] && binfmt_arm64
    if [ -d "$DIR/$name" ]; then
        # Made before its package list grew: what is missing is installed into it.
        [ "$(cat "$DIR/$name.include" 2>/dev/null)" = "$include" ] && return 0
        apt_in_rootfs "$DIR/$name" "${include//,/ }" >>"$DIR/$name.log" 2>&1 || {
            tail -30 "$DIR/$name.log" >&2
            exit 1
        }
        echo "$include" >"$DIR/$name.include"
        return 0
    fi
    local tmp=$DIR/$name.tmp
    rm -rf "$tmp"
    mkdir -p "$DIR"
    echo "rootfs: debootstrap $suite $arch into $tmp (once; minutes)" >&2
    # debootstrap 1.0.128 (bookworm's) has no script for forky: it is made like sid.
    local script=""
    [ -e "/usr/share/debootstrap/scripts/$suite" ] || script=/usr/share/debootstrap/scripts/sid
    # shellcheck disable=SC2086 # no script: no word
    debootstrap --arch="$arch" --variant=minbase --include="$include" "$suite" "$tmp" "$MIRROR" $script \
        >"$DIR/$name.log" 2>&1 || {
        tail -30 "$DIR/$name.log" >&2
        exit 1
    }
    if [ -n "$extra" ]; then
        apt_in_rootfs "$tmp" "$extra" >>"$DIR/$name.log" 2>&1 || {
            tail -30 "$DIR/$name.log" >&2
            exit 1
        }
    fi
    # Nothing of a Rust toolchain may be reachable inside: the tests prove the packages need none.
    if chroot "$tmp" sh -c 'command -v cargo || command -v rustc || command -v rustup'; then
        echo "rootfs: $name has a Rust tool" >&2
        exit 1
    fi
    rm -rf "$tmp/var/cache/apt/archives"/*.deb
    echo "$include" >"$DIR/$name.include"
    mv "$tmp" "$DIR/$name"
}

[ $# -eq 1 ] || {
    echo "usage: tests/rootfs.sh bookworm-arm64|bullseye-amd64|pg13-bullseye|pg15-bookworm|pg17-trixie|pg18-forky" >&2
    exit 2
}
command -v debootstrap >/dev/null || apt_install debootstrap
command -v /usr/libexec/qemu-binfmt/aarch64-binfmt-P >/dev/null || apt_install qemu-user-static
make_rootfs "$1"
echo "$DIR/$1"

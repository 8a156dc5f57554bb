# PostgreSQL clusters of their own, with idmint's extension built and installed: for
# tests/pg.sh, pg/bench.sh and tests/packages.sh pg. Source it after tests/lib.sh, from the
# repository root.
#
# IDMINT_PG=N picks the PostgreSQL major (default 15). 15 runs on this machine (Debian
# bookworm's own PostgreSQL, the extension built here and installed by cargo-pgrx): what CI
# runs. Every other major, and 15 too with IDMINT_PG_ROOTFS=1, runs in a root filesystem of the
# Debian release that ships it (tests/rootfs.sh pgN-SUITE): the extension is built inside it
# with that release's postgresql-server-dev-N and glibc, packaged as postgresql-N-idmint (a
# .deb, pg_package_deb) and installed with dpkg; the server runs inside it (chroot, the same
# network and PIDs as this machine), and the tests' clients (psql, Python, Node) run here and
# connect over loopback.

PG_MAJOR=${IDMINT_PG:-15}
case $PG_MAJOR in
    13) PG_SUITE=bullseye ;;
    15) PG_SUITE=bookworm ;;
    17) PG_SUITE=trixie ;;
    18) PG_SUITE=forky ;;
    *)
        echo "IDMINT_PG=$PG_MAJOR: the majors tested are 13 (bullseye), 15 (bookworm), 17 (trixie) and 18 (forky); docs/database.md says how to build for 14 and 16" >&2
        exit 2
        ;;
esac
PG_ROOTFS=""
if [ "$PG_MAJOR" != 15 ] || [ -n "${IDMINT_PG_ROOTFS:-}" ]; then
    PG_ROOTFS=$(tests/rootfs.sh "pg$PG_MAJOR-$PG_SUITE")
fi
# Paths as the server sees them (inside the root filesystem when there is one).
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PGBIN/pg_config
# The extension's target directory: a cache beside cargo-pgrx's (IDMINT_PG_TARGET_DIR to choose
# another), so a fresh clone compiles only this repository's crates, not pgrx's PostgreSQL
# bindings and the rest of the dependencies again. One per root filesystem: each links against
# its release's glibc.
if [ -n "$PG_ROOTFS" ]; then
    PG_TARGET_DIR=${IDMINT_PG_TARGET_DIR:-$IDMINT_CACHE/pg-target-$PG_MAJOR}
else
    PG_TARGET_DIR=${IDMINT_PG_TARGET_DIR:-$IDMINT_CACHE/pg-target}
fi
PG_PACKAGES=${IDMINT_PACKAGES_DIR:-${CARGO_TARGET_DIR:-$IDMINT_ROOT/target}/packages}/pg
PG_VERSION=$(manifest_version "$IDMINT_ROOT/pg/Cargo.toml")
PG_DEB=$PG_PACKAGES/postgresql-$PG_MAJOR-idmint_${PG_VERSION}_amd64.deb

# in_pg_root CMD...: CMD where the server runs: in the root filesystem (its own PATH and
# nothing of this machine's environment but what is named here), or here.
in_pg_root() {
    if [ -n "$PG_ROOTFS" ]; then
        chroot "$PG_ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
            ${LD_PRELOAD:+LD_PRELOAD=$LD_PRELOAD} ${FAKETIME:+FAKETIME=$FAKETIME} \
            ${DONT_FAKE_MONOTONIC:+DONT_FAKE_MONOTONIC=$DONT_FAKE_MONOTONIC} "$@"
    else
        "$@"
    fi
}

# pg_root_mounts: what a server in the root filesystem needs of this machine: /proc, and a
# tmpfs for POSIX shared memory (PostgreSQL's dynamic shared memory). Left mounted (both are
# harmless to a later removal of the tree, unlike a bind of a directory of this machine).
pg_root_mounts() {
    [ -n "$PG_ROOTFS" ] || return 0
    mountpoint -q "$PG_ROOTFS/proc" || mount -t proc proc "$PG_ROOTFS/proc"
    mountpoint -q "$PG_ROOTFS/dev/shm" || mount -t tmpfs -o mode=1777 tmpfs "$PG_ROOTFS/dev/shm"
}

# pg_toolchain_run DIR SCRIPT: SCRIPT (sh) in DIR inside PG_MAJOR's root filesystem, with
# cargo-pgrx (pinned to pg/'s pgrx) and pgrx's configuration for that PostgreSQL ready, and this
# machine's Rust toolchain, cargo home, idmint's cache and DIR bound in at the same paths for
# that run only (unbound when it ends, however it ends: nothing of this machine stays reachable
# from the tree). CARGO_TARGET_DIR is PG_TARGET_DIR.
pg_toolchain_run() {
    local binds=("$HOME/.rustup" "$HOME/.cargo" "$IDMINT_CACHE" "$1") b pgrx
    # This machine's cargo-pgrx (bookworm: glibc 2.36, libssl3) runs in bookworm and the newer
    # releases; bullseye (glibc 2.31, libssl1.1) gets one built inside it, once.
    if [ "$PG_SUITE" = bullseye ]; then
        pgrx=$IDMINT_CACHE/cargo-pgrx-$CARGO_PGRX-bullseye
    else
        cargo_pgrx
        pgrx=$IDMINT_CACHE/cargo-pgrx-$CARGO_PGRX
    fi
    pg_root_mounts
    # The machine's CA bundle: cargo reaches crates.io from inside through the same proxy.
    cp /etc/resolv.conf "$PG_ROOTFS/etc/resolv.conf"
    cp /etc/ssl/certs/ca-certificates.crt "$PG_ROOTFS/etc/ssl/certs/idmint-host-ca.crt"
    (
        # Lazily when busy: unbound now, whatever still runs inside.
        trap 'for b in "${binds[@]}"; do umount "$PG_ROOTFS$b" 2>/dev/null || umount -l "$PG_ROOTFS$b" 2>/dev/null || true; done' EXIT
        for b in "${binds[@]}"; do
            mkdir -p "$PG_ROOTFS$b"
            mountpoint -q "$PG_ROOTFS$b" || mount --bind "$b" "$PG_ROOTFS$b"
        done
        mount -o remount,bind,ro "$PG_ROOTFS$HOME/.rustup"
        chroot "$PG_ROOTFS" /usr/bin/env -i HOME="$HOME" PATH="$pgrx/bin:$HOME/.cargo/bin:/usr/bin:/bin" \
            RUSTUP_HOME="$HOME/.rustup" CARGO_HOME="$HOME/.cargo" CARGO_TERM_COLOR=never \
            CARGO_HTTP_CAINFO=/etc/ssl/certs/idmint-host-ca.crt SSL_CERT_FILE=/etc/ssl/certs/idmint-host-ca.crt \
            PGRX_HOME="$IDMINT_CACHE/pgrx-home-$PG_MAJOR" CARGO_TARGET_DIR="$PG_TARGET_DIR" \
            PG_MAJOR="$PG_MAJOR" PG_CONFIG="$PG_CONFIG" CARGO_PGRX="$CARGO_PGRX" PGRX_ROOT="$pgrx" \
            sh -euc '
                [ "$(cargo pgrx --version 2>/dev/null)" = "cargo-pgrx $CARGO_PGRX" ] ||
                    CARGO_TARGET_DIR=$HOME/.cache/idmint/cargo-pgrx-build-root CARGO_PROFILE_RELEASE_LTO=false \
                    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
                    cargo install cargo-pgrx --version "=$CARGO_PGRX" --locked --root "$PGRX_ROOT"
                [ -f "$PGRX_HOME/config.toml" ] || cargo pgrx init --pg$PG_MAJOR "$PG_CONFIG" >/dev/null
                cd "$1"
                eval "$2"
            ' sh "$1" "$2" >&2
    )
}

# pg_build_in_root: `cargo pgrx package` for PG_MAJOR inside its root filesystem, so that the
# library links against that release's glibc. Prints the package tree's path.
pg_build_in_root() {
    pg_toolchain_run "$IDMINT_ROOT" 'cd pg && nice -n 10 cargo pgrx package --pg-config "$PG_CONFIG" \
        --no-default-features --features "pg$PG_MAJOR"' || return 1
    echo "$PG_TARGET_DIR/release/idmint-pg$PG_MAJOR"
}

# pg_make_in_root DIR: `make` in DIR (an unpacked PGXN zip) inside the root filesystem, as a
# user builds from it (pg/pgxn/Makefile), and the package tree it makes checked for the library.
pg_make_in_root() {
    local so=$PG_TARGET_DIR/release/idmint-pg$PG_MAJOR/usr/lib/postgresql/$PG_MAJOR/lib/idmint.so
    touch "$1/.before-make"
    pg_toolchain_run "$1" 'make PG_CONFIG="$PG_CONFIG"' || return 1
    [ -n "$(find "$so" -newer "$1/.before-make" 2>/dev/null)" ] || {
        echo "pg: make in $1 wrote no $so" >&2
        return 1
    }
}

# pg_package_deb: postgresql-N-idmint_VERSION_amd64.deb in PG_PACKAGES, from the package tree
# built in the root filesystem: the library stripped, a control file whose Depends are the
# server package of that major and what dpkg-shlibdeps reads off the library in that release.
# shared_preload_libraries is the user's file to edit, so the package leaves it alone and says
# so when it is installed (postinst).
pg_package_deb() {
    local tree stage depends
    # (a command substitution does not stop at a failure inside: checked here)
    tree=$(pg_build_in_root) || return 1
    stage=$(mktemp -d "$PG_ROOTFS/tmp/idmint-deb.XXXXXX")
    mkdir -p "$stage/pkg/DEBIAN" "$stage/debian" "$PG_PACKAGES"
    cp -a "$tree/usr" "$stage/pkg/"
    install -d "$stage/pkg/usr/share/doc/postgresql-$PG_MAJOR-idmint"
    cat >"$stage/pkg/usr/share/doc/postgresql-$PG_MAJOR-idmint/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: idmint
Source: https://github.com/idmint/idmint

Files: *
Copyright: the idmint developers
License: MIT or Apache-2.0
 The full text of the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0; the
 MIT license is at https://opensource.org/license/mit.
EOF
    # dpkg-shlibdeps needs a source package's debian/control to read; what it prints is the
    # libraries' packages at the versions the symbols need (libc6 (>= 2.x), libgcc-s1).
    printf 'Source: idmint\n\nPackage: postgresql-%s-idmint\nArchitecture: amd64\n' "$PG_MAJOR" >"$stage/debian/control"
    in_pg_root sh -euc "cd '${stage#"$PG_ROOTFS"}' && strip --strip-unneeded pkg/usr/lib/postgresql/$PG_MAJOR/lib/idmint.so &&
        dpkg-shlibdeps -O -e pkg/usr/lib/postgresql/$PG_MAJOR/lib/idmint.so" >"$stage/shlibs"
    depends=$(sed -n 's/^shlibs:Depends=//p' "$stage/shlibs")
    [ -n "$depends" ] || {
        echo "pg: dpkg-shlibdeps gave no dependencies: $(cat "$stage/shlibs")" >&2
        return 1
    }
    cat >"$stage/pkg/DEBIAN/control" <<EOF
Package: postgresql-$PG_MAJOR-idmint
Version: $PG_VERSION
Architecture: amd64
Maintainer: idmint developers <idmint@users.noreply.github.com>
Installed-Size: $(du -sk "$stage/pkg/usr" | cut -f1)
Depends: postgresql-$PG_MAJOR, $depends
Section: database
Priority: optional
Homepage: https://github.com/idmint/idmint
Description: idmint for PostgreSQL $PG_MAJOR: snowflake IDs minted by the database
 CREATE EXTENSION idmint: snowflake IDs of any bit layout minted in shared memory
 (DEFAULT idmint_snowflake()), the node value leased beside the application, segment
 IDs that a rollback never hands out twice, ObjectId, UUIDv7, ULID and TypeID, and one
 decoder and time-range bounds for every format. Needs
 shared_preload_libraries = 'idmint' in postgresql.conf.
EOF
    cat >"$stage/pkg/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
    cat <<'MSG'
postgresql-$PG_MAJOR-idmint: the library is installed; this package does not edit your
configuration. To use it, add idmint to shared_preload_libraries in postgresql.conf
(keeping the libraries already listed there), for example
    shared_preload_libraries = 'idmint'
    idmint.layout = 'twitter'
    idmint.node = 'datacenter=1,worker=7'
restart the cluster (pg_ctlcluster $PG_MAJOR main restart), then in each database:
    CREATE EXTENSION idmint;
Without the preload, CREATE EXTENSION works and idmint_snowflake() refuses, saying so.
MSG
fi
EOF
    chmod 0755 "$stage/pkg/DEBIAN/postinst"
    rm -f "$PG_DEB"
    dpkg-deb --root-owner-group -Zxz --build "$stage/pkg" "$PG_DEB" >&2
    rm -rf "$stage"
}

# pg_install_extension: the extension built and installed into PG_MAJOR's PostgreSQL. Here
# (15): Debian's PostgreSQL 15 and its server headers, cargo-pgrx (pinned to pg/'s pgrx), then
# pg/ built (release) and installed by cargo-pgrx. In a root filesystem: its .deb (IDMINT_PG_DEB
# when given, a package built before, or one built now) installed with dpkg.
pg_install_extension() {
    if [ -n "$PG_ROOTFS" ]; then
        local deb=${IDMINT_PG_DEB:-}
        if [ -z "$deb" ]; then
            echo "[pg] building postgresql-$PG_MAJOR-idmint in $PG_ROOTFS" >&2
            pg_package_deb
            deb=$PG_DEB
        fi
        cp "$deb" "$PG_ROOTFS/tmp/"
        in_pg_root env DEBIAN_FRONTEND=noninteractive dpkg -i "/tmp/$(basename "$deb")" >&2
        rm -f "$PG_ROOTFS/tmp/$(basename "$deb")"
        return 0
    fi
    local need
    need=$(apt_packages pg)
    [ -z "$need" ] || apt_install $need
    cargo_pgrx
    # pgrx's own configuration (which pg_config is PostgreSQL 15), kept beside cargo-pgrx;
    # `init` with --pg15 given only writes it, it downloads nothing.
    export PGRX_HOME=$IDMINT_CACHE/pgrx-home
    [ -f "$PGRX_HOME/config.toml" ] || cargo pgrx init --pg15 "$PG_CONFIG" >/dev/null
    echo "[pg] building and installing the extension" >&2
    # Built for this machine's PostgreSQL, never shipped: the system's cc and linker, not zig's
    # glibc 2.17 (tests/run.sh sets those for the packages).
    (cd pg && CARGO_TARGET_DIR=$PG_TARGET_DIR \
        without_zig nice -n 10 cargo pgrx install --release --pg-config "$PG_CONFIG") >&2
}

as_pg() { if [ "$(id -u)" = 0 ]; then in_pg_root runuser -u postgres -- "$@"; else "$@"; fi; }

PG_DIR="" PG_IN="" PGPID=""
# pg_tempdir: a new temporary directory the server can reach (under the root filesystem's /tmp
# when there is one); its path here.
pg_tempdir() { mktemp -d "$PG_ROOTFS/tmp/idmint-pg.XXXXXX"; }

# pg_init DIR [CONF...]: a cluster in DIR/data (DIR from pg_tempdir; initdb, trust on loopback),
# listening on 127.0.0.1 at a free port (PORT) with its sockets in DIR, idmint preloaded, each
# CONF line appended to postgresql.conf; psql's PG* variables point at it. Not started. PG_IN is
# DIR as the server sees it.
pg_init() {
    PG_DIR=$1
    PG_IN=${PG_DIR#"$PG_ROOTFS"}
    shift
    pg_root_mounts
    [ "$(id -u)" = 0 ] && in_pg_root chown postgres "$PG_IN"
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_pg "$PGBIN/initdb" -D "$PG_IN/data" -A trust -U postgres >"$PG_DIR/initdb.log"
    {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $PORT"
        echo "unix_socket_directories = '$PG_IN'"
        echo "shared_preload_libraries = 'idmint'"
        printf '%s\n' "$@"
    } >>"$PG_DIR/data/postgresql.conf"
    export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
}

# q SQL: one statement on the cluster, its rows unaligned, stopping at the first error.
q() { psql -X -q -tA -v ON_ERROR_STOP=1 -c "$1"; }

# pg_start: start the cluster and wait for it to take connections (pg_ctl's own wait).
pg_start() {
    as_pg "$PGBIN/pg_ctl" -D "$PG_IN/data" -l "$PG_IN/pg.log" -w -t 120 start >/dev/null
    PGPID=$(head -1 "$PG_DIR/data/postmaster.pid")
}

# pg_stop: a fast shutdown (SIGINT to the postmaster, by its PID), waited for.
pg_stop() {
    [ -n "$PGPID" ] && kill -INT "$PGPID" 2>/dev/null && while kill -0 "$PGPID" 2>/dev/null; do sleep 0.1; done
    PGPID=""
}

# pg_faketime_lib: libfaketime's path as the server sees it (the root filesystem has its own).
pg_faketime_lib() {
    local lib
    lib=$(compgen -G "$PG_ROOTFS/usr/lib/*/faketime/libfaketime.so.1" | head -1)
    echo "${lib#"$PG_ROOTFS"}"
}

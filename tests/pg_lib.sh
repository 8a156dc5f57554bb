# PostgreSQL 15 clusters of their own, with idmint's extension built and installed: for
# tests/pg.sh and pg/bench.sh. Source it after tests/lib.sh, from the repository root.

PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
PGBIN=/usr/lib/postgresql/15/bin
# The extension's target directory: a cache beside cargo-pgrx's (IDMINT_PG_TARGET_DIR to choose
# another), so a fresh clone compiles only this repository's crates, not pgrx's PostgreSQL
# bindings and the rest of the dependencies again.
PG_TARGET_DIR=${IDMINT_PG_TARGET_DIR:-$IDMINT_CACHE/pg-target}

# pg_install_extension: Debian's PostgreSQL 15 and its server headers, cargo-pgrx (pinned to
# pg/'s pgrx), then pg/ built (release) and installed into that PostgreSQL.
pg_install_extension() {
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

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

PG_DIR="" PGPID=""
# pg_init DIR [CONF...]: a cluster in DIR/data (initdb, trust on loopback), listening on
# 127.0.0.1 at a free port (PORT) with its sockets in DIR, idmint preloaded, each CONF line
# appended to postgresql.conf; psql's PG* variables point at it. Not started.
pg_init() {
    PG_DIR=$1
    shift
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_pg "$PGBIN/initdb" -D "$PG_DIR/data" -A trust -U postgres >"$PG_DIR/initdb.log"
    {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $PORT"
        echo "unix_socket_directories = '$PG_DIR'"
        echo "shared_preload_libraries = 'idmint'"
        printf '%s\n' "$@"
    } >>"$PG_DIR/data/postgresql.conf"
    export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
}

# q SQL: one statement on the cluster, its rows unaligned, stopping at the first error.
q() { psql -X -q -tA -v ON_ERROR_STOP=1 -c "$1"; }

# pg_start: start the cluster and wait for it to take connections (pg_ctl's own wait).
pg_start() {
    as_pg "$PGBIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/pg.log" -w -t 120 start >/dev/null
    PGPID=$(head -1 "$PG_DIR/data/postmaster.pid")
}

# pg_stop: a fast shutdown (SIGINT to the postmaster, by its PID), waited for.
pg_stop() {
    [ -n "$PGPID" ] && kill -INT "$PGPID" 2>/dev/null && while kill -0 "$PGPID" 2>/dev/null; do sleep 0.1; done
    PGPID=""
}

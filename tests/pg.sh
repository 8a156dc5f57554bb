#!/usr/bin/env bash
# The PostgreSQL extension (pg/, `CREATE EXTENSION idmint`): builds it with cargo-pgrx against
# Debian's PostgreSQL 15, installs it into that PostgreSQL, starts a cluster of its own (initdb in
# a temporary directory, loopback, a free port, shared_preload_libraries = 'idmint'; stopped by
# its PID) and checks it:
#   - 16 connections × IDMINT_PG_ROWS (default 100000) inserts with DEFAULT idmint_snowflake():
#     0 duplicate keys, every ID of the configured node;
#   - the postmaster SIGKILLed mid-load and restarted, the load resumed: still 0 duplicates;
#   - idmint_min_id / idmint_max_id / idmint_parse / idmint_time answer every vector of
#     tests/vectors/ (time_range.json, snowflake.json) as core does, errors with core's message
#     and kind; the time-range query is an index scan (EXPLAIN);
#   - idmint_objectid, idmint_uuid7, idmint_ulid, idmint_typeid and idmint_decode read back.
# Installs (tests/lib.sh): postgresql-15, postgresql-server-dev-15, libclang-dev, and cargo-pgrx
# under ~/.cache/idmint. Run from the repository root: tests/pg.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh

ROWS=${IDMINT_PG_ROWS:-100000}
CONNS=16
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
PGBIN=/usr/lib/postgresql/15/bin
log() { echo "[pg] $*" >&2; }

need=$(apt_packages pg)
[ -z "$need" ] || apt_install $need
cargo_pgrx

# pgrx's own configuration (which pg_config is PostgreSQL 15), kept beside cargo-pgrx; `init`
# with --pg15 given only writes it, it downloads nothing.
export PGRX_HOME=$IDMINT_CACHE/pgrx-home
[ -f "$PGRX_HOME/config.toml" ] || cargo pgrx init --pg15 "$PG_CONFIG" >/dev/null
export CARGO_TARGET_DIR=${IDMINT_PG_TARGET_DIR:-$PWD/target/pg}
log "building and installing the extension"
(cd pg && nice -n 10 cargo pgrx install --release --pg-config "$PG_CONFIG") >&2

DIR=$(mktemp -d /tmp/idmint-pg.XXXXXX)
PGPID=""
stop() {
    [ -n "$PGPID" ] && kill -INT "$PGPID" 2>/dev/null && while kill -0 "$PGPID" 2>/dev/null; do sleep 0.1; done
    PGPID=""
}
cleanup() { stop; rm -rf "$DIR"; }
trap cleanup EXIT
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg "$PGBIN/initdb" -D "$DIR/data" -A trust -U postgres >"$DIR/initdb.log"
cat >>"$DIR/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
max_connections = 40
shared_preload_libraries = 'idmint'
idmint.layout = 'twitter'
idmint.node = 'datacenter=3,worker=17'
EOF
start() {
    as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/pg.log" -w -t 60 start >/dev/null
    PGPID=$(head -1 "$DIR/data/postmaster.pid")
}
start
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
q() { psql -X -q -tA -v ON_ERROR_STOP=1 -c "$1"; }
failures=0
check() { # check NAME GOT WANT
    if [ "$2" = "$3" ]; then
        log "ok: $1"
    else
        log "FAILED: $1: got '$2', want '$3'"
        failures=$((failures + 1))
    fi
}

q "CREATE EXTENSION idmint"
q "CREATE TABLE minted (id bigint NOT NULL DEFAULT idmint_snowflake(), conn int)"

load() { # load ROWS: CONNS connections each inserting ROWS rows, in batches of 10000
    local pids=() c
    for c in $(seq 1 $CONNS); do
        psql -X -q -v ON_ERROR_STOP=1 -c "DO \$\$ BEGIN FOR i IN 1..$(($1 / 10000 > 0 ? $1 / 10000 : 1)) LOOP
            INSERT INTO minted (conn) SELECT $c FROM generate_series(1, $(($1 < 10000 ? $1 : 10000)));
            COMMIT; END LOOP; END \$\$" >/dev/null 2>&1 &
        pids+=($!)
    done
    local failed=0
    for c in "${pids[@]}"; do wait "$c" || failed=$((failed + 1)); done
    echo "$failed"
}

log "$CONNS connections × $ROWS inserts with DEFAULT idmint_snowflake()"
failed=$(load "$ROWS")
check "every connection's load committed" "$failed" 0
check "rows" "$(q "SELECT count(*) FROM minted")" "$((CONNS * ROWS))"
check "duplicate IDs" "$(q "SELECT count(*) - count(DISTINCT id) FROM minted")" 0
check "IDs of another node" "$(q "SELECT count(*) FROM minted WHERE (id >> 12) & 1023 <> (3 << 5 | 17)")" 0

log "postmaster SIGKILLed mid-load, restarted, load resumed"
before=$(q "SELECT count(*) FROM minted")
(load "$ROWS" >/dev/null) &
loader=$!
# Wait on a signal, not a duration: the first rows of the new load are in.
until [ "$(q "SELECT count(*) > $before FROM minted" 2>/dev/null)" = t ]; do sleep 0.05; done
kill -KILL "$PGPID"
wait "$loader" || true
while kill -0 "$PGPID" 2>/dev/null; do sleep 0.1; done
# The killed postmaster's children leave with it; the next start recovers from the WAL.
until ! pgrep -u postgres -f "$DIR/data" >/dev/null; do sleep 0.1; done
PGPID=""
start
failed=$(load 10000)
check "load after the restart committed" "$failed" 0
check "duplicate IDs across the restart" "$(q "SELECT count(*) - count(DISTINCT id) FROM minted")" 0

log "the vectors, as core answers them"
python3 - "$PWD/tests/vectors" >"$DIR/vectors.sql" <<'EOF'
import json, sys
d = sys.argv[1]
tr = json.load(open(f"{d}/time_range.json"))
sf = json.load(open(f"{d}/snowflake.json"))
q = lambda s: "'" + s.replace("'", "''") + "'"
ts = lambda ms: f"(timestamptz '1970-01-01 00:00:00+00' + ({ms})::bigint * interval '1 millisecond')"
small = lambda c: int(c.get("max_id", "0")) < 2**63 and "unsigned" not in c["layout"] and c["layout"] not in ("discord", "instagram", "mastodon", "tsid")
for c in tr["valid"]:
    if small(c):
        print(f"SELECT {q(c['name'])}, idmint_min_id({ts(c['time_ms'])}, {q(c['layout'])}) = {c['min_id']} "
              f"AND idmint_max_id({ts(c['time_ms'])}, {q(c['layout'])}) = {c['max_id']};")
for c in sf["valid"]:
    if int(c["id"]) < 2**63:
        print(f"SELECT {q(c['name'])}, (idmint_parse({c['id']}, {q(c['layout'])})->>'time_ms')::bigint = {c['time_ms']} "
              f"AND idmint_parse({c['id']}, {q(c['layout'])})->'parts'->>'sequence' = '{c['sequence']}' "
              f"AND idmint_time({c['id']}, {q(c['layout'])}) = {ts(c['time_ms'])};")
EOF
bad=$(psql -X -q -tA -v ON_ERROR_STOP=1 -F ' ' -f "$DIR/vectors.sql" | grep -v ' t$' || true)
check "vector cases answered as core does ($(wc -l <"$DIR/vectors.sql"))" "$bad" ""
err=$(psql -X -q -v VERBOSITY=default -c "SELECT idmint_min_id('2000-01-01T00:00:00Z', 'twitter')" 2>&1 || true)
check "out-of-range time: core's message" "$(grep -c 'ERROR:  time 946684800000 ms is out of range for this layout: valid times are 1288834974657..3487858230209 ms (unix)' <<<"$err")" 1
check "out-of-range time: core's kind" "$(grep -c 'DETAIL:  kind: time_out_of_range' <<<"$err")" 1
q "ALTER TABLE minted ADD PRIMARY KEY (id)"
q "ANALYZE minted"
# With sequential scans priced out, the plan shows whether the bound can drive the index at all
# (on this table every row is recent, so a real planner would rightly read it all).
plan=$(psql -X -q -tA -c "SET enable_seqscan = off" \
    -c "EXPLAIN SELECT id FROM minted WHERE id >= idmint_min_id(now() - interval '1 day')")
check "time-range query is an index range scan" "$(grep -q -E 'Index (Only )?Scan.*minted_pkey' <<<"$plan" && grep -q 'Index Cond: (id >= idmint_min_id' <<<"$plan" && echo yes)" yes

check "objectid" "$(q "SELECT idmint_decode(idmint_objectid())->>'format'")" objectid
check "uuid7" "$(q "SELECT idmint_decode(idmint_uuid7()::text)->>'format'")" uuid
check "ulid" "$(q "SELECT idmint_decode(idmint_ulid())->>'format'")" ulid
check "typeid" "$(q "SELECT idmint_typeid('user') LIKE 'user\\_%'")" t
check "decode a snowflake" "$(q "SELECT idmint_decode('1541815603606036480', 'twitter')->'parts'->>'worker'")" 26

stop
if [ "$failures" -ne 0 ]; then
    echo "pg: $failures checks failed" >&2
    exit 1
fi
echo "pg: all checks passed"

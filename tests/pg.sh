#!/usr/bin/env bash
# The PostgreSQL extension (pg/, `CREATE EXTENSION idmint`): builds it with cargo-pgrx against
# Debian's PostgreSQL 15, installs it into that PostgreSQL, starts a cluster of its own (initdb in
# a temporary directory, loopback, a free port, shared_preload_libraries = 'idmint'; stopped by
# its PID) and checks it. IDMINT_PG=13|17|18 (or 15 with IDMINT_PG_ROOTFS=1) does the same in
# the root filesystem of the Debian release that ships that major, with the extension built
# there as its .deb and installed with dpkg (tests/pg_lib.sh; IDMINT_PG_DEB to install a .deb
# built before, as tests/packages.sh pg does). The checks:
#   - 16 connections × IDMINT_PG_ROWS (default 100000) inserts with DEFAULT idmint_snowflake():
#     0 duplicate keys, every ID of the configured node;
#   - refusals of the settings (a layout other than idmint.layout; idmint.segment_store unset,
#     then set with ALTER SYSTEM and a reload): core's message and kind;
#   - idmint.segment_store changed by ALTER SYSTEM and a reload while a backend is connected:
#     that same backend draws from the new store (its table gets the tag's row), and back on the
#     old store above every ID it handed out;
#   - the postmaster SIGKILLed mid-load and restarted, the load resumed: still 0 duplicates;
#   - idmint_min_id / idmint_max_id / idmint_parse / idmint_time answer every vector of
#     tests/vectors/ (time_range.json, snowflake.json) as core does, errors with core's message
#     and kind; the time-range query is an index scan (EXPLAIN); errors carry their kind's
#     SQLSTATE; a bound past bigint (a 64-bit layout) is refused, not wrapped;
#   - idmint_objectid, idmint_uuid7, idmint_ulid, idmint_typeid and idmint_decode read back;
#   - idmint_segment_next / idmint_segment_range on this database's idmint_segments table:
#     8 connections drawing in transactions of which about a third roll back, beside a Node
#     process (the package's SegmentClient) on the same tag: 0 duplicates over the committed,
#     the rolled-back and the Node IDs; a transaction left open after a draw blocks no other
#     connection's draw;
#   - the node value leased (idmint.lease) from this database's idmint_workers table, as the
#     packages lease it: 16 connections × IDMINT_PG_LEASE_ROWS (default 100000) inserts while a
#     Python process (the package, python/tests/pg_lease_minter.py) leases, mints and releases
#     again and again from the same table with the same layout: 0 duplicates over both, the two
#     node values differ; the postmaster SIGKILLed mid-load and restarted: every ID after it
#     above every ID before it (the fence); the lease row taken from under the server:
#     idmint_snowflake() raises lease_lost and inserts nothing, and mints again once it is back;
#     a value whose fence is 10 minutes ahead of the clock: idmint_snowflake() refuses with
#     clock_moved_backwards (the default rollback policy) and inserts nothing; the whole
#     server's wall clock 10 minutes back (libfaketime): refused (the value looks held), nothing
#     inserted; with the clock right again, every ID above every earlier one.
# Needs python/.venv with idmint installed and the Node addon (the python and node sections of
# tests/run.sh build them), or PY_VENV and IDMINT_NODE_ENTRY naming installed packages.
# Installs (tests/lib.sh): postgresql-15, postgresql-server-dev-15, libclang-dev, faketime, and
# cargo-pgrx under ~/.cache/idmint (with IDMINT_PG: the root filesystem, tests/rootfs.sh). Run
# from the repository root: tests/pg.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh
source tests/pg_lib.sh

ROWS=${IDMINT_PG_ROWS:-100000}
LEASE_ROWS=${IDMINT_PG_LEASE_ROWS:-100000}
CONNS=16
PY=${PY_VENV:-python/.venv}/bin/python
log() { echo "[pg] $*" >&2; }

"$PY" -c "import idmint" || { log "$PY cannot import idmint: run tests/run.sh python first"; exit 1; }
[ -n "${IDMINT_NODE_ENTRY:-}" ] || compgen -G 'node/idmint.*.node' >/dev/null ||
    { log "no Node addon in node/: run tests/run.sh node first (or set IDMINT_NODE_ENTRY)"; exit 1; }
log "PostgreSQL $PG_MAJOR${PG_ROOTFS:+ in $PG_ROOTFS}"
pg_install_extension
if [ -z "$PG_ROOTFS" ]; then
    log "cargo fmt and clippy of pg/ (a workspace of its own, which the rust section does not check)"
    (cd pg && cargo fmt -- --check && CARGO_TARGET_DIR=$PG_TARGET_DIR without_zig cargo clippy --quiet --lib -- -D warnings) >&2
fi

# The schema this build installs, against the released ones (docs/database.md, "Updates").
EXTDIR=$PG_ROOTFS$(in_pg_root "$PG_CONFIG" --sharedir)/extension
python3 tests/pg_schema.py "$EXTDIR/idmint--$PG_VERSION.sql" pg/sql "$PG_VERSION" >&2

DIR=$(pg_tempdir)
trap 'pg_stop; rm -rf "$DIR"' EXIT
# Each backend that draws segments has a connection of its own to the same database.
pg_init "$DIR" "max_connections = 100" "idmint.layout = 'twitter'" "idmint.node = 'datacenter=3,worker=17'"
pg_start
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

log "refusals of the settings: another layout than idmint.layout, idmint.segment_store unset"
check "the server's layout named: minted" "$(q "SELECT idmint_snowflake('twitter') > 0")" t
err=$(psql -X -q -v VERBOSITY=default -c "SELECT idmint_snowflake('sonyflake')" 2>&1 || true)
check "another layout: core's message" "$(grep -c "ERROR:  invalid argument \`layout\` = \`sonyflake\`: the server's idmint.layout, twitter (time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657); one generator per server" <<<"$err")" 1
check "another layout: core's kind" "$(grep -c 'DETAIL:  kind: invalid_argument' <<<"$err")" 1
err=$(psql -X -q -v VERBOSITY=default -c "SELECT idmint_segment_next('unset')" 2>&1 || true)
check "segment store unset: core's message" "$(grep -c 'ERROR:  invalid argument `idmint.segment_store` = unset: a segment store URL' <<<"$err")" 1
check "segment store unset: core's kind" "$(grep -c 'DETAIL:  kind: invalid_argument' <<<"$err")" 1
# Set as docs/database.md says (ALTER SYSTEM, a reload): backends started after the postmaster
# has read it see it. Waited for on the setting itself, in new connections.
STORE_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
q "ALTER SYSTEM SET idmint.segment_store = '$STORE_URL'"
q "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1200); do [ "$(q "SHOW idmint.segment_store")" = "$STORE_URL" ] && break; sleep 0.1; done
check "idmint.segment_store set by ALTER SYSTEM and a reload" "$(q "SHOW idmint.segment_store")" "$STORE_URL"

log "idmint.segment_store changed by a reload: a running backend draws from the new store"
# Store B: the idmint_segments table of another database of this server.
q "CREATE DATABASE seg_b"
STORE_B="postgres://postgres@127.0.0.1:$PORT/seg_b"
RELOAD_TAG="reload_$$"
# One psql session, so one backend, throughout: statements in, their output up to a marker out.
coproc SESSION { psql -X -q -tA 2>&1; }
in_session() {
    local line out=""
    printf '%s;\n\\echo __done__\n' "$1" >&"${SESSION[1]}"
    while IFS= read -r line <&"${SESSION[0]}"; do
        [ "$line" = __done__ ] && break
        out+="${out:+$'\n'}$line"
    done
    printf '%s' "$out"
}
# set_segment_store URL: ALTER SYSTEM and a reload, then waited for on the setting the
# session's backend shows (it applies a reload between two statements).
set_segment_store() {
    q "ALTER SYSTEM SET idmint.segment_store = '$1'"
    q "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1200); do [ "$(in_session "SHOW idmint.segment_store")" = "$1" ] && break; sleep 0.1; done
}
backend=$(in_session "SELECT pg_backend_pid()")
first_a=$(in_session "SELECT idmint_segment_next('$RELOAD_TAG')")
check "reload: a first ID from store A" "$([[ $first_a =~ ^[0-9]+$ ]] && echo yes)" yes
set_segment_store "$STORE_B"
check "reload: the backend sees store B" "$(in_session "SHOW idmint.segment_store")" "$STORE_B"
first_b=$(in_session "SELECT idmint_segment_next('$RELOAD_TAG')")
check "reload: still the same backend ($backend)" "$(in_session "SELECT pg_backend_pid()")" "$backend"
check "reload: the draw took its range from B's table" \
    "$(psql -X -q -tA -d seg_b -c "SELECT count(*) FROM idmint_segments WHERE tag = '$RELOAD_TAG' AND max_id >= $first_b" 2>&1)" 1
# A's client would have given its next buffered ID; a new tag's first ID in B is the one A gave first.
check "reload: the ID is B's first, not A's next" "$first_b" "$first_a"
set_segment_store "$STORE_URL"
check "reload: the backend sees store A again" "$(in_session "SHOW idmint.segment_store")" "$STORE_URL"
again_a=$(in_session "SELECT idmint_segment_next('$RELOAD_TAG')")
check "reload back to A: an ID above the one A handed out ($first_a), got $again_a" \
    "$([[ $again_a =~ ^[0-9]+$ ]] && [ "$again_a" -gt "$first_a" ] && echo yes)" yes
check "reload back to A: still the same backend ($backend)" "$(in_session "SELECT pg_backend_pid()")" "$backend"
exec {SESSION[1]}>&-
wait "$SESSION_PID" || true

load() { # load ROWS [TABLE]: CONNS connections each inserting ROWS rows, in batches of 10000
    local pids=() c table=${2:-minted}
    for c in $(seq 1 $CONNS); do
        psql -X -q -v ON_ERROR_STOP=1 -c "DO \$\$ BEGIN FOR i IN 1..$(($1 / 10000 > 0 ? $1 / 10000 : 1)) LOOP
            INSERT INTO $table (conn) SELECT $c FROM generate_series(1, $(($1 < 10000 ? $1 : 10000)));
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
until ! pgrep -f "$PG_IN/data" >/dev/null; do sleep 0.1; done
PGPID=""
pg_start
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
# Each kind's own SQLSTATE (docs/database.md; core's unit test checks the whole table), as a
# client sees it: psql's verbose form, "ERROR:  CODE: message".
sqlstate_of() { psql -X -q -v VERBOSITY=verbose -c "$1" 2>&1 | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\): .*/\1/p'; }
check "time_out_of_range: SQLSTATE 22008" "$(sqlstate_of "SELECT idmint_min_id('2000-01-01T00:00:00Z', 'twitter')")" 22008
check "invalid_argument: SQLSTATE 22023" "$(sqlstate_of "SELECT idmint_snowflake('sonyflake')")" 22023
check "invalid_layout: SQLSTATE 22023" "$(sqlstate_of "SELECT idmint_parse(1, 'time:99')")" 22023
check "invalid_id: SQLSTATE 22003" "$(sqlstate_of "SELECT idmint_parse(-1)")" 22003
# A 64-bit layout's IDs of a late tick are past bigint (discord: past 2^63 from about 2084):
# refused by core's check, not wrapped to a negative number.
for f in min max; do
    err=$(psql -X -q -v VERBOSITY=verbose -c "SELECT idmint_${f}_id('2100-01-01T00:00:00Z', 'discord')" 2>&1 || true)
    check "idmint_${f}_id past bigint: refused with core's message and SQLSTATE" \
        "$(grep -c "ERROR:  22003: $f id as a bigint value [0-9]* is out of range: valid values are 0..=9223372036854775807" <<<"$err")" 1
    check "idmint_${f}_id past bigint: core's kind" "$(grep -c 'DETAIL:  kind: value_out_of_range' <<<"$err")" 1
done
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

log "segment draws from SQL, a third of them rolled back, beside a Node process on the same tag"
SEG_CONNS=8 SEG_LOOPS=${IDMINT_PG_SEGMENT_LOOPS:-400} NODE_COUNT=${IDMINT_PG_SEGMENT_NODE:-50000}
TAG="pg_$(date +%s)_$$"
q "CREATE TABLE seg_committed (id bigint)"
# Each loop draws one ID and a range of 20 in a transaction of its own and rolls back about a
# third of them; what rolled back is told as a NOTICE, which leaves the connection whatever the
# transaction does, so that the count covers it too.
seg_pids=()
for c in $(seq 1 $SEG_CONNS); do
    psql -X -q -v ON_ERROR_STOP=1 -c "DO \$\$ DECLARE one bigint; r int8range; BEGIN
        FOR i IN 1..$SEG_LOOPS LOOP
            one := idmint_segment_next('$TAG');
            r := idmint_segment_range('$TAG', 20);
            INSERT INTO seg_committed SELECT one UNION ALL SELECT generate_series(lower(r), upper(r) - 1);
            IF random() < 0.33 THEN
                RAISE NOTICE 'rolled back %', (SELECT string_agg(g::text, ' ') FROM
                    (SELECT one AS g UNION ALL SELECT generate_series(lower(r), upper(r) - 1)) x);
                ROLLBACK;
            ELSE
                COMMIT;
            END IF;
        END LOOP; END \$\$" >/dev/null 2>"$DIR/seg.$c.notices" &
    seg_pids+=($!)
done
node node/test/segment-worker.mjs "postgres://postgres@127.0.0.1:$PORT/postgres" "$TAG" "$NODE_COUNT" 2 "$DIR/seg.node" &
seg_pids+=($!)
seg_failed=0
for p in "${seg_pids[@]}"; do wait "$p" || seg_failed=$((seg_failed + 1)); done
check "segment: every SQL loop and the Node process finished" "$seg_failed" 0
sed -n 's/^NOTICE:  rolled back //p' "$DIR"/seg.*.notices | tr ' ' '\n' >"$DIR/seg.rolled"
q "SELECT id FROM seg_committed" >"$DIR/seg.committed"
rolled=$(wc -l <"$DIR/seg.rolled")
log "segment: $(wc -l <"$DIR/seg.committed") committed, $rolled rolled back, $(wc -l <"$DIR/seg.node") drawn by Node"
check "segment: SQL IDs, committed and rolled back" "$(($(wc -l <"$DIR/seg.committed") + rolled))" "$((SEG_CONNS * SEG_LOOPS * 21))"
check "segment: some transactions rolled back" "$([ "$rolled" -gt 0 ] && echo yes)" yes
check "segment: Node IDs" "$(wc -l <"$DIR/seg.node")" "$((NODE_COUNT * 2))"
check "segment: duplicate IDs, committed, rolled back and Node together" \
    "$(cat "$DIR/seg.committed" "$DIR/seg.rolled" "$DIR/seg.node" | sort -n | uniq -d | wc -l)" 0
# A transaction that drew and stays open holds nothing another draw waits for: a new
# connection (nothing buffered, so it must go to the table) draws while it is open.
mkfifo "$DIR/open.fifo"
psql -X -q -v ON_ERROR_STOP=1 <"$DIR/open.fifo" >"$DIR/open.out" 2>&1 &
open_pid=$!
exec 7>"$DIR/open.fifo"
echo "BEGIN; SELECT idmint_segment_next('$TAG'); \\echo drawn" >&7
until grep -q drawn "$DIR/open.out"; do kill -0 "$open_pid" || break; sleep 0.05; done
other=$(timeout 120 psql -X -q -tA -c "SELECT lower(idmint_segment_range('$TAG', 10000)) > 0" 2>&1 || echo "blocked or failed")
check "segment: a draw beside an open transaction that drew" "$other" t
echo "COMMIT;" >&7
exec 7>&-
wait "$open_pid" || true
err=$(psql -X -q -c "SELECT idmint_segment_range('$TAG', -1)" 2>&1 || true)
check "segment: a bad count is core's error" "$(grep -c 'ERROR:  invalid argument `n` = -1: a count 0..=16777216' <<<"$err")" 1

log "the node value leased from this database's idmint_workers table (idmint.lease)"
pg_stop
LEASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
sed -i '/^idmint.node/d' "$DIR/data/postgresql.conf"
# One value for the server (1), so that a lost lease cannot move to another and a restart
# takes the same value back past its fence; the Python process may take 0 or 1, whichever is free.
cat >>"$DIR/data/postgresql.conf" <<EOF
idmint.lease = '$LEASE_URL'
idmint.lease_range = '1..1'
idmint.lease_ttl = 6000
EOF
pg_start
# Wait on a signal: the background worker has leased the value and published it (after a
# SIGKILL the value is free again once its lease and freeze, 12 s, have run out).
minting() {
    local i
    for i in $(seq 1 1200); do
        q "SELECT idmint_snowflake()" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    log "idmint_snowflake() still refuses: $(psql -X -q -c "SELECT idmint_snowflake()" 2>&1 | head -2)"
    return 1
}
node_values() { q "SELECT coalesce(string_agg(DISTINCT ((id >> 12) & 1023)::text, ','), 'none') FROM $1"; }
check "leased: the worker holds a value" "$(minting && echo yes)" yes
q "CREATE TABLE leased (id bigint NOT NULL DEFAULT idmint_snowflake(), conn int)"
log "$CONNS connections × $LEASE_ROWS leased inserts beside a Python process leasing from the same table"
touch "$DIR/loading"
"$PY" python/tests/pg_lease_minter.py "$LEASE_URL" 0..1 25000 "$DIR/loading" "$DIR/py.ids" \
    >"$DIR/py.rounds" 2>"$DIR/py.err" &
minter=$!
failed=$(load "$LEASE_ROWS" leased)
rm "$DIR/loading"
py_ok=yes
wait "$minter" || { py_ok=no; log "Python: $(tail -3 "$DIR/py.err")"; }
check "leased: every connection's load committed" "$failed" 0
check "leased: rows" "$(q "SELECT count(*) FROM leased")" "$((CONNS * LEASE_ROWS))"
check "leased: the Python process finished" "$py_ok" yes
rounds=$(cat "$DIR/py.rounds")
log "leased: the Python process leased, minted and released $rounds times"
q "CREATE TABLE py_ids (id bigint)"
psql -X -q -v ON_ERROR_STOP=1 -c "\\copy py_ids FROM '$DIR/py.ids'"
check "leased: Python IDs" "$(q "SELECT count(*) FROM py_ids")" "$((rounds * 25000))"
check "leased: duplicate IDs, database and Python together" \
    "$(q "SELECT count(*) - count(DISTINCT id) FROM (SELECT id FROM leased UNION ALL SELECT id FROM py_ids) u")" 0
check "leased: the server's node value" "$(node_values leased)" 1
check "leased: the Python process's node value" "$(node_values py_ids)" 0

log "leased: postmaster SIGKILLed mid-load, restarted"
before=$(q "SELECT count(*) FROM leased")
(load "$LEASE_ROWS" leased >/dev/null) &
loader=$!
until [ "$(q "SELECT count(*) > $before FROM leased" 2>/dev/null)" = t ]; do sleep 0.05; done
# The postmaster's children (backends, the lease worker) leave once they see it gone; the next
# start needs every one of them out of the old shared memory.
children=$(pgrep -P "$PGPID" | tr "\n" " " || true)
kill -KILL "$PGPID"
wait "$loader" || true
for p in $PGPID $children; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
PGPID=""
pg_start
check "leased: the worker holds the value again after the restart" "$(minting && echo yes)" yes
q "CREATE TABLE leased_after (id bigint NOT NULL DEFAULT idmint_snowflake(), conn int)"
failed=$(load 10000 leased_after)
check "leased: load after the restart committed" "$failed" 0
check "leased: node value after the restart" "$(node_values leased_after)" 1
check "leased: IDs after the restart not above every ID before it" \
    "$(q "SELECT count(*) FROM leased_after WHERE id <= (SELECT max(id) FROM leased)")" 0

log "leased: the lease row taken from under the server"
# Held by someone else for an hour: the worker's next renewal finds it gone and no other
# value of its range free.
q "UPDATE idmint_workers SET holder = 'tests/pg.sh', token = 'taken-by-the-test',
   expires_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 3600000 WHERE value = 1"
err=""
for i in $(seq 1 1200); do
    err=$(psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO leased_after (conn) VALUES (0)" 2>&1) || break
    err=""
    sleep 0.1
done
check "lease taken: idmint_snowflake() raises core's kind" "$(grep -c 'DETAIL:  kind: lease_lost' <<<"$err")" 1
check "lease taken: with core's message" "$(grep -c 'ERROR:  lease of worker value 1 at postgres://127.0.0.1:' <<<"$err")" 1
rows=$(q "SELECT count(*) FROM leased_after")
refused=0
for i in $(seq 1 20); do
    psql -X -q -c "INSERT INTO leased_after (conn) VALUES (0)" >/dev/null 2>&1 || refused=$((refused + 1))
done
check "lease taken: inserts refused" "$refused" 20
check "lease taken: rows inserted meanwhile" "$(q "SELECT count(*) FROM leased_after")" "$rows"
q "CREATE TABLE leased_back (id bigint NOT NULL DEFAULT idmint_snowflake(), conn int)"
q "UPDATE idmint_workers SET holder = '', token = '', expires_at = 0 WHERE value = 1"
check "lease back: the worker holds the value again" "$(minting && echo yes)" yes
failed=$(load 1000 leased_back)
check "lease back: load committed" "$failed" 0
check "lease back: IDs not above every earlier ID" \
    "$(q "SELECT count(*) FROM leased_back WHERE id <= (SELECT max(id) FROM leased_after)")" 0

log "leased: a value whose fence is 10 minutes ahead of the clock (as after the clock was stepped back)"
# Value 2's row carries a fence 10 minutes ahead, and the server is restarted to lease only it.
q "INSERT INTO idmint_workers (value, last_time_ms)
   VALUES (2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 600000)"
pg_stop
sed -i "s/^idmint.lease_range = .*/idmint.lease_range = '2..2'/" "$DIR/data/postgresql.conf"
pg_start
q "CREATE TABLE clock_back (id bigint NOT NULL DEFAULT idmint_snowflake(), conn int)"
# Refused with lease_lost until the worker holds the value, then by the rollback policy
# (on_rollback error: the clock is behind the fence by far more than a tick).
err=""
for i in $(seq 1 1200); do
    err=$(psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO clock_back (conn) VALUES (0)" 2>&1) && break
    grep -q 'kind: clock_moved_backwards' <<<"$err" && break
    sleep 0.1
done
check "clock behind: idmint_snowflake() refuses with core's kind" "$(grep -c 'DETAIL:  kind: clock_moved_backwards' <<<"$err")" 1
check "clock behind: with core's message" "$(grep -c 'ERROR:  clock moved backwards: it is [0-9]* ms behind' <<<"$err")" 1
check "clock behind: rows inserted" "$(q "SELECT count(*) FROM clock_back")" 0

log "leased: the whole server's wall clock 10 minutes back (libfaketime)"
pg_stop
sed -i "s/^idmint.lease_range = .*/idmint.lease_range = '1..1'/" "$DIR/data/postgresql.conf"
tried() { grep -c 'idmint: leasing a node value failed' "$DIR/pg.log" || true; }
before=$(tried)
# The monotonic clock stays true: only the wall clock is stepped back, as NTP or an operator
# would step it. The lease store reads the database's clock, stepped back too: value 1,
# released a moment ago by the real clock, looks held for 10 more minutes.
LD_PRELOAD=$(pg_faketime_lib) FAKETIME=-600s \
    DONT_FAKE_MONOTONIC=1 pg_start
# Wait on the worker's own report that it tried and was refused.
for i in $(seq 1 1200); do [ "$(tried)" -gt "$before" ] && break; sleep 0.1; done
check "wall clock back: the worker reports it cannot lease" "$([ "$(tried)" -gt "$before" ] && echo yes)" yes
err=$(psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO clock_back (conn) VALUES (0)" 2>&1 || true)
check "wall clock back: idmint_snowflake() refuses" "$(grep -c 'DETAIL:  kind: lease_lost' <<<"$err")" 1
check "wall clock back: rows inserted" "$(q "SELECT count(*) FROM clock_back")" 0
pg_stop
pg_start
check "clock right: the worker holds value 1 again" "$(minting && echo yes)" yes
failed=$(load 1000 clock_back)
check "clock right: load committed" "$failed" 0
check "clock right: IDs not above every earlier ID" \
    "$(q "SELECT count(*) FROM clock_back WHERE id <= (SELECT max(id) FROM leased_back)")" 0
check "clock right: the node value" "$(node_values clock_back)" 1

log "update: each released version's schema (pg/sql/idmint--X.sql), used, then ALTER EXTENSION idmint UPDATE"
# What a server that ran version X sees after its package is upgraded: X's objects in the
# database, this build's library and scripts on disk. The package ships the current install
# script and the update scripts; X's own install script is put beside them for the test only.
# Today 0.1.0 is the only release, and the current version: the update finds nothing to do, and
# the checks below hold the same for every later one.
fresh_functions() { psql -X -q -tA -d "$1" -c "SELECT string_agg(p.oid::regprocedure::text || ' ' ||
    pg_get_function_result(p.oid) || ' ' || p.provolatile::text || p.proparallel::text, ',' ORDER BY 1)
    FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
    JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'idmint'"; }
q "CREATE DATABASE update_fresh"
psql -X -q -v ON_ERROR_STOP=1 -d update_fresh -c "CREATE EXTENSION idmint" >/dev/null
check "update: a fresh install's functions are read" "$(fresh_functions update_fresh | grep -o 'idmint_snowflake(text) bigint v' || true)" "idmint_snowflake(text) bigint v"
for frozen in pg/sql/idmint--*.sql; do
    x=${frozen#pg/sql/idmint--}
    x=${x%.sql}
    case $x in *--*) continue ;; esac
    db=update_${x//[.-]/_}
    [ "$x" = "$PG_VERSION" ] || cp "$frozen" "$EXTDIR/idmint--$x.sql"
    q "CREATE DATABASE $db"
    psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "CREATE EXTENSION idmint VERSION '$x'" \
        -c "CREATE TABLE t (id bigint PRIMARY KEY DEFAULT idmint_snowflake(), at text)" \
        -c "INSERT INTO t (at) SELECT 'before' FROM generate_series(1, 1000)" >/dev/null
    out=$(psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "ALTER EXTENSION idmint UPDATE" 2>&1) || log "update from $x: $out"
    [ "$x" = "$PG_VERSION" ] || rm -f "$EXTDIR/idmint--$x.sql"
    check "update from $x: the version" "$(psql -X -q -tA -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'idmint'")" "$PG_VERSION"
    check "update from $x: the functions are a fresh install's" "$(fresh_functions "$db")" "$(fresh_functions update_fresh)"
    check "update from $x: the table's default mints after it" \
        "$(psql -X -q -tA -v ON_ERROR_STOP=1 -d "$db" -c "INSERT INTO t (at) SELECT 'after' FROM generate_series(1, 1000)" \
            -c "SELECT count(*) FROM t WHERE at = 'after' AND id > (SELECT max(id) FROM t WHERE at = 'before')")" 1000
    check "update from $x: under the lease (node value 1)" "$(psql -X -q -tA -d "$db" -c "SELECT string_agg(DISTINCT ((id >> 12) & 1023)::text, ',') FROM t")" 1
    check "update from $x: the settings" "$(psql -X -q -tA -d "$db" -c "SHOW idmint.layout")" twitter
    check "update from $x: decoding" "$(psql -X -q -tA -d "$db" -c "SELECT idmint_parse(max(id))->'parts'->>'worker' FROM t")" 1
done

pg_stop
if [ "$failures" -ne 0 ]; then
    echo "pg: $failures checks failed" >&2
    exit 1
fi
echo "pg: all checks passed"

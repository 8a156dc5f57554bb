#!/usr/bin/env bash
# The database benchmark: writes its PostgreSQL major's section of docs/bench/database.md, the
# other majors' sections left as they are (IDMINT_BENCH_WRITE=0: prints the section).
#
# Rows inserted with a primary key filled by its column DEFAULT, in a PostgreSQL cluster of its
# own (tests/pg_lib.sh: loopback, a free port, a temporary directory, stopped by its PID): 15,
# this machine's, or IDMINT_PG=N's in its Debian release's root filesystem (13, 17, 18):
#   - idmint_snowflake() (bigint, this repository's extension, built and installed first);
#   - bigserial (a sequence, nextval);
#   - gen_random_uuid() (uuid v4, built in);
#   - uuid_generate_v7() of pg_uuidv7, the peer: built by hand outside this repository from
#     https://github.com/fboulnois/pg_uuidv7 (`make && make install` against that PostgreSQL's
#     pg_config, inside the root filesystem for another major); its row is left out, and the
#     page says so, when the server lacks it;
#   - idmint_uuid7() (uuid, this extension).
# Two loads per key: IDMINT_BENCH_ROWS rows (default 10 000 000) by one INSERT … SELECT FROM
# generate_series on one connection, and the same rows split over 8 connections at once. Each
# load goes into a new table; IDMINT_BENCH_ROUNDS rounds (default 3), every key once per round
# in turn, so a change of the machine's load weighs on all of them; each figure is the median
# round, each ratio the median over the rounds of the ratio within a round. The primary key's
# index size is read after each single-connection load.
#
#   pg/bench.sh                 from the repository root
#   IDMINT_PG=17 pg/bench.sh    PostgreSQL 17 (trixie's)
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh
source tests/pg_lib.sh

ROWS=${IDMINT_BENCH_ROWS:-10000000}
ROUNDS=${IDMINT_BENCH_ROUNDS:-3}
CONNS=8
WRITE=${IDMINT_BENCH_WRITE:-1}
OUT=docs/bench/database.md
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
START_UTC=$(date -u '+%Y-%m-%d %H:%M UTC')

pg_install_extension
DIR=$(pg_tempdir)
trap 'pg_stop; rm -rf "$DIR"' EXIT
# A cluster sized for 10 M-row loads: checkpoints by time, not by WAL volume, during a load.
pg_init "$DIR" "idmint.layout = 'twitter'" "idmint.node = 'datacenter=1,worker=1'" \
    "shared_buffers = 2GB" "max_wal_size = 16GB" "checkpoint_timeout = 30min"
pg_start
q "CREATE EXTENSION idmint"
KEYS=(snowflake bigserial gen_random_uuid pg_uuidv7 idmint_uuid7)
PEER=$(q "SELECT default_version FROM pg_available_extensions WHERE name = 'pg_uuidv7'")
if [ -n "$PEER" ]; then
    q "CREATE EXTENSION pg_uuidv7"
else
    KEYS=(snowflake bigserial gen_random_uuid idmint_uuid7)
fi
column() { # column KEY: the key column's definition
    case $1 in
        snowflake) echo "bigint PRIMARY KEY DEFAULT idmint_snowflake()" ;;
        bigserial) echo "bigserial PRIMARY KEY" ;;
        gen_random_uuid) echo "uuid PRIMARY KEY DEFAULT gen_random_uuid()" ;;
        pg_uuidv7) echo "uuid PRIMARY KEY DEFAULT uuid_generate_v7()" ;;
        idmint_uuid7) echo "uuid PRIMARY KEY DEFAULT idmint_uuid7()" ;;
    esac
}
label() {
    case $1 in
        snowflake) echo '`bigint DEFAULT idmint_snowflake()`' ;;
        bigserial) echo '`bigserial`' ;;
        gen_random_uuid) echo '`uuid DEFAULT gen_random_uuid()`' ;;
        pg_uuidv7) echo "\`uuid DEFAULT uuid_generate_v7()\` (pg_uuidv7 $PEER)" ;;
        idmint_uuid7) echo '`uuid DEFAULT idmint_uuid7()`' ;;
    esac
}
now_ns() { date +%s%N; }
fresh() { # fresh KEY: a new empty table, the cluster's dirty pages written out first
    q "DROP TABLE IF EXISTS b; CREATE TABLE b (id $(column "$1"), n int)"
    q "CHECKPOINT"
}
one_connection() { # one_connection KEY → rows/s
    fresh "$1"
    local t0 t1
    t0=$(now_ns)
    q "INSERT INTO b (n) SELECT g FROM generate_series(1, $ROWS) g"
    t1=$(now_ns)
    echo $((ROWS * 1000000000 / (t1 - t0)))
}
connections() { # connections KEY → rows/s, CONNS connections inserting ROWS/CONNS rows each
    fresh "$1"
    local t0 t1 c pids=()
    t0=$(now_ns)
    for c in $(seq 1 $CONNS); do
        q "INSERT INTO b (n) SELECT g FROM generate_series(1, $((ROWS / CONNS))) g" &
        pids+=($!)
    done
    for c in "${pids[@]}"; do wait "$c"; done
    t1=$(now_ns)
    echo $((ROWS / CONNS * CONNS * 1000000000 / (t1 - t0)))
}
declare -A ONE MANY INDEX
for r in $(seq 1 "$ROUNDS"); do
    for k in "${KEYS[@]}"; do
        ONE[$k,$r]=$(one_connection "$k")
        INDEX[$k,$r]=$(q "SELECT pg_relation_size('b_pkey')")
        [ "$(q "SELECT count(*) - count(DISTINCT id) FROM b")" = 0 ] || { echo "bench: duplicate keys ($k)" >&2; exit 1; }
        MANY[$k,$r]=$(connections "$k")
        echo "[bench] round $r $k: ${ONE[$k,$r]} rows/s on one connection, ${MANY[$k,$r]} on $CONNS; index ${INDEX[$k,$r]} bytes" >&2
    done
done
q "DROP TABLE b"
LOAD_AT_END=$(cut -d' ' -f1-3 /proc/loadavg)

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
of() { # of ARRAY KEY: the median round of ARRAY for KEY
    local -n arr=$1
    for r in $(seq 1 "$ROUNDS"); do echo "${arr[$2,$r]}"; done | median
}
ratio() { # ratio ARRAY KEY: the median over the rounds of KEY's value / bigserial's, in %
    local -n arr=$1
    for r in $(seq 1 "$ROUNDS"); do
        awk -v a="${arr[$2,$r]}" -v b="${arr[bigserial,$r]}" 'BEGIN { printf "%.1f\n", 100 * a / b }'
    done | median
}
krows() { awk -v v="$1" 'BEGIN { printf "%.0f k", v / 1000 }'; }
mib() { awk -v v="$1" 'BEGIN { printf "%.1f MiB", v / 1048576 }'; }

peer_line() {
    if [ -n "$PEER" ]; then
        echo "pg_uuidv7 $PEER, built by hand outside the repository from https://github.com/fboulnois/pg_uuidv7 (make, make install against PostgreSQL $PG_MAJOR)"
    else
        echo "pg_uuidv7 is not installed in this PostgreSQL: its row is left out"
    fi
}
# Where the server ran, for the page (a variable: an apostrophe inside \${…:+…} in the
# here-document below ends bash's substitution early).
WHERE=""
[ -z "$PG_ROOTFS" ] || WHERE=" in Debian $PG_SUITE's root filesystem (chroot; the clients on this machine, over loopback)"
section() {
    cat <<HEAD
<!-- pg$PG_MAJOR -->
## PostgreSQL $PG_MAJOR

- date: $START_UTC
- machine: $(uname -sm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') × $(nproc) CPUs, load average $LOAD_AT_START at the start of the run, $LOAD_AT_END at the end
- database: $(in_pg_root "$PGBIN/postgres" --version)$WHERE, a cluster of the bench's own (shared_buffers 2GB, max_wal_size 16GB, checkpoint_timeout 30min, otherwise initdb's defaults: fsync and synchronous_commit on)
- idmint: the extension (pg/, release profile), layout twitter, node datacenter=1,worker=1; commit $(git rev-parse --short HEAD)
- peer: $(peer_line)
- command: \`IDMINT_PG=$PG_MAJOR pg/bench.sh\` (from the repository root); IDMINT_BENCH_ROWS=$ROWS, IDMINT_BENCH_ROUNDS=$ROUNDS

Each load inserts $ROWS rows \`(id, n int)\` into a new table whose key is filled by its column default: on one connection, one \`INSERT … SELECT FROM generate_series\`; on $CONNS connections, $((ROWS / CONNS)) rows each at once. Rows/s is the median of $ROUNDS rounds (every key once per round, in turn); "vs bigserial" is the median over the rounds of the ratio within the round. Index: \`pg_relation_size\` of the primary key after the one-connection load. Every load is checked for duplicate keys (none).

| key | rows/s, 1 connection | vs bigserial | rows/s, $CONNS connections | vs bigserial | primary key index | vs bigserial |
|---|---:|---:|---:|---:|---:|---:|
HEAD
    local k
    for k in "${KEYS[@]}"; do
        echo "| $(label "$k") | $(krows "$(of ONE "$k")") | $(ratio ONE "$k") % | $(krows "$(of MANY "$k")") | $(ratio MANY "$k") % | $(mib "$(of INDEX "$k")") | $(ratio INDEX "$k") % |"
    done
    echo "<!-- /pg$PG_MAJOR -->"
}
if [ "$WRITE" = 1 ]; then
    # The page: its title, then one section per major, in order; this run's replaces its own.
    section >"$DIR/section.md"
    python3 - "$OUT" "$DIR/section.md" "$PG_MAJOR" <<'EOF'
import pathlib, re, sys
out, new, major = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]).read_text(), sys.argv[3]
title = ("# Database benchmark: primary keys minted by a column DEFAULT\n\n"
         "Written by `pg/bench.sh`, one section per PostgreSQL major (`IDMINT_PG=N`); a run replaces its "
         "major's section and leaves the others.\n")
old = out.read_text() if out.exists() else ""
sections = {m.group(1): m.group(0) for m in re.finditer(r"<!-- pg(\d+) -->.*?<!-- /pg\1 -->\n?", old, re.S)}
sections[major] = new
out.write_text(title + "".join("\n" + sections[k].rstrip("\n") + "\n" for k in sorted(sections, key=int)))
EOF
    echo "bench: wrote PostgreSQL $PG_MAJOR's section of $OUT" >&2
else
    section
fi

#!/usr/bin/env bash
# Peak memory of one leased generator acquiring from a 22-bit node range (4,194,304 values), on
# every lease store: `/usr/bin/time -v` of `idmint snowflake --layout 'time:30@1s,worker:22,sequence:11'
# --epoch 2020-01-01T00:00:00Z --lease URL --count 1`. Writes docs/bench/leases.md (the one
# source of its figures).
#
#   eval "$(tests/servers.sh start redis postgres mysql etcd zk)"
#   IDMINT_BIN=target/ci/idmint tests/lease_rss.sh
#
# Each store gets a table or key prefix of its own, so the lowest value is free and the figure is
# the cost of looking at the range, not of a crowded one. ZooKeeper once collected the whole
# range into a vector before trying a value (175.6 MB); now every store tries values as it
# walks the range.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${IDMINT_BIN:-target/ci/idmint}
LAYOUT='time:30@1s,worker:22,sequence:11'
EPOCH=2020-01-01T00:00:00Z
OUT=docs/bench/leases.md
tag=rss_$$_$(date +%s)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

urls=("memory	memory:" "sqlite	sqlite:$dir/leases.db")
[ -n "${IDMINT_TEST_POSTGRES_URL:-}" ] && urls+=("postgres	$IDMINT_TEST_POSTGRES_URL?table=$tag")
[ -n "${IDMINT_TEST_MYSQL_URL:-}" ] && urls+=("mysql	$IDMINT_TEST_MYSQL_URL?table=$tag")
[ -n "${IDMINT_TEST_REDIS_URL:-}" ] && urls+=("redis	$IDMINT_TEST_REDIS_URL?prefix=$tag")
[ -n "${IDMINT_TEST_ETCD_URL:-}" ] && urls+=("etcd	$IDMINT_TEST_ETCD_URL?prefix=$tag")
[ -n "${IDMINT_TEST_ZK_URL:-}" ] && urls+=("zookeeper	$IDMINT_TEST_ZK_URL?prefix=$tag")

rows=""
for entry in "${urls[@]}"; do
    name=${entry%%	*}
    url=${entry#*	}
    /usr/bin/time -v "$BIN" snowflake --layout "$LAYOUT" --epoch "$EPOCH" --lease "$url" --count 1 \
        >"$dir/out" 2>"$dir/time"
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time")
    rows+="| $name | $(awk -v kb="$kb" 'BEGIN {printf "%.1f", kb / 1024}') |"$'\n'
done

{
    echo "# Lease acquire: peak memory over a wide node range"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(uname -sm), $(nproc) CPUs"
    echo "- source: commit $(git rev-parse --short HEAD) ($BIN, profile ${IDMINT_CARGO_PROFILE:-ci})"
    echo "- command: \`tests/lease_rss.sh\` with the servers of \`tests/servers.sh start redis postgres mysql etcd zk\`"
    echo
    echo "Written by the script; running it again replaces this file."
    echo
    echo "Each row: \`/usr/bin/time -v idmint snowflake --layout '$LAYOUT' --epoch $EPOCH --lease URL --count 1\`,"
    echo "its \"Maximum resident set size\": one process that opens the store, leases a value of the"
    echo "layout's whole 22-bit node range (4,194,304 values; the store's own table or prefix, so its"
    echo "lowest value is free), mints one ID and releases the value. Before idmint tried ZooKeeper's"
    echo "values lazily, ZooKeeper's row was 175.6 MB (the range collected into a vector first)."
    echo
    echo "| store | peak RSS, MB |"
    echo "|---|---:|"
    printf '%s' "$rows"
} >"$OUT"
cat "$OUT"

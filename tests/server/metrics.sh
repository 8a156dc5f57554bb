#!/usr/bin/env bash
# `idmint serve`'s /metrics checked by Prometheus's own linter: starts a server (loopback, on the
# ports the OS picks, read from its ready file by tests/serve_ready.sh; a temp directory), mints
# a little of every kind so every family has samples, scrapes /metrics and runs
# `promtool check metrics` on it; the server is stopped by PID.
#
#   IDMINT_BIN=target/ci/idmint tests/server/metrics.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../serve_ready.sh"
BIN=${IDMINT_BIN:-target/ci/idmint}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
command -v promtool >/dev/null || { echo "promtool missing (Debian package prometheus)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl missing" >&2; exit 1; }
DIR=$(mktemp -d /tmp/idmint-metrics.XXXXXX)
PID=""
stop() {
    [ -z "$PID" ] || kill "$PID" 2>/dev/null || true
    [ -z "$PID" ] || wait "$PID" 2>/dev/null || true
    rm -rf "$DIR"
}
trap stop EXIT
cat >"$DIR/config.toml" <<TOML
listen = "127.0.0.1:0"
admin_listen = "127.0.0.1:0"
[segment]
tags = ["orders"]
[orders.so]
template = "SO%8S"
TOML
(cd "$DIR" && exec "$BIN" serve --config config.toml --ready-file ready.json >"$DIR/log.txt" 2>&1) &
PID=$!
serve_ready "$PID" "$DIR/ready.json" "$DIR/log.txt"
API=$SERVE_PORT
ADMIN=$SERVE_ADMIN_PORT
for path in "segment/orders?count=10" snowflake objectid uuid7 "orders/so" "segment/missing%20tag"; do
    curl -s -XPOST "http://127.0.0.1:$API/v1/$path" >/dev/null
done
curl -fs "http://127.0.0.1:$ADMIN/metrics" >"$DIR/metrics.txt"
for family in idmint_ids_issued_total idmint_http_requests_total idmint_http_request_duration_seconds_bucket \
    idmint_segment_remaining idmint_segment_refills_total idmint_lease_held idmint_clock_rollbacks_total; do
    grep -q "^$family" "$DIR/metrics.txt" || { echo "no $family in /metrics" >&2; cat "$DIR/metrics.txt" >&2; exit 1; }
done
promtool check metrics <"$DIR/metrics.txt"
echo "promtool check metrics: ok ($(grep -vc '^#' "$DIR/metrics.txt") samples)"

#!/usr/bin/env bash
# One segment tag, every package at once, through the server and beside it: an `idmint serve` on
# the store at URL (a PostgreSQL database), then a Python, a Node and a Java process (each with
# THREADS threads drawing COUNT IDs) and the CLI (`idmint segment`, COUNT x THREADS IDs) draw
# from the tag through the server (an `http://…?token=` store URL), while a fifth process (Python)
# draws from the same tag of the PostgreSQL database directly. Every ID is collected and
# counted: none may repeat, none may be missing.
#
#   tests/mixed.sh URL [COUNT] [THREADS]
#
# Needs what the rust, python, node and jvm sections build: the idmint binary (IDMINT_BIN,
# default target/ci/idmint), python/.venv with idmint installed, the Node addon, and
# java/target/test-classpath.txt (written by `mvn test`). The server runs on the loopback ports
# the OS picks (port 0, read from its ready file by tests/serve_ready.sh) and is stopped by its
# PID.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/serve_ready.sh

URL=${1:?usage: tests/mixed.sh URL [COUNT] [THREADS]}
COUNT=${2:-200000}
THREADS=${3:-2}
PY=${PY_VENV:-python/.venv}/bin/python
BIN=${IDMINT_BIN:-${CARGO_TARGET_DIR:-target}/${IDMINT_CARGO_PROFILE:-ci}/idmint}
CLASSPATH_FILE=java/target/test-classpath.txt
[ -x "$PY" ] || { echo "mixed: $PY missing: run tests/run.sh python first" >&2; exit 1; }
[ -s "$CLASSPATH_FILE" ] || { echo "mixed: $CLASSPATH_FILE missing: run tests/run.sh jvm first" >&2; exit 1; }
[ -x "$BIN" ] || { echo "mixed: $BIN missing: run tests/run.sh rust first" >&2; exit 1; }
command -v curl >/dev/null || { echo "mixed: curl missing" >&2; exit 1; }

OUT=$(mktemp -d /tmp/idmint-mixed.XXXXXX)
SERVER_PID=""
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}
trap 'stop_server; rm -rf "$OUT"' EXIT
# A tag of its own per run, so a store reused across runs holds no IDs of an earlier one.
TAG="mixed_$(date +%s)_$$"

# The server: loopback ports the OS picks, a token with the mint scope (the clients send it as
# ?token=).
TOKEN="mixed-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cat >"$OUT/server.toml" <<EOF
listen = "127.0.0.1:0"
admin_listen = "127.0.0.1:0"
store = "$URL"

[[tokens]]
name = "mixed"
sha256 = "$(printf %s "$TOKEN" | sha256sum | cut -c1-64)"
scopes = ["mint:segment:$TAG"]
EOF
(cd "$OUT" && exec "$BIN" serve --config server.toml --ready-file ready.json) >"$OUT/server.log" 2>&1 &
SERVER_PID=$!
serve_ready "$SERVER_PID" "$OUT/ready.json" "$OUT/server.log" || { echo "mixed: idmint serve not ready" >&2; exit 1; }
SERVED="http://127.0.0.1:$SERVE_PORT?token=$TOKEN"

"$PY" python/tests/segment_worker.py "$SERVED" "$TAG" "$COUNT" "$THREADS" "$OUT/python" &
PIDS=($!)
node node/test/segment-worker.mjs "$SERVED" "$TAG" "$COUNT" "$THREADS" "$OUT/node" &
PIDS+=($!)
java -cp "$(cat "$CLASSPATH_FILE")" io.idmint.SegmentWorker "$SERVED" "$TAG" "$COUNT" "$THREADS" "$OUT/java" &
PIDS+=($!)
"$BIN" segment --store "$SERVED" --tag "$TAG" --count $((COUNT * THREADS)) >"$OUT/cli" &
PIDS+=($!)
"$PY" python/tests/segment_worker.py "$URL" "$TAG" "$COUNT" "$THREADS" "$OUT/direct" &
PIDS+=($!)
failed=0
for pid in "${PIDS[@]}"; do wait "$pid" || failed=1; done
[ $failed = 0 ] || { tail -20 "$OUT/server.log" >&2; echo "mixed: a worker failed" >&2; exit 1; }
stop_server
if grep -q "$TOKEN" "$OUT/server.log"; then
    echo "mixed: the server logged the token" >&2
    exit 1
fi

want=$((5 * COUNT * THREADS))
for who in python node java cli direct; do
    n=$(wc -l <"$OUT/$who")
    [ "$n" = $((COUNT * THREADS)) ] || { echo "mixed: $who wrote $n IDs, expected $((COUNT * THREADS))" >&2; exit 1; }
done
dups=$(cat "$OUT/python" "$OUT/node" "$OUT/java" "$OUT/cli" "$OUT/direct" | sort -n | uniq -d | wc -l)
echo "mixed: $want IDs on one tag: Python, Node, Java and the CLI through idmint serve, Python on $(echo "$URL" | sed 's#//[^@]*@#//#') directly: $dups duplicates"
[ "$dups" = 0 ]

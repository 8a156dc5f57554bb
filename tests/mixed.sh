#!/usr/bin/env bash
# One segment tag, three languages at once: a Python, a Node and a Java process (each with
# THREADS threads drawing COUNT IDs) draw from the same tag of the store at URL through their
# own package; every ID is collected and counted: none may repeat, none may be missing.
#
#   tests/mixed.sh URL [COUNT] [THREADS]
#
# Needs what the python, node and jvm sections build: python/.venv with idmint installed, the
# Node addon, and java/target/test-classpath.txt (written by `mvn test`).
set -euo pipefail
cd "$(dirname "$0")/.."

URL=${1:?usage: tests/mixed.sh URL [COUNT] [THREADS]}
COUNT=${2:-250000}
THREADS=${3:-2}
PY=${PY_VENV:-python/.venv}/bin/python
CLASSPATH_FILE=java/target/test-classpath.txt
[ -x "$PY" ] || { echo "mixed: $PY missing: run tests/run.sh python first" >&2; exit 1; }
[ -s "$CLASSPATH_FILE" ] || { echo "mixed: $CLASSPATH_FILE missing: run tests/run.sh jvm first" >&2; exit 1; }

OUT=$(mktemp -d /tmp/idmint-mixed.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
# A tag of its own per run, so a store reused across runs holds no IDs of an earlier one.
TAG="mixed_$(date +%s)_$$"

"$PY" python/tests/segment_worker.py "$URL" "$TAG" "$COUNT" "$THREADS" "$OUT/python" &
PIDS=($!)
node node/test/segment-worker.mjs "$URL" "$TAG" "$COUNT" "$THREADS" "$OUT/node" &
PIDS+=($!)
java -cp "$(cat "$CLASSPATH_FILE")" io.idmint.SegmentWorker "$URL" "$TAG" "$COUNT" "$THREADS" "$OUT/java" &
PIDS+=($!)
failed=0
for pid in "${PIDS[@]}"; do wait "$pid" || failed=1; done
[ $failed = 0 ] || { echo "mixed: a worker failed" >&2; exit 1; }

want=$((3 * COUNT * THREADS))
for lang in python node java; do
    n=$(wc -l <"$OUT/$lang")
    [ "$n" = $((COUNT * THREADS)) ] || { echo "mixed: $lang wrote $n IDs, expected $((COUNT * THREADS))" >&2; exit 1; }
done
dups=$(cat "$OUT/python" "$OUT/node" "$OUT/java" | sort -n | uniq -d | wc -l)
echo "mixed: $want IDs from Python, Node and Java on one tag of $(echo "$URL" | sed 's#//[^@]*@#//#'): $dups duplicates"
[ "$dups" = 0 ]

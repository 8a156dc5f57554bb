#!/usr/bin/env bash
# The `idmint serve` HTTP benchmark: writes docs/bench/server.md (IDMINT_BENCH_WRITE=0: prints
# the table only). The figures of that file come from this script and nowhere else.
#
#   LEAF_URL=http://127.0.0.1:38080/api/segment/get/leaf-segment-test server/bench.sh
#
# Builds the idmint binary, the bare axum baseline (server/examples/bare_axum.rs) and the gRPC
# streaming client (server/examples/stream_ids.rs) in the release profile, starts bare axum and
# two `idmint serve` (one open, one with a bearer token configured) with temporary directories
# on the loopback ports the OS picks (port 0: bare_axum logs the address it bound, `idmint
# serve` writes its ready file, read by tests/serve_ready.sh), drives them with wrk (HTTP/1.1
# keep-alive, POST through a Lua script) and the gRPC rows with stream_ids, stops them by PID.
#
# The peer (Meituan Leaf's own server) is NOT started here: run it yourself and pass its
# segment URL as LEAF_URL (GET). Without LEAF_URL its rows are left out. LEAF_NOTE: a sentence
# on how it was run, printed under the table; LEAF_PID: its PID, to report its memory too.
#
# Settings (environment):
#   IDMINT_BENCH_DURATION  seconds per wrk run (default 3)
#   IDMINT_BENCH_ROUNDS    rounds of the rate rows, taken in turn; the medians are reported (7)
#   IDMINT_BENCH_CONNS     connections of the rate rows (32)
#   IDMINT_BENCH_PIN       1 (default): the servers on CPU 1, wrk on CPU 0 (taskset); 0: no pinning
#   IDMINT_BENCH_WRITE     0: do not write docs/bench/server.md
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
source tests/serve_ready.sh
OUT=docs/bench/server.md
DURATION=${IDMINT_BENCH_DURATION:-3}
ROUNDS=${IDMINT_BENCH_ROUNDS:-7}
CONNS=${IDMINT_BENCH_CONNS:-32}
PIN=${IDMINT_BENCH_PIN:-1}
WRITE=${IDMINT_BENCH_WRITE:-1}
LEAF_URL=${LEAF_URL:-}
LEAF_NOTE=${LEAF_NOTE:-}
LEAF_PID=${LEAF_PID:-}
STEP=100000     # the segment tag's step
BATCH=1000      # IDs per request in the batch rows

LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
START_UTC=$(date -u '+%Y-%m-%d %H:%M UTC')
COMMAND="${LEAF_URL:+LEAF_URL=$LEAF_URL }server/bench.sh"
for v in DURATION ROUNDS CONNS PIN; do
  e=IDMINT_BENCH_$v
  [ -n "${!e:-}" ] && COMMAND="$e=${!e} $COMMAND"
done

need() { command -v "$1" >/dev/null || { echo "bench.sh: $1 not found ($2)" >&2; exit 1; }; }
need wrk "Debian: apt-get install -y wrk"
need curl "apt-get install -y curl"
need python3 "for the report"
if [ "$PIN" = 1 ]; then
  need taskset "util-linux"
  [ "$(nproc --all)" -ge 2 ] || { echo "bench.sh: IDMINT_BENCH_PIN=1 needs 2 CPUs" >&2; exit 1; }
  SERVER_PIN=(taskset -c 1)
  WRK_PIN=(taskset -c 0)
else
  SERVER_PIN=()
  WRK_PIN=()
fi

echo "bench.sh: building (release)" >&2
cargo build --release -q -p idmint-cli --bin idmint -p idmint-server --example bare_axum --example stream_ids
# What was built: HEAD, and the build's inputs changed in the work tree.
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git status --porcelain -- core server cli Cargo.toml Cargo.lock 2>/dev/null | grep -v '^??' | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//' || true)
SOURCE="commit $COMMIT"
[ -n "$DIRTY" ] && SOURCE="$SOURCE, with uncommitted changes to $DIRTY"
TARGET=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
IDMINT_BIN=$TARGET/release/idmint
BARE_BIN=$TARGET/release/examples/bare_axum
STREAM_BIN=$TARGET/release/examples/stream_ids
# The bearer token of the second server (its SHA-256 in its configuration): a bench value.
TOKEN=bench-token-0123456789abcdef
TOKEN_SHA=$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/idmint-bench.XXXXXX")
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${PIDS[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# wait_ok METHOD URL: until it answers 2xx (60 s at most).
wait_ok() {
  local deadline=$((SECONDS + 60))
  until curl -fs -o /dev/null -X "$1" "$2"; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "bench.sh: $2 did not answer" >&2; exit 1; }
    sleep 0.1
  done
}

# bare_port PID LOG: the port bare_axum logged ("bare_axum: listening on 127.0.0.1:PORT") once
# bound; 180 s at most, while it runs.
bare_port() {
  local pid=$1 log=$2 deadline=$((SECONDS + 180)) port
  until port=$(sed -n 's/^bare_axum: listening on .*:\([0-9][0-9]*\)$/\1/p' "$log") && [ -n "$port" ]; do
    kill -0 "$pid" 2>/dev/null || { echo "bench.sh: bare_axum exited:" >&2; cat "$log" >&2; exit 1; }
    [ "$SECONDS" -lt "$deadline" ] || { echo "bench.sh: bare_axum did not bind in 180 s:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.05
  done
  echo "$port"
}

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# ---- servers
"${SERVER_PIN[@]}" "$BARE_BIN" "127.0.0.1:0" 2>"$WORK/bare.log" &
BARE_PID=$!
PIDS+=("$BARE_PID")

# serve_in DIR [CONFIG]: starts `idmint serve` in $WORK/DIR (pinned like bare axum) with its
# default configuration plus CONFIG (TOML), waits until it is ready and has the tag `bench`;
# sets SERVE_PID and SERVE_PORT.
serve_in() {
  local dir=$WORK/$1 code
  mkdir -p "$dir"
  printf '%s\n' "${2:-}" >"$dir/idmint.toml"
  (cd "$dir" && exec "${SERVER_PIN[@]}" "$IDMINT_BIN" serve --config idmint.toml \
    --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --ready-file ready.json \
    --store sqlite:./idmint.db --log-format text) 2>"$dir/log" &
  SERVE_PID=$!
  PIDS+=("$SERVE_PID")
  serve_ready "$SERVE_PID" "$dir/ready.json" "$dir/log"
  code=$(curl -s -o "$dir/tag.json" -w '%{http_code}' -X POST "http://127.0.0.1:$SERVE_PORT/v1/admin/tags" \
    -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "{\"tag\":\"$TAG\",\"step\":$STEP}")
  case $code in 200|201) ;; *) echo "bench.sh: creating the tag in $1: $code $(cat "$dir/tag.json")" >&2; exit 1;; esac
}

TAG=bench
serve_in idmint
IDMINT_PID=$SERVE_PID
API=http://127.0.0.1:$SERVE_PORT
GRPC=127.0.0.1:$SERVE_PORT
serve_in idmint-token "[[tokens]]
name = \"bench\"
sha256 = \"$TOKEN_SHA\"
scopes = [\"mint\", \"admin\"]"
TOKEN_PID=$SERVE_PID
API_T=http://127.0.0.1:$SERVE_PORT

BARE_PORT=$(bare_port "$BARE_PID" "$WORK/bare.log")
BARE=http://127.0.0.1:$BARE_PORT
wait_ok POST "$BARE/bare"

# A few requests of each kind, then the idle memory.
for _ in 1 2 3 4 5; do
  curl -fs -o /dev/null -X POST "$API/v1/segment/$TAG"
  curl -fs -o /dev/null -X POST "$API/v1/snowflake"
  curl -fs -o /dev/null -X POST "$API/v1/segment/$TAG?count=$BATCH"
  curl -fs -o /dev/null -X POST "$BARE/bare"
  curl -fs -o /dev/null -X POST -H "authorization: Bearer $TOKEN" "$API_T/v1/segment/$TAG"
done
sleep 1
IDMINT_RSS0=$(rss_kb "$IDMINT_PID")
BARE_RSS0=$(rss_kb "$BARE_PID")
LEAF_RSS0=
if [ -n "$LEAF_PID" ] && [ -r "/proc/$LEAF_PID/status" ]; then LEAF_RSS0=$(rss_kb "$LEAF_PID"); fi

if [ -n "$LEAF_URL" ]; then
  leaf_body=$(curl -fs "$LEAF_URL") || { echo "bench.sh: LEAF_URL $LEAF_URL does not answer" >&2; exit 1; }
  case $leaf_body in ''|*[!0-9]*) echo "bench.sh: LEAF_URL answered '$leaf_body', not an ID" >&2; exit 1;; esac
fi

cat >"$WORK/post.lua" <<'EOF'
wrk.method = "POST"
EOF
cat >"$WORK/get.lua" <<'EOF'
wrk.method = "GET"
EOF
cat >"$WORK/post-token.lua" <<EOF
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $TOKEN"
EOF

# wrk_run NAME URL LUA CONNS SECONDS: appends "NAME rps p50ms p99ms errors requests" to $WORK/runs.
wrk_run() {
  local name=$1 url=$2 lua=$3 conns=$4 secs=$5 threads=1 out
  out=$("${WRK_PIN[@]}" wrk -t"$threads" -c"$conns" -d"${secs}s" --latency -s "$WORK/$lua" "$url")
  echo "$out" >>"$WORK/wrk.log"
  echo "$out" | awk -v name="$name" '
    function ms(v) {
      if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
      if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
      if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
      return v
    }
    $1 == "50%" { p50 = ms($2) }
    $1 == "99%" { p99 = ms($2) }
    /requests in/ { reqs = $1 }
    /Non-2xx or 3xx responses:/ { err += $NF }
    /Socket errors:/ { for (i = 3; i <= NF; i += 2) { v = $(i + 1); gsub(/,/, "", v); err += v } }
    /^Requests\/sec:/ { rps = $2 }
    END { printf "%s %s %s %s %d %s\n", name, rps, p50, p99, err, reqs }
  ' | tee -a "$WORK/runs" >&2
}

# stream_run NAME KIND SECONDS: one StreamIds call read for SECONDS by stream_ids (pinned like
# wrk); appends "NAME ids_per_sec 0 0 errors ids" to $WORK/runs (errors: duplicates or IDs out
# of order, or a failed call).
stream_run() {
  local name=$1 kind=$2 secs=$3 out ids rate bad
  if out=$("${WRK_PIN[@]}" "$STREAM_BIN" "$GRPC" "$kind" "$TAG" "$secs" 2>&1); then :; fi
  echo "$out" >>"$WORK/stream.log"
  ids=$(sed -n 's/.*ids=\([0-9]*\) .*/\1/p' <<<"$out")
  rate=$(sed -n 's/.*ids_per_sec=\([0-9]*\).*/\1/p' <<<"$out")
  bad=$(sed -n 's/.*duplicates_or_disorder=\([0-9]*\).*/\1/p' <<<"$out")
  [ -n "$rate" ] || { echo "bench.sh: stream_ids failed: $out" >&2; rate=0 ids=0 bad=1; }
  echo "$name $rate 0 0 $bad $ids" | tee -a "$WORK/runs" >&2
}

# ---- warm-up (the JVM's JIT above all), then the rate rows in turn
echo "bench.sh: warm-up" >&2
wrk_run warm-bare "$BARE/bare" post.lua "$CONNS" 2 >/dev/null 2>&1
wrk_run warm-segment "$API/v1/segment/$TAG" post.lua "$CONNS" 2 >/dev/null 2>&1
wrk_run warm-snowflake "$API/v1/snowflake" post.lua "$CONNS" 2 >/dev/null 2>&1
wrk_run warm-token "$API_T/v1/segment/$TAG" post-token.lua "$CONNS" 2 >/dev/null 2>&1
stream_run warm-stream segment 2 >/dev/null 2>&1
if [ -n "$LEAF_URL" ]; then
  wrk_run warm-leaf "$LEAF_URL" get.lua "$CONNS" 5 >/dev/null 2>&1
fi

for round in $(seq 1 "$ROUNDS"); do
  echo "bench.sh: round $round of $ROUNDS" >&2
  wrk_run bare "$BARE/bare" post.lua "$CONNS" "$DURATION"
  wrk_run segment1 "$API/v1/segment/$TAG" post.lua "$CONNS" "$DURATION"
  wrk_run snowflake1 "$API/v1/snowflake" post.lua "$CONNS" "$DURATION"
  wrk_run segment1T "$API_T/v1/segment/$TAG" post-token.lua "$CONNS" "$DURATION"
  wrk_run snowflake1T "$API_T/v1/snowflake" post-token.lua "$CONNS" "$DURATION"
  if [ -n "$LEAF_URL" ]; then
    wrk_run leaf "$LEAF_URL" get.lua "$CONNS" "$DURATION"
  fi
  wrk_run segmentB "$API/v1/segment/$TAG?count=$BATCH" post.lua "$CONNS" "$DURATION"
  wrk_run segmentR "$API/v1/segment/$TAG/range?count=$BATCH" post.lua "$CONNS" "$DURATION"
  wrk_run snowflakeB "$API/v1/snowflake?count=$BATCH" post.lua "$CONNS" "$DURATION"
  stream_run streamS segment "$DURATION"
  stream_run streamF snowflake "$DURATION"
done

# median NAME FIELD (2 rps, 3 p50, 4 p99, 5 errors: summed instead)
median() {
  awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$WORK/runs" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
errors() { awk -v n="$1" '$1 == n { s += $5 } END { print s + 0 }' "$WORK/runs"; }

# ---- latency of batches at about half the maximum rate: fewer connections (wrk cannot cap a
# rate), the count whose rate comes nearest half the batch maximum
MAX_B=$(median segmentB 2)
echo "bench.sh: batch latency by connections" >&2
for c in 1 2 4 8; do
  wrk_run "sweep$c" "$API/v1/segment/$TAG?count=$BATCH" post.lua "$c" "$DURATION"
done
echo "bench.sh: single-ID latency by connections" >&2
for c in 1 2 3 4 6 8 16; do
  wrk_run "one$c" "$API/v1/segment/$TAG" post.lua "$c" "$DURATION"
done

sleep 2
IDMINT_RSS1=$(rss_kb "$IDMINT_PID")
BARE_RSS1=$(rss_kb "$BARE_PID")
LEAF_RSS1=
if [ -n "$LEAF_PID" ] && [ -r "/proc/$LEAF_PID/status" ]; then LEAF_RSS1=$(rss_kb "$LEAF_PID"); fi
LAST_ID=$(curl -fs -X POST "$API/v1/segment/$TAG")

# Stop the servers (by PID) before the report; a server that does not stop on SIGTERM is a bug
# worth seeing here.
for p in "$IDMINT_PID" "$TOKEN_PID" "$BARE_PID"; do kill "$p"; done
for p in "$IDMINT_PID" "$TOKEN_PID" "$BARE_PID"; do wait "$p" || true; done
PIDS=()

# ---- report
WRK_VERSION=$( (wrk -v 2>&1 || true) | awk 'NR == 1 {print $1, $2}')
RUSTC=$(rustc --version)
lockv() { awk -v n="$1" '$0 == "name = \"" n "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock; }
CPU=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)

python3 - "$WORK" "$OUT" "$WRITE" <<EOF
import sys, statistics
work, out, write = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
runs = {}
for line in open(f"{work}/runs"):
    n, rps, p50, p99, err, reqs = line.split()
    runs.setdefault(n, []).append((float(rps), float(p50), float(p99), int(err), int(reqs)))
med = lambda n, i: statistics.median(r[i] for r in runs[n])
err = lambda n: sum(r[3] for r in runs[n])
def rate(v):
    for unit, d in (("M", 1e6), ("k", 1e3)):
        if v >= d: return f"{v / d:.2f} {unit}"
    return f"{v:.0f}"
def lat(v):
    return f"{v * 1000:.0f} µs" if v < 1 else f"{v:.2f} ms"
batch, conns, rounds, secs, pin = $BATCH, $CONNS, $ROUNDS, $DURATION, "$PIN" == "1"
leaf = "leaf" in runs
bare = med("bare", 0)
leaf_rps = med("leaf", 0) if leaf else None
L = []
p = L.append
p("# idmint serve HTTP benchmark")
p("")
p("- date: $START_UTC")
p("- machine: linux $(uname -m), $CPU × $(nproc --all) CPUs, load average $LOAD_AT_START at the start of the run")
p("- runtime: $RUSTC, release profile; axum $(lockv axum), hyper $(lockv hyper), hyper-util $(lockv hyper-util), tokio $(lockv tokio) (Cargo.lock); $WRK_VERSION")
p("- source: $SOURCE (built by the bench)")
p("- command: \`$COMMAND\` (from the repository root)")
p("")
p("Written by the bench; running the command again replaces this file.")
p("")
if pin:
    where = "the servers pinned to CPU 1 and wrk to CPU 0 (\`taskset\`), so each has one core of its own" + (" (Leaf, started by hand, is not pinned by the bench)" if leaf else "")
else:
    where = "nothing pinned: servers and wrk share the CPUs"
p(f"wrk, one thread, HTTP/1.1 keep-alive, on the same machine as the servers; {where}. "
  f"Rate rows: {conns} connections, {rounds} rounds of {secs} s taken in turn (every server once per round, "
  f"so a change of load weighs on all of them): req/s and latency are each row's median round; "
  f"\"vs bare axum\" is the median over the rounds of the row's rate divided by bare axum's in the same round "
  f"(this VM's speed drifts by ±15 % between runs a few seconds apart; a ratio taken within one round "
  f"cancels most of it). Latency: wrk's, from the same runs. "
  f"idmint: \`idmint serve\` with its default configuration (SQLite store in a temporary directory, "
  f"twitter snowflake layout, metrics on, no token), the tag \`bench\` created with step {$STEP} through \`POST /v1/admin/tags\`; "
  f"\"idmint + token\": a second \`idmint serve\` alike but with one bearer token configured (scopes mint and admin), "
  f"every request sending it (\`Authorization: Bearer …\`). "
  f"bare axum: server/examples/bare_axum.rs, the same runtime, axum and hyper-util accept loop with one "
  f"POST route answering a constant 32-byte JSON body: no idmint in it.")
p("")
p("| server | request | req/s | IDs/s | p50 | p99 | vs bare axum | vs Leaf | errors |")
p("|---|---|---:|---:|---:|---:|---:|---:|---:|")
def vs_bare(name):
    """The median over the rounds of the row's rate over bare axum's in the same round."""
    return statistics.median(a[0] / b[0] for a, b in zip(runs[name], runs["bare"]))
def row(name, label, req, ids_per):
    r = med(name, 0)
    vb = f"{vs_bare(name) * 100:.0f} %" if name != "bare" else "100 %"
    vl = f"{r / leaf_rps:.2f}×" if leaf and ids_per == 1 else ""
    p(f"| {label} | {req} | {rate(r)} | {rate(r * ids_per)} | {lat(med(name, 1))} | {lat(med(name, 2))} | {vb if ids_per == 1 else ''} | {vl} | {err(name)} |")
row("bare", "bare axum", "\`POST /bare\`", 1)
row("segment1", "idmint", "\`POST /v1/segment/bench\` (1 ID)", 1)
row("snowflake1", "idmint", "\`POST /v1/snowflake\` (1 ID)", 1)
row("segment1T", "idmint + token", "\`POST /v1/segment/bench\` (1 ID)", 1)
row("snowflake1T", "idmint + token", "\`POST /v1/snowflake\` (1 ID)", 1)
if leaf:
    row("leaf", "Meituan Leaf", "\`GET $LEAF_URL\` (1 ID)", 1)
row("segmentB", "idmint", f"\`POST /v1/segment/bench?count={batch}\`", batch)
row("segmentR", "idmint", f"\`POST /v1/segment/bench/range?count={batch}\`", batch)
row("snowflakeB", "idmint", f"\`POST /v1/snowflake?count={batch}\`", batch)
p("")
p(f"The two segment batch rows hand out the same {batch} IDs a request: \`?count=\` as a JSON list of "
  f"{batch} decimal strings (about {batch * 21 // 1000} kB a response), \`/range\` as the first and last ID of "
  "the contiguous range (under 100 bytes).")
p("\`errors\`: non-2xx answers and socket errors over all rounds. The snowflake rows are capped by the "
  "twitter layout: 4.096 M IDs/s a node, 100 % of which is the most any correct generator can give.")
p("")
p("gRPC, one \`idmint.v1.Ids/StreamIds\` call over one HTTP/2 connection (h2c) to the first idmint server, "
  "read for the round's seconds and cancelled; client: server/examples/stream_ids.rs, tonic 0.14's generated "
  f"client over hyper {'$(lockv hyper)'}'s HTTP/2 client (8 MB stream window), one thread, pinned like wrk; "
  "messages of 1000 IDs (the default batch); it checks every ID is above the one before. "
  f"{rounds} rounds, the median:")
p("")
p("| stream | IDs/s | IDs read (median round) | duplicates or out of order |")
p("|---|---:|---:|---:|")
for name, label in (("streamS", "segment IDs of \`bench\`"), ("streamF", "snowflake IDs")):
    p(f"| {label} | {rate(med(name, 0))} | {rate(statistics.median(r[4] for r in runs[name]))} | {err(name)} |")
p("")
p("The snowflake stream is capped by the twitter layout like the batch row above (4.096 M IDs/s a node).")
p("")
ones = sorted((int(n[3:]), runs[n][0]) for n in runs if n.startswith("one"))
max_1 = max([med("segment1", 0)] + [r[0] for _, r in ones])
half_1 = min(ones, key=lambda s: abs(s[1][0] - max_1 / 2))
p(f"Single IDs (\`POST /v1/segment/bench\`) at fewer connections, for the latency at about half the maximum "
  f"(the best rate seen for single IDs, {rate(max_1)} req/s). One run of {secs} s each:")
p("")
p("| connections | req/s | of the maximum | p50 | p99 | errors |")
p("|---:|---:|---:|---:|---:|---:|")
for c, r in ones:
    mark = " ← about half" if c == half_1[0] else ""
    p(f"| {c} | {rate(r[0])} | {r[0] / max_1 * 100:.0f} %{mark} | {lat(r[1])} | {lat(r[2])} | {r[3]} |")
p("")
sweep = sorted((int(n[5:]), runs[n][0]) for n in runs if n.startswith("sweep"))
# The maximum is the best rate seen for lists, at any connection count: fewer connections than
# the rate rows' may serve more.
max_b = max([med("segmentB", 0)] + [r[0] for _, r in sweep])
p(f"Batches of {batch} as lists at fewer connections (wrk cannot cap a rate: the latency at about half "
  f"the maximum is read at the connection count whose rate comes nearest half the best rate seen for "
  f"lists, {rate(max_b * batch)} IDs/s). One run of {secs} s each:")
p("")
p("| connections | req/s | IDs/s | of the maximum | p50 | p99 | errors |")
p("|---:|---:|---:|---:|---:|---:|---:|")
half = min(sweep, key=lambda s: abs(s[1][0] - max_b / 2))
for c, r in sweep:
    mark = " ← about half" if c == half[0] else ""
    p(f"| {c} | {rate(r[0])} | {rate(r[0] * batch)} | {r[0] / max_b * 100:.0f} %{mark} | {lat(r[1])} | {lat(r[2])} | {r[3]} |")
p("")
mb = lambda kb: f"{int(kb) / 1024:.1f} MB" if kb else "n/a"
p("Resident memory (VmRSS, /proc/PID/status):")
p("")
p("| server | after start and 20 requests, idle | idle after the runs above |")
p("|---|---:|---:|")
p(f"| idmint | {mb('$IDMINT_RSS0')} | {mb('$IDMINT_RSS1')} |")
p(f"| bare axum | {mb('$BARE_RSS0')} | {mb('$BARE_RSS1')} |")
if "$LEAF_RSS0":
    p(f"| Meituan Leaf (JVM; MariaDB not counted) | {mb('$LEAF_RSS0')} | {mb('$LEAF_RSS1')} |")
p("")
if leaf:
    note = """$LEAF_NOTE""".strip()
    p("The peer, Meituan Leaf's own server, was started by hand before the run, not by this bench"
      + (": " + note if note else "") + ".")
    p("")
s1, f1 = med("segment1", 0), med("snowflake1", 0)
r1, q1 = vs_bare("segment1"), vs_bare("snowflake1")
r1t, q1t = vs_bare("segment1T"), vs_bare("snowflake1T")
ok = lambda b: "[x]" if b else "[ ]"
p("Goals:")
p("")
p(f"- {ok(min(r1, q1) >= 0.85)} single ID ≥ 85 % of the bare axum route (metrics on, no token): segment {r1 * 100:.0f} %, snowflake {q1 * 100:.0f} %")
p(f"- {ok(min(r1t, q1t) >= 0.75)} single ID ≥ 75 % of the bare axum route with a bearer token: segment {r1t * 100:.0f} %, snowflake {q1t * 100:.0f} %")
p(f"- {ok(half_1[1][2] <= 1.0)} single ID p99 ≤ 1 ms at about half the maximum rate: {lat(half_1[1][2])} at {half_1[0]} connection(s), {half_1[1][0] / max_1 * 100:.0f} % of the maximum")
stream_s = med("streamS", 0)
p(f"- {ok(stream_s >= 20e6 and err('streamS') == 0)} one gRPC stream ≥ 20 M IDs/s: {rate(stream_s)} IDs/s of segment IDs, {err('streamS')} duplicates or out of order")
if leaf:
    p(f"- {ok(min(s1, f1) >= 3 * leaf_rps)} single ID ≥ 3× Meituan Leaf's server: segment {s1 / leaf_rps:.2f}×, snowflake {f1 / leaf_rps:.2f}×")
else:
    p("- [ ] single ID ≥ 3× Meituan Leaf's server: not measured (LEAF_URL not set)")
max_r = med("segmentR", 0)
p(f"- {ok(max_r * batch >= 20e6)} batches of {batch} ≥ 20 M IDs/s: {rate(max_r * batch)} IDs/s as contiguous ranges; "
  f"{ok(max_b * batch >= 20e6)} as lists: {rate(max_b * batch)} IDs/s (the best rate seen, above)")
p(f"- {ok(half[1][2] <= 1.0)} batch p99 ≤ 1 ms at about half the maximum rate: {lat(half[1][2])} at {half[0]} connection(s), {half[1][0] / max_b * 100:.0f} % of the maximum")
p(f"- {ok(int('$IDMINT_RSS0') <= 30 * 1024)} idle resident memory ≤ 30 MB: {mb('$IDMINT_RSS0')}")
text = "\n".join(L) + "\n"
print(text)
if write:
    open(out, "w").write(text)
    print(f"bench.sh: wrote {out}", file=sys.stderr)
EOF
echo "bench.sh: last segment ID handed out: $LAST_ID" >&2

#!/usr/bin/env bash
# Failover (issue 37): the leader of a 3-member etcd cluster, and of a 3-server ZooKeeper
# ensemble, SIGKILLed mid-load: 0 duplicates, and minting resumes.
#
#   tests/clusters.sh [etcd|zk ...]      default: both
#
# The clusters: tests/servers.sh's etcd-cluster (ec1..ec3) and zk-ensemble (zk1..zk3), from
# Debian's etcd-server and zookeeper, on loopback, free ports, data in a temp directory, each
# member kept and stopped by its PID, ready once every member serves and they agree on a leader.
#
# Per store, load through one URL listing all three members, from cli/examples/partition_holder.rs:
# - two lease holders (`hold`): a fenced worker lease each, snowflake IDs without pause;
# - two segment drawers (`draw`) on one tag, in ranges of $STEP IDs.
# Once all four issue IDs, the member leading now (etcd's Maintenance.Status, ZooKeeper's `srvr`,
# via `tests/servers.sh leader`) is SIGKILLed, and the test waits, up to $RESUME_S s, until
# each process has issued IDs that needed the cluster after the kill:
# - a holder, an ID minted later than the kill + TTL + 1 s: a lease not renewed (or taken)
#   since the kill has ended by kill + TTL, and the generator mints nothing past its lease;
# - a drawer, more than 3 x $STEP IDs since the kill: it buffers at most two ranges of $STEP.
# Then every process stops and partition_holder counts every ID: 0 duplicates among the lease
# IDs (and each value's tenures fenced), 0 among the segment IDs, each drawer's IDs growing.
# Reported, not asserted: the IDs per store, each process's longest pause, the time taken.
# Nothing here asserts a speed: every wait is on a log line or a server's answer.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

PROFILE=${IDMINT_CARGO_PROFILE:-ci}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
HOLDER=${IDMINT_PARTITION_HOLDER:-$TARGET/$PROFILE/examples/partition_holder}

TTL_MS=3000
STEP=100
RESUME_S=120

STORES=(etcd zk)
declare -A CLUSTER=([etcd]=etcd-cluster [zk]=zk-ensemble)
declare -A URL_VAR=([etcd]=IDMINT_TEST_ETCD_CLUSTER_URL [zk]=IDMINT_TEST_ZK_ENSEMBLE_URL)
MEMBERS=(ec1 ec2 ec3 zk1 zk2 zk3)

log() { printf '[clusters] %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

[ $# -gt 0 ] && STORES=("$@")
for s in "${STORES[@]}"; do
    [ -n "${CLUSTER[$s]:-}" ] || fail "unknown store '$s' (stores: ${!CLUSTER[*]})"
done
command -v etcd >/dev/null || fail "etcd is missing (apt: etcd-server; tests/servers.sh install)"
[ -e /usr/share/java/zookeeper.jar ] || fail "ZooKeeper is missing (apt: zookeeper; tests/servers.sh install)"
command -v curl >/dev/null || fail "curl is missing (apt: curl)"
[ -x "$HOLDER" ] || fail "$HOLDER is not built (cargo test --workspace --profile $PROFILE --no-run)"

WORK=$(mktemp -d /tmp/idmint-clusters.XXXXXX)
# The servers of this test only, whatever the caller's IDMINT_SERVERS_DIR holds.
export IDMINT_SERVERS_DIR=$WORK/servers
declare -A PIDS=() # PID -> name, every load process started here still running

cleanup() {
    local rc=$? pid i
    for pid in "${!PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    tests/servers.sh stop "${MEMBERS[@]}" || true
    if [ $rc -ne 0 ] && [ -z "${IDMINT_CLUSTERS_KEEP:-}" ]; then
        log "logs were in $WORK (IDMINT_CLUSTERS_KEEP=1 keeps them)"
    fi
    [ -n "${IDMINT_CLUSTERS_KEEP:-}" ] || rm -rf "$WORK"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_until SECONDS WHAT CMD...
wait_until() {
    local limit=$1 what=$2 deadline
    shift 2
    deadline=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || fail "$what: not within ${limit}s"
        sleep 0.2
    done
}

now_ms() { date +%s%3N; }

# The last `progress` line's field F of process P (holder or drawer dir name).
last_field() { grep -E '^[0-9.]+ progress ' "$RUN/$1/events.log" | tail -1 | sed -n "s/.* $2=\([0-9.]*\).*/\1/p"; }

running() {
    local p
    for p in "${PROCS[@]}"; do
        kill -0 "${PID_OF[$p]}" 2>/dev/null || { cat "$RUN/$p/out.log" "$RUN/$p/events.log" >&2; fail "$STORE: $p exited"; }
    done
}

# issuing P: P logged a progress line with IDs.
issuing() { [ "$(last_field "$1" ids)" -gt 0 ] 2>/dev/null; }

# resumed P: P issued IDs that needed the cluster after the kill (see the header).
resumed() {
    local p=$1 mark
    case $p in
        h*) awk -v t="$(last_field "$p" last_id_ms)" -v k="$KILL_MS" -v ttl="$TTL_MS" \
            'BEGIN { exit !(t != "" && t > k + ttl + 1000) }' ;;
        d*) mark=$(sed -n 's/^[0-9.]* mark ids=\([0-9]*\)$/\1/p' "$RUN/$p/events.log")
            [ -n "$mark" ] && [ "$(last_field "$p" ids)" -gt $((mark + 3 * STEP)) ] ;;
    esac
}

# await_all WHAT TEST: until TEST P holds for every process, failing if one exits.
await_all() {
    local what=$1 test=$2 p deadline=$((SECONDS + RESUME_S))
    for p in "${PROCS[@]}"; do
        until "$test" "$p"; do
            running
            [ $SECONDS -lt $deadline ] || { tail -20 "$RUN/$p/events.log" >&2; fail "$STORE: $p $what: not within ${RESUME_S}s"; }
            sleep 0.2
        done
    done
}

RESULTS=$WORK/results.tsv
printf 'store\tkilled\tlease_ids\tlease_dups\tlosses\tsegment_ids\tsegment_dups\tlongest_pause_ms\tseconds\n' >"$RESULTS"

run_store() {
    STORE=$1
    RUN=$WORK/$STORE
    PROCS=(h1 h2 d1 d2)
    declare -gA PID_OF=()
    local t0=$SECONDS url leader p out_h out_d pauses
    mkdir -p "$RUN"
    url=${!URL_VAR[$STORE]}
    log "$STORE: load through $url"
    for p in h1 h2; do
        mkdir -p "$RUN/$p"
        "$HOLDER" hold --store "$url" --dir "$RUN/$p" --range 0..7 --ttl-ms "$TTL_MS" >"$RUN/$p/out.log" 2>&1 &
        PIDS[$!]=$p
        PID_OF[$p]=$!
    done
    for p in d1 d2; do
        mkdir -p "$RUN/$p"
        "$HOLDER" draw --store "$url" --dir "$RUN/$p" --tag failover --step "$STEP" >"$RUN/$p/out.log" 2>&1 &
        PIDS[$!]=$p
        PID_OF[$p]=$!
    done
    await_all "issuing IDs" issuing

    leader=$(tests/servers.sh leader "${CLUSTER[$STORE]}")
    log "$STORE: all four issue IDs; SIGKILL the leader, $leader (PID $(cat "$IDMINT_SERVERS_DIR/$leader.pid"))"
    tests/servers.sh kill "$leader"
    # Taken once the member is gone (kill waits for that): the later, the stricter `resumed`.
    KILL_MS=$(now_ms)
    for p in "${PROCS[@]}"; do touch "$RUN/$p/mark"; done
    await_all "issuing IDs that needed the cluster after the kill" resumed
    log "$STORE: every process issues IDs again; new leader: $(tests/servers.sh leader "${CLUSTER[$STORE]}" || echo none)"

    for p in "${PROCS[@]}"; do touch "$RUN/$p/stop"; done
    for p in "${PROCS[@]}"; do
        wait_until 120 "$STORE: $p stopping" bash -c "! kill -0 ${PID_OF[$p]}"
        wait "${PID_OF[$p]}" || fail "$STORE: $p failed: $(cat "$RUN/$p/out.log")"
        unset "PIDS[${PID_OF[$p]}]"
    done
    out_h=$("$HOLDER" check "$RUN/h1" "$RUN/h2") || { echo "$out_h" >&2; fail "$STORE: lease IDs: $out_h"; }
    out_d=$("$HOLDER" check-segments "$RUN/d1" "$RUN/d2") || { echo "$out_d" >&2; fail "$STORE: segment IDs: $out_d"; }
    # Each process's longest pause between two IDs, and when it began relative to the kill.
    pauses=$(for p in "${PROCS[@]}"; do
        sed -n 's/.* stopped .*longest_gap_ms=\([0-9.]*\) gap_from_ms=\([0-9.]*\).*/\1 \2/p' "$RUN/$p/events.log" |
            awk -v p="$p" -v k="$KILL_MS" '{ printf "%s=%.0fms(at kill%+.1fs) ", p, $1, ($2 - k) / 1000 }'
    done)
    log "$STORE: lease IDs: $out_h; segment IDs: $out_d"
    log "$STORE: longest pauses: $pauses"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$STORE" "$leader" \
        "$(sed -n 's/.*ids=\([0-9]*\).*/\1/p' <<<"$out_h")" \
        "$(sed -n 's/.*duplicates=\([0-9]*\).*/\1/p' <<<"$out_h")" \
        "$(cat "$RUN"/h*/events.log | grep -c ' lost ' || true)" \
        "$(sed -n 's/.*ids=\([0-9]*\).*/\1/p' <<<"$out_d")" \
        "$(sed -n 's/.*duplicates=\([0-9]*\).*/\1/p' <<<"$out_d")" \
        "$(sed -n 's/.* stopped .*longest_gap_ms=\([0-9.]*\).*/\1/p' "$RUN"/*/events.log | sort -g | tail -1)" \
        $((SECONDS - t0)) >>"$RESULTS"
    tests/servers.sh stop "${CLUSTER_MEMBERS[@]}"
}

T0=$SECONDS
names=()
for s in "${STORES[@]}"; do names+=("${CLUSTER[$s]}"); done
log "starting ${names[*]} (tests/servers.sh, in $IDMINT_SERVERS_DIR)"
eval "$(tests/servers.sh start "${names[@]}")"
for s in "${STORES[@]}"; do
    case $s in etcd) CLUSTER_MEMBERS=(ec1 ec2 ec3) ;; zk) CLUSTER_MEMBERS=(zk1 zk2 zk3) ;; esac
    run_store "$s"
done
log "every store: 0 duplicates, minting resumed after the leader's SIGKILL ($((SECONDS - T0)) s)"
column -t -s $'\t' "$RESULTS"
[ -z "${IDMINT_CLUSTERS_RESULTS:-}" ] || cp "$RESULTS" "$IDMINT_CLUSTERS_RESULTS"

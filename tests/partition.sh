#!/usr/bin/env bash
# Partitions, Jepsen-style, for every networked lease store (issue 37 item 4; docs/leases.md,
# "Partition tests"). Needs root (network namespaces, veth, iptables), python3 and faketime.
#
#   tests/partition.sh [STORE ...]      default: every store of STORES below
#
# Network: namespaces of its own, made here and deleted on exit: one holds a bridge, one the
# store, three the holders, each joined to the bridge by a veth pair; addresses (10.77.0.0/24)
# exist only inside them, so nothing here touches the host's network. Every process started
# here is stopped by its PID.
#
# Per store, three holders run cli/examples/partition_holder.rs (it mints without pause from a
# leased value and logs each loss with its margin; see that file) with one layout and TTL:
#   h1, h2: values 0..2; h3: only the value h1 holds, with its wall clock $BEHIND_S s behind
#   (libfaketime), so it waits for h1's value and, once it takes it, must issue IDs behind
#   h1's fence with a clock that reads earlier than h1's did.
#   (a) cut h1 (iptables DROP both ways) until h1 lost its lease and h3 took h1's value, which
#       holds the cut longer than TTL + freeze; heal; h1 leases a value of its own again;
#   (b) slow h2 (a delaying relay in its namespace, each way; see slow()) by each delay of
#       DELAYS_MS, for 3 TTL; the last delay is beyond the renew interval (TTL/3), so h2 must
#       lose its lease; heal; h2 mints again;
#   (c) cut h3, the holder whose clock is behind, until it lost its lease, one TTL more; heal.
# Then every holder stops and partition_holder check counts all IDs: 0 duplicates, and each
# value's tenures in ID order, each starting above the previous one's last ID (the fence).
# Every loss's margin (store-side expiry, at the earliest, minus the last ID's time) must be
# > 0. Waits are on log lines, with generous limits; nothing asserts a speed or a duration.
#
# Adding a store: an entry in STORES, its URL in STORE_URL, and a function
# start_NAME that starts it inside "$NS_STORE" (`ip netns exec "$NS_STORE" CMD... &`, so that
# $! is the server's own PID), data under $1, records its PID with `track PID NAME`, and
# returns once it answers from a holder's namespace (in_h1 CMD...).
# SQLite is not here: a file, not a networked store, so there is nothing to partition.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

PROFILE=${IDMINT_CARGO_PROFILE:-ci}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
HOLDER=${IDMINT_PARTITION_HOLDER:-$TARGET/$PROFILE/examples/partition_holder}
IDMINT_BIN=${IDMINT_BIN:-$TARGET/$PROFILE/idmint}

TTL_MS=2000
# One-way delays tried in (b), in ms; the last is beyond the renew interval (TTL/3).
DELAYS_MS=(200 1000)
BEHIND_S=6
NET=10.77.0
STORE_IP=$NET.2
H_IP=([1]=$NET.11 [2]=$NET.12 [3]=$NET.13)

# The stores: a list, a URL each, a start_NAME function each (see the header).
STORES=(postgres redis etcd zk serve)
declare -A STORE_URL=(
    [postgres]="postgres://postgres@$STORE_IP:5432/idmint"
    [redis]="redis://$STORE_IP:6379"
    [etcd]="etcd://$STORE_IP:2379"
    [zk]="zk://$STORE_IP:2181"
    [serve]="http://$STORE_IP:8080"
)

log() { printf '[partition] %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

[ $# -gt 0 ] && STORES=("$@")
for s in "${STORES[@]}"; do
    [ -n "${STORE_URL[$s]:-}" ] || fail "unknown store '$s' (stores: ${!STORE_URL[*]})"
done

# ---- what the suite needs: fail, never skip -----------------------------------------------------
need_tool() { command -v "$1" >/dev/null || fail "$1 is missing (apt: $2)"; }
need_tool ip iproute2
need_tool python3 python3
need_tool iptables iptables
need_tool curl curl
FAKETIME_LIB=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1 || true)
[ -n "$FAKETIME_LIB" ] || fail "libfaketime is missing (apt: faketime)"
[ -x "$HOLDER" ] || fail "$HOLDER is not built (cargo test --workspace --profile $PROFILE --no-run)"

WORK=$(mktemp -d /tmp/idmint-partition.XXXXXX)
chmod 755 "$WORK"
TAG=idpt$$
NS_NET=$TAG-net
NS_STORE=$TAG-store
NS_H=([1]=$TAG-h1 [2]=$TAG-h2 [3]=$TAG-h3)
MADE_NS=()
declare -A PIDS=() # PID -> name, every process started here still running

track() { PIDS[$1]=$2; }

# stop_pid PID [SIGNAL]: signal it, wait up to 30 s, then SIGKILL.
stop_pid() {
    local pid=$1 sig=${2:-TERM} i
    kill -0 "$pid" 2>/dev/null || { unset "PIDS[$pid]"; return 0; }
    kill -"$sig" "$pid" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
    unset "PIDS[$pid]"
}

cleanup() {
    local rc=$? pid ns
    for pid in "${!PIDS[@]}"; do
        case ${PIDS[$pid]} in postgres) stop_pid "$pid" QUIT ;; *) stop_pid "$pid" ;; esac
    done
    for ns in "${MADE_NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    if [ $rc -ne 0 ] && [ -z "${IDMINT_PARTITION_KEEP:-}" ]; then
        log "logs were in $WORK (IDMINT_PARTITION_KEEP=1 keeps them)"
    fi
    [ -n "${IDMINT_PARTITION_KEEP:-}" ] || rm -rf "$WORK"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the network --------------------------------------------------------------------------------
make_ns() {
    local err
    if ! err=$(ip netns add "$1" 2>&1); then
        fail "cannot make a network namespace ($err): the partition tests need root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and do not skip"
    fi
    MADE_NS+=("$1")
    ip -n "$1" link set lo up
}

# join NS NAME IP: NS's eth0, its peer NAME on the bridge.
join() {
    ip -n "$NS_NET" link add "$2" type veth peer name eth0 netns "$1"
    ip -n "$NS_NET" link set "$2" master br0 up
    ip -n "$1" addr add "$3/24" dev eth0
    ip -n "$1" link set eth0 up
}

make_ns "$NS_NET"
ip -n "$NS_NET" link add br0 type bridge
ip -n "$NS_NET" link set br0 up
make_ns "$NS_STORE"
join "$NS_STORE" v-store "$STORE_IP"
for i in 1 2 3; do
    make_ns "${NS_H[$i]}"
    join "${NS_H[$i]}" "v-h$i" "${H_IP[$i]}"
done

in_store() { ip netns exec "$NS_STORE" "$@"; }
in_h1() { ip netns exec "${NS_H[1]}" "$@"; }

# Drop everything between holder I and the store, both ways, at both ends (silently: no reset,
# no error, as a cable pulled).
drop_link() {
    ip netns exec "${NS_H[$1]}" iptables -w -"${2:-A}" INPUT -i eth0 -j DROP
    in_store iptables -w -"${2:-A}" INPUT -s "${H_IP[$1]}" -j DROP
}
heal_link() { drop_link "$1" D; }
# Delay every byte between holder h2 and the store by D ms, each way: h2 reaches the store
# through tests/partition_delay.py in its own namespace (127.0.0.1 there), which reads the delay
# from a file. `tc qdisc … netem delay` would do it in the kernel, but kernels without the
# sch_netem module exist (this machine's VM kernel is one), and a test must not depend on it.
slow() { echo "$2" >"$RUN/delay_ms"; }
heal_slow() { echo 0 >"$RUN/delay_ms"; }

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

# ---- the stores (each: start inside the store namespace, record PIDs, wait until it answers) ---
start_postgres() {
    local d=$1 bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -x "$bin/postgres" ] || fail "PostgreSQL is missing (apt: postgresql)"
    mkdir -p "$d/pg" "$d/pgsock"
    chown postgres "$d/pg" "$d/pgsock"
    runuser -u postgres -- "$bin/initdb" -D "$d/pg" -A trust -U postgres >"$d/initdb.log" 2>&1
    echo "host all all $NET.0/24 trust" >>"$d/pg/pg_hba.conf"
    touch "$d/pg.log"
    chown postgres "$d/pg.log"
    in_store runuser -u postgres -- "$bin/pg_ctl" -D "$d/pg" -l "$d/pg.log" -w -t 120 \
        -o "-p 5432 -k $d/pgsock -c listen_addresses=$STORE_IP" start >/dev/null
    track "$(head -1 "$d/pg/postmaster.pid")" postgres
    wait_until 60 "postgres answering" in_h1 psql -h "$STORE_IP" -U postgres -c 'SELECT 1'
    in_h1 psql -h "$STORE_IP" -U postgres -qc 'CREATE DATABASE idmint'
}

start_redis() {
    local d=$1
    mkdir -p "$d/redis"
    # AOF fsynced on every write, as tests/servers.sh: the store must not forget a fence.
    in_store redis-server --bind "$STORE_IP" --port 6379 --protected-mode no --dir "$d/redis" \
        --appendonly yes --appendfsync always --save "" --daemonize yes \
        --pidfile "$d/redis.pid" --logfile "$d/redis.log"
    wait_until 30 "redis pid file" test -s "$d/redis.pid"
    track "$(cat "$d/redis.pid")" redis
    wait_until 60 "redis answering" in_h1 redis-cli -h "$STORE_IP" -p 6379 ping
}

start_etcd() {
    local d=$1
    mkdir -p -m 700 "$d/etcd"
    ip netns exec "$NS_STORE" etcd --name pt --data-dir "$d/etcd" \
        --listen-client-urls "http://$STORE_IP:2379" --advertise-client-urls "http://$STORE_IP:2379" \
        --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
        --initial-cluster pt=http://127.0.0.1:2380 --initial-cluster-state new \
        --log-outputs stderr >"$d/etcd.log" 2>&1 &
    track $! etcd
    wait_until 60 "etcd answering" in_h1 curl -sf "http://$STORE_IP:2379/health"
}

start_zk() {
    local d=$1
    mkdir -p "$d/zk/data"
    # Ticks of 200 ms as tests/servers.sh's, so a session (a lease's TTL + freeze) may be short.
    printf '%s\n' tickTime=200 "dataDir=$d/zk/data" clientPort=2181 "clientPortAddress=$STORE_IP" \
        maxSessionTimeout=600000 maxClientCnxns=0 admin.enableServer=false \
        4lw.commands.whitelist=ruok >"$d/zk/zoo.cfg"
    ip netns exec "$NS_STORE" java -Xmx256m -cp /etc/zookeeper/conf:/usr/share/java/zookeeper.jar \
        org.apache.zookeeper.server.ZooKeeperServerMain "$d/zk/zoo.cfg" >"$d/zk.log" 2>&1 &
    track $! zk
    # Each probe within 2 s: one made while the server starts may get no answer at all.
    wait_until 120 "zk answering" in_h1 timeout 2 bash -c \
        "exec 3<>/dev/tcp/$STORE_IP/2181 && printf ruok >&3 && grep -q imok <&3"
}

start_serve() {
    local d=$1
    [ -x "$IDMINT_BIN" ] || fail "$IDMINT_BIN is not built"
    # Open to the holders' namespaces without tokens (nothing else can reach these addresses).
    # The server's own snowflake lease keeps to a value the holders never ask for.
    cat >"$d/serve.toml" <<EOF
listen = "$STORE_IP:8080"
admin_listen = "$STORE_IP:8081"
store = "sqlite:$d/serve.db"
allow_anonymous = true

[snowflake]
lease_range = "1023..1023"
EOF
    ip netns exec "$NS_STORE" "$IDMINT_BIN" serve --config "$d/serve.toml" >"$d/serve.log" 2>&1 &
    track $! serve
    wait_until 120 "idmint serve ready" in_h1 curl -sf "http://$STORE_IP:8081/readyz"
}

# ---- holders ------------------------------------------------------------------------------------
# start_relay: h2's way to the store (see slow), listening where h2's URL points.
start_relay() {
    local port
    port=$(sed 's|^[a-z]*://[^/]*:\([0-9]*\).*|\1|' <<<"$URL")
    echo 0 >"$RUN/delay_ms"
    ip netns exec "${NS_H[2]}" python3 "$ROOT/tests/partition_delay.py" "$port" "$STORE_IP" "$port" \
        "$RUN/delay_ms" >"$RUN/relay.log" 2>&1 &
    track $! relay
    wait_until 30 "h2's relay listening" ip netns exec "${NS_H[2]}" bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"
}

# start_holder I RANGE DIR [behind]
start_holder() {
    local i=$1 range=$2 dir=$3 pre=() url=$URL
    mkdir -p "$dir"
    : >"$dir/events.log"
    # LD_PRELOAD directly (not the faketime wrapper, which forks): the PID kept is the holder's.
    [ "${4:-}" = behind ] && pre=(env "LD_PRELOAD=$FAKETIME_LIB" "FAKETIME=-${BEHIND_S}s" FAKETIME_DONT_FAKE_MONOTONIC=1)
    [ "$i" = 2 ] && url=${URL/$STORE_IP/127.0.0.1}
    ip netns exec "${NS_H[$i]}" "${pre[@]}" "$HOLDER" hold --store "$url" --dir "$dir" \
        --range "$range" --ttl-ms "$TTL_MS" >"$dir/out.log" 2>&1 &
    track $! "h$i"
    HPID[$i]=$!
}

# mark I: the line count of holder I's log, so a wait sees only what follows.
mark() { MARK[$1]=$(wc -l <"$RUN/h$1/events.log"); }

# await I REGEX [SECONDS]: the first line matching REGEX that holder I logged since its mark,
# in LINE; fails if the holder exits or the (generous) limit passes.
await_line() {
    local i=$1 re=$2 limit=${3:-120} deadline f=$RUN/h$1/events.log
    deadline=$((SECONDS + limit))
    while :; do
        LINE=$(tail -n +$((${MARK[$i]:-0} + 1)) "$f" | grep -m1 -E "$re" || true)
        [ -z "$LINE" ] || return 0
        if ! kill -0 "${HPID[$i]}" 2>/dev/null; then
            cat "$RUN/h$i/out.log" >&2
            fail "$STORE: holder h$i exited while waiting for '$re'"
        fi
        if [ $SECONDS -ge $deadline ]; then
            tail -20 "$f" >&2
            fail "$STORE: holder h$i logged no '$re' within ${limit}s"
        fi
        sleep 0.2
    done
}

# await_state I STATE: until holder I's last `lost`/`minting` line is STATE.
await_state() {
    local deadline=$((SECONDS + 120))
    until [ "$(grep -E '^[0-9.]+ (lost|minting) ' "$RUN/h$1/events.log" | tail -1 | cut -d' ' -f2)" = "$2" ]; do
        [ $SECONDS -lt $deadline ] || { tail -20 "$RUN/h$1/events.log" >&2; fail "$STORE: holder h$1 not $2 within 120s"; }
        sleep 0.2
    done
}

value_in() { sed -n 's/.*value=\([0-9]*\).*/\1/p' <<<"$1"; }

stop_holders() {
    local i
    for i in 1 2 3; do touch "$RUN/h$i/stop"; done
    for i in 1 2 3; do
        wait_until 120 "$STORE: holder h$i stopping" bash -c "! kill -0 ${HPID[$i]}"
        wait "${HPID[$i]}" || fail "$STORE: holder h$i failed: $(cat "$RUN/h$i/out.log")"
        unset "PIDS[${HPID[$i]}]"
    done
}

stop_store() {
    local pid
    for pid in "${!PIDS[@]}"; do
        # PostgreSQL: a fast shutdown (SIGINT), not a smart one waiting for sessions.
        case ${PIDS[$pid]} in postgres) stop_pid "$pid" INT ;; *) stop_pid "$pid" ;; esac
    done
}

RESULTS=$WORK/results.tsv
printf 'store\tmin_margin_ms\tlosses\tids\tduplicates\thandovers\tseconds\n' >"$RESULTS"

run_store() {
    STORE=$1
    URL=${STORE_URL[$STORE]}
    RUN=$WORK/$STORE
    HPID=()
    MARK=()
    local t0=$SECONDS v1 v2 d out margins min behind
    mkdir -p "$RUN"
    log "$STORE: starting the store in $NS_STORE ($URL)"
    "start_$STORE" "$RUN"

    start_holder 1 0..2 "$RUN/h1"
    await_line 1 '^[0-9.]+ minting value='
    v1=$(value_in "$LINE")
    start_relay
    start_holder 2 0..2 "$RUN/h2"
    await_line 2 '^[0-9.]+ minting value='
    v2=$(value_in "$LINE")
    [ "$v1" != "$v2" ] || fail "$STORE: h1 and h2 both lease value $v1"
    start_holder 3 "$v1..$v1" "$RUN/h3" behind
    await_line 3 '^[0-9.]+ waiting no_free_lease'
    # The clock h3 reads must really be behind (else (c) would test nothing): its latest log
    # line's time against ours, read after it.
    behind=$(awk -v now="$(date +%s.%N)" 'END { printf "%.1f", now - $1 / 1000 }' "$RUN/h3/events.log")
    awk -v b="$behind" -v want="$BEHIND_S" 'BEGIN { exit !(b >= want - 1) }' ||
        fail "$STORE: h3's clock is ${behind}s behind, not ${BEHIND_S}s: libfaketime did not take"
    log "$STORE: h1 holds $v1, h2 holds $v2, h3 (clock ${BEHIND_S}s behind) waits for $v1"

    log "$STORE: (a) cut h1 off until h3 takes its value"
    mark 1 && mark 3
    drop_link 1
    await_line 1 "^[0-9.]+ lost value=$v1 "
    await_line 3 "^[0-9.]+ minting value=$v1 "
    mark 1
    heal_link 1
    await_line 1 '^[0-9.]+ minting value='
    [ "$(value_in "$LINE")" != "$v1" ] || fail "$STORE: h1 minted $v1 again while h3 holds it"
    log "$STORE: healed; h1 took value $(value_in "$LINE") of its own"

    for d in "${DELAYS_MS[@]}"; do
        log "$STORE: (b) h2 slowed by ${d} ms each way"
        mark 2
        slow 2 "$d"
        if [ "$d" = "${DELAYS_MS[-1]}" ]; then
            # Beyond the renew interval: no renewal can succeed, the lease must be lost.
            await_line 2 '^[0-9.]+ lost value='
        fi
        sleep $((3 * TTL_MS / 1000))
        heal_slow 2
        # Lost under the delay (or just after): it must lease again and mint.
        await_state 2 minting
    done

    log "$STORE: (c) cut h3 off (its clock ${BEHIND_S}s behind)"
    mark 3
    drop_link 3
    await_line 3 '^[0-9.]+ lost value='
    sleep $((TTL_MS / 1000))
    mark 3
    heal_link 3
    await_line 3 '^[0-9.]+ minting value='

    stop_holders
    stop_store
    out=$("$HOLDER" check "$RUN/h1" "$RUN/h2" "$RUN/h3") || { echo "$out" >&2; fail "$STORE: $out"; }
    margins=$(cat "$RUN"/h*/events.log | sed -n 's/.* lost .*margin_ms=\([^ ]*\).*/\1/p')
    [ -n "$margins" ] || fail "$STORE: no lost lease was logged"
    if grep -qvE '^[0-9]+\.[0-9]+$' <<<"$margins"; then
        fail "$STORE: a lost lease with no successful store call before it: $margins"
    fi
    min=$(sort -g <<<"$margins" | head -1)
    awk -v m="$min" 'BEGIN { exit !(m > 0) }' ||
        fail "$STORE: a holder minted ${min} ms past the start of its last renewal + TTL: $(grep -h ' lost ' "$RUN"/h*/events.log)"
    log "$STORE: $out; margins (ms): $(tr '\n' ' ' <<<"$margins")"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$STORE" "$min" "$(wc -l <<<"$margins")" \
        "$(sed -n 's/.*ids=\([0-9]*\).*/\1/p' <<<"$out")" \
        "$(sed -n 's/.*duplicates=\([0-9]*\).*/\1/p' <<<"$out")" \
        "$(sed -n 's/.*handovers=\([0-9]*\).*/\1/p' <<<"$out")" $((SECONDS - t0)) >>"$RESULTS"
}

T0=$SECONDS
for s in "${STORES[@]}"; do run_store "$s"; done
log "all stores: 0 duplicates, every fence held, every margin > 0 ($((SECONDS - T0)) s)"
column -t -s $'\t' "$RESULTS"
[ -z "${IDMINT_PARTITION_RESULTS:-}" ] || cp "$RESULTS" "$IDMINT_PARTITION_RESULTS"

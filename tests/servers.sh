#!/usr/bin/env bash
# Test servers for the segment stores: Redis, PostgreSQL, MariaDB, etcd and ZooKeeper on loopback, on free
# non-default ports, with data in a temporary directory, started and stopped by PID.
#
#   tests/servers.sh install                 apt-install what is missing (idempotent)
#   tests/servers.sh start [redis|postgres|mysql|etcd|zk ...]   start (all by default), print env lines
#                    redis2, redis3: extra Redis servers (never started by default), for the
#                    tests of Redis-minted snowflakes over several servers
#                    redis-tls: a TLS-only Redis asking for a client certificate (default on).
#                    redis-cluster: a Redis Cluster of 3 masters + 3 replicas (nodes rc1..rc6);
#                    redis-sentinel: a master (rs-m) + a replica (rs-r) + 3 sentinels
#                    (rs-s1..rs-s3), master name `idmint`. Neither is started by default; both
#                    fail over in about 1-2 s, and a node started again (`start rc2`) rejoins
#                    as a replica. Every node: AOF on, loopback, its own port and directory
#                    etcd: one member (Debian's etcd-server); etcd-tls: a TLS-only member
#                    asking for a client certificate (both default on)
#                    etcd-auth: one member with auth on (not started by default): users
#                    root/root-pw (role root), idmint/idmint-pw (role idmint: read-write
#                    on keys under /app/ only) and other/other-pw (role other: under
#                    /other/ only); IDMINT_TEST_ETCD_AUTH_URL has no credentials
#                    zk: one standalone ZooKeeper (Debian's zookeeper), ticks of 200 ms, so
#                    sessions of 0.4 s to 10 min (default on)
#                    etcd-cluster: 3 members (ec1..ec3) of one etcd cluster; zk-ensemble: 3
#                    servers (zk1..zk3) of one ZooKeeper ensemble, ticks of 200 ms. Neither is
#                    started by default; both are ready once they have a leader (each member
#                    agrees on it) and every member serves. For the failover tests
#                    (tests/clusters.sh): `kill ec2` SIGKILLs one, `start ec2` brings it back
#                    PostgreSQL and MariaDB also take TLS on their one port, with a TLS-only
#                    user each; the certificates are made here ($DIR/tls, tls_files below)
#   tests/servers.sh kill NAME               SIGKILL the server (fault tests), keep its data
#                                            (a cluster or sentinel node by its name, rc1, rs-m…)
#   tests/servers.sh stop [NAME ...]         stop by PID (all by default, extra Redis servers too)
#   tests/servers.sh env                     print the IDMINT_TEST_* lines for started servers
#   tests/servers.sh leader etcd-cluster|zk-ensemble   the name of the member leading now
#
# State (ports, PIDs, data) lives in $IDMINT_SERVERS_DIR (required except for `install`;
# tests/run.sh makes a temp one). Use as `eval "$(tests/servers.sh start)"`. A restarted
# server reuses its port and data, so a fault test can kill one and bring it back.
set -euo pipefail

if [ "${1:-}" != install ]; then
    DIR=${IDMINT_SERVERS_DIR:?set IDMINT_SERVERS_DIR to a temporary directory}
    mkdir -p "$DIR"
    chmod 755 "$DIR"
fi

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)

log() { printf '[servers] %s\n' "$*" >&2; }

# Redis, PostgreSQL and MariaDB cannot bind port 0 and say which port they got, so each node
# gets a port picked here: one BELOW the kernel's ephemeral range
# (net.ipv4.ip_local_port_range), which no outgoing connection is ever given, so no test's
# client can take it between the pick and the bind (or while a node is down for a fault test
# and comes back on it); free when picked, so only another listener started in between could
# take it. free_port [SPAN]: such a port P, with P + SPAN free too (a Redis Cluster node's bus
# port is P + 10000).
free_port() {
    python3 - "${1:-0}" <<'EOF'
import random, socket, sys
span = int(sys.argv[1])
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
if low - 1 - span <= 10000:
    sys.exit(f"servers.sh: the ephemeral range starts at {low}: no room below it for a port (+{span})")
while True:
    p = random.randint(10000, low - 1 - span)
    try:
        for q in {p, p + span}:
            s = socket.socket()
            s.bind(("127.0.0.1", q))
            s.close()
    except OSError:
        continue
    print(p)
    break
EOF
}

port_of() {
    local f="$DIR/$1.port"
    if [ ! -s "$f" ]; then
        case $1 in rc[0-9]) free_port 10000 >"$f" ;; *) free_port >"$f" ;; esac
    fi
    cat "$f"
}

wait_for() { # wait_for SECONDS CMD...
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.2
    done
}

as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install() {
    local need=()
    command -v redis-server >/dev/null || need+=(redis-server)
    [ -n "$PGBIN" ] && [ -x "$PGBIN/postgres" ] || need+=(postgresql)
    command -v mariadbd >/dev/null || need+=(mariadb-server)
    command -v etcd >/dev/null || need+=(etcd-server)
    [ -e /usr/share/java/zookeeper.jar ] || need+=(zookeeper)
    if [ ${#need[@]} -gt 0 ]; then
        log "installing ${need[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${need[@]}" >/dev/null
    fi
}

# A test CA, a server certificate for the name `localhost` only (so `127.0.0.1` is a wrong
# host name for the tests), a client certificate, and a second CA that signed none of them.
tls_files() {
    local t="$DIR/tls"
    [ -s "$t/client.pem" ] && return 0
    mkdir -p "$t"
    local ossl=(openssl req -x509 -newkey rsa:2048 -nodes -days 3650)
    "${ossl[@]}" -keyout "$t/ca.key" -out "$t/ca.pem" -subj "/CN=idmint test CA" 2>/dev/null
    "${ossl[@]}" -keyout "$t/other-ca.key" -out "$t/other-ca.pem" -subj "/CN=idmint other CA" 2>/dev/null
    local who
    for who in server client; do
        openssl req -newkey rsa:2048 -nodes -keyout "$t/$who.key" -out "$t/$who.csr" \
            -subj "/CN=idmint test $who" 2>/dev/null
        printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=%sAuth\n' "$who" >"$t/$who.ext"
        openssl x509 -req -in "$t/$who.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial \
            -days 3650 -extfile "$t/$who.ext" -out "$t/$who.pem" 2>/dev/null
    done
    chmod 644 "$t"/*.pem
    chmod 600 "$t"/*.key
    # PostgreSQL wants its key private to the user it runs as.
    cp "$t/server.key" "$t/pg-server.key"
    chmod 600 "$t/pg-server.key"
    [ "$(id -u)" = 0 ] && chown postgres "$t/pg-server.key"
    return 0
}

start_redis() { start_redis_named redis; }
start_redis2() { start_redis_named redis2; }
start_redis3() { start_redis_named redis3; }

start_redis_named() {
    local name=$1 port
    port=$(port_of "$name")
    mkdir -p "$DIR/$name"
    # AOF with fsync on every write: a counter must survive a kill, or IDs repeat.
    redis-server --port "$port" --bind 127.0.0.1 --dir "$DIR/$name" \
        --appendonly yes --appendfsync always --save "" \
        --daemonize yes --pidfile "$DIR/$name.pid" --logfile "$DIR/$name.log"
    wait_for 20 redis-cli -p "$port" ping || { log "$name did not start"; cat "$DIR/$name.log" >&2; return 1; }
    wait_for 5 test -s "$DIR/$name.pid"
}

# One Redis node of the cluster or sentinel set: its command line is kept in $DIR/NAME.cmd, so
# `start NAME` after a kill brings back the same node (port, directory, role in the cluster).
redis_node() {
    local name=$1 port
    shift
    port=$(port_of "$name")
    mkdir -p "$DIR/$name"
    printf '%q ' redis-server --port "$port" --bind 127.0.0.1 --dir "$DIR/$name" \
        --appendonly yes --save "" --daemonize yes --pidfile "$DIR/$name.pid" \
        --logfile "$DIR/$name.log" "$@" >"$DIR/$name.cmd"
    restart_node "$name"
}

restart_node() {
    local name=$1
    bash "$DIR/$name.cmd"
    wait_for 20 redis-cli -p "$(port_of "$name")" ping || { log "$name did not start"; tail -20 "$DIR/$name.log" >&2; return 1; }
    wait_for 5 test -s "$DIR/$name.pid"
}

CLUSTER_NODES=(rc1 rc2 rc3 rc4 rc5 rc6)
SENTINELS=(rs-s1 rs-s2 rs-s3)

cluster_ready() {
    local n p
    for n in "${CLUSTER_NODES[@]}"; do
        p=$(port_of "$n")
        redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' || return 1
        # Writes are WAITed on: every replica must be attached before the tests start.
        if redis-cli -p "$p" role | head -1 | grep -q slave; then
            redis-cli -p "$p" info replication | grep -q 'master_link_status:up' || return 1
        fi
    done
}

start_redis_cluster() {
    local n addrs=()
    for n in "${CLUSTER_NODES[@]}"; do
        alive "$n" || redis_node "$n" --cluster-enabled yes --cluster-config-file nodes.conf \
            --cluster-node-timeout 1000 --cluster-require-full-coverage no
        addrs+=("127.0.0.1:$(port_of "$n")")
    done
    if ! redis-cli -p "$(port_of rc1)" cluster info | grep -q 'cluster_known_nodes:6'; then
        redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/redis-cluster.log" 2>&1 \
            || { log "redis cluster create failed"; cat "$DIR/redis-cluster.log" >&2; return 1; }
    fi
    wait_for 60 cluster_ready || { log "redis cluster not ready"; redis-cli -p "$(port_of rc1)" cluster nodes >&2; return 1; }
    touch "$DIR/redis-cluster.up"
}

# A field of `SENTINEL MASTER idmint` as sentinel S sees it.
sentinel_field() { redis-cli -p "$(port_of "$1")" sentinel master idmint | grep -A1 -x "$2" | tail -1; }

sentinel_ready() {
    local s
    redis-cli -p "$(port_of rs-r)" info replication | grep -q 'master_link_status:up' || return 1
    for s in "${SENTINELS[@]}"; do
        [ "$(sentinel_field "$s" num-other-sentinels)" = 2 ] || return 1
        [ "$(sentinel_field "$s" num-slaves)" = 1 ] || return 1
    done
}

start_redis_sentinel() {
    local s m
    m=$(port_of rs-m)
    alive rs-m || redis_node rs-m
    alive rs-r || redis_node rs-r --replicaof 127.0.0.1 "$m"
    for s in "${SENTINELS[@]}"; do
        alive "$s" && continue
        mkdir -p "$DIR/$s"
        # Sentinel rewrites its file with what it learns: written once, kept across restarts.
        [ -s "$DIR/$s.conf" ] || printf '%s\n' "port $(port_of "$s")" "bind 127.0.0.1" "dir $DIR/$s" \
            "sentinel monitor idmint 127.0.0.1 $m 2" "sentinel down-after-milliseconds idmint 1000" \
            "sentinel failover-timeout idmint 3000" "sentinel parallel-syncs idmint 1" >"$DIR/$s.conf"
        printf '%q ' redis-server "$DIR/$s.conf" --sentinel --daemonize yes \
            --pidfile "$DIR/$s.pid" --logfile "$DIR/$s.log" >"$DIR/$s.cmd"
        restart_node "$s"
    done
    wait_for 60 sentinel_ready || { log "redis sentinel set not ready"; return 1; }
    touch "$DIR/redis-sentinel.up"
}

# TLS only, with a client certificate signed by the test CA (tls_files).
start_redis_tls() {
    local port t="$DIR/tls"
    tls_files
    port=$(port_of redis-tls)
    mkdir -p "$DIR/redis-tls"
    redis-server --port 0 --tls-port "$port" --bind 127.0.0.1 --dir "$DIR/redis-tls" \
        --tls-cert-file "$t/server.pem" --tls-key-file "$t/server.key" \
        --tls-ca-cert-file "$t/ca.pem" --tls-auth-clients yes --save "" \
        --daemonize yes --pidfile "$DIR/redis-tls.pid" --logfile "$DIR/redis-tls.log"
    wait_for 20 redis-cli --tls --cacert "$t/ca.pem" --cert "$t/client.pem" --key "$t/client.key" \
        -h localhost -p "$port" ping || { log "redis-tls did not start"; cat "$DIR/redis-tls.log" >&2; return 1; }
    wait_for 5 test -s "$DIR/redis-tls.pid"
}

# One etcd member: its own client and peer ports, data in $DIR/NAME (etcd wants it 0700).
# Started in the background and kept by PID; the command line is kept like a Redis node's, so
# `start NAME` after a kill brings back the same member with its data.
# etcd_member NAME SCHEME CLUSTER [ARGS...]: CLUSTER is the --initial-cluster list, empty for a
# cluster of this member alone.
etcd_member() {
    local name=$1 scheme=$2 cluster=$3 port peer
    shift 3
    port=$(port_of "$name")
    peer=$(port_of "$name-peer")
    [ -n "$cluster" ] || cluster="$name=http://127.0.0.1:$peer"
    mkdir -p -m 700 "$DIR/$name"
    printf '%q ' etcd --name "$name" --data-dir "$DIR/$name" \
        --listen-client-urls "$scheme://127.0.0.1:$port" \
        --advertise-client-urls "$scheme://127.0.0.1:$port" \
        --listen-peer-urls "http://127.0.0.1:$peer" \
        --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "$cluster" \
        --initial-cluster-state new --log-outputs stderr "$@" >"$DIR/$name.cmd"
}

launch_etcd() {
    # `exec` so the PID kept is etcd's own, not a subshell's.
    bash -c "exec $(cat "$DIR/$1.cmd")" >>"$DIR/$1.log" 2>&1 &
    echo $! >"$DIR/$1.pid"
}

restart_etcd() {
    local name=$1 t="$DIR/tls" health
    launch_etcd "$name"
    if [ "$name" = etcd-tls ]; then
        health=(curl -sf --cacert "$t/ca.pem" --cert "$t/client.pem" --key "$t/client.key"
            "https://localhost:$(port_of "$name")/health")
    else
        health=(curl -sf "http://127.0.0.1:$(port_of "$name")/health")
    fi
    wait_for 60 "${health[@]}" || { log "$name did not start"; tail -20 "$DIR/$name.log" >&2; return 1; }
}

start_etcd() {
    etcd_member etcd http ""
    restart_etcd etcd
}

# TLS only, with a client certificate signed by the test CA (tls_files), like redis-tls.
start_etcd_tls() {
    local t="$DIR/tls"
    tls_files
    etcd_member etcd-tls https "" --cert-file "$t/server.pem" --key-file "$t/server.key" \
        --trusted-ca-file "$t/ca.pem" --client-cert-auth
    restart_etcd etcd-tls
}

# One member with auth on (etcd_auth_setup): made once, so `start etcd-auth` after a kill brings
# it back with its users and roles.
start_etcd_auth() {
    etcd_member etcd-auth http ""
    restart_etcd etcd-auth
    etcd_auth_setup "http://127.0.0.1:$(port_of etcd-auth)" ||
        { log "etcd-auth: setting up users and roles failed"; return 1; }
}

# Users and roles through etcd's JSON gateway (Debian's etcd-server has no etcdctl), then auth
# on: only then does etcd check them. Each role may read and write one key prefix.
etcd_auth_setup() {
    local url=$1
    b64() { printf %s "$1" | base64 -w0; }
    call() { curl -sf -X POST "$url/v3/auth/$1" -d "$2" >/dev/null || { log "etcd $1 $2 failed"; return 1; }; }
    call user/add '{"name":"root","password":"root-pw"}' &&
        call user/grant '{"user":"root","role":"root"}' || return 1
    local who
    for who in idmint other; do
        local from=/app/ to=/app0
        [ "$who" = other ] && from=/other/ to=/other0
        call user/add "{\"name\":\"$who\",\"password\":\"$who-pw\"}" &&
            call role/add "{\"name\":\"$who\"}" &&
            call role/grant "{\"name\":\"$who\",\"perm\":{\"permType\":\"READWRITE\",\"key\":\"$(b64 "$from")\",\"range_end\":\"$(b64 "$to")\"}}" &&
            call user/grant "{\"user\":\"$who\",\"role\":\"$who\"}" || return 1
    done
    call enable '{}'
}

# One standalone ZooKeeper: its port, data in $DIR/zk, the JVM started in the background and
# kept by PID, the command line kept like etcd's so `start zk` after a kill brings back the same
# server with its data (and its sessions, which it gives a full timeout again). Ticks of 200 ms
# let the tests use leases of a second or two (ZooKeeper grants sessions of 2 to
# maxSessionTimeout ticks); no connection limit, since every held lease is a session of its own.
start_zk() {
    local port
    port=$(port_of zk)
    mkdir -p "$DIR/zk/data"
    printf '%s\n' tickTime=200 "dataDir=$DIR/zk/data" "clientPort=$port" \
        clientPortAddress=127.0.0.1 maxSessionTimeout=600000 maxClientCnxns=0 \
        admin.enableServer=false 4lw.commands.whitelist=ruok >"$DIR/zk/zoo.cfg"
    printf '%q ' java -Xmx256m -cp /etc/zookeeper/conf:/usr/share/java/zookeeper.jar \
        org.apache.zookeeper.server.ZooKeeperServerMain "$DIR/zk/zoo.cfg" >"$DIR/zk.cmd"
    restart_zk
}

launch_zk() {
    # `exec` so the PID kept is the JVM's own, not a subshell's.
    bash -c "exec $(cat "$DIR/$1.cmd")" >>"$DIR/$1.log" 2>&1 &
    echo $! >"$DIR/$1.pid"
}

# zk_word NAME WORD: a four-letter word's answer (`ruok`, `srvr`…), each try within 2 s: a server
# that is starting may accept the connection and answer nothing.
zk_word() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$(port_of "$1") && printf $2 >&3 && cat <&3"
}

zk_ok() { zk_word "$1" ruok | grep -q imok; }

restart_zk() {
    local name=${1:-zk}
    launch_zk "$name"
    # An ensemble member answers `imok` before it has a quorum: the ensemble's own wait
    # (zk_ensemble_ready) asks for its mode.
    wait_for 60 zk_ok "$name" ||
        { log "$name did not start"; tail -20 "$DIR/$name.log" >&2; return 1; }
}

# ---- clusters for the failover tests (tests/clusters.sh) ---------------------------------------
ETCD_MEMBERS=(ec1 ec2 ec3)
ZK_SERVERS=(zk1 zk2 zk3)

# What a member says of itself and the cluster (etcd's Maintenance.Status, the RPC behind
# `etcdctl endpoint status`, through its JSON gateway): `MEMBER_ID LEADER_ID`.
etcd_status() {
    curl -sf -m 2 -X POST "http://127.0.0.1:$(port_of "$1")/v3/maintenance/status" -d '{}' |
        python3 -c 'import json, sys; s = json.load(sys.stdin); print(s["header"]["member_id"], s.get("leader", "0"))'
}

# Ready: every member healthy (etcd's /health: a leader, and a read through it answered) and
# all naming the same leader.
etcd_cluster_ready() {
    local n leaders=()
    for n in "${ETCD_MEMBERS[@]}"; do
        curl -sf -m 2 "http://127.0.0.1:$(port_of "$n")/health" | grep -q '"health":"true"' || return 1
        leaders+=("$(etcd_status "$n" | cut -d' ' -f2)") || return 1
    done
    [ "${leaders[0]}" != 0 ] && [ "$(printf '%s\n' "${leaders[@]}" | sort -u | wc -l)" = 1 ]
}

start_etcd_cluster() {
    local n peers=()
    for n in "${ETCD_MEMBERS[@]}"; do peers+=("$n=http://127.0.0.1:$(port_of "$n-peer")"); done
    for n in "${ETCD_MEMBERS[@]}"; do
        alive "$n" && continue
        [ -s "$DIR/$n.cmd" ] || etcd_member "$n" http "$(IFS=,; echo "${peers[*]}")" \
            --initial-cluster-token "idmint-$$"
        # All launched before any is waited on: a member alone has no quorum.
        launch_etcd "$n"
    done
    wait_for 60 etcd_cluster_ready ||
        { log "etcd cluster not ready"; for n in "${ETCD_MEMBERS[@]}"; do tail -5 "$DIR/$n.log" >&2; done; return 1; }
    touch "$DIR/etcd-cluster.up"
}

zk_mode() { zk_word "$1" srvr | sed -n 's/^Mode: //p'; }

# Ready: every server serving (`srvr` names its mode only then), exactly one leading.
zk_ensemble_ready() {
    local n modes=()
    for n in "${ZK_SERVERS[@]}"; do
        modes+=("$(zk_mode "$n")")
        [ -n "${modes[-1]}" ] || return 1
    done
    [ "$(printf '%s\n' "${modes[@]}" | grep -cx leader)" = 1 ]
}

start_zk_ensemble() {
    local n i servers=()
    i=0
    for n in "${ZK_SERVERS[@]}"; do
        i=$((i + 1))
        servers+=("server.$i=127.0.0.1:$(port_of "$n-quorum"):$(port_of "$n-election")")
    done
    i=0
    for n in "${ZK_SERVERS[@]}"; do
        i=$((i + 1))
        alive "$n" && continue
        if [ ! -s "$DIR/$n.cmd" ]; then
            mkdir -p "$DIR/$n/data"
            echo "$i" >"$DIR/$n/data/myid"
            # Ticks of 200 ms as `zk`'s; a follower has 10 s to join (JVMs start slowly on a
            # loaded machine) and 2 s of silence before it is dropped.
            printf '%s\n' tickTime=200 initLimit=50 syncLimit=10 "dataDir=$DIR/$n/data" \
                "clientPort=$(port_of "$n")" clientPortAddress=127.0.0.1 maxSessionTimeout=600000 \
                maxClientCnxns=0 admin.enableServer=false 4lw.commands.whitelist=ruok,srvr \
                "${servers[@]}" >"$DIR/$n/zoo.cfg"
            printf '%q ' java -Xmx256m -cp /etc/zookeeper/conf:/usr/share/java/zookeeper.jar \
                org.apache.zookeeper.server.quorum.QuorumPeerMain "$DIR/$n/zoo.cfg" >"$DIR/$n.cmd"
        fi
        launch_zk "$n"
    done
    wait_for 120 zk_ensemble_ready ||
        { log "zk ensemble not ready"; for n in "${ZK_SERVERS[@]}"; do tail -5 "$DIR/$n.log" >&2; done; return 1; }
    touch "$DIR/zk-ensemble.up"
}

leader() {
    local n id lead
    case $1 in
        etcd-cluster)
            for n in "${ETCD_MEMBERS[@]}"; do
                alive "$n" || continue
                read -r id lead < <(etcd_status "$n") || continue
                [ "$id" = "$lead" ] && { echo "$n"; return 0; }
            done
            ;;
        zk-ensemble)
            for n in "${ZK_SERVERS[@]}"; do
                alive "$n" && [ "$(zk_mode "$n")" = leader ] && { echo "$n"; return 0; }
            done
            ;;
        *) log "leader: etcd-cluster or zk-ensemble, not '$1'"; return 2 ;;
    esac
    log "$1: no leader now"
    return 1
}

start_postgres() {
    local port
    port=$(port_of postgres)
    if [ ! -s "$DIR/pg/PG_VERSION" ]; then
        mkdir -p "$DIR/pg" "$DIR/pgsock"
        [ "$(id -u)" = 0 ] && chown postgres "$DIR/pg" "$DIR/pgsock"
        as_postgres "$PGBIN/initdb" -D "$DIR/pg" -A trust -U postgres >"$DIR/pg-init.log" 2>&1
        # The user `tlsonly` may connect over TLS only, with a client certificate of the test CA.
        { printf 'hostnossl all tlsonly all reject\nhostssl all tlsonly all trust clientcert=verify-ca\n'
          cat "$DIR/pg/pg_hba.conf"; } >"$DIR/pg/hba.new"
        mv "$DIR/pg/hba.new" "$DIR/pg/pg_hba.conf"
        [ "$(id -u)" = 0 ] && chown postgres "$DIR/pg/pg_hba.conf"
    fi
    tls_files
    local t="$DIR/tls"
    [ "$(id -u)" = 0 ] && touch "$DIR/pg.log" && chown postgres "$DIR/pg.log"
    # After a SIGKILL, old backends may hold shared memory for a moment: retry the start.
    local tries=0
    until as_postgres "$PGBIN/pg_ctl" -D "$DIR/pg" -l "$DIR/pg.log" -w -t 30 \
        -o "-p $port -k $DIR/pgsock -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$t/server.pem -c ssl_key_file=$t/pg-server.key -c ssl_ca_file=$t/ca.pem" \
        start >/dev/null; do
        tries=$((tries + 1))
        [ $tries -lt 10 ] || { log "postgres did not start"; tail -20 "$DIR/pg.log" >&2; return 1; }
        sleep 1
    done
    head -1 "$DIR/pg/postmaster.pid" >"$DIR/postgres.pid"
    psql -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='idmint'" \
        | grep -q 1 || psql -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE idmint"
    psql -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname='tlsonly'" \
        | grep -q 1 || psql -h 127.0.0.1 -p "$port" -U postgres -qc \
        "CREATE ROLE tlsonly LOGIN; GRANT ALL ON DATABASE idmint TO tlsonly; ALTER DATABASE idmint OWNER TO tlsonly"
}

start_mysql() {
    local port t="$DIR/tls"
    tls_files
    port=$(port_of mysql)
    if [ ! -d "$DIR/mysql/mysql" ]; then
        mkdir -p "$DIR/mysql"
        mariadb-install-db --datadir="$DIR/mysql" --user="$(id -un)" --skip-test-db \
            --auth-root-authentication-method=socket >"$DIR/mysql-init.log" 2>&1
    fi
    mariadbd --no-defaults --datadir="$DIR/mysql" --port="$port" --socket="$DIR/mysql.sock" \
        --bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$DIR/mysql.pid" \
        --log-error="$DIR/mysql.log" --skip-name-resolve \
        --ssl-cert="$t/server.pem" --ssl-key="$t/server.key" --ssl-ca="$t/ca.pem" >/dev/null 2>&1 &
    wait_for 60 mariadb --socket="$DIR/mysql.sock" -u root -e "SELECT 1" \
        || { log "mariadb did not start"; tail -20 "$DIR/mysql.log" >&2; return 1; }
    mariadb --socket="$DIR/mysql.sock" -u root -e "
        CREATE DATABASE IF NOT EXISTS idmint;
        CREATE USER IF NOT EXISTS 'idmint'@'127.0.0.1' IDENTIFIED BY 'idmint';
        GRANT ALL ON idmint.* TO 'idmint'@'127.0.0.1';
        CREATE USER IF NOT EXISTS 'idmint_tls'@'127.0.0.1' IDENTIFIED BY 'idmint-tls-pw' REQUIRE X509;
        GRANT ALL ON idmint.* TO 'idmint_tls'@'127.0.0.1';"
    wait_for 5 test -s "$DIR/mysql.pid"
}

pid_of() { [ -s "$DIR/$1.pid" ] && cat "$DIR/$1.pid"; }

alive() { local p; p=$(pid_of "$1") && kill -0 "$p" 2>/dev/null; }

stop_one() {
    local name=$1 pid
    pid=$(pid_of "$name") || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        wait_for 30 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$DIR/$name.pid"
}

kill_one() {
    local name=$1 pid
    pid=$(pid_of "$name") || { log "$name is not running"; return 1; }
    kill -KILL "$pid"
    wait_for 30 bash -c "! kill -0 $pid"
    if [ "$name" = postgres ]; then
        # Backends exit on their own once the postmaster is gone; wait for the port to close.
        wait_for 30 bash -c "! (exec 3<>/dev/tcp/127.0.0.1/$(port_of postgres)) 2>/dev/null"
    fi
    rm -f "$DIR/$name.pid"
}

# members_url VAR SET SCHEME SUFFIX MEMBER...: `export VAR=SCHEME://h1,h2,…SUFFIX` for a running
# multi-member set (its SET.up marker exists), one loopback address per member.
members_url() {
    local var=$1 set=$2 scheme=$3 suffix=$4 n hosts=()
    shift 4
    [ -e "$DIR/$set.up" ] || return 0
    for n in "$@"; do hosts+=("127.0.0.1:$(port_of "$n")"); done
    echo "export $var=$scheme://$(IFS=,; echo "${hosts[*]}")$suffix"
}


env_lines() {
    [ -s "$DIR/redis.port" ] && alive redis &&
        echo "export IDMINT_TEST_REDIS_URL=redis://127.0.0.1:$(cat "$DIR/redis.port")"
    local extra
    for extra in redis2 redis3; do
        [ -s "$DIR/$extra.port" ] && alive "$extra" &&
            echo "export IDMINT_TEST_${extra^^}_URL=redis://127.0.0.1:$(cat "$DIR/$extra.port")"
    done
    [ -s "$DIR/postgres.port" ] && alive postgres &&
        echo "export IDMINT_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$(cat "$DIR/postgres.port")/idmint"
    [ -s "$DIR/mysql.port" ] && alive mysql &&
        echo "export IDMINT_TEST_MYSQL_URL=mysql://idmint:idmint@127.0.0.1:$(cat "$DIR/mysql.port")/idmint"
    # TLS: the servers' names as their certificate has them; the files (ca.pem, client.pem,
    # client.key, other-ca.pem) in IDMINT_TEST_TLS_DIR; the tests add the query options.
    [ -s "$DIR/redis-tls.port" ] && alive redis-tls &&
        echo "export IDMINT_TEST_REDIS_TLS_URL=rediss://localhost:$(cat "$DIR/redis-tls.port")"
    [ -s "$DIR/postgres.port" ] && alive postgres &&
        echo "export IDMINT_TEST_POSTGRES_TLS_URL=postgres://tlsonly:tlsonly-pw@localhost:$(cat "$DIR/postgres.port")/idmint"
    [ -s "$DIR/mysql.port" ] && alive mysql &&
        echo "export IDMINT_TEST_MYSQL_TLS_URL=mysql://idmint_tls:idmint-tls-pw@localhost:$(cat "$DIR/mysql.port")/idmint"
    [ -s "$DIR/etcd.port" ] && alive etcd &&
        echo "export IDMINT_TEST_ETCD_URL=etcd://127.0.0.1:$(cat "$DIR/etcd.port")"
    [ -s "$DIR/etcd-tls.port" ] && alive etcd-tls &&
        echo "export IDMINT_TEST_ETCD_TLS_URL=etcds://localhost:$(cat "$DIR/etcd-tls.port")"
    [ -s "$DIR/etcd-auth.port" ] && alive etcd-auth &&
        echo "export IDMINT_TEST_ETCD_AUTH_URL=etcd://127.0.0.1:$(cat "$DIR/etcd-auth.port")"
    [ -s "$DIR/zk.port" ] && alive zk &&
        echo "export IDMINT_TEST_ZK_URL=zk://127.0.0.1:$(cat "$DIR/zk.port")"
    [ -s "$DIR/tls/client.pem" ] && echo "export IDMINT_TEST_TLS_DIR=$DIR/tls"
    members_url IDMINT_TEST_ETCD_CLUSTER_URL etcd-cluster etcd "" "${ETCD_MEMBERS[@]}"
    members_url IDMINT_TEST_ZK_ENSEMBLE_URL zk-ensemble zk "" "${ZK_SERVERS[@]}"
    members_url IDMINT_TEST_REDIS_CLUSTER_URL redis-cluster redis+cluster "" "${CLUSTER_NODES[@]}"
    members_url IDMINT_TEST_REDIS_SENTINEL_URL redis-sentinel redis+sentinel /idmint "${SENTINELS[@]}"
    echo "export IDMINT_SERVERS_DIR=$DIR"
    return 0
}

cmd=${1:-}
shift || true
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(redis redis-tls postgres mysql etcd etcd-tls zk)
case "$cmd" in
    install) install ;;
    start)
        # The cluster and the sentinel set take seconds each to settle: started side by side,
        # with all their ports chosen first so the two never pick the same one.
        pending=()
        for n in "${names[@]}"; do
            if alive "$n"; then continue; fi
            log "starting $n"
            if [ -s "$DIR/$n.cmd" ] && [[ $n == zk* ]]; then
                restart_zk "$n"
            elif [ -s "$DIR/$n.cmd" ] && [[ $n == etcd* || $n == ec[0-9] ]]; then
                restart_etcd "$n"
            elif [ -s "$DIR/$n.cmd" ]; then
                restart_node "$n"
            elif [ "$n" = redis-cluster ] || [ "$n" = redis-sentinel ]; then
                for m in "${CLUSTER_NODES[@]}" rs-m rs-r "${SENTINELS[@]}"; do port_of "$m" >/dev/null; done
                "start_${n//-/_}" &
                pending+=($!)
            else
                "start_${n//-/_}"
            fi
        done
        for p in "${pending[@]}"; do wait "$p"; done
        env_lines
        ;;
    kill) for n in "${names[@]}"; do kill_one "$n"; done ;;
    stop)
        [ $# -eq 0 ] && names=(redis redis2 redis3 redis-tls postgres mysql etcd etcd-tls etcd-auth zk "${CLUSTER_NODES[@]}" rs-m rs-r "${SENTINELS[@]}" "${ETCD_MEMBERS[@]}" "${ZK_SERVERS[@]}")
        for n in "${names[@]}"; do stop_one "$n"; done
        ;;
    env) env_lines ;;
    leader) leader "${names[0]}" ;;
    *) echo "usage: $0 install|start|kill|stop|env|leader [redis|redis2|redis3|redis-tls|postgres|mysql|etcd|etcd-tls|etcd-auth|zk|redis-cluster|redis-sentinel|etcd-cluster|zk-ensemble|rc1..rc6|rs-m|rs-r|rs-s1..3|ec1..3|zk1..3 ...]" >&2; exit 2 ;;
esac

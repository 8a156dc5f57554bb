# Waiting for an `idmint serve` a test script started (tests/mixed.sh, tests/server/metrics.sh,
# tests/server/contract.sh, server/bench.sh). The script starts the server with both listeners on
# loopback port 0 (`listen = "127.0.0.1:0"`, `admin_listen = "127.0.0.1:0"`) and
# `--ready-file FILE`: the OS picks the ports and the server names them in FILE, read here. No
# port is picked by the script and released for another process to take. Source it; needs curl.
#
#   serve_ready PID FILE LOG [LIMIT]
#       Waits until the server PID has written its ready file FILE (checking all along that it
#       still runs), sets SERVE_PORT and SERVE_ADMIN_PORT from it, then waits until its
#       /readyz answers 200. LIMIT: seconds for the whole wait (default 180: generous, for a
#       loaded 2-core machine). On failure: a message and LOG (the server's output) on stderr,
#       status 1.

# serve_ready_port KEY FILE: the port of KEY's "HOST:PORT" in the ready file
# ({"admin_listen":"127.0.0.1:PORT","listen":"127.0.0.1:PORT","pid":N}).
serve_ready_port() {
    sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"[^\"]*:\([0-9][0-9]*\)\".*/\1/p" "$2"
}

# serve_waiting PID LOG DEADLINE GONE LATE: fails, printing the server's log, when the process
# exited (GONE says before what) or the deadline (in $SECONDS) passed (LATE says what is missing).
serve_waiting() {
    local pid=$1 log=$2 deadline=$3 gone=$4 late=$5
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "idmint serve (PID $pid) $gone; its log:" >&2
    elif [ "$SECONDS" -ge "$deadline" ]; then
        echo "idmint serve (PID $pid): $late; its log:" >&2
    else
        return 0
    fi
    cat "$log" >&2
    return 1
}

serve_ready() {
    local pid=$1 file=$2 log=$3 limit=${4:-180}
    local deadline=$((SECONDS + limit))
    SERVE_PORT=
    SERVE_ADMIN_PORT=
    # The file appears whole (the server renames it into place) once both listeners are bound.
    until [ -s "$file" ]; do
        serve_waiting "$pid" "$log" "$deadline" "exited before it was ready" \
            "wrote no ready file ($file) in $limit s" || return 1
        sleep 0.05
    done
    SERVE_PORT=$(serve_ready_port listen "$file")
    SERVE_ADMIN_PORT=$(serve_ready_port admin_listen "$file")
    if [ -z "$SERVE_PORT" ] || [ -z "$SERVE_ADMIN_PORT" ]; then
        echo "idmint serve's ready file $file names no ports: $(cat "$file")" >&2
        return 1
    fi
    # Ready once /readyz answers 200 (the server's own lease and tags are in).
    until curl -fs -o /dev/null --max-time 5 "http://127.0.0.1:$SERVE_ADMIN_PORT/readyz"; do
        serve_waiting "$pid" "$log" "$deadline" "exited before /readyz answered 200" \
            "/readyz not 200 in $limit s" || return 1
        sleep 0.1
    done
}

#!/usr/bin/env bash
# Contract test of `idmint serve`'s /v1 API: schemathesis generates requests from the server's
# own /openapi.json (valid ones and invalid ones) and checks that no answer is a 5xx and that
# every answer (its status, content type and body) is one the document lists.
#
#   tests/server/contract.sh [IDMINT_BIN]
#
#   IDMINT_BIN     the idmint binary (default target/ci/idmint); nothing is built here
#   IDMINT_PYTHON  python of a venv with schemathesis installed (default /tmp/stvenv/bin/python;
#                  python3 -m venv /tmp/stvenv && /tmp/stvenv/bin/pip install schemathesis)
#   CONTRACT_SEED  the generator's seed (default 20251125: a failure reproduces)
#   CONTRACT_MAX_TIME  schemathesis' time budget in seconds (default 45)
#
# The server runs in a temp directory (SQLite store there) on the loopback ports the OS picks
# (port 0; tests/serve_ready.sh reads them from the server's ready file), is stopped by its PID
# and never left running. Exit status: 0 when every check passed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/tests/serve_ready.sh"
bin=${1:-${IDMINT_BIN:-$root/target/ci/idmint}}
python=${IDMINT_PYTHON:-/tmp/stvenv/bin/python}
seed=${CONTRACT_SEED:-20251125}
max_time=${CONTRACT_MAX_TIME:-45}

[ -x "$bin" ] || { echo "contract.sh: no idmint binary at $bin (build it: cargo build -p idmint-cli --profile ci)" >&2; exit 2; }
"$python" -c 'import schemathesis' 2>/dev/null || {
    echo "contract.sh: $python has no schemathesis (python3 -m venv /tmp/stvenv && /tmp/stvenv/bin/pip install schemathesis)" >&2
    exit 2
}
st=$(dirname "$python")/schemathesis
[ -x "$st" ] || { echo "contract.sh: no schemathesis next to $python" >&2; exit 2; }
command -v curl >/dev/null || { echo "contract.sh: curl missing" >&2; exit 2; }

started=$(date +%s)
dir=$(mktemp -d "${TMPDIR:-/tmp}/idmint-contract.XXXXXX")
pid=
stop() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    pid=
}
cleanup() {
    stop
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$dir/config.toml" <<EOF
listen = "127.0.0.1:0"
admin_listen = "127.0.0.1:0"
store = "sqlite:$dir/idmint.db"

[orders.so]
template = "SO%8S"
EOF

(cd "$dir" && exec env -u IDMINT_STORE -u IDMINT_LISTEN -u IDMINT_ADMIN_LISTEN -u IDMINT_LAYOUT \
    -u IDMINT_LOG_FORMAT -u IDMINT_CONFIG "$bin" serve --config config.toml --ready-file ready.json) \
    >"$dir/log.txt" 2>&1 </dev/null &
pid=$!

serve_ready "$pid" "$dir/ready.json" "$dir/log.txt" || { echo "contract.sh: idmint serve did not become ready" >&2; exit 1; }
port=$SERVE_PORT

status=0
(cd "$dir" && "$st" run "http://127.0.0.1:$port/openapi.json" \
    --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
    --max-examples 40 \
    --max-time "$max_time" \
    --seed "$seed" \
    --request-timeout 10 \
    --generation-database none \
    --workers 2 \
    --no-color) || status=$?

if ! kill -0 "$pid" 2>/dev/null; then
    echo "contract.sh: idmint serve died during the run; its log:" >&2
    cat "$dir/log.txt" >&2
    status=1
fi
stop
if [ "$status" -ne 0 ]; then
    echo "contract.sh: schemathesis failed (seed $seed); server log tail:" >&2
    tail -n 40 "$dir/log.txt" >&2
fi
echo "contract.sh: $(( $(date +%s) - started )) s, exit $status"
exit "$status"

#!/usr/bin/env bash
# The full restart loops of issue 38 ("no segment waste on restart"), longer than CI runs them:
# 1,000 graceful restarts of a segment client per store (core/tests/segment_give_back.rs; CI
# runs 1,000 on SQLite and 200 on the network stores) and 1,000 SIGTERM restarts of
# `idmint serve` on one SQLite file (cli/tests/serve_give_back.rs; CI runs 100). Prints the IDs
# used, handed out and the gap of each. The network stores need the test servers
# (tests/servers.sh, as tests/run.sh starts them) and their IDMINT_TEST_*_URL variables.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh
zig_env
PROFILE=${IDMINT_CARGO_PROFILE:-ci}
export IDMINT_GIVE_BACK_RESTARTS=${IDMINT_GIVE_BACK_RESTARTS:-1000}
export IDMINT_GIVE_BACK_SERVER_RESTARTS=${IDMINT_GIVE_BACK_SERVER_RESTARTS:-1000}
cargo test --workspace --profile "$PROFILE" --test segment_give_back --test serve_give_back \
    -- --nocapture --test-threads 1 2>&1 | grep -E "^give-back|test result|panicked|FAILED"

#!/usr/bin/env bash
# cargo-semver-checks for idmint-core (docs/semver.md): its public API against a baseline, failing
# on a change semver calls breaking that the version does not announce.
#
#   tests/semver.sh                 against idmint-core's last release on crates.io (release.yml's
#                                   `version` job); with none yet, it says so and passes: there is
#                                   nothing to break
#   tests/semver.sh --baseline-rev REV   against the tree of a git revision instead
#   tests/semver.sh --self-test     a public function made private in a copy of HEAD is reported
#
# cargo-semver-checks is pinned (tests/lib.sh cargo_tool), installed once per machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh
CARGO_SEMVER_CHECKS=0.51.0

semver_checks() {
    cargo_tool cargo-semver-checks "$CARGO_SEMVER_CHECKS"
    "$(cargo_tool_bin cargo-semver-checks "$CARGO_SEMVER_CHECKS")" semver-checks \
        --package idmint-core --color never "$@"
}

# last_release: idmint-core's newest version on crates.io (its sparse index), or nothing.
last_release() {
    local code body
    body=$(mktemp)
    code=$(curl -sS -m 60 -o "$body" -w '%{http_code}' https://index.crates.io/id/mi/idmint-core) ||
        die "crates.io's index cannot be reached: no baseline to compare idmint-core with"
    case $code in
        404) ;;
        200) python3 -c 'import json, sys
vs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
vs = [v["vers"] for v in vs if not v.get("yanked")]
print(vs[-1] if vs else "")' "$body" ;;
        *) die "crates.io's index answered $code for idmint-core" ;;
    esac
    rm -f "$body"
}

self_test() {
    local tmp
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064
    trap "git worktree remove --force '$tmp/base' 2>/dev/null; rm -rf '$tmp'" EXIT
    git worktree add --quiet --detach "$tmp/base" HEAD
    # A public function made crate-private in the tree under test (it still compiles: its callers
    # are inside the crate): for a user of the crate it is gone.
    grep -q '^pub fn decimal_u64' "$tmp/base/core/src/args.rs" ||
        die "self-test: core/src/args.rs has no pub fn decimal_u64 to hide"
    sed -i 's/^pub fn decimal_u64/pub(crate) fn decimal_u64/' "$tmp/base/core/src/args.rs"
    if (cd "$tmp/base" && semver_checks --baseline-rev HEAD >"$tmp/log" 2>&1); then
        cat "$tmp/log" >&2
        die "self-test: cargo-semver-checks passed a removed public function"
    fi
    grep -q 'decimal_u64' "$tmp/log" || { cat "$tmp/log" >&2; die "self-test: the report does not name decimal_u64"; }
    grep -E 'FAIL|decimal_u64|Summary' "$tmp/log" | head -5
    echo "semver.sh self-test: a public function made private (args::decimal_u64) is reported as breaking"
}

case "${1:-}" in
    --self-test) self_test ;;
    --baseline-rev) semver_checks --baseline-rev "$2" ;;
    "")
        last=$(last_release)
        if [ -z "$last" ]; then
            echo "idmint-core has no release on crates.io yet: nothing to compare its API with"
            exit 0
        fi
        step "cargo semver-checks: idmint-core against $last (crates.io)"
        semver_checks --baseline-version "$last"
        ;;
    *) die "usage: tests/semver.sh [--baseline-rev REV | --self-test]" ;;
esac

#!/usr/bin/env bash
# The dependency policy (deny.toml) over the workspace and the extension's workspace (pg/),
# with cargo-deny at the version tests/lib.sh pins (installed there once per machine):
#   licenses  permissive only (MPL-2.0 for uniffi's crates by name);
#   bans      two majors of one crate reported (a warning), wildcard versions refused;
#   sources   crates.io only;
#   advisories  the RustSec database: checked, and failing on an advisory, whenever a copy is
#             on the machine ($CARGO_HOME/advisory-dbs) or `cargo deny fetch` can get one. This
#             machine cannot reach GitHub, so here the step says it did not run; the forge's CI
#             (.github/workflows/ci.yml) fetches it, so there it fails closed.
# Then what the packages users install bring besides the Rust crates: the npm packages'
# runtime dependencies are only idmint's own packages (so an npm audit of them has nothing to
# check; this machine's registry mirror refuses the audit endpoint: 405), and the Maven
# artifact's only runtime dependency is JNA (OWASP dependency-check needs the NVD feed, which
# is not reachable offline: not run). `npm audit signatures` checks the registry signatures of
# the npm tools node/ and web/ install, where the registry answers.
#
#   tests/deny.sh              the checks
#   tests/deny.sh --self-test  planted faults fail them: a license not allowed, a registry not
#                              allowed, an npm runtime dependency
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh

deny() { "$CARGO_DENY_BIN" --offline --color never "$@"; }

advisories_available() {
    local db=${CARGO_HOME:-$HOME/.cargo}/advisory-dbs
    compgen -G "$db/*/crates" >/dev/null && return 0
    # Bounded: a machine without GitHub fails this within its DNS timeout.
    timeout 120 "$CARGO_DENY_BIN" --color never fetch db >/dev/null 2>&1
}

npm_runtime_deps() {
    python3 - "$@" <<'PY'
import json, sys
bad = []
for path in sys.argv[1:]:
    d = json.load(open(path))
    for key in ("dependencies", "peerDependencies", "optionalDependencies"):
        for name in d.get(key) or {}:
            if name != "idmint" and not name.startswith("idmint-"):
                bad.append(f"{path}: {key} {name}: a third-party runtime dependency (audit it, and allow it here)")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

NPM_PACKAGES=(node/package.json node/stores/package.json web/package.json node/npm/*/package.json)

check() {
    local checks=(licenses bans sources) manifest
    if advisories_available; then
        checks+=(advisories)
    else
        echo "advisories: NOT checked here: no copy of the RustSec advisory database and it cannot be fetched (the forge's CI fetches it and fails on an advisory)"
    fi
    for manifest in Cargo.toml pg/Cargo.toml; do
        echo "cargo deny check ${checks[*]} ($manifest)"
        # Errors only (the duplicates are warnings by the policy): the pass or fail.
        deny --manifest-path "$manifest" --log-level error check --hide-inclusion-graph "${checks[@]}"
        # The duplicates, reported in one line.
        deny --manifest-path "$manifest" --format json check bans 2>&1 | python3 -c '
import json, sys
dups = {}
for line in sys.stdin:
    try:
        d = json.loads(line)
    except ValueError:
        continue
    f = d.get("fields", {})
    if f.get("code") == "duplicate":
        for g in f.get("graphs", []):
            k = g.get("Krate", {})
            dups.setdefault(k.get("name"), set()).add(k.get("version"))
listed = ", ".join(n + " " + "/".join(sorted(v)) for n, v in sorted(dups.items()))
print(f"  reported: {len(dups)} crates in more than one version: {listed}")'
    done
    npm_runtime_deps "${NPM_PACKAGES[@]}"
    echo "npm: the packages' runtime dependencies are idmint's own"
    npm_signatures node web
}

# npm_signatures DIR...: `npm audit signatures` over what each DIR's lockfile installed (the
# build and test tools: napi-rs's CLI, binaryen, playwright-core, ...), where that is installed
# and the registry's signing keys can be reached: a bad or missing signature fails; a registry
# that does not answer (this machine's mirror: the request hangs) is said, not failed.
npm_signatures() {
    local dir out rc
    for dir in "$@"; do
        if ! [ -d "$dir/node_modules" ]; then
            echo "npm audit signatures ($dir): not run, nothing installed (its section's npm ci installs it)"
            continue
        fi
        rc=0
        out=$(cd "$dir" && timeout 90 npm audit signatures --fetch-retries=0 --fetch-timeout=15000 2>&1) || rc=$?
        if [ $rc = 0 ]; then
            echo "npm audit signatures ($dir): $(grep -m1 -i 'verified' <<<"$out")"
        elif [ $rc = 124 ] || grep -qiE 'npm error network|E(AI_AGAIN|NOTFOUND|TIMEDOUT|CONNREFUSED|CONNRESET)|code E40[0-9]' <<<"$out"; then
            echo "npm audit signatures ($dir): NOT checked here: the registry's keys cannot be reached (rc $rc)"
        else
            echo "$out" >&2
            die "npm audit signatures ($dir): a package's registry signature is missing or invalid"
        fi
    done
}

self_test() {
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    # A policy without MIT: the licenses check must fail.
    sed 's/^    "MIT",$//' deny.toml >"$tmp/no-mit.toml"
    if deny --config "$tmp/no-mit.toml" check licenses >"$tmp/log" 2>&1; then
        echo "self-test: a policy without MIT passed" >&2
        return 1
    fi
    grep -q 'license = "MIT' "$tmp/log"
    # No registry allowed: crates.io's crates must be refused.
    sed 's|^allow-registry = .*|allow-registry = []|' deny.toml >"$tmp/no-registry.toml"
    if deny --config "$tmp/no-registry.toml" check sources >"$tmp/log" 2>&1; then
        echo "self-test: a policy without crates.io passed" >&2
        return 1
    fi
    grep -q 'source-not-allowed' "$tmp/log"
    # A package.json with a third-party runtime dependency.
    python3 -c 'import json,sys; d=json.load(open("node/package.json")); d["dependencies"]={"left-pad":"1.3.0"}; json.dump(d,open(sys.argv[1],"w"))' "$tmp/package.json"
    if npm_runtime_deps "$tmp/package.json" 2>"$tmp/log"; then
        echo "self-test: an npm runtime dependency passed" >&2
        return 1
    fi
    grep -q 'left-pad' "$tmp/log"
    echo "deny.sh self-test: a license, a registry and an npm dependency outside the policy are refused"
}

case "${1:-}" in
    --self-test) self_test ;;
    "") check ;;
    *) echo "usage: tests/deny.sh [--self-test]" >&2; exit 2 ;;
esac

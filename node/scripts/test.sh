#!/usr/bin/env bash
# Tests of the npm package `idmint` (this folder), the whole flow in one command; tests/run.sh
# (section node) calls it, and `npm test` does.
#
#   1. npm ci when package-lock.json changed (devDependencies: bson for the interop tests, the
#      bench's peers);
#   2. scripts/build.js: copies the shared API in (js/facade.js, js/facade.d.ts) and builds the
#      addon (cargo, profile $IDMINT_CARGO_PROFILE, default release; a no-op when up to date);
#   3. scripts/build.js again, without the crate's default features: the slim addon that the
#      published `idmint` carries (no stores), as idmint.<key>.slim.node, for test/slim.test.mjs.
#      It compiles the core and the crates whose features differ once more (about 1-2 minutes on
#      2 cores the first time, incremental after): the one way to see the stand-ins refuse in a
#      build that lacks the stores, as users of the slim package will;
#   4. node --test: the shared suite (js/test, the same cases idmint-web runs) and this
#      package's own tests (test/: bson, shared daily counters, resumeAfter, worker threads, the
#      slim addon, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
source ../tests/lib.sh
# Without install scripts: the dev dependencies need none (the addon is the next step).
npm_ci . --ignore-scripts
echo "==> build the native addon (node/scripts/build.js)"
node scripts/build.js
echo "==> build the slim addon (idmint's own as published: cargo --no-default-features)"
node scripts/build.js --no-default-features --out "idmint.$(node -p "require('./platform.js').platformKey()").slim.node"
echo "==> node --test (js/test: the shared suite; node/test: native-only tests)"
node --test ../js/test/ test/

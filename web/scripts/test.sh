#!/usr/bin/env bash
# Tests of the npm package `idmint-web` (this folder), the whole flow in one command; tests/run.sh
# (section web) calls it, and `npm test` does. It installs what a bare machine lacks, each only
# when missing: the wasm32 target, wasm-bindgen-cli at the exact version the workspace pins the
# `wasm-bindgen` crate to, Debian's chromium (driven by playwright-core, a devDependency), npm
# deps. Then it builds pkg/ (in the cargo target dir) with build.mjs, runs the shared suite
# (js/test, the same cases the Node package runs) and web/test against idmint-web in Node, then
# both in headless Chromium, and drives the demo page (screenshot web/test/out/demo.png).
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
wb=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' ../Cargo.toml)
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "==> rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $wb" ]; then
    echo "==> cargo install wasm-bindgen-cli $wb"
    cargo install wasm-bindgen-cli --version "$wb" --force
fi
if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
    echo "==> apt-get install chromium"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
    echo "==> npm ci (web/)"
    npm ci --no-audit --no-fund
fi
echo "==> build web/pkg (cargo, wasm-bindgen --target web, wasm-opt)"
node build.mjs
echo "==> node --test: the shared suite and the web cases against idmint-web, in Node"
IDMINT_TARGET=web node --test ../js/test/*.test.mjs test/*.test.mjs
echo "==> headless Chromium: the same suite, then the demo (screenshot web/test/out/demo.png)"
node test/run-browser.mjs

#!/usr/bin/env bash
# Tests of the npm package `idmint-web` (this folder), the whole flow in one command; tests/run.sh
# (section web) calls it, and `npm test` does.
#
#   web/scripts/test.sh           all of the below
#   web/scripts/test.sh install   what a bare machine lacks, each only when missing: the wasm32
#                                 target, wasm-bindgen-cli at the exact version the workspace pins
#                                 the `wasm-bindgen` crate to, Debian's chromium (driven by
#                                 playwright-core, a devDependency), npm deps (npm ci when
#                                 package-lock.json changed)
#   web/scripts/test.sh node      build pkg/ (build.mjs: copies js/facade.* in; cargo, wasm-bindgen,
#                                 wasm-opt), then the shared suite (js/test, the cases the Node
#                                 package runs) and test/ against idmint-web in Node
#   web/scripts/test.sh browser   the same suite in headless Chromium, then the demo page
#                                 (screenshot web/test/out/demo.png)
set -euo pipefail
cd "$(dirname "$0")/.."

install() {
    local sudo="" wb stamp=node_modules/.package-lock.json
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
    if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
        echo "==> apt-get install chromium"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
    fi
    if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
        echo "==> npm ci (web/)"
        npm ci --no-audit --no-fund
    fi
}

in_node() {
    echo "==> build web/pkg (copy js/facade.*; cargo, wasm-bindgen --target web, wasm-opt)"
    node build.mjs
    echo "==> node --test: the shared suite and the web cases against idmint-web, in Node"
    IDMINT_TARGET=web node --test ../js/test/*.test.mjs test/*.test.mjs
}

in_browser() {
    echo "==> headless Chromium: the same suite, then the demo (screenshot web/test/out/demo.png)"
    node test/run-browser.mjs
}

case "${1:-all}" in
    all) install; in_node; in_browser ;;
    install) install ;;
    node) in_node ;;
    browser) in_browser ;;
    *) echo "usage: web/scripts/test.sh [all|install|node|browser]" >&2; exit 2 ;;
esac

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
#                                 (screenshot web/test/out/demo.png), then pages against a real
#                                 `idmint serve` (test/remote-check.mjs: leases and segment IDs
#                                 over fetch; needs the idmint binary, IDMINT_BIN or
#                                 target/ci/idmint, which tests/run.sh's web section builds)
set -euo pipefail
cd "$(dirname "$0")/.."
source ../tests/lib.sh

# The installs tests/run.sh also uses (tests/lib.sh), each only when missing.
install() {
    rustup_parts wasm
    wasm_bindgen_cli
    [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || apt_install chromium
    npm_ci .
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
    echo "==> headless Chromium against idmint serve: leases and segment IDs over fetch"
    node test/remote-check.mjs
}

case "${1:-all}" in
    all) install; in_node; in_browser ;;
    install) install ;;
    node) in_node ;;
    browser) in_browser ;;
    *) echo "usage: web/scripts/test.sh [all|install|node|browser]" >&2; exit 2 ;;
esac

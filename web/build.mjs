// Copies the shared API in (js/facade.js, js/segment.js, js/facade.d.ts), then builds pkg/: the two wasm modules,
// bindings/wasm (the main one: snowflakes, ObjectIds, parse) and bindings/wasm-extras (the display
// IDs, loaded on demand), each with cargo (profile wasm-release, on nightly: see `nightly` below),
// its JS glue (wasm-bindgen --target web), then wasm-opt -O3 (npm `binaryen`) when it is
// installed. Writes each module's size, gzipped and by part (scripts/size-parts.mjs), to
// pkg/size.json and prints it; test/modules.test.mjs holds the main module to its limit.
// Needs the nightly toolchain with its rust-src and wasm32-unknown-unknown target, and
// wasm-bindgen-cli at the version pinned in the workspace Cargo.toml; tests/run.sh (section web)
// installs them (tests/lib.sh, rustup_parts wasm).
//
//   node build.mjs [--no-opt]

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { sizeParts } from './scripts/size-parts.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const pkg = join(here, 'pkg');
const noOpt = process.argv.includes('--no-opt');

function run(cmd, args, opts = {}) {
    console.log(`$ ${cmd} ${args.join(' ')}`);
    execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
}

const pinned = readFileSync(join(root, 'Cargo.toml'), 'utf8').match(/^wasm-bindgen = "=([^"]+)"/m)?.[1];
if (!pinned) throw new Error('wasm-bindgen is not pinned with `=X.Y.Z` in the workspace Cargo.toml');
let cli = '';
try {
    cli = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim();
} catch {
    // reported below
}
if (cli !== `wasm-bindgen ${pinned}`) {
    throw new Error(`need wasm-bindgen-cli ${pinned} (found: ${cli || 'none'}): cargo install wasm-bindgen-cli --version ${pinned}`);
}

// The shared API (js/facade.js and js/segment.js, the one source of both packages' API) and its types, copied in
// next to index.js, only when a copy differs.
for (const name of ['facade.js', 'facade.d.ts', 'segment.js']) {
    const text = readFileSync(join(root, 'js', name), 'utf8');
    const file = join(here, name);
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
}

const targetDir = process.env.CARGO_TARGET_DIR || join(root, 'target');
rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg, { recursive: true });
const wasmOpt = join(here, 'node_modules', '.bin', 'wasm-opt');
const optimize = !noOpt && existsSync(wasmOpt);
if (!noOpt && !optimize) console.log('(wasm-opt not installed: `npm install` in web/ adds it; building without it)');
// The features rustc's wasm32 target enables by default, so wasm-opt keeps them. -O3, not -Oz:
// -Oz came out no smaller (web/README.md, "Size"); --converge (repeat until nothing changes) saves
// a few hundred bytes.
const optFlags = ['-O3', '--converge', '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext',
    '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue'];

// Nightly, for three things stable cannot do, worth 6.5 KiB gzipped of the main module together
// (web/README.md, "Size"): the standard library rebuilt with the module (-Z build-std), so LTO
// drops what is unused; a panic as a bare trap (-C panic=immediate-abort: a page never sees a
// panic's message anyway, std has nowhere to print it on wasm32-unknown-unknown), which removes
// the panic-message code and texts; and `--cfg idmint_optimize_size`, which compiles
// idmint-core's once-per-generator parsing and checks for size (`#[optimize(size)]`) while its
// hot paths stay at opt-level 3. Its own target directory, so the stable builds in target/ are
// not rebuilt after it.
const webTarget = join(targetDir, 'web');
const nightly = {
    toolchain: '+nightly',
    args: ['-Z', 'build-std=std,panic_abort'],
    env: {
        ...process.env,
        CARGO_TARGET_DIR: webTarget,
        RUSTFLAGS: '-Z unstable-options -C panic=immediate-abort --cfg idmint_optimize_size',
    },
};
const report = { wasm_bindgen: pinned, wasm_opt: optimize, rustc: execFileSync('rustc', [nightly.toolchain, '-V'], { encoding: 'utf8' }).trim() };
for (const [crate, name] of [['idmint-wasm', 'idmint_wasm'], ['idmint-wasm-extras', 'idmint_wasm_extras']]) {
    run('cargo', [nightly.toolchain, 'build', '-p', crate, '--target', 'wasm32-unknown-unknown', '--profile', 'wasm-release', ...nightly.args], { env: nightly.env });
    const built = join(webTarget, 'wasm32-unknown-unknown', 'wasm-release', `${name}.wasm`);
    run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', pkg, built]);
    const wasmFile = join(pkg, `${name}_bg.wasm`);
    // The parts are read from a copy optimized the same way that keeps the function names.
    const named = join(targetDir, `${name}.named.wasm`);
    if (optimize) {
        run(wasmOpt, [...optFlags, '-g', wasmFile, '-o', named]);
        run(wasmOpt, [...optFlags, '--strip-debug', '--strip-producers', wasmFile, '-o', wasmFile]);
    } else {
        writeFileSync(named, readFileSync(wasmFile));
    }
    const bytes = readFileSync(wasmFile);
    report[name] = {
        wasm_bytes: statSync(wasmFile).size,
        wasm_gzip_bytes: gzipSync(bytes, { level: 9 }).length,
        parts: Object.fromEntries(sizeParts(readFileSync(named)).parts),
    };
}
writeFileSync(join(pkg, 'size.json'), JSON.stringify(report, null, 2) + '\n');
for (const [name, what] of [['idmint_wasm', 'main module'], ['idmint_wasm_extras', 'display IDs, on demand']]) {
    const r = report[name];
    console.log(`\npkg/${name}_bg.wasm (${what}): ${r.wasm_bytes} bytes, ${r.wasm_gzip_bytes} gzipped (${(r.wasm_gzip_bytes / 1024).toFixed(1)} KiB)`);
    console.log('  bytes by part, after wasm-opt, before gzip:');
    for (const [part, n] of Object.entries(r.parts)) console.log(`  ${String(n).padStart(8)}  ${part}`);
}

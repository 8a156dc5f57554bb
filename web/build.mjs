// Copies the shared API in (js/facade.js, js/facade.d.ts), then builds pkg/: the wasm of
// bindings/wasm (cargo, profile wasm-release), its JS glue (wasm-bindgen --target web), then
// wasm-opt -O3 (npm `binaryen`) when it is installed.
// Needs the wasm32-unknown-unknown target and wasm-bindgen-cli at the version pinned in the
// workspace Cargo.toml; tests/run.sh (section web) installs both.
//
//   node build.mjs [--no-opt]

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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

// The shared API (js/facade.js, the one source of both packages' API) and its types, copied in
// next to index.js, only when a copy differs.
for (const name of ['facade.js', 'facade.d.ts']) {
    const text = readFileSync(join(root, 'js', name), 'utf8');
    const file = join(here, name);
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
}

run('cargo', ['build', '-p', 'idmint-wasm', '--target', 'wasm32-unknown-unknown', '--profile', 'wasm-release']);
const targetDir = process.env.CARGO_TARGET_DIR || join(root, 'target');
const built = join(targetDir, 'wasm32-unknown-unknown', 'wasm-release', 'idmint_wasm.wasm');

rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg, { recursive: true });
run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', pkg, built]);

const wasmFile = join(pkg, 'idmint_wasm_bg.wasm');
const wasmOpt = join(here, 'node_modules', '.bin', 'wasm-opt');
if (!noOpt && existsSync(wasmOpt)) {
    // The features rustc's wasm32 target enables by default, so wasm-opt keeps them.
    run(wasmOpt, ['-O3', '--strip-debug', '--strip-producers',
        '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext',
        '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue',
        wasmFile, '-o', wasmFile]);
} else if (!noOpt) {
    console.log('(wasm-opt not installed: `npm install` in web/ adds it; building without it)');
}

const bytes = readFileSync(wasmFile);
const gz = gzipSync(bytes, { level: 9 }).length;
const report = { wasm_bytes: statSync(wasmFile).size, wasm_gzip_bytes: gz, wasm_bindgen: pinned, wasm_opt: !noOpt && existsSync(wasmOpt) };
writeFileSync(join(pkg, 'size.json'), JSON.stringify(report, null, 2) + '\n');
console.log(`pkg/idmint_wasm_bg.wasm: ${report.wasm_bytes} bytes, ${(gz / 1024).toFixed(1)} KiB gzipped (goal <= 40 KiB)`);

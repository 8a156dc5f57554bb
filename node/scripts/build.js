#!/usr/bin/env node
'use strict';
// Builds the native addon (crate `idmint-node` in ../bindings/node) with cargo and copies it
// next to index.js as `idmint.<platform>-<arch>.node`, the file index.js loads; before that it
// copies the shared API in (js/facade.js as facade.cjs, js/segment.js as segment.cjs, js/facade.d.ts). The published packages are
// made by tests/packages.sh: `idmint` (JS only) and `idmint-linux-x64-gnu` (this addon).
//
//   node scripts/build.js               build (incremental; a no-op copy when nothing changed)
//   node scripts/build.js --if-missing  only when the .node file is not there
//   node scripts/build.js --js-only     only the copies of the shared API (npm pack's prepack)
//   node scripts/build.js --debug       a debug build
//   node scripts/build.js --target T    a cross build for the Rust target T (the release build's
//                                       aarch64-unknown-linux-gnu), written as idmint.<key>.node
//                                       for T's platform key (linux-arm64-gnu)
//   node scripts/build.js --no-default-features [--features stores]
//                                       the release's builds (docs/packages.md): the slim addon of
//                                       `idmint`, and the add-on `idmint-stores`'s; without them,
//                                       the crate's default (stores, and the workspace's shared
//                                       core), which the dev checkout's tests run on
//   node scripts/build.js --out FILE    write the addon to FILE instead of next to index.js (the
//                                       release's and the slim test's builds, which must not
//                                       replace the dev checkout's full one)
//
// IDMINT_CARGO_PROFILE picks the cargo profile (default `release`); tests/run.sh sets `ci`, the
// workspace's optimized profile without LTO, so every section shares one build.
//
// Needs a Rust toolchain (cargo) and the idmint repository around this package.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const pkgDir = path.resolve(__dirname, '..');
const repoRoot = path.resolve(pkgDir, '..');
const args = process.argv.slice(2);
// The Rust targets a release builds the addon for, by napi-rs's platform key.
const TARGETS = {
  'x86_64-unknown-linux-gnu': 'linux-x64-gnu',
  'aarch64-unknown-linux-gnu': 'linux-arm64-gnu',
  'x86_64-unknown-linux-musl': 'linux-x64-musl',
  'aarch64-unknown-linux-musl': 'linux-arm64-musl',
  'x86_64-pc-windows-gnu': 'win32-x64-gnu',
  'x86_64-apple-darwin': 'darwin-x64',
  'aarch64-apple-darwin': 'darwin-arm64',
};
const valueOf = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const target = valueOf('--target');
if (target !== undefined && !(target in TARGETS)) {
  console.error(`idmint: --target ${target}: the addon is cross-built for ${Object.keys(TARGETS).join(', ')}`);
  process.exit(2);
}
// Named as napi-rs names a platform (index.js looks for it first, then the prebuilt package).
const platform = require('../platform.js');
const out = valueOf('--out')
  ? path.resolve(valueOf('--out'))
  : path.join(pkgDir, platform.localAddonFile(target ? TARGETS[target] : platform.platformKey()));
// The crate's features as cargo takes them.
const features = [];
if (args.includes('--no-default-features')) features.push('--no-default-features');
if (valueOf('--features') !== undefined) features.push('--features', valueOf('--features'));

// The shared API (js/facade.js, an ES module, the one source of both packages' API) as the
// CommonJS file index.js requires, and its types, copied in only when a copy differs. Outside
// the repository (a packed package) the copies are already here.
const shared = path.join(repoRoot, 'js');
if (fs.existsSync(path.join(shared, 'facade.js'))) {
  const copies = [['facade.d.ts', fs.readFileSync(path.join(shared, 'facade.d.ts'), 'utf8')]];
  // Each shared ES module ends with its only export, which becomes `module.exports`.
  for (const [file, name] of [['facade', 'createIdmint'], ['segment', 'segmentApi']]) {
    const esm = fs.readFileSync(path.join(shared, `${file}.js`), 'utf8');
    const tail = `export { ${name} };`;
    if (!esm.trimEnd().endsWith(tail)) {
      console.error(`idmint: js/${file}.js must end with \`${tail}\` (its only export)`);
      process.exit(1);
    }
    const header = `'use strict';\n// Copied from js/${file}.js by scripts/build.js: edit that file.\n`;
    copies.push([`${file}.cjs`, header + esm.trimEnd().slice(0, -tail.length) + `module.exports = { ${name} };\n`]);
  }
  for (const [name, text] of copies) {
    const file = path.join(pkgDir, name);
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
  }
}

if (args.includes('--js-only') || (args.includes('--if-missing') && fs.existsSync(out))) process.exit(0);

if (!fs.existsSync(path.join(repoRoot, 'bindings', 'node', 'Cargo.toml'))) {
  console.error(
    `idmint: no prebuilt addon at ${out} and no idmint source tree at ${repoRoot} to build one from.`
  );
  process.exit(1);
}

const profile = args.includes('--debug') ? 'dev' : process.env.IDMINT_CARGO_PROFILE || 'release';
// `cargo rustc --crate-type cdylib`, not `cargo build`: the crate is also an rlib (its doc tests),
// and a library built as both keeps every symbol of its dependencies visible to the rlib, so
// fat LTO cannot fold what is never set (tracing's and log's levels): the stores addon was
// 12.71 MB stripped built as both, 10.67 MB as the cdylib alone (measured 2026-11-29).
const cargoArgs = ['rustc', '-p', 'idmint-node', '--lib', '--crate-type', 'cdylib', '--message-format=json-render-diagnostics'];
cargoArgs.push('--profile', profile);
if (target) cargoArgs.push('--target', target);
cargoArgs.push(...features);
const r = spawnSync(process.env.CARGO || 'cargo', cargoArgs, {
  cwd: repoRoot,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
});
if (r.error) {
  console.error(`idmint: could not run cargo (${r.error.message}); install Rust from https://rustup.rs`);
  process.exit(1);
}
if (r.status !== 0) {
  console.error(`idmint: cargo rustc failed (exit ${r.status})`);
  process.exit(r.status || 1);
}

let artifact;
for (const line of r.stdout.split('\n')) {
  if (!line.startsWith('{')) continue;
  const msg = JSON.parse(line);
  if (msg.reason === 'compiler-artifact' && msg.target && msg.target.name === 'idmint_node') {
    artifact = msg.filenames.find((f) => /\.(so|dylib|dll)$/.test(f)) || artifact;
  }
}
if (!artifact) {
  console.error('idmint: cargo did not report the idmint_node library');
  process.exit(1);
}

const same =
  fs.existsSync(out) && Buffer.compare(fs.readFileSync(out), fs.readFileSync(artifact)) === 0;
if (!same) {
  // Copy then rename, so a process that has the old file loaded keeps a consistent image.
  const tmp = `${out}.${process.pid}.tmp`;
  fs.copyFileSync(artifact, tmp);
  fs.renameSync(tmp, out);
}
console.error(`idmint: ${path.relative(process.cwd(), out) || out} ${same ? 'up to date' : 'built'}`);

// idmint installed without its platform package (npm install --omit=optional), idmint on a
// platform with no prebuilt package, and idmint on the other C library (node_modules copied from
// a glibc machine to a musl one): each fails at require() with an error naming the platform
// detected and the platform packages idmint carries.
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');

function requireError(setup) {
  try {
    execFileSync(process.execPath, ['-e', `${setup}; require('idmint')`], { stdio: 'pipe', encoding: 'utf8' });
  } catch (e) {
    return e.stderr;
  }
  assert.fail(`require('idmint') loaded after: ${setup || 'nothing'}`);
}
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// The platform packages the installed idmint was published with (tests/packages.sh adds them).
const carried = Object.keys(require('idmint/package.json').optionalDependencies).join(', ');
assert.match(carried, /idmint-linux-x64-gnu/);
assert.match(carried, /idmint-linux-x64-musl/);

const glibc = require('node:fs').existsSync('node_modules/idmint-linux-x64-gnu');
if (!glibc) {
  const omitted = requireError('');
  assert.match(omitted, new RegExp(esc(`no native addon for linux-x64-gnu: npm did not install the optional dependency idmint-linux-x64-gnu`)));
  assert.match(omitted, new RegExp(esc(`prebuilt platforms: ${carried})`)));
  console.log('without the platform package: ' + omitted.match(/idmint: no native addon[^\n]*/)[0]);
} else {
  // The glibc package is installed; the process pretends to be on musl: its mappings name musl's
  // loader (what platform.js reads first), and its report no glibc (what it reads without /proc).
  const musl = requireError(
    "const fs = require('node:fs'); const read = fs.readFileSync; " +
      "fs.readFileSync = (p, ...a) => (p === '/proc/self/maps' ? '7f00-7f01 r-xp 0 0:0 1 /lib/ld-musl-x86_64.so.1\\n' : read(p, ...a)); " +
      'process.report.getReport = () => ({ header: {} })',
  );
  assert.match(musl, new RegExp(esc(`no native addon for linux-x64-musl: npm did not install the optional dependency idmint-linux-x64-musl`)));
  assert.match(musl, new RegExp(esc(`prebuilt platforms: ${carried})`)));
  assert.match(musl, /Installed here for other platforms: (idmint-[a-z0-9-]+, )*idmint-linux-x64-gnu[,.]/);
  console.log('glibc package on musl: ' + musl.match(/idmint: no native addon[^\n]*/)[0]);
}

const elsewhere = requireError("Object.defineProperty(process, 'platform', { value: 'freebsd' })");
assert.match(elsewhere, new RegExp(esc(`no native addon for freebsd-x64: there is no prebuilt idmint-freebsd-x64 (prebuilt platforms: ${carried}); build the addon from source`)));

// idmint installed without its platform package (npm install --omit=optional), and idmint on a
// platform with no prebuilt package: each fails at require() with an error naming the package.
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

const omitted = requireError('');
assert.match(omitted, /no native addon for linux-x64-gnu: npm did not install the optional dependency idmint-linux-x64-gnu/);

const elsewhere = requireError("Object.defineProperty(process, 'platform', { value: 'freebsd' })");
assert.match(elsewhere, /no native addon for freebsd-x64: there is no prebuilt idmint-freebsd-x64 \(prebuilt platforms: idmint-linux-arm64-gnu, idmint-linux-x64-gnu\); build the addon from source/);
console.log('without the platform package: ' + omitted.match(/idmint: no native addon[^\n]*/)[0]);

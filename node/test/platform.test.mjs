// The loader's choice of addon (platform.js) and its refusals, without any other platform at
// hand: the platform key napi-rs would use for each OS, CPU and C library, and the errors for a
// missing platform package and for one of the other C library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { platformKey, loadAddon } = require('../platform.js');

test('platform keys: napi-rs names, glibc told from musl', () => {
  assert.equal(platformKey('linux', 'x64', () => true), 'linux-x64-gnu');
  assert.equal(platformKey('linux', 'x64', () => false), 'linux-x64-musl');
  assert.equal(platformKey('linux', 'arm64', () => false), 'linux-arm64-musl');
  assert.equal(platformKey('win32', 'x64'), 'win32-x64-gnu');
  assert.equal(platformKey('darwin', 'arm64'), 'darwin-arm64');
  assert.equal(platformKey('darwin', 'x64'), 'darwin-x64');
});

const prebuilt = ['idmint-linux-x64-gnu', 'idmint-linux-x64-musl', 'idmint-win32-x64-gnu'];
// A require that finds only `present` (by package name) and returns a marker for it.
function fakeRequire(present, broken = {}) {
  const missing = (p) => Object.assign(new Error(`Cannot find module '${p}'`), { code: 'MODULE_NOT_FOUND' });
  const load = (p) => {
    if (broken[p]) throw new Error(broken[p]);
    if (present.includes(p)) return { loaded: p };
    throw missing(p);
  };
  load.resolve = (p) => {
    if (present.includes(p.replace(/\/package\.json$/, ''))) return p;
    throw missing(p);
  };
  return load;
}

test('the matching package is loaded', () => {
  assert.deepEqual(loadAddon(prebuilt, 'linux-x64-musl', fakeRequire(['idmint-linux-x64-musl'])), {
    loaded: 'idmint-linux-x64-musl',
  });
});

test('a glibc package on musl is refused, naming both and what idmint carries', () => {
  assert.throws(
    () => loadAddon(prebuilt, 'linux-x64-musl', fakeRequire(['idmint-linux-x64-gnu'])),
    (e) => {
      assert.match(e.message, /^idmint: no native addon for linux-x64-musl: npm did not install the optional dependency idmint-linux-x64-musl/);
      assert.match(e.message, /prebuilt platforms: idmint-linux-x64-gnu, idmint-linux-x64-musl, idmint-win32-x64-gnu\)/);
      assert.match(e.message, /Installed here for other platforms: idmint-linux-x64-gnu\./);
      return true;
    },
  );
});

test('a platform without a prebuilt package is refused, naming it and the carried ones', () => {
  assert.throws(
    () => loadAddon(prebuilt, 'freebsd-x64', fakeRequire([])),
    /no native addon for freebsd-x64: there is no prebuilt idmint-freebsd-x64 \(prebuilt platforms: idmint-linux-x64-gnu, idmint-linux-x64-musl, idmint-win32-x64-gnu\); build the addon from source/,
  );
});

test('an addon that is there but does not load is reported with the platform', () => {
  const load = fakeRequire([], { 'idmint-linux-x64-musl': 'Error loading shared library libc.so.6' });
  assert.throws(
    () => loadAddon(prebuilt, 'linux-x64-musl', load),
    /cannot load idmint-linux-x64-musl on platform linux-x64-musl \(prebuilt platforms: .*\): Error loading shared library libc\.so\.6/,
  );
});

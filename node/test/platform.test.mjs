// The loader's choice of addon (platform.js) and its refusals, without any other platform at
// hand: the platform key napi-rs would use for each OS, CPU and C library, the errors for a
// missing platform package and for one of the other C library, and the choice between idmint's
// own addon and the stores add-on's (idmint-stores), refusing an add-on of another version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { platformKey, glibcReport, loadAddon, loadNative } = require('../platform.js');

test('platform keys: napi-rs names, glibc told from musl', () => {
  assert.equal(platformKey('linux', 'x64', () => true), 'linux-x64-gnu');
  assert.equal(platformKey('linux', 'x64', () => false), 'linux-x64-musl');
  assert.equal(platformKey('linux', 'arm64', () => false), 'linux-arm64-musl');
  assert.equal(platformKey('win32', 'x64'), 'win32-x64-gnu');
  assert.equal(platformKey('darwin', 'arm64'), 'darwin-arm64');
  assert.equal(platformKey('darwin', 'x64'), 'darwin-x64');
});

test("the C library is read from the process's own mappings", () => {
  const line = (path) => `7f0c1a200000-7f0c1a228000 r--p 00000000 fd:00 1234   ${path}`;
  const glibc = [line('/usr/bin/node'), line('/usr/lib/x86_64-linux-gnu/libc.so.6'), line('/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2')];
  assert.equal(glibcReport(() => glibc.join('\n')), true);
  // A glibc process that has loaded a file from a path that says musl is still glibc.
  assert.equal(glibcReport(() => [...glibc, line('/app/node_modules/idmint-linux-x64-musl/idmint.node')].join('\n')), true);
  assert.equal(glibcReport(() => [line('/usr/bin/node'), line('/lib/ld-musl-x86_64.so.1')].join('\n')), false);
  assert.equal(glibcReport(() => [line('/usr/local/bin/bun'), line('/lib/libc.musl-aarch64.so.1')].join('\n')), false);
  // Neither named (no /proc): Node's report decides, as it does for this process.
  assert.equal(glibcReport(() => null), Boolean(process.report.getReport().header.glibcVersionRuntime));
  assert.equal(glibcReport(), glibcReport(() => null));
});

const prebuilt = ['idmint-linux-x64-gnu', 'idmint-linux-x64-musl', 'idmint-win32-x64-gnu'];
// A require that finds only `present` (by package name) and returns a marker for it, or for
// `<name>/package.json` the manifest `manifests[name]`.
function fakeRequire(present, broken = {}, manifests = {}) {
  const missing = (p) => Object.assign(new Error(`Cannot find module '${p}'`), { code: 'MODULE_NOT_FOUND' });
  const load = (p) => {
    if (broken[p]) throw new Error(broken[p]);
    const name = p.replace(/\/package\.json$/, '');
    if (name !== p && present.includes(name)) return manifests[name] ?? {};
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

// idmint's package.json as published, and the add-on's.
const idmintPkg = { version: '0.1.0', optionalDependencies: Object.fromEntries(prebuilt.map((p) => [p, '0.1.0'])) };
const storesPrebuilt = prebuilt.map((p) => p.replace(/^idmint-/, 'idmint-stores-'));
const storesPkg = (version = '0.1.0') => ({ version, optionalDependencies: Object.fromEntries(storesPrebuilt.map((p) => [p, version])) });

test('without idmint-stores, idmint loads its own addon', () => {
  const load = fakeRequire(['idmint-linux-x64-gnu', 'idmint-stores-linux-x64-gnu']);
  assert.deepEqual(loadNative(idmintPkg, 'linux-x64-gnu', load, () => assert.fail('looked in idmint-stores')), {
    loaded: 'idmint-linux-x64-gnu',
  });
});

test('with idmint-stores installed, its addon is loaded instead of idmint\'s (one per process)', () => {
  // The stores' platform package is looked up from idmint-stores's folder.
  const at = [];
  const storesLoad = fakeRequire(['idmint-stores-linux-x64-gnu']);
  const load = fakeRequire(['idmint-stores', './idmint.linux-x64-gnu.node', 'idmint-linux-x64-gnu'], {}, { 'idmint-stores': storesPkg() });
  const requireAt = (where) => {
    at.push(where);
    return storesLoad;
  };
  assert.deepEqual(loadNative(idmintPkg, 'linux-x64-gnu', load, requireAt), { loaded: 'idmint-stores-linux-x64-gnu' });
  assert.deepEqual(at, ['idmint-stores/package.json']);
});

test('an idmint-stores of another version is refused, naming both versions', () => {
  const load = fakeRequire(['idmint-stores', 'idmint-linux-x64-gnu'], {}, { 'idmint-stores': storesPkg('0.2.0') });
  assert.throws(
    () => loadNative(idmintPkg, 'linux-x64-gnu', load, () => fakeRequire(['idmint-stores-linux-x64-gnu'])),
    (e) => {
      assert.equal(
        e.message,
        'idmint: idmint 0.1.0 and its stores add-on idmint-stores 0.2.0 differ: install the same version of both ' +
          '(`npm install idmint@0.1.0 idmint-stores@0.1.0`)',
      );
      return true;
    },
  );
});

test('idmint-stores without its platform package is refused by its names, not idmint\'s', () => {
  const load = fakeRequire(['idmint-stores', 'idmint-linux-x64-gnu'], {}, { 'idmint-stores': storesPkg() });
  const storesLoad = fakeRequire(['idmint-stores-linux-x64-gnu']);
  assert.throws(
    () => loadNative(idmintPkg, 'linux-x64-musl', load, () => storesLoad),
    (e) => {
      assert.match(e.message, /^idmint: no native addon for linux-x64-musl: npm did not install the optional dependency idmint-stores-linux-x64-musl/);
      assert.match(e.message, /prebuilt platforms: idmint-stores-linux-x64-gnu, idmint-stores-linux-x64-musl, idmint-stores-win32-x64-gnu\)/);
      assert.match(e.message, /Installed here for other platforms: idmint-stores-linux-x64-gnu\. Looked for idmint-stores-linux-x64-musl\.$/);
      return true;
    },
  );
  assert.throws(
    () => loadNative(idmintPkg, 'freebsd-x64', load, () => storesLoad),
    /there is no prebuilt idmint-stores-freebsd-x64 \(prebuilt platforms: idmint-stores-linux-x64-gnu, .*\); build the addon from source .*then install that folder in place of idmint and idmint-stores/,
  );
});

// The slim addon: `idmint`'s own as published, built without the stores (cargo
// --no-default-features, docs/packages.md). The dev checkout's addon next to index.js is the full
// build, which every other test here runs on; scripts/test.sh also builds the slim one as
// idmint.<key>.slim.node. This test loads it through index.js and platform.js in a child process
// whose `./idmint.<key>.node` is that file and which cannot see `idmint-stores` (as if not
// installed): it mints and parses, and each store entry point throws StoresNotInstalledError
// naming `npm install idmint-stores`, from the core's text through the JS stand-ins
// (index.js) or the addon itself (leases, shared counters).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { platformKey, localAddonFile } = require('../platform.js');
const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SLIM = path.join(pkgDir, `idmint.${platformKey()}.slim.node`);
const INSTALL = 'npm install idmint-stores';

/** Runs `body` (an async function's body, given `idmint`) on the slim addon; its JSON result. */
function slim(body) {
  assert.ok(
    fs.existsSync(SLIM),
    `no slim addon at ${SLIM}: scripts/test.sh builds it (node scripts/build.js --no-default-features --out ${path.basename(SLIM)})`,
  );
  const prelude = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    const platform = ${JSON.stringify(path.join(pkgDir, 'platform.js'))};
    const local = ${JSON.stringify(`./${localAddonFile()}`)};
    let slimLoaded = false;
    Module._resolveFilename = function (request, parent, ...rest) {
      // As if idmint-stores were not installed, wherever this checkout is.
      if (request.startsWith('idmint-stores')) {
        throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
      }
      if (request === local && parent && parent.filename === platform) {
        slimLoaded = true;
        return ${JSON.stringify(SLIM)};
      }
      return resolve.call(this, request, parent, ...rest);
    };
    const idmint = require(${JSON.stringify(path.join(pkgDir, 'index.js'))});
    (async () => {
      const out = await (async () => { ${body} })();
      process.stdout.write(JSON.stringify({ slimLoaded, out }));
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  // The timeout only ends a hung child; nothing here depends on speed.
  const stdout = execFileSync(process.execPath, ['-e', prelude], { encoding: 'utf8', timeout: 120_000 });
  const { slimLoaded, out } = JSON.parse(stdout);
  assert.equal(slimLoaded, true, "the loader did not load the slim addon as idmint's own");
  return out;
}

test('the slim addon mints and parses', () => {
  const out = slim(`
    const gen = new idmint.Snowflake({ layout: 'twitter', datacenter: 1, worker: 7 });
    const a = gen.nextId();
    const b = gen.nextId();
    const oid = new idmint.ObjectId();
    return {
      ordered: b > a,
      worker: idmint.parse(b, 'twitter').worker,
      oid: oid.toHexString().length,
      oidParsed: idmint.parse(oid.toHexString()).format,
      ulid: idmint.parse('01ARZ3NDEKTSV4RRFFQ69G5FAV').timestampMs,
      kinds: idmint.ERROR_KINDS.includes('stores_not_installed'),
    };
  `);
  assert.deepEqual(out, { ordered: true, worker: 7, oid: 24, oidParsed: 'objectid', ulid: 1469922850259, kinds: true });
});

test('the slim addon refuses each store entry point, naming the add-on', () => {
  const out = slim(`
    const template = new idmint.Template('SO%Y%M%D%6S');
    const calls = {
      'SegmentClient.connect': () => idmint.SegmentClient.connect('memory:'),
      leaseList: () => idmint.leaseList('memory:'),
      'RedisSnowflake.connect': () => idmint.RedisSnowflake.connect('redis://127.0.0.1'),
      'Snowflake.create({ lease })': () => idmint.Snowflake.create({ layout: 'twitter', lease: 'postgres://app:s3cret@db/ids' }),
      'a shared daily counter (a counter URL)': () => new idmint.OrderNumbers(template, { counter: 'memory:' }),
    };
    const seen = {};
    for (const [what, call] of Object.entries(calls)) {
      try {
        await call();
        seen[what] = 'no error';
      } catch (e) {
        seen[what] = { message: e.message, kind: e.kind, code: e.code, typed: e instanceof idmint.StoresNotInstalledError };
      }
    }
    return seen;
  `);
  assert.equal(Object.keys(out).length, 5);
  for (const [what, e] of Object.entries(out)) {
    assert.deepEqual(
      e,
      {
        message: `${what} needs idmint's stores, which this package does not include: ${INSTALL}`,
        kind: 'stores_not_installed',
        code: 'STORES_NOT_INSTALLED',
        typed: true,
      },
      what,
    );
  }
});

test('the slim addon keeps the checks that need no store', () => {
  // A lease option without `lease`, a counter's name without a counter URL: refused as in the
  // full build, not as a missing store.
  const out = slim(`
    const kinds = [];
    for (const call of [
      () => idmint.Snowflake.create({ layout: 'twitter', datacenter: 1, worker: 1, leaseTtlMs: 5000 }),
      () => new idmint.OrderNumbers(new idmint.Template('SO%Y%M%D%6S'), { name: 'shop' }),
    ]) {
      try {
        await call();
        kinds.push('no error');
      } catch (e) {
        kinds.push(e.kind);
      }
    }
    return kinds;
  `);
  assert.deepEqual(out, ['invalid_argument', 'invalid_argument']);
});

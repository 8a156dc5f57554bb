// Packaging: CommonJS and ESM entries expose the same objects; internal handles fail safely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as esm from '../index.mjs';

const require = createRequire(import.meta.url);
const cjs = require('../index.js');
const { localAddonFile } = require('../platform.js');

test('require and import give the same classes', () => {
  for (const k of ['Snowflake', 'Layout', 'ObjectId', 'parse', 'compose', 'IdmintError', 'InvalidIdError']) {
    assert.equal(esm[k], cjs[k], k);
  }
  assert.equal(esm.default, cjs);
});

test('every kind the core reports has an error class', () => {
  const native = require(`../${localAddonFile()}`);
  for (const kind of native.errorKinds()) {
    const C = cjs.errors[kind];
    assert.equal(typeof C, 'function', kind);
    assert.equal(new C('x').code, kind.toUpperCase());
    assert.ok(new C('x') instanceof cjs.IdmintError);
  }
});

test('the raw functions reject wrong handles with an error, not a crash', () => {
  const native = require(`../${localAddonFile()}`);
  const layout = new native.NativeLayout('twitter');
  const lh = layout.handle();
  for (const bad of [undefined, null, 1, {}, 'x', lh]) {
    assert.throws(() => native.fastNextId(bad), (e) => e.code === 'invalid_argument');
    assert.throws(() => native.fastNextIdString(bad), (e) => e.code === 'invalid_argument');
  }
  assert.throws(() => native.fastDecompose(lh, 1n, new Float64Array(1)), (e) => e.code === 'invalid_argument');
  assert.throws(() => native.fastDecompose(lh, 1n, new Uint8Array(64)), (e) => e.code === 'invalid_argument');
  assert.throws(() => native.fastDecompose(lh, -1n, new Float64Array(8)), (e) => e.code === 'invalid_argument');
  assert.throws(() => native.fastDecompose(lh, 1n), (e) => e.code === 'invalid_argument');
  assert.throws(() => native.fastDecompose({}, 1n, new Float64Array(8)), (e) => e.code === 'invalid_argument');
});

test('a layout with a field wider than 53 bits gives that field as a bigint', () => {
  const l = 'time:1@1s,big:60,sequence:2';
  const id = cjs.compose({ timestampMs: 1000, big: 2n ** 60n - 1n, sequence: 3 }, l);
  const p = cjs.parse(id, l);
  assert.equal(p.big, 2n ** 60n - 1n);
  assert.equal(typeof p.sequence, 'number');
  assert.equal(cjs.compose(p, l), id);
  // a generator: 8 ticks of an hour from an hour ago
  const g = new cjs.Snowflake({ layout: 'time:8@3600s,big:54,sequence:1', epoch: Date.now() - 3_600_000, big: 2n ** 54n - 1n });
  assert.deepEqual(g.nodes, { big: 2n ** 54n - 1n });
  assert.equal(g.parse(g.nextId()).big, 2n ** 54n - 1n);
});

test('util.inspect shows ObjectId("…")', async () => {
  const { inspect } = await import('node:util');
  const o = new esm.ObjectId('507f1f77bcf86cd799439011');
  assert.equal(inspect(o), 'ObjectId("507f1f77bcf86cd799439011")');
});

test('bound functions reject bad arguments with an error, not a crash', () => {
  const native = require(`../${localAddonFile()}`);
  const b = new native.NativeLayout('twitter').bindFast();
  assert.ok(b.out instanceof Float64Array);
  for (const bad of [[], [-1n], [2n ** 64n], [1], ['1']]) {
    assert.throws(() => b.decompose(...bad), (e) => e.code === 'invalid_argument', String(bad));
  }
  assert.throws(() => b.decompose(2n ** 63n), (e) => e.code === 'invalid_id');
  b.decompose(0n);
  assert.equal(b.out[0], 1288834974657);
});

test('addon objects are freed by the GC without crashing (finalizers)', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = `
    const i = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)});
    for (let round = 0; round < 20; round++) {
      for (let k = 0; k < 500; k++) {
        const g = new i.Snowflake({ layout: 'twitter', datacenter: 1, worker: k % 32 });
        const l = new i.Layout('time:41,worker:10,sequence:12');
        if (l.parse(g.nextId()).sequence !== 0 && l.parse(g.nextIdString()) === null) process.exit(3);
      }
      globalThis.gc();
    }
    console.log('ok');`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'ok');
});

test("the README's error table lists every kind the core reports", async () => {
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const native = require(`../${localAddonFile()}`);
  for (const kind of native.errorKinds()) {
    const C = cjs.errors[kind];
    assert.ok(readme.includes(`| \`${C.name}\` | \`${kind.toUpperCase()}\` | \`${kind}\` |`), `README lacks ${C.name}`);
  }
});

test('the package API: SegmentClient, SegmentTag, leaseList and RedisSnowflake in both entries; segment code lives in js/segment.js and Redis code in node/, not in the shared facade', async () => {
  for (const k of ['SegmentClient', 'SegmentTag', 'leaseList', 'RedisSnowflake', 'WouldBlockError', 'ClosedError', 'ForkedError']) {
    assert.equal(typeof esm[k], 'function', k);
    assert.equal(esm[k], cjs[k], k);
  }
  assert.equal(typeof cjs.Snowflake.create, 'function');
  assert.equal(typeof cjs.OrderNumbers.prototype.nextAsync, 'function');
  const { readFileSync } = await import('node:fs');
  const facade = readFileSync(new URL('../../js/facade.js', import.meta.url), 'utf8');
  // The facade checks the lease options both packages take (js/README.md); the segment client
  // (js/segment.js, shared too) and RedisSnowflake (native only) stay out of it.
  assert.ok(!/SegmentClient|SegmentTag|RedisSnowflake/.test(facade.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '').replace(/'[^']*'/g, '')), 'segment or Redis code in the shared facade');
});

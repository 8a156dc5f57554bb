// Display IDs (docs/formats.md): what only the native package has. Every vector and the shared
// API are in the suite both packages run (js/test/formats.test.mjs); here: the CommonJS entry's
// classes, util.inspect of a Keyring, and UUIDv7 uniqueness across worker threads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import { Worker } from 'node:worker_threads';
import * as idmint from '../index.mjs';
import { className, NEW_KINDS } from '../../js/test/helpers.mjs';

const { Keyring, uuid7 } = idmint;

const require = createRequire(import.meta.url);
const cjs = require('../index.js');

for (const kind of NEW_KINDS) {
  test(`${kind}: require and import give the same class`, () => {
    const name = className(kind);
    assert.equal(typeof idmint[name], 'function', name);
    assert.equal(cjs[name], idmint[name]);
  });
}

test('Keyring: no secret in util.inspect', () => {
  const a = Keyring.generate(3);
  const secret = a.toText().trim().split(':')[1];
  assert.ok(!inspect(a).includes(secret), inspect(a));
  assert.equal(inspect(a), 'Keyring(v3; active v3)');
});

// ---------------------------------------------------------------------------------------------
const N_WORKERS = 4;
const PER_WORKER = 50_000;

function runWorkers(source) {
  return Promise.all(
    Array.from({ length: N_WORKERS }, (_, i) =>
      new Promise((resolve, reject) => {
        const w = new Worker(source, { eval: true, workerData: i });
        w.once('message', resolve);
        w.once('error', reject);
        w.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
      })
    )
  );
}

const pkg = JSON.stringify(new URL('../index.js', import.meta.url).pathname);

test(`UUIDv7s from ${N_WORKERS} worker threads: 0 duplicates, each sequence increasing`, async () => {
  const results = await runWorkers(
    `const { parentPort } = require('node:worker_threads');
     const { Uuid7Generator, uuid7, parseUlid } = require(${pkg});
     const g = new Uuid7Generator();
     const own = new Array(${PER_WORKER});
     for (let i = 0; i < own.length; i++) own[i] = i % 2 ? g.next() : parseUlid(g.nextUlid()).uuid;
     const shared = new Array(${PER_WORKER});
     for (let i = 0; i < shared.length; i++) shared[i] = uuid7();
     let increasing = true;
     for (let i = 1; i < own.length; i++) increasing &&= own[i] > own[i - 1];
     for (let i = 1; i < shared.length; i++) increasing &&= shared[i] > shared[i - 1];
     parentPort.postMessage({ own, shared, increasing });`
  );
  const total = N_WORKERS * PER_WORKER * 2;
  const all = new Set();
  for (const r of results) {
    assert.equal(r.increasing, true, 'each worker\'s UUIDs increase');
    for (const u of r.own) all.add(u);
    for (const u of r.shared) all.add(u);
  }
  const duplicates = total - all.size;
  assert.equal(duplicates, 0, `${duplicates} duplicates in ${total}`);
  // uuid7() is one process-wide generator: its (ms, counter) slots never repeat across threads,
  // even before the 62 random bits are counted.
  const prefixes = new Set(results.flatMap((r) => r.shared.map((u) => u.slice(0, 18))));
  assert.equal(N_WORKERS * PER_WORKER - prefixes.size, 0, 'shared (ms, counter) prefixes repeated');
  // and the main thread's continues after all of them
  const last = results.map((r) => r.shared[r.shared.length - 1]).sort().at(-1);
  assert.ok(uuid7() > last);
});

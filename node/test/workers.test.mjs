// Uniqueness across worker threads: one addon per worker, one process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

const N_WORKERS = 4;
const PER_WORKER = 100_000;

function runWorkers(source, makeData) {
  return Promise.all(
    Array.from({ length: N_WORKERS }, (_, i) =>
      new Promise((resolve, reject) => {
        const w = new Worker(source, { eval: true, workerData: makeData(i) });
        w.once('message', resolve);
        w.once('error', reject);
        w.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
      })
    )
  );
}

const pkg = JSON.stringify(new URL('../index.js', import.meta.url).pathname);

test('snowflake IDs from generators with distinct worker values in 4 threads never collide', async () => {
  const results = await runWorkers(
    `const { parentPort, workerData } = require('node:worker_threads');
     const { Snowflake } = require(${pkg});
     const g = new Snowflake({ layout: 'twitter', datacenter: 1, worker: workerData.worker });
     const a = g.nextIds(${PER_WORKER / 2});
     const b = new BigUint64Array(${PER_WORKER / 2});
     for (let i = 0; i < b.length; i++) b[i] = g.nextId();
     parentPort.postMessage({ worker: workerData.worker, ids: [a, b] });`,
    (i) => ({ worker: i })
  );
  const all = new Set();
  for (const r of results) {
    for (const arr of r.ids) {
      for (const id of arr) all.add(id);
    }
  }
  assert.equal(all.size, N_WORKERS * PER_WORKER);
});

test('ObjectIds from 4 threads never collide (one process-wide generator)', async () => {
  const results = await runWorkers(
    `const { parentPort } = require('node:worker_threads');
     const { ObjectId } = require(${pkg});
     const out = new Array(${PER_WORKER});
     for (let i = 0; i < out.length; i++) out[i] = i % 2 ? new ObjectId().toHexString() : ObjectId.generateHex();
     parentPort.postMessage(out);`,
    () => ({})
  );
  const all = new Set(results.flat());
  assert.equal(all.size, N_WORKERS * PER_WORKER);
  // and with the main thread's
  const { ObjectId } = await import('../index.mjs');
  assert.equal(all.has(new ObjectId().toHexString()), false);
});

test('two generators with the same node values in two threads are the caller\'s bug, but each is still increasing', async () => {
  const results = await runWorkers(
    `const { parentPort } = require('node:worker_threads');
     const { Snowflake } = require(${pkg});
     const g = new Snowflake({ layout: 'twitter', datacenter: 0, worker: 0 });
     const ids = g.nextIds(10000);
     let ok = true;
     for (let i = 1; i < ids.length; i++) ok &&= ids[i] > ids[i - 1];
     parentPort.postMessage(ok);`,
    () => ({})
  );
  assert.deepEqual(results, Array(N_WORKERS).fill(true));
});

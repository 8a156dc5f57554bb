// OrderNumbers over a shared daily counter ({ counter: URL, name }): a SQLite file needs no
// server. Native-only: the browser package (idmint-web) counts in memory only.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as idmint from '../index.mjs';
import { thrown, assertKind } from '../../js/test/helpers.mjs';
import { tempDir } from './stores.mjs';

const { Template, OrderNumbers } = idmint;
// 2024-05-21T16:30:00Z, which is 2024-05-22 00:30 at +08:00
const T = 1716309000000;
const tmp = () => tempDir('idmint-orders-');

describe('OrderNumbers with a shared counter', () => {
  test('4 workers, each its own OrderNumbers on one SQLite file: no duplicates', async () => {
    const url = `sqlite:${path.join(tmp(), 'orders.db')}`;
    const pkg = JSON.stringify(new URL('../index.js', import.meta.url).pathname);
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { Template, OrderNumbers } = require(${pkg});
      const t = new Template('SO%Y%M%D%6S', { offset: '+08:00' });
      const orders = new OrderNumbers(t, { counter: workerData, name: 'orders', step: 10 });
      const out = [];
      (async () => {
        for (let i = 0; i < 500; i++) out.push(await orders.nextAsync(${T}));
        parentPort.postMessage(out);
      })();`;
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Promise((resolve, reject) => {
          const w = new Worker(source, { eval: true, workerData: url });
          w.once('message', resolve);
          w.once('error', reject);
        })
      )
    );
    const every = results.flat();
    assert.equal(every.length, 4 * 500);
    assert.equal(new Set(every).size, every.length, 'duplicates');
    for (const n of every) assert.match(n, /^SO20240522\d{6}$/);
    // another day starts at 1 in its own tag
    const t = new Template('SO%Y%M%D%6S', { offset: '+08:00' });
    const orders = new OrderNumbers(t, { counter: url, name: 'orders' });
    assert.equal(await orders.nextAsync(T + 86_400_000), 'SO20240523000001');
    const other = new OrderNumbers(t, { counter: url, name: 'invoices' });
    assert.equal(await other.nextAsync(T), 'SO20240522000001', 'another name is another counter');
  });

  test('a day past the sequence width: CounterOverflowError', async () => {
    const url = `sqlite:${path.join(tmp(), 'orders.db')}`;
    const orders = new OrderNumbers(new Template('%Y%M%D%1S', { offset: '+08:00' }), { counter: url, step: 1 });
    const got = [];
    for (let i = 0; i < 9; i++) got.push(await orders.nextAsync(T));
    assert.deepEqual(got, [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `20240522${i}`));
    let err;
    await orders.nextAsync(T).catch((e) => (err = e));
    assertKind(err, 'counter_overflow', 'the 10th of the day');
  });

  test('memory: counts in this object; next() of a shared counter never waits: InvalidArgumentError', async () => {
    const orders = new OrderNumbers(new Template('%Y%M%D%3S'), { counter: 'memory:' });
    assert.equal(await orders.nextAsync(T), '20240521001');
    assert.equal(await orders.nextAsync(T), '20240521002');
    const e = thrown(() => orders.next(T));
    assertKind(e, 'invalid_argument', 'next() of a shared counter');
    assert.match(e.message, /nextAsync/);
    // an object's own counter: both
    const own = new OrderNumbers(new Template('%Y%M%D%3S'));
    assert.equal(own.next(T), '20240521001');
    assert.equal(await own.nextAsync(T), '20240521002');
  });

  test('bad arguments: InvalidArgumentError (InvalidTagError, StoreUnavailableError)', () => {
    const t = new Template('%Y%M%D%5S');
    const bad = [
      [{ counter: 'ftp://x' }, 'invalid_argument', 'an unknown scheme'],
      [{ counter: 'x' }, 'invalid_argument', 'not a URL'],
      [{ counter: 5 }, 'invalid_argument', 'not a string'],
      [{ counter: 'memory:', name: 5 }, 'invalid_argument', 'name not a string'],
      [{ counter: 'memory:', step: 0 }, 'invalid_argument', 'step 0'],
      [{ counter: 'memory:', step: -1 }, 'invalid_argument', 'step -1'],
      [{ counter: 'memory:', day: 20240522, first: 5 }, 'invalid_argument', 'resuming a shared counter'],
      [{ name: 'orders' }, 'invalid_argument', 'name without counter'],
      [{ step: 10 }, 'invalid_argument', 'step without counter'],
      [{ counter: 'memory:', name: 'bad name' }, 'invalid_tag', 'a name with a space'],
      [{ counter: 'redis://:secret@127.0.0.1:1' }, 'store_unavailable', 'nothing listens'],
    ];
    for (const [options, kind, what] of bad) {
      const e = thrown(() => new OrderNumbers(t, options));
      assertKind(e, kind, what);
      assert.ok(!e.message.includes('secret'), e.message);
    }
    assert.ok(thrown(() => new OrderNumbers(t, { counter: 'x' })) instanceof idmint.InvalidArgumentError);
  });
});

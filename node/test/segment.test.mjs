// SegmentClient: the API over a memory: store, uniqueness across 4 processes x 2 worker threads
// through every store (segment-worker.mjs, which the mixed-language run reuses), and the
// event loop while a refill waits on a store made slow.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as idmint from '../index.mjs';
import { thrown, assertKind } from '../../js/test/helpers.mjs';
import { stores, server, unique, rejected, readIds, tempDir } from './stores.mjs';

const { SegmentClient, Template, OrderNumbers } = idmint;
const run = promisify(execFile);


/** `tag.nextId()` until memory is empty (WouldBlockError; at most `max` IDs), the IDs it gave. */
function drain(tag, max = 100_000) {
  const ids = [];
  while (ids.length < max) {
    try {
      ids.push(tag.nextId());
    } catch (e) {
      assertKind(e, 'would_block', 'draining');
      return ids;
    }
  }
  return ids;
}

describe('SegmentClient over memory:', () => {
  test('tag handles, sync and async IDs, numbers, runs, metrics', async () => {
    const client = await SegmentClient.connect('memory:', { defaultStep: 100, maxStep: 100 });
    assert.equal(client.store, 'memory:');
    assert.equal(await client.createTag('orders', { start: 1_000_001, step: 50, description: 'orders' }), true);
    assert.equal(await client.createTag('orders', { start: 5 }), false, 'exists: unchanged');
    const orders = await client.tag('orders');
    assert.equal(await client.tag('orders'), orders, 'cached');
    assert.equal(orders.tag, 'orders');
    // the hot path does not wait (nothing may be fetched yet), the async call does
    try {
      orders.nextId();
    } catch (e) {
      assertKind(e, 'would_block', 'before the first range');
    }
    const first = await orders.nextIdAsync();
    assert.ok(first >= 1_000_001n, `${first}: from the start given`);
    const sync = drain(orders, 1000);
    assert.ok(sync.length > 0, 'IDs from memory');
    // increasing; gaps where a block did not fit the rest of a range (skipped, never reissued)
    let last = first;
    for (const id of sync) {
      assert.equal(typeof id, 'bigint');
      assert.ok(id > last, `${id} after ${last}`);
      last = id;
    }
    assert.ok(sync[0] > first);
    const later = await orders.nextIdAsync();
    assert.ok(later > sync.at(-1));
    assert.equal(typeof orders.nextNumber === 'function' && typeof (await orders.nextNumberAsync()), 'number');
    const run_ = await orders.nextIds(10);
    assert.equal(run_.end - run_.start, 10n);
    const big = await orders.nextIds(1000); // above the step: straight from the store
    assert.equal(big.end - big.start, 1000n);
    assert.ok(big.start >= run_.end);
    const m = orders.metrics();
    assert.equal(m.tag, 'orders');
    assert.ok(m.refills >= 2, `refills ${m.refills}`);
    for (const k of ['remaining', 'step', 'refills', 'lastRefillLatencyMs', 'maxRefillLatencyMs', 'meanRefillLatencyMs', 'storeErrors']) {
      assert.equal(typeof m[k], 'number', k);
    }
    assert.equal(m.lastError, null);
    assert.deepEqual(client.metrics().map((x) => x.tag), ['orders']);
    await client.close();
    assertKind(thrown(() => orders.nextId()), 'closed', 'after close: the block is dropped');
    assertKind(await rejected(orders.nextIdAsync()), 'closed', 'nextIdAsync after close');
    assertKind(await rejected(client.tag('other')), 'closed', 'tag after close');
  });

  test('an ID above 2^53-1 as a number: ValueOutOfRangeError (a RangeError)', async () => {
    const client = await SegmentClient.connect('memory:');
    await client.createTag('big', { start: 2n ** 53n - 1n, step: 10 });
    const big = await client.tag('big');
    assert.equal(await big.nextNumberAsync(), Number.MAX_SAFE_INTEGER);
    const e = thrown(() => big.nextNumber()); // from memory: the rest of the first range
    assertKind(e, 'value_out_of_range', 'nextNumber above 2^53-1');
    assert.ok(e instanceof RangeError);
    assert.match(e.message, /9007199254740992/);
    const e2 = await rejected(big.nextNumberAsync());
    assertKind(e2, 'value_out_of_range', 'nextNumberAsync above 2^53-1');
    await client[Symbol.asyncDispose]();
  });

  test('options and bad arguments: typed errors naming the value', async () => {
    const c = await SegmentClient.connect('memory:', { autoCreate: false, defaultTag: 'shared', maxWaitMs: 200, opTimeoutMs: 500, refillAt: 10 });
    assertKind(await rejected(c.tag('nope')), 'unknown_tag', 'no such tag, no default tag in the store');
    await c.createTag('shared');
    assert.equal((await c.tag('rare')).tag, 'shared', 'the default tag');
    assertKind(await rejected(c.tag('no pe')), 'invalid_tag');
    assertKind(await rejected(c.createTag('x', { step: 0 })), 'invalid_argument', 'step 0');
    const bad = [
      [() => SegmentClient.connect('ftp://x'), 'invalid_argument', 'a scheme'],
      [() => SegmentClient.connect(5), 'invalid_argument', 'not a string'],
      [() => SegmentClient.connect('memory:', { refillAt: 100 }), 'invalid_argument', 'refillAt 100'],
      [() => SegmentClient.connect('memory:', { refillAt: 300 }), 'invalid_argument', 'refillAt 300'],
      [() => SegmentClient.connect('memory:', { maxStep: -1 }), 'invalid_argument', 'maxStep -1'],
      [() => SegmentClient.connect('memory:', { maxWaitMs: -1 }), 'invalid_argument', 'maxWaitMs -1'],
      [() => SegmentClient.connect('memory:', { refill: 10 }), 'invalid_argument', 'no such option'],
      [() => SegmentClient.connect('memory:', { autoCreate: 'yes' }), 'invalid_argument', 'autoCreate'],
      [() => SegmentClient.connect('redis://:secret@127.0.0.1:1', { opTimeoutMs: 300 }), 'store_unavailable', 'nothing listens'],
    ];
    for (const [fn, kind, what] of bad) {
      const e = await rejected(fn(), what);
      assertKind(e, kind, what);
      assert.ok(!e.message.includes('secret'), e.message);
    }
    const e = await rejected(SegmentClient.connect('memory:', { refillAt: 300 }));
    assert.match(e.message, /300/, 'the value as given');
    assert.match(e.message, /refillAt/, 'the option as JS spells it');
    assert.match((await rejected(SegmentClient.connect('memory:', { maxStep: -1 }))).message, /-1/);
    assertKind(thrown(() => new SegmentClient()), 'invalid_argument', 'new SegmentClient');
  });
});

// close() resolves once the SQLite file the client opened is closed: Windows refuses to delete an
// open file (a temp folder, an app's data). Linux does not, so this reads the open files instead.
test('await close() closes the SQLite file the client opened', { skip: fs.existsSync('/proc/self/fd') ? false : 'reads /proc/self/fd (Linux)' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idmint-close-'));
  const db = path.join(dir, 'ids.db');
  const openOn = () => fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(db) ? [target] : [];
    } catch {
      return []; // closed since listed
    }
  });
  try {
    const client = await SegmentClient.connect(`sqlite:${db}`);
    const tag = await client.tag('orders');
    assert.equal(await tag.nextIdAsync(), 1n);
    assert.ok(openOn().length > 0, 'the check sees the file while it is open');
    await client.close();
    assert.deepEqual(openOn(), [], 'still open after close()');
    assertKind(thrown(() => tag.nextId()), 'closed', 'after close');
    const again = await SegmentClient.connect(`sqlite:${db}`);
    assert.equal(await (await again.tag('orders')).nextIdAsync(), 2n, 'the tail went back before the store closed');
    await again.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('4 processes x 2 worker threads x 250,000 IDs from one tag: no duplicates', () => {
  const worker = new URL('./segment-worker.mjs', import.meta.url).pathname;
  for (const { name, url } of stores()) {
    test(name, { skip: url ? false : 'server not set' }, async () => {
      const dir = tempDir('idmint-seg-');
      const tag = unique('node');
      const files = [0, 1, 2, 3].map((i) => path.join(dir, `ids-${i}.txt`));
      await Promise.all(files.map((f) => run(process.execPath, [worker, url, tag, '250000', '2', f])));
      const { ids, duplicates } = readIds(files);
      assert.equal(ids.length, 2_000_000, 'every ID written');
      assert.equal(duplicates, 0, 'duplicates');
      assert.ok(ids.every((id) => id > 0n));
    });
  }
});

/** Send one Redis command on a connection of its own; the reply's first line. */
function redisCommand(url, ...args) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(u.port || 6379), u.hostname, () => {
      s.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join(''));
    });
    s.once('data', (d) => {
      s.end();
      resolve(d.toString().split('\r\n')[0]);
    });
    s.once('error', reject);
  });
}

const redisUrl = server('IDMINT_TEST_REDIS_URL');

test('the event loop runs while a refill waits on a paused Redis', { skip: redisUrl ? false : 'IDMINT_TEST_REDIS_URL not set' }, async () => {
  // No clock in the verdict: the store stays paused until this test, from the event loop,
  // unpauses it. A call that blocked the loop would have settled (with an error, at maxWait)
  // before any of the loop's turns below could run.
  const client = await SegmentClient.connect(redisUrl, { defaultStep: 100, maxStep: 100, maxWaitMs: 120_000 });
  const tag = await client.tag(unique('slow'));
  await tag.nextIdAsync(); // the first range, before the store is paused
  // Writes (the refill's script) wait until unpaused; this connection is not the client's.
  assert.equal(await redisCommand(redisUrl, 'CLIENT', 'PAUSE', '120000', 'WRITE'), '+OK');
  try {
    drain(tag); // what is in memory; the refill now waits on the paused store
    let settled = false;
    const pending = tag.nextIdAsync().finally(() => { settled = true; });
    let turns = 0;
    for (; turns < 100; turns++) await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, `the call settled while the store was paused (after ${turns} turns of the loop)`);
    // Socket I/O on the loop too: the unpause goes out while the call still waits.
    assert.equal(await redisCommand(redisUrl, 'CLIENT', 'UNPAUSE'), '+OK');
    assert.equal(typeof (await pending), 'bigint');
  } finally {
    await redisCommand(redisUrl, 'CLIENT', 'UNPAUSE');
    await client.close();
  }
});

test('shared OrderNumbers: next() never waits on the store (InvalidArgumentError), nextAsync() does, off the loop', { skip: redisUrl ? false : 'IDMINT_TEST_REDIS_URL not set' }, async () => {
  const orders = new OrderNumbers(new Template('%Y%M%D%5S'), { counter: redisUrl, name: unique('orders') });
  assertKind(thrown(() => orders.next('2024-05-21T10:00:00Z')), 'invalid_argument', 'next() on a shared counter');
  assert.equal(await orders.nextAsync('2024-05-21T10:00:00Z'), '2024052100001');
  // Off the loop, with no clock in the verdict (as the refill test above): the store stays
  // paused until this test unpauses it from the loop.
  assert.equal(await redisCommand(redisUrl, 'CLIENT', 'PAUSE', '120000', 'WRITE'), '+OK');
  try {
    let settled = false;
    const pending = orders.nextAsync('2024-05-21T10:00:00Z').finally(() => { settled = true; });
    for (let turns = 0; turns < 100; turns++) await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'nextAsync() settled while the store was paused');
    assert.equal(await redisCommand(redisUrl, 'CLIENT', 'UNPAUSE'), '+OK');
    assert.equal(await pending, '2024052100002');
  } finally {
    await redisCommand(redisUrl, 'CLIENT', 'UNPAUSE');
  }
});

// Worker leases: Snowflake.create({ lease }) across processes (exactly as many generators lease
// as the range has values, the others get NoFreeLeaseError, and the leased ones never repeat
// each other), renewal, and every way a lease is released: close(), Symbol.asyncDispose,
// Symbol.dispose, garbage collection; each on SQLite, PostgreSQL, etcd and ZooKeeper.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import * as idmint from '../index.mjs';
import { thrown, assertKind } from '../../js/test/helpers.mjs';
import { leaseStores, rejected, readIds, tempDir } from './stores.mjs';

const { Snowflake, leaseList } = idmint;
const tmp = () => tempDir('idmint-lease-');


/** Run one lease-worker process: resolves with its `ready` line and a `go()` that lets it mint. */
function leaseWorker(url, generators, idsEach, outfile) {
  const worker = new URL('./lease-worker.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [worker, url, String(generators), String(idsEach), outfile], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lease worker exited with ${code}`))));
  });
  const ready = new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
    });
    exited.catch(reject);
  });
  return ready.then((status) => ({
    status,
    go: () => {
      child.stdin.end('go\n');
      return exited;
    },
  }));
}

describe('16 generators in 4 processes, a range of 8 values', () => {
  for (const { name, url, variable } of leaseStores()) {
    test(name, { skip: url ? false : `${variable} not set` }, async () => {
      const dir = tmp();
      const files = [0, 1, 2, 3].map((i) => path.join(dir, `ids-${i}.txt`));
      const workers = await Promise.all(files.map((f) => leaseWorker(url, 4, 250_000, f)));
      const leased = workers.reduce((n, w) => n + w.status.leased, 0);
      const noFree = workers.reduce((n, w) => n + w.status.noFreeLease, 0);
      assert.equal(leased, 8, 'exactly the 8 values lease');
      assert.equal(noFree, 8, 'the other 8 get NoFreeLeaseError');
      const values = workers.flatMap((w) => w.status.nodes.map((n) => `${n.datacenter}/${n.worker}`));
      assert.equal(new Set(values).size, 8, `distinct node values: ${values}`);
      const held = (await leaseList(url)).filter((l) => l.state === 'held');
      assert.equal(held.length, 8, 'leaseList: 8 held');
      await Promise.all(workers.map((w) => w.go()));
      const { ids, duplicates } = readIds(files);
      assert.equal(ids.length, 2_000_000, 'the 8 minted 2M IDs');
      assert.equal(duplicates, 0, 'duplicates');
      const after = await leaseList(url);
      assert.equal(after.filter((l) => l.state === 'held').length, 0, 'close() released every lease');
    });
  }
});

/** Wait until `check()` holds (polling), or fail after `ms`. */
async function eventually(check, what, ms = 5000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(25);
  }
  assert.fail(`${what}: not within ${ms} ms`);
}

describe('renewing a lease', () => {
  for (const { name, url, variable } of leaseStores()) {
    test(`${name}: a held lease is renewed`, { skip: url ? false : `${variable} not set` }, async () => {
      // Without renewals a lease's expiresInMs only falls; the background renewal (every TTL/3)
      // moves its end forward, seen as a reading above the one before. The verdict waits on that
      // event, not on a clock: a lease left unrenewed lapses and fails the state check first.
      const g = await Snowflake.create({ layout: 'twitter', lease: url, leaseRange: [2, 2], leaseHolder: 'renewed' });
      try {
        const end = Date.now() + 120_000;
        let before;
        for (;;) {
          const list = await leaseList(url);
          assert.deepEqual(list.map((l) => [l.value, l.state, l.holder]), [[2, 'held', 'renewed']]);
          if (before !== undefined && list[0].expiresInMs > before) break;
          assert.ok(Date.now() < end, `no renewal seen: ${JSON.stringify(list)}`);
          before = list[0].expiresInMs;
          await sleep(50);
        }
        assert.equal(typeof g.nextId(), 'bigint');
      } finally {
        await g.close();
      }
    });
  }
});

describe('releasing a lease', () => {
  const opts = (url) => ({ layout: 'twitter', lease: url, leaseRange: [0, 1], leaseTtlMs: 5000, leaseHolder: 'node-test' });
  const heldCount = async (url) => (await leaseList(url)).filter((l) => l.state === 'held').length;

  for (const { name, url, variable } of leaseStores()) {
    test(`${name}: close(), Symbol.asyncDispose, Symbol.dispose and the GC release it; a closed generator throws ClosedError`, { skip: url ? false : `${variable} not set` }, async () => {
      const a = await Snowflake.create(opts(url));
      const b = await Snowflake.create(opts(url));
      assert.notDeepEqual(a.nodes, b.nodes);
      assert.equal(typeof a.nextId(), 'bigint');
      const full = await rejected(Snowflake.create(opts(url)), 'a third in a range of two');
      assertKind(full, 'no_free_lease', 'a third in a range of two');
      const list = await leaseList(url);
      assert.deepEqual(list.map((l) => [l.value, l.state, l.holder]), [[0, 'held', 'node-test'], [1, 'held', 'node-test']]);
      for (const l of list) for (const k of ['expiresInMs', 'freeInMs', 'lastTimeMs']) assert.equal(typeof l[k], 'number', k);

      await a.close();
      assertKind(thrown(() => a.nextId()), 'closed', 'nextId after close');
      assertKind(thrown(() => a.nextIds(2)), 'closed', 'nextIds after close');
      assert.deepEqual(Object.keys(a.nodes), ['datacenter', 'worker'], 'its configuration stays readable');
      assert.equal(await heldCount(url), 1, 'close() released');

      const c = await Snowflake.create(opts(url));
      await c[Symbol.asyncDispose]();
      assert.equal(await heldCount(url), 1, 'Symbol.asyncDispose released');

      const d = await Snowflake.create(opts(url));
      d[Symbol.dispose]();
      assertKind(thrown(() => d.nextId()), 'closed', 'nextId after Symbol.dispose');
      await eventually(async () => (await heldCount(url)) === 1, 'Symbol.dispose released in the background');

      v8.setFlagsFromString('--expose-gc');
      const gc = vm.runInNewContext('gc');
      let e = await Snowflake.create(opts(url));
      e.nextId();
      assert.equal(await heldCount(url), 2);
      e = null;
      await eventually(async () => {
        gc();
        return (await heldCount(url)) === 1;
      }, 'a collected generator released its lease');
      await b.close();
      assert.equal(await heldCount(url), 0);
    });
  }

  test('lease options: new Snowflake refuses a lease (it would wait on the store), bad options are typed errors', async () => {
    const url = `sqlite:${path.join(tmp(), 'leases.db')}`;
    const e = thrown(() => new Snowflake(opts(url)));
    assertKind(e, 'invalid_argument', 'new Snowflake with a lease');
    assert.match(e.message, /Snowflake\.create/);
    const bad = [
      [{ layout: 'twitter', leaseRange: [0, 1], datacenter: 1, worker: 1 }, 'invalid_argument', 'leaseRange without lease'],
      [{ ...opts(url), leaseRange: [0] }, 'invalid_argument', 'leaseRange of one value'],
      [{ ...opts(url), leaseRange: [-1, 3] }, 'invalid_argument', 'a negative value'],
      [{ ...opts(url), leaseTtlMs: 10 }, 'invalid_argument', 'a TTL below 300 ms'],
      [{ ...opts(url), lease: 5 }, 'invalid_argument', 'lease not a string'],
      [{ ...opts('ftp://x') }, 'invalid_argument', 'a scheme'],
    ];
    for (const [o, kind, what] of bad) assertKind(await rejected(Snowflake.create(o), what), kind, what);
    assertKind(await rejected(leaseList('ftp://x')), 'invalid_argument', 'leaseList of a bad URL');
    assert.deepEqual(await leaseList(`sqlite:${path.join(tmp(), 'empty.db')}`), []);
  });

  test('highWaterMark: a file the generator keeps its time in; create() takes every option of new Snowflake', async () => {
    const file = path.join(tmp(), 'hwm');
    const g = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 2, highWaterMark: file });
    const id = g.nextId();
    assert.ok(fs.existsSync(file), 'the file is written');
    // A restart on the file: its time is written ahead of the IDs (by the core's fence), so the
    // clock reads behind it: by default ClockMovedBackwardsError, with 'continue' IDs after it.
    assertKind(thrown(() => new Snowflake({ layout: 'twitter', datacenter: 1, worker: 2, highWaterMark: file }).nextId()), 'clock_moved_backwards');
    const h = await Snowflake.create({ layout: 'twitter', datacenter: 1, worker: 2, highWaterMark: file, resumeAfter: id, onRollback: 'continue' });
    assert.ok(h.nextId() > id, 'after the last ID');
    assert.deepEqual(h.nodes, { datacenter: 1, worker: 2 });
    await h.close();
  });
});

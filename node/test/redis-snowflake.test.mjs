// RedisSnowflake against the real Redis of tests/run.sh (IDMINT_TEST_REDIS_URL): 4 processes x 4
// worker threads draw 80,000 IDs (redis-snowflake-worker.mjs): 0 duplicates, every one of the
// worker's shard under the `redis-lua` layout; the sync path never waits; bad arguments are the
// core's typed errors; close.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import * as idmint from '../index.mjs';
import { thrown, assertKind } from '../../js/test/helpers.mjs';
import { server, unique, rejected, readIds, tempDir } from './stores.mjs';

const { RedisSnowflake, parse } = idmint;
const run = promisify(execFile);
const url = server('IDMINT_TEST_REDIS_URL');
const skip = url ? false : 'IDMINT_TEST_REDIS_URL not set';
const shardOf = (id) => parse(id, 'redis-lua').shard;

describe('RedisSnowflake', { skip }, () => {
  test('4 processes x 4 worker threads x 5,000 IDs: no duplicates, all of shard 7', async () => {
    const worker = new URL('./redis-snowflake-worker.mjs', import.meta.url).pathname;
    const dir = tempDir('idmint-rsf-');
    const tag = unique('rsf');
    const files = [0, 1, 2, 3].map((i) => path.join(dir, `ids-${i}.txt`));
    await Promise.all(files.map((f) => run(process.execPath, [worker, url, tag, '5000', '4', f])));
    const { ids, duplicates } = readIds(files);
    assert.equal(ids.length, 80_000, 'every ID written');
    assert.equal(duplicates, 0, 'duplicates');
    assert.ok(ids.every((id) => shardOf(id) === 7));
  });

  test('runs, shards, the sync path from the buffer only', async () => {
    const gen = await RedisSnowflake.connect(url, { tag: unique('rsf'), shard: 53, batch: 10 });
    assert.equal(gen.layout.preset, 'redis-lua');
    assert.deepEqual(gen.servers, [url]);
    const before = gen.stats().roundTrips;
    const runIds = await gen.nextIds(100);
    assert.equal(gen.stats().roundTrips, before + 1, 'one round trip for 100');
    assert.equal(runIds.length, 100);
    for (let i = 1; i < runIds.length; i++) assert.ok(runIds[i] > runIds[i - 1]);
    assert.ok(runIds.every((id) => typeof id === 'bigint' && shardOf(id) === 53));
    // Nothing buffered yet: the sync call does not wait, it says so (and a run is fetched).
    assertKind(thrown(() => gen.nextId()), 'would_block', 'empty buffer');
    const first = await gen.nextIdAsync();
    assert.equal(shardOf(first), 53);
    const trips = gen.stats().roundTrips;
    const sync = [];
    for (;;) {
      try {
        sync.push(gen.nextId());
      } catch (e) {
        assertKind(e, 'would_block', 'drained');
        break;
      }
    }
    assert.ok(sync.length >= 1 && sync.length <= 19, `${sync.length} from the buffer`);
    assert.ok(gen.stats().roundTrips - trips <= 1, 'the sync calls made no round trip of their own');
    const user = 123_456_789 % 4096;
    assert.equal(shardOf(await gen.nextIdAsync(user)), user);
    assert.ok((await gen.nextIdsFor(9, 10)).every((id) => shardOf(id) === 9));
    // any layout with one node field; urls as an array
    const other = await RedisSnowflake.connect([url], { tag: unique('rsf'), layout: 'time:41,shard:10,sequence:12' });
    assert.equal(other.layout.parse(await other.nextIdAsync(1023)).shard, 1023);
    await other.close();
    await gen[Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose')]();
    assertKind(await rejected(gen.nextIds(1)), 'closed', 'after asyncDispose');
  });

  test('bad arguments are the core typed errors', async () => {
    const cases = [
      [{ shard: 4096 }, 'value_out_of_range', /4096/],
      [{ shard: -1 }, 'value_out_of_range', /-1/],
      [{ shard: 2n ** 70n }, 'value_out_of_range', /1180591620717411303424/],
      [{ batch: 0 }, 'invalid_argument', /batch/],
      [{ counterTtlSecs: 1 }, 'invalid_argument', /counterTtlSecs/],
      [{ opTimeoutMs: 0 }, 'invalid_argument', /opTimeoutMs/],
      [{ opTimeoutMs: -5 }, 'invalid_argument', /opTimeoutMs/],
      [{ tag: 'no spaces' }, 'invalid_tag', /no spaces/],
      [{ layout: 'twitter' }, 'invalid_layout', /exactly one node field/],
      [{ shard: '7' }, 'invalid_argument', /shard/],
      [{ nope: 1 }, 'invalid_argument', /not an option/],
    ];
    for (const [opts, kind, text] of cases) {
      const e = await rejected(RedisSnowflake.connect(url, opts), JSON.stringify(opts, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)));
      assertKind(e, kind, JSON.stringify(Object.keys(opts)));
      assert.match(e.message, text);
    }
    assertKind(await rejected(RedisSnowflake.connect('')), 'invalid_argument', 'no server');
    assertKind(await rejected(RedisSnowflake.connect(6379)), 'invalid_argument', 'urls');
    assertKind(
      await rejected(RedisSnowflake.connect('redis://127.0.0.1:1', { opTimeoutMs: 200, maxWaitMs: 300 })),
      'store_unavailable',
      'no server answers'
    );
    assertKind(thrown(() => new RedisSnowflake()), 'invalid_argument', 'new RedisSnowflake');
    const gen = await RedisSnowflake.connect(url, { tag: unique('rsf') });
    assertKind(await rejected(gen.nextIdAsync()), 'missing_field', 'no shard');
    assertKind(thrown(() => gen.nextId()), 'missing_field', 'no shard, sync');
    assertKind(thrown(() => gen.nextId(4096)), 'value_out_of_range', 'shard 4096, sync');
    assertKind(await rejected(gen.nextIdsFor(1, 0)), 'invalid_argument', 'k = 0');
    const wide = await rejected(gen.nextIdsFor(1, 2n ** 64n));
    assert.match(wide.message, /18446744073709551616/);
    assertKind(await rejected(gen.nextIdsFor(-1, 10)), 'value_out_of_range', 'shard -1');
    await gen.close();
  });

  test('close: later calls throw ClosedError', async () => {
    const gen = await RedisSnowflake.connect(url, { tag: unique('rsf'), shard: 1 });
    await gen.nextIdAsync();
    await gen.close();
    assertKind(thrown(() => gen.nextId()), 'closed', 'sync after close');
    assertKind(await rejected(gen.nextIdAsync()), 'closed', 'async after close');
    assertKind(await rejected(gen.nextIds(3)), 'closed', 'run after close');
    await gen.close(); // twice is harmless
  });
});

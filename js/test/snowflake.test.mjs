// Snowflake generation, options and every error path reachable through the shared API.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { idmint } from './target.mjs';
import { thrown, assertKind } from './helpers.mjs';

const { Snowflake } = idmint;
const MAX_I64 = 2n ** 63n - 1n;

describe('Snowflake', () => {
  test('nextId: bigint, strictly increasing, carrying the node fields', () => {
    const g = new Snowflake({ layout: 'twitter', datacenter: 3, worker: 17 });
    let prev = -1n;
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const id = g.nextId();
      assert.equal(typeof id, 'bigint');
      if (!(id > prev)) assert.ok(false, `id ${id} after ${prev} at ${i}`);
      prev = id;
    }
    const p = g.parse(prev);
    assert.equal(p.datacenter, 3);
    assert.equal(p.worker, 17);
    assert.equal(g.stats.issued, n);
  });

  test('nextIds(n): BigUint64Array, increasing, continues after nextId', () => {
    const g = new Snowflake({ layout: 'sonyflake', machine: 513 });
    const first = g.nextId();
    const ids = g.nextIds(10_000);
    assert.ok(ids instanceof BigUint64Array);
    assert.equal(ids.length, 10_000);
    assert.ok(ids[0] > first);
    for (let i = 1; i < ids.length; i++) if (!(ids[i] > ids[i - 1])) assert.ok(false, `not increasing at ${i}`);
    assert.equal(g.parse(ids[9999]).machine, 513);
    assert.equal(g.nextIds(0).length, 0);
    assert.equal(g.stats.issued, 10_001);
  });

  test('nextIdString: decimal text of the next ID (for JSON)', () => {
    const g = new Snowflake({ layout: 'redis-lua', shard: 53 });
    const a = g.nextId();
    const s = g.nextIdString();
    assert.match(s, /^[1-9][0-9]*$/);
    assert.ok(BigInt(s) > a);
    assert.equal(g.parse(s).shard, 53);
    assert.equal(JSON.parse(JSON.stringify({ id: s })).id, s);
  });

  test('parse and compose on the generator and at top level agree', () => {
    const g = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 2 });
    const id = g.nextId();
    const p = g.parse(id);
    assert.deepEqual(idmint.parse(id, 'twitter'), p);
    assert.deepEqual(idmint.parse(String(id), 'twitter'), p);
    assert.equal(g.compose(p), id);
    assert.equal(idmint.compose(p, 'twitter'), id);
  });

  test('parse of a bigint (split in JS from the core\'s word plan) agrees with the core on its text', () => {
    const specs = [
      'twitter',
      'sonyflake',
      'redis-lua',
      'baidu',
      'time:30@1s,n:1,sequence:32',
      'time:20@1s,big:30,sequence:13',
      'time:10@1s,sequence:1,node:40',
    ];
    let x = 0x9e3779b97f4a7c15n;
    for (const spec of specs) {
      const l = new idmint.Layout(spec);
      const ids = [0n, 1n, l.maxId, l.maxId >> 1n];
      for (let i = 0; i < 2000; i++) {
        x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn;
        ids.push(x & l.maxId);
      }
      for (const id of ids) {
        const a = l.parse(id);
        const b = l.parse(String(id)); // the core's decompose
        assert.deepEqual({ ...a }, { ...b }, `${spec} ${id}`);
        assert.deepEqual(Object.keys(a), ['timestampMs', ...l.fields.map((f) => f.name)]);
        assert.ok(a.time instanceof Date);
        assert.equal(a.time.getTime(), b.timestampMs);
      }
      // past the layout's bits: the core's error, as before
      assertKind(thrown(() => l.parse(l.maxId + 1n)), 'invalid_id');
    }
    const p = idmint.parse(1541815603606036480n, 'twitter');
    assert.deepEqual(JSON.parse(JSON.stringify(p)), {
      time: '2022-06-28T16:07:40.105Z',
      timestampMs: 1656432460105,
      datacenter: 11,
      worker: 26,
      sequence: 0,
    });
  });

  test('custom spec, epoch as number, string and Date', () => {
    const spec = 'time:40@10ms,sequence:8,region:3,machine:12';
    const epochMs = Date.UTC(2024, 0, 1);
    for (const epoch of [epochMs, '2024-01-01T00:00:00Z', String(epochMs), new Date(epochMs)]) {
      const g = new Snowflake({ layout: spec, epoch, region: 5, machine: 4095 });
      const p = g.parse(g.nextId());
      assert.equal(p.region, 5);
      assert.equal(p.machine, 4095);
      assert.ok(p.timestampMs >= epochMs);
      assert.equal(p.timestampMs % 10, 0, 'a 10 ms tick');
    }
  });

  test('policies are accepted in their text forms', () => {
    const g = new Snowflake({ datacenter: 0, worker: 0, onExhausted: 'borrow:50', onRollback: 'wait:500' });
    assert.equal(typeof g.nextId(), 'bigint');
    const g2 = new Snowflake({ datacenter: 0, worker: 0, onExhausted: 'wait', onRollback: 'continue' });
    assert.equal(typeof g2.nextId(), 'bigint');
  });

  test('stats has the counters', () => {
    const g = new Snowflake({ datacenter: 0, worker: 1 });
    g.nextIds(5);
    const s = g.stats;
    for (const k of ['issued', 'waits', 'rollbacks', 'leadMs', 'maxLeadMs']) assert.equal(typeof s[k], 'number', k);
    assert.equal(s.issued, 5);
  });

  test('random: true fills node fields that are not given', () => {
    const g = new Snowflake({ layout: 'twitter', datacenter: 7, random: true });
    const p = g.parse(g.nextId());
    assert.equal(p.datacenter, 7);
    assert.ok(Number.isInteger(p.worker) && p.worker >= 0 && p.worker <= 31);
  });

  test('node values as bigint', () => {
    const g = new Snowflake({ layout: 'twitter', datacenter: 1n, worker: 31n });
    assert.equal(g.parse(g.nextId()).worker, 31);
  });
});

describe('Snowflake errors', () => {
  test('a node field not given: MissingFieldError (no silent default)', () => {
    const e = thrown(() => new Snowflake({ layout: 'twitter', datacenter: 1 }));
    assertKind(e, 'missing_field');
    assert.match(e.message, /worker/);
  });
  test('a node value too large or negative: ValueOutOfRangeError (a RangeError)', () => {
    for (const worker of [32, -1, 32n, 2n ** 64n]) {
      const e = thrown(() => new Snowflake({ layout: 'twitter', datacenter: 0, worker }), `worker ${worker}`);
      assertKind(e, 'value_out_of_range', `worker ${worker}`);
      assert.ok(e instanceof RangeError);
      assert.ok(e.message.includes(String(worker)), e.message);
    }
  });
  test('a node value that is not a whole number: InvalidArgumentError', () => {
    for (const worker of [1.5, NaN, '3', null, 2 ** 60]) {
      const e = thrown(() => new Snowflake({ layout: 'twitter', datacenter: 0, worker }), `worker ${worker}`);
      assert.ok(e instanceof idmint.IdmintError, `${worker}: ${e}`);
      assert.ok(['invalid_argument', 'value_out_of_range'].includes(e.kind), `${worker}: ${e.kind}`);
    }
  });
  test('an unknown field: UnknownFieldError', () => {
    assertKind(thrown(() => new Snowflake({ layout: 'twitter', datacenter: 0, worker: 0, shard: 1 })), 'unknown_field');
  });
  test('a bad layout: InvalidLayoutError', () => {
    assertKind(thrown(() => new Snowflake({ layout: 'twiter', worker: 0 })), 'invalid_layout');
  });
  test('an epoch in the future: EpochInFutureError', () => {
    assertKind(thrown(() => new Snowflake({ layout: 'twitter', epoch: '9000-01-01T00:00:00Z', datacenter: 0, worker: 0 })), 'epoch_in_future');
  });
  test('a layout whose time ran out: LayoutExhaustedError', () => {
    // the baidu preset's 28-bit seconds ran out on 2024-11-20
    assertKind(thrown(() => new Snowflake({ layout: 'baidu', worker: 1 })), 'layout_exhausted');
  });
  test('bad epochs and policies: InvalidArgumentError', () => {
    for (const opts of [
      { epoch: 'yesterday' },
      { epoch: -5 },
      { epoch: 1.5 },
      { epoch: new Date(NaN) },
      { onExhausted: 'spin' },
      { onRollback: 'wait' },
      { onRollback: 'ignore' },
    ]) {
      const e = thrown(() => new Snowflake({ layout: 'twitter', datacenter: 0, worker: 0, ...opts }), JSON.stringify(opts));
      assertKind(e, 'invalid_argument', JSON.stringify(opts));
    }
  });
  test('nextIds with a bad count: InvalidArgumentError', () => {
    const g = new Snowflake({ datacenter: 0, worker: 0 });
    for (const n of [-1, 1.5, '10', 2 ** 40]) assertKind(thrown(() => g.nextIds(n)), 'invalid_argument', String(n));
  });
});

describe('no silent precision loss', () => {
  const layout = 'twitter';
  test('a number above 2^53-1 is a RangeError naming the value', () => {
    for (const id of [2 ** 53, 2 ** 60, 1e20, Number.MAX_VALUE]) {
      const e = thrown(() => idmint.parse(id, layout), String(id));
      assertKind(e, 'invalid_id', String(id));
      assert.ok(e instanceof RangeError);
      assert.ok(e.message.includes(String(id)), e.message);
    }
  });
  test('negative values are RangeErrors naming the value', () => {
    for (const id of [-1, -1n, '-1', -(2n ** 70n)]) {
      const e = thrown(() => idmint.parse(id, layout), String(id));
      assertKind(e, 'invalid_id', String(id));
      assert.ok(e instanceof RangeError);
      assert.ok(e.message.includes(String(id)), e.message);
    }
  });
  test('anything above 2^63-1 is a RangeError naming the value', () => {
    for (const id of [MAX_I64 + 1n, 2n ** 64n - 1n, 2n ** 64n, 2n ** 200n, String(MAX_I64 + 1n)]) {
      const e = thrown(() => idmint.parse(id, layout), String(id));
      assertKind(e, 'invalid_id', String(id));
      assert.ok(e instanceof RangeError);
      assert.ok(e.message.includes(String(id)), e.message);
    }
  });
  test('not a whole number, or not an ID type: InvalidIdError', () => {
    for (const id of [1.5, NaN, Infinity, null, undefined, {}, true, ' 1', '1 ']) {
      assertKind(thrown(() => idmint.parse(id, layout), String(id)), 'invalid_id', String(id));
    }
  });
  test('2^63-1 is accepted exactly, as bigint and as string', () => {
    const l = 'time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657';
    const a = idmint.parse(MAX_I64, l);
    assert.deepEqual(idmint.parse(String(MAX_I64), l), a);
    assert.equal(idmint.compose(a, l), MAX_I64);
  });
  test('2^53-1 as a number is accepted', () => {
    const l = 'time:35@100ms,sequence:10,node:8';
    assert.equal(idmint.compose(idmint.parse(2 ** 53 - 1, l), l), 2n ** 53n - 1n);
  });
  test('compose needs the layout; parse without one reads a decimal ID only as an integer', () => {
    const p = idmint.parse(1n);
    assert.equal(p.format, 'integer');
    assert.equal(p.value, 1n);
    assert.equal(p.time, null);
    assertKind(thrown(() => idmint.compose({ timestampMs: 0, sequence: 0, shard: 0 })), 'invalid_argument');
  });
  test('compose needs a time and a sequence; time and timestampMs must agree', () => {
    assertKind(thrown(() => idmint.compose({ sequence: 0, shard: 0 }, 'redis-lua')), 'invalid_argument');
    assertKind(thrown(() => idmint.compose({ timestampMs: 1, shard: 0 }, 'redis-lua')), 'invalid_argument');
    assertKind(
      thrown(() => idmint.compose({ timestampMs: 1, time: new Date(2), sequence: 0, shard: 0 }, 'redis-lua')),
      'invalid_argument'
    );
    assertKind(thrown(() => idmint.compose({ timestampMs: 2 ** 60, sequence: 0, shard: 0 }, 'redis-lua')), 'invalid_argument');
  });
});

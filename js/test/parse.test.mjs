// One `parse` for every format, and 64-bit layouts (issue 28): tests/vectors/formats.json, each
// format's own published examples (Discord's docs, RFC 9562, ulid/spec, segmentio/ksuid, rs/xid,
// tsid-creator, the MongoDB manual), decoded by the package under test. Shared suite: Node
// (both packages) and headless Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors } from './target.mjs';
import { throwsKind } from './helpers.mjs';

const { parse, guess, compose, Layout, Snowflake, ObjectId, PRESETS, UNSIGNED_PRESETS } = idmint;
const F = vectors.formats;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A vector's part value as the package gives it: numbers, bigints above 2^53-1, text. */
function expectedPart(v) {
  if (typeof v !== 'number') return v;
  const b = BigInt(v); // the vectors' large values (a UUIDv1's 60-bit count) are exact doubles
  return b <= MAX_SAFE ? v : b;
}

/** Check a `parse` result against a `decode` vector. */
function assertDecoded(got, v, what) {
  assert.equal(got.format, v.format, `${what}: format`);
  assert.equal(got.id, v.id, `${what}: id`);
  assert.equal(got.value, v.value === null ? null : BigInt(v.value), `${what}: value`);
  assert.equal(got.timestampMs, v.time_ms, `${what}: timestampMs`);
  assert.equal(got.timeText, v.time, `${what}: timeText`);
  if (v.time_ms === null) assert.equal(got.time, null, `${what}: time`);
  else assert.equal(got.time.getTime(), v.time_ms, `${what}: time`);
  if (v.format === 'snowflake') assert.equal(got.layout, v.layout, `${what}: layout`);
  else assert.equal(got.layout, null, `${what}: layout`);
  const want = {};
  for (const [k, x] of Object.entries(v.parts)) want[k] = expectedPart(x);
  assert.deepEqual(got.parts, want, `${what}: parts`);
  assert.deepEqual(Object.keys(got.parts), Object.keys(v.parts), `${what}: parts in bit order`);
}

test('the 64-bit presets are the core\'s, and each is a 64-bit layout', () => {
  assert.deepEqual([...UNSIGNED_PRESETS], F.presets.map((p) => p.layout));
  for (const p of F.presets) {
    const l = new Layout(p.layout);
    assert.equal(l.spec, p.spec, p.layout);
    assert.equal(l.totalBits, p.total_bits, p.layout);
    assert.equal(l.maxId, (1n << 64n) - 1n, p.layout);
    assert.equal(l.preset, p.layout, p.layout);
  }
  assert.ok(!PRESETS.includes('discord'), 'PRESETS are the ones a generator mints with as they are');
});

test('Discord\'s documented example: 2016-04-30T11:18:25.796Z, worker 1, process 0, increment 7', () => {
  for (const id of [175928847299117063n, '175928847299117063']) {
    const p = parse(id, 'discord');
    assert.equal(p.time.toISOString(), '2016-04-30T11:18:25.796Z');
    assert.equal(p.timestampMs, 1462015105796);
    assert.equal(p.worker, 1);
    assert.equal(p.process, 0);
    assert.equal(p.sequence, 7);
  }
  const g = guess('175928847299117063').find((d) => d.layout === 'discord');
  assert.equal(g.timeText, '2016-04-30T11:18:25.796Z');
  assert.deepEqual(g.parts, { worker: 1, process: 0, sequence: 7 });
});

test('64-bit snowflakes parse and compose back, the top bit set among them, as bigints', () => {
  for (const v of F.snowflakes) {
    const what = `${v.name} (${v.layout})`;
    const layout = new Layout(v.layout);
    for (const id of [BigInt(v.id), v.id]) {
      const p = layout.parse(id);
      assert.equal(p.timestampMs, v.time_ms, `${what}: timestampMs`);
      assert.equal(p.time.toISOString(), v.time, `${what}: time`);
      assert.equal(p.sequence, v.sequence, `${what}: sequence`);
      for (const [k, x] of Object.entries(v.fields)) assert.equal(p[k], x, `${what}: ${k}`);
      assert.deepEqual(parse(id, v.layout), p, `${what}: parse(id, layout)`);
    }
    const back = compose({ timestampMs: v.time_ms, sequence: v.sequence, ...v.fields }, layout);
    assert.equal(typeof back, 'bigint', what);
    assert.equal(back, BigInt(v.id), `${what}: compose`);
  }
  // The top bit: composed, parsed, never wrapped to a negative or rounded.
  const top = compose({ timestampMs: 1420070400000 + 2 ** 41, worker: 0, process: 0, sequence: 0 }, 'discord');
  assert.equal(top, 1n << 63n);
  assert.equal(parse(top, 'discord').timestampMs, 1420070400000 + 2 ** 41);
  assert.equal(parse(String(top), 'discord').timestampMs, 1420070400000 + 2 ** 41);
  const max = (1n << 64n) - 1n;
  const p = parse(max, 'instagram');
  assert.equal(compose(p, 'instagram'), max);
});

test('64-bit IDs a layout cannot hold, and bad 64-bit specs, are the core\'s errors', () => {
  for (const v of F.invalid_snowflakes) {
    for (const id of [v.id, BigInt(v.id)]) throwsKind(() => parse(id, v.layout), v.error, v.name);
  }
  for (const v of F.invalid_layouts) throwsKind(() => new Layout(v.layout), v.error, v.name);
  // A 63-bit layout still stops at 2^63-1; a 64-bit spec without `unsigned` says how.
  throwsKind(() => parse(1n << 63n, 'twitter'), 'invalid_id');
  const e = throwsKind(() => new Layout('time:42,worker:10,sequence:12'), 'invalid_layout');
  assert.match(e.message, /unsigned/);
  // Numbers above 2^53 are never taken as IDs: they are not exact.
  throwsKind(() => parse(2 ** 63, 'discord'), 'invalid_id');
});

test('minting with a 64-bit layout needs the explicit opt-in `unsigned: true`', () => {
  const e = throwsKind(() => new Snowflake({ layout: 'discord', worker: 1, process: 0 }), 'invalid_layout');
  assert.match(e.message, /64 bits/);
  assert.match(e.message, /unsigned/i);
  const gen = new Snowflake({ layout: 'discord', worker: 1, process: 2, unsigned: true });
  const a = gen.nextId();
  const b = gen.nextId();
  assert.equal(typeof a, 'bigint');
  assert.ok(b > a);
  assert.equal(gen.parse(b).worker, 1);
  assert.equal(gen.parse(b).process, 2);
  assert.equal(BigInt(gen.nextIdString()) > b, true);
  const batch = gen.nextIds(1000);
  assert.equal(new Set(batch).size, 1000);
  // With an epoch that puts now past 2^29 ms of a 30-bit time field (12 days from the epoch),
  // every ID has the top bit set.
  const late = new Snowflake({
    layout: 'time:30,worker:22,sequence:12,unsigned',
    epoch: Date.now() - 2 ** 29 - 60_000,
    worker: 3,
    unsigned: true,
  });
  for (const id of [late.nextId(), late.nextId(), ...late.nextIds(10)]) {
    assert.ok(id >= 1n << 63n, `top bit set: ${id}`);
    assert.ok(id <= (1n << 64n) - 1n);
    assert.equal(late.parse(id).worker, 3);
    assert.equal(late.compose(late.parse(id)), id);
  }
  assert.ok(BigInt(late.nextIdString()) >= 1n << 63n);
  // A layout without a node field never mints, opt-in or not.
  throwsKind(() => new Snowflake({ layout: 'mastodon', unsigned: true }), 'invalid_layout');
});

test('parse reads every format from its own published examples', () => {
  for (const v of F.decode) {
    const what = `${v.name}: ${v.text}`;
    if (v.layout === null) {
      assertDecoded(parse(v.text), v, what);
    } else {
      // A decimal ID with a layout is that layout's snowflake: parts as Layout.parse has them.
      const p = parse(v.text, v.layout);
      assert.equal(p.timestampMs, v.time_ms, what);
      for (const [k, x] of Object.entries(v.parts)) assert.equal(p[k], x, `${what}: ${k}`);
      const g = guess(v.text).find((d) => d.layout === v.layout);
      assertDecoded(g, v, `${what} (guess)`);
    }
  }
});

test('parse takes bigints, safe numbers and ObjectIds too; text of other formats ignores a layout', () => {
  const int = parse(175928847299117063n);
  assert.equal(int.format, 'integer');
  assert.equal(int.value, 175928847299117063n);
  assert.equal(int.time, null);
  assert.equal(parse(42).value, 42n);
  throwsKind(() => parse(2 ** 60), 'invalid_id');
  const u64 = parse((1n << 64n) - 1n);
  assert.deepEqual(u64.parts, { bits: 64, as_signed: '-1' });
  const oid = new ObjectId('507f1f77bcf86cd799439011');
  const d = parse(oid);
  assert.equal(d.format, 'objectid');
  assert.equal(d.time.toISOString(), '2012-10-17T21:13:27.000Z');
  assert.equal(parse('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'twitter').format, 'ulid');
});

test('guess gives every preset\'s reading, and only those that can hold the ID', () => {
  const all = guess(175928847299117063n);
  assert.ok(all.length >= 5);
  assert.ok(all.every((d) => d.format === 'snowflake' && typeof d.layout === 'string'));
  assert.ok(all.every((d) => d.value === 175928847299117063n));
  const top = guess((1n << 63n).toString());
  assert.deepEqual(top.map((d) => d.layout).sort(), [...UNSIGNED_PRESETS].sort());
  throwsKind(() => guess('abc'), 'invalid_id');
  throwsKind(() => guess(-1n), 'invalid_id');
});

test('text no format reads is an InvalidIdError naming the formats tried', () => {
  for (const v of F.invalid) {
    const e = throwsKind(() => parse(v.text), v.error, `${v.name}: ${JSON.stringify(v.text)}`);
    assert.ok(e instanceof RangeError || v.error !== 'invalid_id');
  }
  const e = throwsKind(() => parse('hello'), 'invalid_id');
  for (const name of ['ObjectId', 'UUID', 'ULID', 'KSUID', 'xid', 'TSID']) assert.ok(e.message.includes(name), name);
  throwsKind(() => parse({}), 'invalid_id');
  throwsKind(() => parse(undefined), 'invalid_id');
});

// ObjectId: generation, conversions, equality, errors.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { idmint } from './target.mjs';
import { thrown, assertKind } from './helpers.mjs';

const { ObjectId } = idmint;

describe('ObjectId', () => {
  test('new ObjectId(): 24 lowercase hex, unique, fields consistent with the hex', () => {
    const seen = new Set();
    const n = 100_000;
    for (let i = 0; i < n; i++) seen.add(new ObjectId().toHexString());
    assert.equal(seen.size, n);
    const o = new ObjectId();
    const hex = o.toHexString();
    assert.match(hex, /^[0-9a-f]{24}$/);
    assert.equal(o.toString(), hex);
    assert.equal(o.toJSON(), hex);
    assert.equal(o.getTimestamp().getTime(), parseInt(hex.slice(0, 8), 16) * 1000);
  });

  test('new ObjectIds are handed out of blocks: no duplicates across blocks and seconds, each with its own time', () => {
    const seen = new Set();
    const seconds = new Set();
    let made = 0;
    const t0 = Date.now();
    // Until two second changes were crossed (at most ~2 s), so blocks get dropped part-used.
    while (seconds.size < 3 && Date.now() - t0 < 2500) {
      for (let i = 0; i < 1000; i++) {
        const before = Math.floor(Date.now() / 1000);
        const o = i % 3 ? new ObjectId() : new ObjectId(ObjectId.generateHex());
        const after = Math.floor(Date.now() / 1000);
        const hex = o.toHexString();
        const s = parseInt(hex.slice(0, 8), 16);
        assert.equal(o.getTimestamp().getTime(), s * 1000);
        if (s < before - 1 || s > after + 1) assert.fail(`${hex}: second ${s} outside ${before}..${after}`);
        seen.add(hex);
        seconds.add(s);
        made++;
      }
    }
    assert.equal(seen.size, made, 'duplicates');
    assert.ok(seconds.size >= 2, 'crossed a second');
  });

  test('a block left over from an earlier second is not used once the event loop ran', async () => {
    const first = new ObjectId();
    const s0 = parseInt(first.toHexString().slice(0, 8), 16);
    // past the end of that second, then a few ms for the timer
    await new Promise((resolve) => setTimeout(resolve, (s0 + 1) * 1000 - Date.now() + 20));
    const later = new ObjectId(); // the 2nd ID of its block, where the clock is not read
    const s1 = parseInt(later.toHexString().slice(0, 8), 16);
    assert.ok(s1 > s0, `${later.toHexString()} carries second ${s1}, not after ${s0}`);
    assert.equal(s1, Math.floor(Date.now() / 1000));
  });

  test('new ObjectId(hex): canonical text is kept, other case is made canonical, others are refused by the core', () => {
    const hex = '507f1f77bcf86cd799439011';
    assert.equal(new ObjectId(hex).toHexString(), hex);
    assert.equal(new ObjectId(hex).getTimestamp().toISOString(), '2012-10-17T21:13:27.000Z');
    assert.equal(new ObjectId(hex.toUpperCase()).toHexString(), hex);
    assert.equal(new ObjectId(hex.toUpperCase()).getTimestamp().toISOString(), '2012-10-17T21:13:27.000Z');
    // U+0130's low byte is '0'; U+0161's is 'a': refused, not cut to a byte
    for (const bad of [hex.slice(0, 23) + '\u0130', '\u0161' + hex.slice(1), hex.slice(0, 23) + 'g', hex + '0', hex.slice(1), '']) {
      const e = thrown(() => new ObjectId(bad), JSON.stringify(bad));
      assertKind(e, 'invalid_object_id');
    }
  });

  test('one process shares one random value, and the counter steps by one', () => {
    const a = new ObjectId().toHexString();
    const b = new ObjectId().toHexString();
    assert.equal(a.slice(8, 18), b.slice(8, 18));
    assert.equal((parseInt(a.slice(18), 16) + 1) % 0x1000000, parseInt(b.slice(18), 16));
  });

  test('equals: ObjectId, hex in either case; false for others', () => {
    const o = new ObjectId();
    const hex = o.toHexString();
    assert.ok(o.equals(o));
    assert.ok(o.equals(new ObjectId(hex)));
    assert.ok(o.equals(hex));
    assert.ok(o.equals(hex.toUpperCase()));
    assert.equal(o.equals(new ObjectId()), false);
    assert.equal(o.equals('nope'), false);
    assert.equal(o.equals(null), false);
    assert.equal(o.equals(undefined), false);
    assert.equal(o.equals(42), false);
  });

  test('copy from another ObjectId', () => {
    const o = new ObjectId();
    assert.equal(new ObjectId(o).toHexString(), o.toHexString());
  });

  test('invalid input: InvalidObjectIdError', () => {
    for (const bad of ['', 'xyz', '507f1f77bcf86cd79943901g', null, 42, {}, []]) {
      assertKind(thrown(() => new ObjectId(bad), String(bad)), 'invalid_object_id', String(bad));
      assert.equal(ObjectId.isValid(bad), false);
    }
    assertKind(thrown(() => ObjectId.createFromHexString(42)), 'invalid_object_id');
  });

  test('JSON: toJSON gives the hex string', () => {
    const o = new ObjectId();
    assert.equal(JSON.stringify([o]), `["${o.toHexString()}"]`);
  });
});

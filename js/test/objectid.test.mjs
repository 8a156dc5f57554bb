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

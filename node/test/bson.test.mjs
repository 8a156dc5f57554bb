// Interop with the bson package's ObjectId, both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as bson from 'bson';
import { ObjectId, InvalidArgumentError } from '../index.mjs';

test('bson ObjectId -> idmint ObjectId', () => {
  const b = new bson.ObjectId();
  const o = new ObjectId(b);
  assert.equal(o.toHexString(), b.toHexString());
  assert.ok(o.equals(b));
  assert.equal(o.getTimestamp().getTime(), b.getTimestamp().getTime());
  assert.deepEqual([...o.id], [...b.id]);
  assert.ok(new ObjectId(b.id).equals(b), 'from bson bytes');
});

test('idmint ObjectId -> bson ObjectId (constructor, hex, bytes)', () => {
  const o = new ObjectId();
  for (const b of [new bson.ObjectId(o), new bson.ObjectId(o.toHexString()), new bson.ObjectId(o.id)]) {
    assert.equal(b.toHexString(), o.toHexString());
    assert.ok(b.equals(o.toHexString()));
    assert.equal(b.getTimestamp().getTime(), o.getTimestamp().getTime());
  }
  assert.ok(bson.ObjectId.isValid(o.toHexString()));
});

test('round trip through BSON bytes after converting to bson.ObjectId', () => {
  const o = new ObjectId();
  const bytes = bson.serialize({ _id: new bson.ObjectId(o) });
  const back = bson.deserialize(bytes);
  assert.ok(o.equals(back._id));
  assert.equal(new ObjectId(back._id).toHexString(), o.toHexString());
});

test('bson.serialize of an unconverted idmint ObjectId fails loudly instead of storing the wrong value', () => {
  const o = new ObjectId();
  assert.throws(() => bson.serialize({ _id: o }), InvalidArgumentError);
});

test('ObjectId from bson for many values: same bytes, same timestamp', () => {
  for (let i = 0; i < 1000; i++) {
    const b = new bson.ObjectId();
    const o = new ObjectId(b.toHexString());
    assert.equal(Buffer.compare(o.id, Buffer.from(b.id)), 0);
  }
});

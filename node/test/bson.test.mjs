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

test('after ObjectId.useBson(bson), bson stores an idmint ObjectId as _id: the same bytes as its own', () => {
  ObjectId.useBson(bson);
  try {
    const o = new ObjectId();
    const nested = new ObjectId('507f1f77bcf86cd799439011');
    const ours = bson.serialize({ _id: o, ref: nested, list: [nested] });
    const theirs = bson.serialize({
      _id: bson.ObjectId.createFromHexString(o.toHexString()),
      ref: new bson.ObjectId(nested.toHexString()),
      list: [new bson.ObjectId(nested.toHexString())],
    });
    assert.equal(Buffer.compare(Buffer.from(ours), Buffer.from(theirs)), 0, 'byte for byte');
    assert.equal(bson.calculateObjectSize({ _id: o }), bson.calculateObjectSize({ _id: new bson.ObjectId(o.id) }));
    const back = bson.deserialize(ours);
    assert.ok(back._id instanceof bson.ObjectId, 'read back as an ObjectId (BSON type 0x07), not a document');
    assert.equal(back._id.toHexString(), o.toHexString());
    // and back into idmint's
    assert.ok(new ObjectId(back._id).equals(o));
    assert.equal(new ObjectId(back.list[0]).toHexString(), '507f1f77bcf86cd799439011');
  } finally {
    ObjectId.useBson(null);
  }
  assert.throws(() => bson.serialize({ _id: new ObjectId() }), InvalidArgumentError, 'null: refusing again');
  assert.throws(() => ObjectId.useBson({}), InvalidArgumentError);
  assert.throws(() => ObjectId.useBson(undefined), InvalidArgumentError);
});

test('ObjectId from bson for many values: same bytes, same timestamp', () => {
  for (let i = 0; i < 1000; i++) {
    const b = new bson.ObjectId();
    const o = new ObjectId(b.toHexString());
    assert.equal(Buffer.compare(o.id, Buffer.from(b.id)), 0);
  }
});

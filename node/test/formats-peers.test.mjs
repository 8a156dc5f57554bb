// A second check of `parse` and the 64-bit layouts, against each ecosystem's own library
// (devDependencies): `ulid` (ulid/javascript), `bson` (MongoDB's ObjectId) and
// `@sapphire/snowflake` (Discord's snowflakes). Their IDs, made by them, read alike here; and
// the IDs idmint mints with the `discord` layout read alike there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ulidLib from 'ulid';
import * as bson from 'bson';
import { DiscordSnowflake } from '@sapphire/snowflake';
import { parse, Snowflake, compose } from '../index.mjs';

test('ULIDs made by the ulid package: the same time, the same canonical text', () => {
  const now = Date.now();
  const ids = [ulidLib.ulid(), ulidLib.ulid(0), ulidLib.ulid(now), ulidLib.ulid(2 ** 48 - 1), ulidLib.monotonicFactory()(now)];
  for (const id of ids) {
    const d = parse(id);
    assert.equal(d.format, 'ulid', id);
    assert.equal(d.id, id, id);
    assert.equal(d.timestampMs, ulidLib.decodeTime(id), id);
    assert.equal(d.parts.timestamp, ulidLib.decodeTime(id), id);
    assert.equal(parse(id.toLowerCase()).id, id);
  }
  // The spec's example, and its UUID form (the same 128 bits) read as a UUID.
  const spec = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
  assert.equal(parse(spec).timestampMs, ulidLib.decodeTime(spec));
  const asUuid = parse(ulidLib.ulidToUUID(spec));
  assert.equal(asUuid.format, 'uuid');
  assert.equal(asUuid.id, ulidLib.ulidToUUID(spec).toLowerCase());
});

test('ObjectIds made by bson: the same seconds, the same hex', () => {
  const ids = [new bson.ObjectId(), bson.ObjectId.createFromTime(0), bson.ObjectId.createFromTime(0xffff_ffff),
    new bson.ObjectId('507f1f77bcf86cd799439011')];
  for (const oid of ids) {
    const hex = oid.toHexString();
    for (const input of [hex, hex.toUpperCase(), oid]) {
      const d = parse(input);
      assert.equal(d.format, 'objectid', hex);
      assert.equal(d.id, hex);
      assert.equal(d.time.getTime(), oid.getTimestamp().getTime(), hex);
      assert.equal(d.parts.time_s, oid.getTimestamp().getTime() / 1000, hex);
      assert.equal(d.parts.counter, Buffer.from(oid.id).readUIntBE(9, 3), hex);
    }
  }
});

test('Discord snowflakes: @sapphire/snowflake and the discord layout agree, both ways', () => {
  const ours = new Snowflake({ layout: 'discord', worker: 17, process: 30, unsigned: true });
  const theirs = [
    '175928847299117063',
    DiscordSnowflake.generate(),
    DiscordSnowflake.generate({ timestamp: 1420070400000n + (1n << 41n), workerId: 31n, processId: 31n, increment: 4095n }),
    DiscordSnowflake.generate({ timestamp: 1420070400000n + (1n << 42n) - 1n, workerId: 0n, processId: 1n, increment: 0n }),
  ];
  for (const id of [...theirs, ours.nextId(), ...ours.nextIds(5)]) {
    const d = DiscordSnowflake.deconstruct(id);
    const p = parse(id, 'discord');
    assert.equal(BigInt(p.timestampMs), d.timestamp, String(id));
    assert.equal(BigInt(p.worker), d.workerId, String(id));
    assert.equal(BigInt(p.process), d.processId, String(id));
    assert.equal(BigInt(p.sequence), d.increment, String(id));
    const back = compose(p, 'discord');
    assert.equal(back, BigInt(id), String(id));
  }
  const top = BigInt(theirs[2]);
  assert.ok(top >= 1n << 63n, 'the top bit is set');
});

// tests/vectors/*.json against the package: decompose, compose, every invalid case.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors } from './target.mjs';
import { thrown, assertKind, partsOf } from './helpers.mjs';

const sf = vectors.snowflake;
const oid = vectors.objectid;

describe('snowflake vectors: valid', () => {
  test('there are vectors', () => assert.ok(sf.valid.length > 10));
  for (const v of sf.valid) {
    test(`${v.name}: parse (bigint and string) and compose`, () => {
      for (const id of [BigInt(v.id), v.id]) {
        const p = idmint.parse(id, v.layout);
        assert.equal(p.timestampMs, v.time_ms);
        assert.ok(p.time instanceof Date);
        assert.equal(p.time.getTime(), v.time_ms);
        assert.equal(p.time.toISOString(), v.time);
        assert.equal(p.sequence, v.sequence);
        for (const [name, value] of Object.entries(v.fields)) assert.equal(p[name], value, name);
        // `time` is a getter (a Date made only when read), the rest own fields
        const keys = Object.keys(p).sort();
        assert.deepEqual(keys, ['sequence', 'timestampMs', ...Object.keys(v.fields)].sort());
        assert.ok('time' in p);
        // parse output composes back to the same ID
        assert.equal(idmint.compose(p, v.layout), BigInt(v.id));
      }
      assert.equal(idmint.compose(partsOf(v), v.layout), BigInt(v.id));
      // `time` as a Date instead of timestampMs
      const { timestampMs, ...rest } = partsOf(v);
      assert.equal(idmint.compose({ ...rest, time: new Date(timestampMs) }, v.layout), BigInt(v.id));
    });
    if (BigInt(v.id) <= BigInt(Number.MAX_SAFE_INTEGER)) {
      test(`${v.name}: a safe-integer number is accepted`, () => {
        assert.equal(idmint.parse(Number(v.id), v.layout).sequence, v.sequence);
      });
    }
  }
});

describe('snowflake vectors: invalid ids', () => {
  for (const v of sf.invalid_ids) {
    test(`${v.name}: ${v.id}`, () => {
      const e = thrown(() => idmint.parse(v.id, v.layout), `parse(${JSON.stringify(v.id)})`);
      assertKind(e, v.error, v.name);
      assert.ok(e instanceof RangeError, 'an invalid id is a RangeError');
      if (v.id !== '') assert.ok(e.message.includes(v.id), `message names the value: ${e.message}`);
      if (/^-?[0-9]+$/.test(v.id)) {
        const e2 = thrown(() => idmint.parse(BigInt(v.id), v.layout), `parse(${v.id}n)`);
        assertKind(e2, v.error, `${v.name} (bigint)`);
        assert.ok(e2.message.includes(v.id), `message names the value: ${e2.message}`);
      }
    });
  }
});

describe('snowflake vectors: invalid parts', () => {
  for (const v of sf.invalid_parts) {
    test(`${v.name}: ${v.error}`, () => {
      const e = thrown(() => idmint.compose(partsOf(v.parts), v.layout), v.name);
      assertKind(e, v.error, v.name);
    });
  }
});

describe('snowflake vectors: invalid layouts', () => {
  for (const v of sf.invalid_layouts) {
    test(`${v.name}: ${JSON.stringify(v.layout)}`, () => {
      assertKind(thrown(() => idmint.parse('0', v.layout), v.name), v.error, `${v.name} (parse)`);
      assertKind(
        thrown(() => new idmint.Snowflake({ layout: v.layout, worker: 0 }), v.name),
        v.error,
        `${v.name} (Snowflake)`
      );
    });
  }
});

describe('snowflake vectors: exhausts_at', () => {
  for (const v of sf.exhausts_at) {
    test(v.layout, () => {
      const t = v.exhausts_at_ms - 1;
      // the last representable millisecond composes; the first past the end does not
      const fields = Object.fromEntries(
        idmint.parse('0', v.layout) && Object.keys(idmint.parse('0', v.layout))
          .filter((k) => !['time', 'timestampMs', 'sequence'].includes(k))
          .map((k) => [k, 0])
      );
      assert.equal(new Date(v.exhausts_at_ms).toISOString(), v.exhausts_at);
      const id = idmint.compose({ timestampMs: t, sequence: 0, ...fields }, v.layout);
      assert.ok(idmint.parse(id, v.layout).timestampMs <= t);
      assertKind(
        thrown(() => idmint.compose({ timestampMs: v.exhausts_at_ms, sequence: 0, ...fields }, v.layout)),
        'time_out_of_range',
        v.layout
      );
    });
  }
});

describe('objectid vectors', () => {
  for (const v of oid.valid) {
    test(`valid ${v.hex}`, () => {
      for (const o of [new idmint.ObjectId(v.hex), idmint.ObjectId.createFromHexString(v.hex)]) {
        assert.equal(o.toHexString(), v.hex);
        assert.equal(o.toString(), v.hex);
        assert.equal(o.toJSON(), v.hex);
        assert.equal(JSON.stringify({ o }), `{"o":"${v.hex}"}`);
        assert.equal(o.getTimestamp().getTime(), v.time_s * 1000);
        assert.equal(o.getTimestamp().toISOString().replace('.000Z', 'Z'), v.time);
        assert.ok(o.equals(v.hex));
        assert.ok(o.equals(new idmint.ObjectId(v.hex)));
        assert.ok(idmint.ObjectId.isValid(v.hex));
      }
    });
  }
  for (const v of oid.uppercase_input) {
    test(`uppercase ${v.hex}`, () => {
      const o = idmint.ObjectId.createFromHexString(v.hex);
      assert.equal(o.toHexString(), v.canonical);
      assert.ok(o.equals(v.canonical));
    });
  }
  for (const v of oid.invalid) {
    test(`invalid ${v.name}`, () => {
      assertKind(thrown(() => idmint.ObjectId.createFromHexString(v.hex)), v.error, v.name);
      assertKind(thrown(() => new idmint.ObjectId(v.hex)), v.error, v.name);
      assert.equal(idmint.ObjectId.isValid(v.hex), false);
    });
  }
});

// Layout#minIdAt / #maxIdAt, the bounds of a time-range query on an ID column: every case of
// tests/vectors/time_range.json (shared with the Rust, Python, JVM and PostgreSQL tests). Both
// packages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors } from './target.mjs';
import { thrown, assertKind } from './helpers.mjs';

const { Layout } = idmint;
const { valid, invalid } = vectors.time_range;

test('there are vectors', () => assert.ok(valid.length >= 20 && invalid.length >= 10));

for (const c of valid) {
  test(`time range: ${c.name}`, () => {
    const layout = new Layout(c.layout);
    const [lo, hi] = [layout.minIdAt(c.time_ms), layout.maxIdAt(c.time_ms)];
    assert.deepEqual([lo, hi], [BigInt(c.min_id), BigInt(c.max_id)]);
    // Every form of a time names the same tick.
    assert.equal(layout.minIdAt(new Date(c.time_ms)), lo);
    assert.equal(layout.minIdAt(BigInt(c.time_ms)), lo);
    assert.equal(layout.maxIdAt(c.time), hi);
    // The bounds are that tick's, and the ID below the first is the tick before's.
    assert.equal(layout.parse(lo).timestampMs, c.tick_ms);
    assert.equal(layout.parse(hi).timestampMs, c.tick_ms);
    if (lo > 0n) assert.ok(layout.parse(lo - 1n).timestampMs < c.tick_ms);
  });
}

for (const c of invalid) {
  test(`time range refused: ${c.name}`, () => {
    const layout = new Layout(c.layout);
    for (const bound of ['minIdAt', 'maxIdAt']) {
      const e = thrown(() => layout[bound](c.time_ms), bound);
      assertKind(e, c.error, `${c.name} ${bound}`);
      assert.ok(e.message.includes(String(c.time_ms)), e.message);
      assert.ok(e.message.includes(`${c.min_ms}..${c.end_ms}`), e.message);
    }
  });
}

test('a time that is no time is a typed error', () => {
  const layout = new Layout('twitter');
  assertKind(thrown(() => layout.minIdAt('yesterday')), 'invalid_argument');
  assertKind(thrown(() => layout.maxIdAt(1.5)), 'invalid_argument');
  assertKind(thrown(() => layout.maxIdAt(new Date(NaN))), 'invalid_argument');
  assertKind(thrown(() => layout.minIdAt(2 ** 60)), 'invalid_argument'); // not exact as a number
});

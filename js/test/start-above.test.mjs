// `startAbove` (the core's SnowflakeBuilder::start_above): every case of
// tests/vectors/start_above.json (shared with the Rust, Python and JVM tests). The package's
// generators run on the system clock, so a case is checked exactly where its outcome does not
// depend on the clock (the time it names is still ahead); elsewhere the clock is past the case's
// and the generator must mint above the ID at once. Both packages: the browser's checks the
// option in its display-ID module (web/index.js) and mints the first ID at the instant named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors } from './target.mjs';
import { thrown, assertKind } from './helpers.mjs';

const { Snowflake, InvalidArgumentError } = idmint;
const { cases } = vectors.start_above;

test('there are vectors', () => assert.ok(cases.length >= 10));

for (const c of cases) {
  test(`startAbove: ${c.name}`, () => {
    const make = () =>
      new Snowflake({ layout: c.layout, nodes: c.nodes, startAbove: BigInt(c.above), onRollback: c.on_rollback });
    const ahead = c.from_ms === null || c.from_ms > Date.now() + 60_000;
    if (ahead && c.first_id === undefined) {
      const e = thrown(make);
      assertKind(e, c.error);
      assert.ok(e instanceof InvalidArgumentError);
      assert.ok(e.message.includes(c.above), e.message);
      assert.ok(e.message.includes(c.from ?? 'never pass it'), e.message);
    } else if (ahead) {
      // 'continue' to a time still ahead: the first ID is that time's, whatever the clock
      assert.equal(make().nextId(), BigInt(c.first_id));
      const batch = make().nextIds(3); // a batch as the first call starts there too
      assert.deepEqual([...batch], [0n, 1n, 2n].map((i) => BigInt(c.first_id) + i));
    } else {
      const g = make();
      const [a, b] = [g.nextId(), g.nextId()];
      assert.ok(a > BigInt(c.above) && b > a);
      if (c.first_id !== undefined) assert.ok(a >= BigInt(c.first_id));
    }
  });
}

test('startAbove takes IDs up to 2^64-1 as bigints or text, and refuses what is no ID', () => {
  const later = { layout: 'time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z', worker: 1 };
  assertKind(thrown(() => new Snowflake({ ...later, startAbove: '18446744073709551615' })), 'invalid_argument');
  assertKind(thrown(() => new Snowflake({ ...later, startAbove: 2n ** 64n })), 'invalid_id');
  assertKind(thrown(() => new Snowflake({ ...later, startAbove: -1n })), 'invalid_id');
  assertKind(thrown(() => new Snowflake({ ...later, startAbove: 2 ** 60 })), 'invalid_id');
});

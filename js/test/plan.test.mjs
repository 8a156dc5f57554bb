// The layout planner, the migration check and TypeIDs, both packages: every case of
// tests/vectors/plan.json and typeid.json (shared with the Rust, Python and JVM tests).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors } from './target.mjs';
import { assertKind, thrown } from './helpers.mjs';

const { plan, checkMigration, parseTypeId, typeIdFromUuid, TypeIdGenerator, InvalidIdError, InvalidArgumentError } = idmint;

describe('plan (tests/vectors/plan.json)', () => {
  test('there are vectors', () => assert.ok(vectors.plan.valid.length >= 5 && vectors.plan.impossible.length >= 2));
  for (const c of vectors.plan.valid) {
    test(`meets ${c.name} as the oracle does`, () => {
      const n = c.need;
      const got = plan(n.nodes, n.rate, n.years, { start: n.start_ms, width: n.width });
      assert.deepEqual(
        got.map((p) => ({
          spec: p.spec, tick_ms: p.tickMs, time_bits: p.timeBits, node_bits: p.nodeBits,
          sequence_bits: p.sequenceBits, nodes: p.nodes, cap_per_second: Number(p.capPerSecond),
          end_ms: p.endMs, end: p.end.toISOString(), beyond_2_53_ms: p.beyond2p53Ms,
        })),
        c.layouts.map((l) => ({ ...l, end: new Date(Math.min(l.end_ms, 253402300799999)).toISOString() }))
      );
      for (const p of got) {
        assert.equal(typeof p.capPerSecond, 'bigint');
        assert.equal(new idmint.Layout(p.spec).spec, p.spec);
        assert.equal(p.beyond2p53 === null, p.beyond2p53Ms === null);
      }
    });
  }
  for (const c of vectors.plan.impossible) {
    test(`refuses ${c.name}, naming the bound`, () => {
      const n = c.need;
      const e = thrown(() => plan(n.nodes, n.rate, n.years, { start: n.start_ms, width: n.width }));
      assertKind(e, c.error);
      assert.ok(e instanceof InvalidArgumentError);
      assert.ok(e.message.includes(`= ${c.bound_bits} bits`), e.message);
    });
  }
  test('rates as text, bigints, and bad arguments', () => {
    assert.equal(plan(1024n, '4M/s', 69, { start: new Date(1288834974657) })[0].spec, 'time:41@1ms,worker:10,sequence:12,epoch=1288834974657');
    assertKind(thrown(() => plan(1, 1, 1, { width: '53' })), 'invalid_argument');
    assertKind(thrown(() => plan(0, 1, 1)), 'invalid_argument');
    assertKind(thrown(() => plan(1, 1.5, 1)), 'invalid_argument');
    assertKind(thrown(() => plan(1, 2n ** 64n, 1)), 'invalid_argument');
  });
  test('starts today, 00:00 UTC, by default (as the CLI)', () => {
    const day = 86_400_000;
    const before = Math.floor(Date.now() / day) * day; // and after, in case the call crosses midnight
    const epoch = Number(plan(1, 1, 1)[0].spec.split('epoch=')[1]);
    assert.ok([before, Math.floor(Date.now() / day) * day].includes(epoch), String(epoch));
  });
});

describe('checkMigration', () => {
  test('names when a later epoch becomes safe, IDs as bigints', () => {
    const later = 'time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z';
    const m = checkMigration('twitter', later, { above: 1541815603606036480n, at: '2026-01-01T00:00:00Z' });
    assert.equal(m.safe, false);
    assert.equal(m.oldMax, 1541815603606036480n);
    assert.equal(m.safeFromMs, 2071664685449);
    assert.equal(m.safeFrom.toISOString(), '2035-08-25T14:24:45.449Z');
    const wider = new idmint.Layout('time:38@1ms,worker:12,sequence:13,epoch=1700000000000');
    assert.equal(checkMigration('twitter', wider, { at: 1767225600000 }).safe, true);
    // an ID above 2^63 (an unsigned layout's) arrives whole
    assert.equal(checkMigration('discord', later, { above: 2n ** 64n - 1n, at: 1767225600000 }).oldMax, 2n ** 64n - 1n);
    assertKind(thrown(() => checkMigration('twitter', later, { above: 2n ** 64n })), 'invalid_id');
  });
});

describe('TypeID (tests/vectors/typeid.json)', () => {
  test('there are vectors', () => assert.ok(vectors.typeid.valid.length >= 9 && vectors.typeid.invalid.length >= 19));
  for (const c of vectors.typeid.valid) {
    test(`valid ${c.name} round-trips`, () => {
      const t = parseTypeId(c.typeid);
      assert.equal(t.typeid, c.typeid);
      assert.equal(t.prefix, c.prefix);
      assert.equal(t.uuid, c.uuid);
      assert.deepEqual(typeIdFromUuid(c.prefix, c.uuid), t);
    });
  }
  for (const c of vectors.typeid.invalid) {
    test(`invalid ${c.name} is refused`, () => {
      const e = thrown(() => parseTypeId(c.typeid));
      assertKind(e, c.error);
      assert.ok(e instanceof InvalidIdError);
    });
  }
  test('a generator mints increasing TypeIDs of its prefix, with the time of its UUIDv7', () => {
    const g = new TypeIdGenerator('user');
    const before = Date.now();
    const ids = Array.from({ length: 100 }, () => g.next());
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, 100);
    const t = parseTypeId(ids[0]);
    assert.equal(t.prefix, 'user');
    assert.ok(Math.abs(t.time.getTime() - before) < 60_000);
    assert.equal(g.prefix, 'user');
    assert.equal(parseTypeId(new TypeIdGenerator().next()).prefix, '');
    assertKind(thrown(() => new TypeIdGenerator('User')), 'invalid_argument');
    assertKind(thrown(() => parseTypeId(42)), 'invalid_id');
  });
});

// Restart safety: `resumeAfter` (the core's SnowflakeBuilder::resume_after) continues after the
// last ID issued before a restart, and makes the rollback policies reachable from JS: a clock
// behind that ID's time is a real clock_moved_backwards.
//
// Native-only for now: the wasm package may not have the option yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Snowflake, Layout, ClockMovedBackwardsError, IdmintError } from '../index.mjs';
import { thrown, assertKind } from '../../js/test/helpers.mjs';

const twitter = new Layout('twitter');
const NODES = { datacenter: 1, worker: 7 };
/** An ID of this node composed with a time `aheadMs` from now (negative: in the past). */
const idAt = (aheadMs, sequence = 5) =>
  twitter.compose({ timestampMs: Date.now() + aheadMs, ...NODES, sequence });

test("resumeAfter an ID 10 s in the future, onRollback 'error': ClockMovedBackwardsError", () => {
  const last = idAt(10_000);
  const g = new Snowflake({ ...NODES, resumeAfter: last, onRollback: 'error' });
  for (const call of [() => g.nextId(), () => g.nextIdString(), () => g.nextIds(3)]) {
    const e = thrown(call);
    assertKind(e, 'clock_moved_backwards');
    assert.ok(e instanceof ClockMovedBackwardsError && e instanceof IdmintError);
    const behind = Number(/it is (\d+) ms behind/.exec(e.message)?.[1]);
    assert.ok(behind > 9_000 && behind <= 10_000, e.message);
  }
  // 'error' is the default policy
  assertKind(thrown(() => new Snowflake({ ...NODES, resumeAfter: last }).nextId()), 'clock_moved_backwards');
});

test("resumeAfter an ID 10 s in the future, onRollback 'continue': IDs greater than it, increasing", () => {
  const last = idAt(10_000);
  for (const resumeAfter of [last, String(last)]) {
    const g = new Snowflake({ ...NODES, resumeAfter, onRollback: 'continue' });
    const a = g.nextId();
    assert.equal(a, last + 1n, 'the next sequence number of the same tick');
    const b = BigInt(g.nextIdString());
    const batch = g.nextIds(5000);
    assert.ok(b > a && batch[0] > b);
    for (let i = 1; i < batch.length; i++) assert.ok(batch[i] > batch[i - 1]);
    const p = g.parse(a);
    assert.equal(p.datacenter, 1);
    assert.equal(p.worker, 7);
    assert.equal(p.sequence, 6);
  }
});

test("resumeAfter an ID 300 ms ahead, onRollback 'wait:2000': waits for the clock, then continues", () => {
  const last = idAt(300);
  const g = new Snowflake({ ...NODES, resumeAfter: last, onRollback: 'wait:2000' });
  const t0 = Date.now();
  const id = g.nextId();
  assert.ok(id > last);
  assert.ok(Date.now() - t0 >= 150, `waited ${Date.now() - t0} ms`);
  // a wait longer than the policy allows is an error
  const far = new Snowflake({ ...NODES, resumeAfter: idAt(10_000), onRollback: 'wait:50' });
  assertKind(thrown(() => far.nextId()), 'clock_moved_backwards');
});

test('resumeAfter an ID from the past (the usual restart): no error, IDs greater than it', () => {
  const last = idAt(-5_000, 4095);
  const g = new Snowflake({ ...NODES, resumeAfter: last });
  const id = g.nextId();
  assert.ok(id > last);
  assert.ok(g.parse(id).timestampMs >= Date.now() - 1_000);
  // a small number is taken too
  assert.ok(new Snowflake({ ...NODES, resumeAfter: 12345 }).nextId() > 12345n);
});

test('a bad resumeAfter is an InvalidIdError (a RangeError) naming the value', () => {
  const cases = [
    [-1n, '-1'],
    ['-1', '-1'],
    [2n ** 63n, '9223372036854775808'],
    ['18446744073709551616', '18446744073709551616'],
    ['12a', '12a'],
    [' 1', ' 1'],
    [2 ** 60, '1152921504606846976'],
    [1.5, '1.5'],
    [null, 'null'],
    [{}, 'object'],
  ];
  for (const [bad, shown] of cases) {
    const e = thrown(() => new Snowflake({ ...NODES, resumeAfter: bad }), String(bad));
    assertKind(e, 'invalid_id', String(bad));
    assert.ok(e instanceof RangeError);
    assert.ok(e.message.includes(shown), `${e.message} names ${shown}`);
  }
  // an ID with bits above the layout's
  const e = thrown(() => new Snowflake({ layout: 'time:31@1s,worker:10,sequence:12', epoch: '2020-01-01T00:00:00Z', worker: 1, resumeAfter: 2n ** 60n }));
  assertKind(e, 'invalid_id');
  assert.match(e.message, /1152921504606846976/);
});

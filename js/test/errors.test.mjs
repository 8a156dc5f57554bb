// The error classes: one per core kind, with stable code and kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idmint } from './target.mjs';
import { className } from './helpers.mjs';

const KINDS = [
  'invalid_layout',
  'value_out_of_range',
  'unknown_field',
  'missing_field',
  'time_out_of_range',
  'epoch_in_future',
  'layout_exhausted',
  'clock_moved_backwards',
  'invalid_id',
  'invalid_object_id',
  'invalid_argument',
];
const RANGE = new Set(['value_out_of_range', 'time_out_of_range', 'invalid_id', 'invalid_argument']);

for (const kind of KINDS) {
  test(`${className(kind)}: code ${kind.toUpperCase()}, kind ${kind}`, () => {
    const C = idmint[className(kind)];
    assert.equal(typeof C, 'function');
    const e = new C('message');
    assert.equal(e.code, kind.toUpperCase());
    assert.equal(e.kind, kind);
    assert.equal(e.name, className(kind));
    assert.equal(e.message, 'message');
    assert.ok(e instanceof Error);
    assert.ok(e instanceof C);
    assert.ok(e instanceof idmint.IdmintError);
    assert.equal(e instanceof RangeError, RANGE.has(kind));
  });
}

test('IdmintError does not claim foreign errors', () => {
  assert.equal(new Error('x') instanceof idmint.IdmintError, false);
  assert.equal(new RangeError('x') instanceof idmint.IdmintError, false);
  assert.equal(null instanceof idmint.IdmintError, false);
});

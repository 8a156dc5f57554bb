// Helpers for the shared suite: only plain JS, so they run in Node and in a browser.
import assert from 'node:assert/strict';
import { idmint } from './target.mjs';

/** The kinds the display IDs (docs/formats.md) brought to the core's error table. */
export const NEW_KINDS = [
  'invalid_key',
  'invalid_encoding',
  'invalid_template',
  'counter_overflow',
  'invalid_uuid',
  'check_digit_mismatch',
];

/** Run `fn`, which must throw; return the error. */
export function thrown(fn, what = 'the call') {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.ok(false, `${what} should have thrown`);
  return undefined;
}

/** The class name the package exports for a core error kind: `invalid_id` -> `InvalidIdError`. */
export function className(kind) {
  return kind.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + 'Error';
}

/** Assert that `err` is the idmint error of `kind`: class, `code`, `kind`, base class. */
export function assertKind(err, kind, what = '') {
  assert.ok(err instanceof Error, `${what}: not an Error: ${err}`);
  assert.equal(err.kind, kind, `${what}: kind of ${err.name}: ${err.message}`);
  assert.equal(err.code, kind.toUpperCase(), `${what}: code`);
  assert.ok(err instanceof idmint.IdmintError, `${what}: instanceof IdmintError`);
  const C = idmint[className(kind)];
  assert.equal(typeof C, 'function', `${what}: the package exports ${className(kind)}`);
  assert.ok(err instanceof C, `${what}: instanceof ${className(kind)}`);
  assert.equal(err.name, className(kind), `${what}: name`);
  assert.ok(typeof err.message === 'string' && err.message.length > 0, `${what}: message`);
}

/** `fn` must throw the idmint error of `kind` (as `assertKind` checks it); return the error. */
export function throwsKind(fn, kind, what = '') {
  const err = thrown(fn, what || 'the call');
  assertKind(err, kind, what);
  return err;
}

/** Parts in the package's shape from a vector's `{ time_ms, fields, sequence }`. */
export function partsOf(v) {
  return { timestampMs: v.time_ms, sequence: v.sequence, ...v.fields };
}

// The JS API raises the core's errors, never messages of its own: every check of an argument in
// js/facade.js and js/segment.js throws `coreError(kind, ...fields)` (the backend's
// `clientError`, i.e. `idmint_core::rules::client_error`), so the core's text, and a change to
// it, reaches JS unchanged. Here: no source line builds an error of a core kind by hand, and an
// error thrown for a bad argument is the core's, of its kind's class.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const idmint = require('../index.js');

for (const file of ['facade.js', 'segment.js']) {
  test(`js/${file} writes no core error message by hand`, () => {
    const text = readFileSync(new URL(`../../js/${file}`, import.meta.url), 'utf8');
    const hand = text
      .split('\n')
      .map((line, i) => [i + 1, line])
      .filter(([, line]) => /new Invalid\w*Error\(|['`]invalid (argument|id|ObjectId|template) \\?`/.test(line));
    assert.deepEqual(hand, [], `lines building a core error by hand: ${hand.map(([n]) => n).join(', ')}`);
  });
}

test("a bad argument gets the core's error, in its kind's class", () => {
  assert.throws(
    () => new idmint.Layout('twitter').compose({ timestampMs: 1 }),
    (e) => e instanceof idmint.InvalidArgumentError && e.kind === 'invalid_argument'
      && e.message === 'invalid argument `parts` = [object Object]: needs `sequence`',
  );
  assert.throws(
    () => idmint.encode(-1n, 'base62'),
    (e) => e instanceof idmint.InvalidIdError && e.message.startsWith('invalid id `-1`: negative;'),
  );
});

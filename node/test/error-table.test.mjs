// The error tables of js/facade.js and js/facade.d.ts are generated from the core's table of
// error kinds (js/scripts/error-table.mjs); a kind added to the core without regenerating them
// fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tables } from '../../js/scripts/error-table.mjs';

for (const { file, text, want } of tables()) {
  test(`${file}: the error table matches the core's`, () => {
    assert.ok(text === want, `${file} is out of date: run node js/scripts/error-table.mjs`);
  });
}

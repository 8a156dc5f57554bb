// The generated blocks of js/facade.js and js/facade.d.ts (the error table, the presets) come
// from the core (js/scripts/core-tables.mjs); an error kind or a preset added to the core
// without regenerating them fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tables } from '../../js/scripts/core-tables.mjs';

for (const { file, text, want } of tables()) {
  test(`${file}: the error table and the presets match the core's`, () => {
    assert.ok(text === want, `${file} is out of date: run node js/scripts/core-tables.mjs`);
  });
}

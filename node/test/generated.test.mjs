// The generated blocks of the JS packages (js/scripts/generated.mjs: the error table and the
// presets from the core's, the ES module entries' export lists from the facade's API) must be
// current: a kind or a preset added to the core or a name added to the facade without
// regenerating them fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generated } from '../../js/scripts/generated.mjs';

for (const { file, text, want } of generated()) {
  test(`${file}: its generated block is current`, () => {
    assert.ok(text === want, `${file} is out of date: run node js/scripts/generated.mjs`);
  });
}

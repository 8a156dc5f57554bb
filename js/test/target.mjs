// The package under test, for the shared suite (js/test/*.test.mjs): one suite, both backends.
//
//   node --test js/test/                       against the native package (node/, npm `idmint`)
//   IDMINT_TARGET=web node --test js/test/     against the wasm package (web/, npm `idmint-web`)
//   in a browser (web/test/run-browser.mjs: import map for node:test / node:assert/strict): web
//
// Exports: `idmint` (the module namespace), `vectors` (tests/vectors/*.json by name: snowflake,
// objectid, and the display IDs' shortid, obfuscate, uuid7, template; formats: 64-bit layouts and
// every format `parse` reads; plan, typeid and start_above), `TARGET` ('native' | 'web').

const inBrowser = typeof window !== 'undefined';

export const TARGET = inBrowser ? 'web' : (globalThis.process?.env?.IDMINT_TARGET ?? 'native');

let mod;
if (TARGET === 'native') {
  mod = await import('../../node/index.mjs');
} else if (TARGET === 'web') {
  const m = await import('../../web/index.js');
  if (typeof m.default === 'function') await m.default({ extras: true }); // the display IDs too
  mod = m;
} else {
  throw new Error(`IDMINT_TARGET must be 'native' or 'web', got '${TARGET}'`);
}
export const idmint = mod;

async function readVector(name) {
  if (inBrowser) {
    const r = await fetch(`/tests/vectors/${name}`);
    if (!r.ok) throw new Error(`cannot fetch /tests/vectors/${name}: ${r.status}`);
    return r.json();
  }
  const fs = await import('node:fs');
  return JSON.parse(fs.readFileSync(new URL(`../../tests/vectors/${name}`, import.meta.url), 'utf8'));
}

export const vectors = {
  snowflake: await readVector('snowflake.json'),
  objectid: await readVector('objectid.json'),
  shortid: await readVector('shortid.json'),
  obfuscate: await readVector('obfuscate.json'),
  uuid7: await readVector('uuid7.json'),
  template: await readVector('template.json'),
  formats: await readVector('formats.json'),
  plan: await readVector('plan.json'),
  typeid: await readVector('typeid.json'),
  start_above: await readVector('start_above.json'),
  time_range: await readVector('time_range.json'),
};

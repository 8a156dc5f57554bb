// The package under test, for the shared suite (test/*.test.mjs).
//
//   node --test test/                                   shared + native tests against the native addon
//   IDMINT_TARGET=web node --test test/*.test.mjs      shared tests against the wasm package (node/web)
//   in a browser (import map for node:test / node:assert/strict)   shared tests against web
//
// Exports: `idmint` (the module namespace), `vectors` ({ snowflake, objectid }: tests/vectors/*.json),
// `TARGET` ('native' | 'web').

const inBrowser = typeof window !== 'undefined';

export const TARGET = inBrowser ? 'web' : (globalThis.process?.env?.IDMINT_TARGET ?? 'native');

let mod;
if (TARGET === 'native') {
  mod = await import('../index.mjs');
} else if (TARGET === 'web') {
  // The wasm engineer owns this branch.
  const m = await import('../web/index.js');
  if (typeof m.default === 'function') await m.default();
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
};

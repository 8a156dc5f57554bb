// idmint-web as a bundler sees it: a bare import, the .wasm found by Vite through the package's
// `new URL(..., import.meta.url)`, the vectors a JSON import (tests/packages.sh copies them in).
// The display IDs' module is fetched only when `initExtras()` asks for it.
import init, { initExtras, Snowflake, ObjectId, parse, encode, decode } from 'idmint-web';
import vectors from './snowflake.json';

async function run() {
  await init();
  const gen = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 9 });
  const a = gen.nextId();
  const b = gen.nextId();
  if (!(b > a)) throw new Error(`not increasing: ${a} ${b}`);
  if (parse(b, 'twitter').worker !== 9) throw new Error(`worker of ${b}: ${parse(b, 'twitter').worker}`);
  for (const v of vectors.valid) {
    const p = parse(v.id, v.layout);
    if (p.timestampMs !== v.time_ms || p.sequence !== v.sequence) throw new Error(`${v.name}: ${JSON.stringify(p)}`);
    for (const [name, value] of Object.entries(v.fields)) {
      if (p[name] !== value) throw new Error(`${v.name}.${name}: ${p[name]} != ${value}`);
    }
  }
  const oid = new ObjectId();
  if (new ObjectId(oid.toHexString()).toHexString() !== oid.toHexString()) throw new Error('ObjectId round trip');
  const fetched = (name) => performance.getEntriesByType('resource').some((r) => r.name.includes(name));
  if (!fetched('idmint_wasm_bg')) throw new Error('the main module was not fetched as its own .wasm');
  if (fetched('idmint_wasm_extras_bg')) throw new Error('the display IDs module was fetched before initExtras()');
  let refused = false;
  try { encode(b, 'base62'); } catch (e) { refused = /initExtras/.test(e.message); }
  if (!refused) throw new Error('encode worked (or failed otherwise) before initExtras()');
  await initExtras();
  if (!fetched('idmint_wasm_extras_bg')) throw new Error('initExtras() fetched no display IDs module');
  const short = encode(b, 'base62');
  if (decode(short, 'base62') !== b) throw new Error(`base62 round trip of ${b}: ${short}`);
  return `minted ${b}, parsed ${vectors.valid.length} vectors, ObjectId ${oid.toHexString()}, then the display IDs on demand: ${short}`;
}

run().then(
  (line) => { window.__smoke = { ok: true, line }; document.getElementById('out').textContent = line; },
  (e) => { window.__smoke = { ok: false, line: String(e && e.stack || e) }; document.getElementById('out').textContent = String(e); },
);

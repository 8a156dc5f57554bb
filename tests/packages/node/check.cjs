// What smoke.cjs and smoke.mjs check on the idmint they loaded.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

async function check(idmint, vectorsDir, how) {
  // Every file the published package.json lists is there, and the addon came from the platform
  // package (a published idmint carries none of its own).
  const pkgDir = path.dirname(require.resolve('idmint/package.json'));
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  for (const f of pkg.files) assert.ok(fs.existsSync(path.join(pkgDir, f)), `idmint lacks ${f}`);
  assert.ok(!fs.readdirSync(pkgDir).some((f) => f.endsWith('.node')), 'idmint carries an addon');
  assert.ok(!pkg.scripts, 'the published idmint has no scripts (nothing compiles at install)');
  const platforms = Object.keys(pkg.optionalDependencies || {});
  assert.ok(platforms.length > 0, 'idmint lists its platform packages');
  const addon = require.resolve(platforms.find((p) => p.startsWith(`idmint-${process.platform}-${process.arch}`)));
  assert.match(addon, /node_modules[\\/]idmint-[a-z0-9-]+[\\/]idmint\.[a-z0-9-]+\.node$/);

  const gen = new idmint.Snowflake({ layout: 'twitter', datacenter: 1, worker: 7 });
  const a = gen.nextId();
  const b = gen.nextId();
  assert.ok(typeof a === 'bigint' && a > 0n && b > a, `${a} ${b}`);
  assert.equal(idmint.parse(b, 'twitter').worker, 7);

  const vectors = JSON.parse(fs.readFileSync(path.join(vectorsDir, 'snowflake.json'), 'utf8'));
  assert.ok(vectors.valid.length > 10);
  for (const v of vectors.valid) {
    const p = idmint.parse(BigInt(v.id), v.layout);
    assert.equal(p.timestampMs, v.time_ms, v.name);
    assert.equal(p.sequence, v.sequence, v.name);
    for (const [name, value] of Object.entries(v.fields)) assert.equal(p[name], value, `${v.name}.${name}`);
  }
  for (const v of vectors.invalid_ids) {
    assert.throws(() => idmint.parse(v.id, v.layout), (e) => e instanceof idmint.InvalidIdError, v.name);
  }
  const oids = JSON.parse(fs.readFileSync(path.join(vectorsDir, 'objectid.json'), 'utf8'));
  for (const v of oids.valid) assert.equal(new idmint.ObjectId(v.hex).toHexString(), v.hex);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idmint-smoke-'));
  try {
    const url = `sqlite:${path.join(dir, 'ids.db')}`;
    let client = await idmint.SegmentClient.connect(url);
    const tag = await client.tag('orders');
    const first = [await tag.nextIdAsync(), tag.nextId(), tag.nextId()];
    await client.close();
    assert.ok(first[0] < first[1] && first[1] < first[2], String(first));
    client = await idmint.SegmentClient.connect(url); // the store remembers: a new client goes on above
    const later = await (await client.tag('orders')).nextIdAsync();
    await client.close();
    assert.ok(later > first[2], `${first} then ${later}`);
    return `node ${process.version} (${how}): idmint ${pkg.version} with ${path.relative(pkgDir, addon)}: ` +
      `minted ${b}, ${vectors.valid.length} + ${oids.valid.length} vectors parsed, segment IDs ${first.join(',')} then ${later} from SQLite`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { check };

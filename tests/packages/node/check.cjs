// What smoke.cjs and smoke.mjs check on the idmint they loaded: alone (its slim addon), or with
// the stores add-on idmint-stores installed beside it (the add-on's addon, and the stores work).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// Whether the stores add-on is installed in this project (smoke_node installs idmint alone, then
// with idmint-stores): its addon is then the one loaded, and the stores work; else idmint's own
// slim addon, which refuses them by name.
function storesInstalled() {
  try {
    require.resolve('idmint-stores/package.json');
    return true;
  } catch {
    return false;
  }
}

async function check(idmint, vectorsDir, how) {
  // Every file the published package.json lists is there, and the addon came from the platform
  // package (a published idmint carries none of its own).
  const pkgDir = path.dirname(require.resolve('idmint/package.json'));
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  for (const f of pkg.files) assert.ok(fs.existsSync(path.join(pkgDir, f)), `idmint lacks ${f}`);
  assert.ok(!fs.readdirSync(pkgDir).some((f) => f.endsWith('.node')), 'idmint carries an addon');
  assert.ok(!pkg.scripts, 'the published idmint has no scripts (nothing compiles at install)');
  const stores = storesInstalled();
  // The package whose addon this process must have loaded: the add-on's when installed.
  const owner = stores ? JSON.parse(fs.readFileSync(require.resolve('idmint-stores/package.json'), 'utf8')) : pkg;
  if (stores) {
    assert.equal(owner.version, pkg.version, 'idmint-stores is idmint\'s version');
    assert.deepEqual(owner.peerDependencies, { idmint: pkg.version }, 'idmint-stores names idmint at its version');
  }
  const platforms = Object.keys(owner.optionalDependencies || {});
  assert.ok(platforms.length > 0, `${owner.name} lists its platform packages`);
  // The platform package this process needs, told apart as napi-rs does: glibc or musl on Linux
  // (Node reports glibc's version, musl none), the -gnu build on Windows.
  const report = process.report && process.report.getReport ? process.report.getReport() : {};
  const libc = process.platform === 'linux' ? (report.header && report.header.glibcVersionRuntime ? '-gnu' : '-musl')
    : process.platform === 'win32' ? '-gnu' : '';
  const wanted = `${owner.name}-${process.platform}-${process.arch}${libc}`;
  assert.ok(platforms.includes(wanted), `${owner.name} lists ${wanted}: ${platforms}`);
  const addon = require.resolve(wanted);
  assert.match(addon, /node_modules[\\/]idmint(-stores)?-[a-z0-9-]+[\\/]idmint(-stores)?\.[a-z0-9-]+\.node$/);
  // One native library per process: the add-on's replaces idmint's own, never beside it.
  // (Node lists each addon it loaded in require.cache; Bun, the musl stand-in, keeps its own.)
  if (!process.versions.bun) {
    const loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'));
    assert.deepEqual(loaded.map((f) => fs.realpathSync(f)), [fs.realpathSync(addon)], 'the one addon loaded');
  }

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

  // (under Bun's musl build, the stand-in for Node on musl, say so)
  const runtime = process.versions.bun ? `bun ${process.versions.bun} (reports node ${process.version})` : `node ${process.version}`;
  const done = `${runtime} (${how}): idmint ${pkg.version} with ${path.relative(pkgDir, addon)}: ` +
    `minted ${b}, ${vectors.valid.length} + ${oids.valid.length} vectors parsed`;
  if (!stores) {
    // The slim package: each kind of store call throws the core's StoresNotInstalledError,
    // naming the package that brings the stores.
    const refused = (what) => (e) => {
      assert.ok(e instanceof idmint.StoresNotInstalledError, `${what}: ${e}`);
      assert.equal(e.message, `${what} needs idmint's stores, which this package does not include: npm install idmint-stores`);
      return true;
    };
    await assert.rejects(idmint.SegmentClient.connect('sqlite::memory:'), refused('SegmentClient.connect'));
    await assert.rejects(idmint.Snowflake.create({ layout: 'twitter', lease: 'sqlite::memory:' }), refused('Snowflake.create({ lease })'));
    return `${done}, stores refused (npm install idmint-stores)`;
  }
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

    // A worker lease from the same kind of store: the generator holds worker 5 until closed.
    const leases = `sqlite:${path.join(dir, 'leases.db')}`;
    const leased = await idmint.Snowflake.create({ layout: 'twitter', lease: leases, leaseRange: [5, 5], leaseHolder: 'smoke' });
    assert.equal(leased.nodes.worker, 5);
    assert.equal(idmint.parse(leased.nextId(), 'twitter').worker, 5);
    const held = (await idmint.leaseList(leases)).map((l) => `${l.value}:${l.state}:${l.holder}`);
    assert.deepEqual(held, ['5:held:smoke']);
    await leased.close();
    assert.deepEqual((await idmint.leaseList(leases)).filter((l) => l.state === 'held'), [], 'close() released it');
    // Both close()s closed their SQLite files: on Windows (wine too) an open file cannot be
    // deleted, and this throws EBUSY.
    fs.rmSync(dir, { recursive: true });
    return `${done}, segment IDs ${first.join(',')} then ${later} from SQLite, worker 5 leased`;
  } finally {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // after a failure above: that failure is the one to report
    }
  }
}

module.exports = { check };

// Benchmark: idmint against the npm packages Node users pick today, in one process.
//
//   npm run bench            (node bench.mjs [--n 1000000] [--rounds 3])
//
// For every generator: the rate over N consecutive IDs (best of `rounds`), and how many of those
// N IDs are duplicates (counted after timing, in a Set). Prints a Markdown table and the goals,
// and writes them to docs/bench/node.md with the date, machine and command on top
// (IDMINT_BENCH_WRITE=0: print only).
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { Snowflake as SapphireSnowflake } from '@sapphire/snowflake';
import { ObjectId as BsonObjectId } from 'bson';
import { Snowflake as NodejsSnowflake } from 'nodejs-snowflake';
import { v7 as uuidv7 } from 'uuid';
import { Snowflake, ObjectId, Layout, parse, uuid7, Uuid7Generator, SegmentClient } from './index.mjs';
import { installed, printer, writeReport } from '../js/bench-report.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 1_000_000);
const ROUNDS = arg('rounds', 3);
const TWITTER_EPOCH = 1288834974657;

/**
 * Time `fill(out)` producing N values into `out`; best of ROUNDS; duplicates of the last round.
 * 64-bit IDs go into a BigUint64Array (`bigints`), for every implementation alike, so the
 * timing is not of the GC tracing a million live BigInt objects; strings go into an Array.
 */
function measure(fill, bigints = false) {
  let best = Infinity;
  let out;
  const alloc = (n) => (bigints ? new BigUint64Array(n) : new Array(n));
  fill(alloc(Math.min(N, 100_000)), true); // warm up
  for (let r = 0; r < ROUNDS; r++) {
    out = alloc(N);
    const t0 = performance.now();
    fill(out);
    best = Math.min(best, performance.now() - t0);
  }
  const unique = new Set(out).size;
  return { rate: (N / best) * 1000, dups: N - unique };
}

/** `measure` for a fill that may await (best of ROUNDS, duplicates of the last round). */
async function measureAsync(fill) {
  let best = Infinity;
  let out;
  await fill(new BigUint64Array(Math.min(N, 100_000))); // warm up
  for (let r = 0; r < ROUNDS; r++) {
    out = new BigUint64Array(N);
    const t0 = performance.now();
    await fill(out);
    best = Math.min(best, performance.now() - t0);
  }
  return { rate: (N / best) * 1000, dups: N - new Set(out).size };
}

/**
 * Time `op()` N times; best of ROUNDS. Each result is kept in a variable the loop leaves behind,
 * so the compiler cannot drop the work of making it (for every implementation alike).
 */
let kept;
function measureOp(op) {
  for (let i = 0; i < 100_000; i++) kept = op(i);
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) kept = op(i);
    best = Math.min(best, performance.now() - t0);
  }
  return { rate: (N / best) * 1000, dups: null };
}

const rows = [];
const add = (group, name, m, ref) => rows.push({ group, name, ...m, ref });

// --- snowflake IDs -------------------------------------------------------------------------
const twitter = new Layout('twitter');
const cap = twitter.idsPerSecondCap;

const gen1 = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 1 });
const mNext = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = gen1.nextId();
}, true);
const waits1 = gen1.stats.waits;
// The binding's own speed, with a layout whose cap (2^18 per ms) is far above it
const wide = new Snowflake({ layout: 'time:41,worker:4,sequence:18', epoch: TWITTER_EPOCH, worker: 1 });
const mWide = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = wide.nextId();
}, true);
const gen2 = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 2 });
const mBatch = (() => {
  // time only the nextIds calls; count duplicates over all the IDs afterwards
  const run = () => {
    const chunks = new Array(N / 1000);
    const t0 = performance.now();
    for (let i = 0; i < chunks.length; i++) chunks[i] = gen2.nextIds(1000);
    return { ms: performance.now() - t0, chunks };
  };
  run();
  let best = Infinity;
  let chunks;
  for (let r = 0; r < ROUNDS; r++) ({ ms: best, chunks } = ((x) => ({ ms: Math.min(best, x.ms), chunks: x.chunks }))(run()));
  const seen = new Set();
  for (const c of chunks) for (const id of c) seen.add(id);
  return { rate: (N / best) * 1000, dups: N - seen.size };
})();
const gen3 = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 3 });
const mString = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = gen3.nextIdString();
});
const sapphire = new SapphireSnowflake(TWITTER_EPOCH);
const mSapphire = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = sapphire.generate();
}, true);
const nodejsSf = new NodejsSnowflake({ custom_epoch: TWITTER_EPOCH, instance_id: 1 });
const mNodejs = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = nodejsSf.getUniqueID();
}, true);
const mUuid = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = uuidv7();
});
const mUuid7 = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = uuid7();
});
const uuidGen = new Uuid7Generator();
const mUuidGen = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = uuidGen.next();
});

// Segment IDs from a memory: store: `tag.nextId()` hands out IDs from memory with no Promise;
// when memory is empty (WouldBlockError) the loop awaits `nextIdAsync()`, as an app would.
const segClient = await SegmentClient.connect('memory:');
const segTag = await segClient.tag('bench');
await segTag.nextIdAsync();
let segWaits = 0;
const mSegment = await measureAsync(async (out) => {
  for (let i = 0; i < out.length; i++) {
    try {
      out[i] = segTag.nextId();
    } catch (e) {
      if (e.kind !== 'would_block') throw e;
      segWaits++;
      out[i] = await segTag.nextIdAsync();
    }
  }
});
await segClient.close();

add('64-bit IDs', 'idmint `nextId()` (twitter)', mNext, mSapphire);
add('64-bit IDs', 'idmint `nextId()` (18-bit sequence: no cap in reach)', mWide, mSapphire);
add('64-bit IDs', 'idmint `nextIds(1000)` (per ID)', mBatch, mSapphire);
add('64-bit IDs', 'idmint `nextIdString()`', mString, mSapphire);
add('64-bit IDs', 'idmint segment `tag.nextId()` (memory: store)', mSegment, mSapphire);
add('64-bit IDs', '@sapphire/snowflake `generate()`', mSapphire, mSapphire);
add('64-bit IDs', 'nodejs-snowflake `getUniqueID()`', mNodejs, mSapphire);
add('128-bit', 'idmint `uuid7()`', mUuid7, mUuid);
add('128-bit', 'idmint `Uuid7Generator.next()`', mUuidGen, mUuid);
add('128-bit', 'uuid `v7()`', mUuid, mUuid);

// --- ObjectIds -------------------------------------------------------------------------------
const mOidHex = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = new ObjectId().toHexString();
});
const mOidGen = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = ObjectId.generateHex();
});
const mBsonHex = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = new BsonObjectId().toHexString();
});
const mOid = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = new ObjectId();
});
const mBson = measure((out) => {
  for (let i = 0; i < out.length; i++) out[i] = new BsonObjectId();
});
// objects are all distinct; count duplicates by value
{
  const seen = new Set();
  for (let i = 0; i < N; i++) seen.add(new ObjectId().toHexString());
  mOid.dups = N - seen.size;
  const seenB = new Set();
  for (let i = 0; i < N; i++) seenB.add(new BsonObjectId().toHexString());
  mBson.dups = N - seenB.size;
}
add('ObjectId', 'idmint `new ObjectId().toHexString()`', mOidHex, mBsonHex);
add('ObjectId', 'idmint `ObjectId.generateHex()`', mOidGen, mBsonHex);
add('ObjectId', 'bson `new ObjectId().toHexString()`', mBsonHex, mBsonHex);
add('ObjectId', 'idmint `new ObjectId()`', mOid, mBson);
add('ObjectId', 'bson `new ObjectId()`', mBson, mBson);

// --- parse -----------------------------------------------------------------------------------
const ids = gen1.nextIds(1024);
const mParse = measureOp((i) => twitter.parse(ids[i & 1023]));
const mParseTop = measureOp((i) => parse(ids[i & 1023], 'twitter'));
const mParseStr = (() => {
  const strs = Array.from(ids, String);
  return measureOp((i) => twitter.parse(strs[i & 1023]));
})();
const mDeconstruct = measureOp((i) => sapphire.deconstruct(ids[i & 1023]));
add('parse', 'idmint `layout.parse(bigint)`', mParse, mDeconstruct);
add('parse', "idmint `parse(bigint, 'twitter')`", mParseTop, mDeconstruct);
add('parse', 'idmint `layout.parse(string)`', mParseStr, mDeconstruct);
add('parse', '@sapphire/snowflake `deconstruct()`', mDeconstruct, mDeconstruct);

// --- report ----------------------------------------------------------------------------------
const { lines, out } = printer();
const fmt = (r) => (r >= 1e6 ? `${(r / 1e6).toFixed(2)} M/s` : `${(r / 1e3).toFixed(0)} k/s`);
out(`\nidmint bench: N = ${N.toLocaleString('en')} per row, best of ${ROUNDS}; node ${process.version}, ` +
  `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
out('| group | implementation | rate | vs reference | duplicates in N |');
out('|---|---|---:|---:|---:|');
for (const r of rows) {
  const ratio = r.ref === r ? '1.00× (reference)' : `${(r.rate / r.ref.rate).toFixed(2)}×`;
  const dups = r.dups === null ? '—' : r.dups.toLocaleString('en');
  out(`| ${r.group} | ${r.name} | ${fmt(r.rate)} | ${ratio} | ${dups} |`);
}
const goal = (ok, text) => out(`- [${ok ? 'x' : ' '}] ${text}`);
out(`\nGoals (twitter cap ${fmt(cap)}):`);
out(`(waits for the next ms after a tick's 4,096 sequence numbers ran out: \`nextId()\` ${waits1.toLocaleString('en')}, ` +
  `\`nextIds\` ${gen2.stats.waits.toLocaleString('en')}, over ${(N * (ROUNDS + 0.1)).toLocaleString('en')} IDs each; ` +
  'a ms in which a caller is descheduled or the GC runs issues fewer than 4,096 and that capacity is gone)');
goal(mNext.rate >= 0.95 * cap && mNext.dups === 0,
  `\`nextId()\` ≥ 95% of the cap with 0 duplicates: ${((mNext.rate / cap) * 100).toFixed(1)}% of the cap, ${mNext.dups} duplicates`);
goal(mBatch.rate >= 0.95 * cap && mBatch.dups === 0,
  `\`nextIds(1000)\` at the cap: ${((mBatch.rate / cap) * 100).toFixed(1)}% of the cap, ${mBatch.dups} duplicates`);
goal(mSegment.rate >= 2 * mSapphire.rate && mSegment.dups === 0,
  `segment \`tag.nextId()\` (memory:) ≥ 2× @sapphire/snowflake's \`generate()\`: ${(mSegment.rate / mSapphire.rate).toFixed(2)}× ` +
    `(${fmt(mSegment.rate)} vs ${fmt(mSapphire.rate)}; ${segWaits} awaits of an empty memory), ${mSegment.dups} duplicates`);
goal(mOidHex.rate >= mBsonHex.rate,
  `ObjectId hex ≥ bson's \`new ObjectId().toHexString()\`: ${(mOidHex.rate / mBsonHex.rate).toFixed(2)}× (generateHex ${(mOidGen.rate / mBsonHex.rate).toFixed(2)}×)`);
goal(mOid.rate >= mBson.rate && mOid.dups === 0,
  `\`new ObjectId()\` ≥ bson's \`new ObjectId()\`: ${(mOid.rate / mBson.rate).toFixed(2)}×, ${mOid.dups} duplicates`);
goal(mParse.rate >= mDeconstruct.rate && mParseTop.rate >= mDeconstruct.rate,
  `\`layout.parse\` and \`parse(bigint, 'twitter')\` ≥ @sapphire/snowflake's \`deconstruct\`: ` +
    `${(mParse.rate / mDeconstruct.rate).toFixed(2)}× and ${(mParseTop.rate / mDeconstruct.rate).toFixed(2)}×`);

writeReport({
  name: 'node',
  title: 'Node package benchmark',
  script: import.meta.url,
  runtime: ['@sapphire/snowflake', 'bson', 'nodejs-snowflake', 'uuid'].map((p) => installed('node', p)),
  lines,
});

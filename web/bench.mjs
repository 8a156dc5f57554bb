// The browser benchmark: headless Chromium (Debian's /usr/bin/chromium via playwright-core), one
// page, one thread. idmint-web against uuid v7 and bson's browser build (devDependencies).
// Prints a Markdown table and writes it to docs/bench/web.md with the date, machine, browser and
// command on top (IDMINT_BENCH_WRITE=0: print only). Build pkg/ first (node build.mjs).
//
//   node bench.mjs [--round MS] [--rounds N]
import { launch } from './test/run-browser.mjs';
import { startServer } from './test/serve.mjs';
import { installed, printer, writeReport } from '../js/bench-report.mjs';

const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : dflt;
};

const server = await startServer();
const browser = await launch();
let r;
try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error('[pageerror]', e.message));
    await page.goto(`${server.url}/web/bench/bench.html?round=${arg('--round', 300)}&rounds=${arg('--rounds', 5)}`);
    await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 600_000 });
    r = await page.evaluate(() => window.__bench);
} finally {
    await browser.close();
    await server.close();
}

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} M/s` : `${(x / 1e3).toFixed(0)} k/s`);
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const d = r.dups;
const rows = [
    ['Snowflake.nextId() (twitter)', r.snowflake, `${pct(r.snowflake.opsPerSec / r.cap)} of the layout cap (${fmt(r.cap)}); goal ≥ 95%`, d.snowflake],
    ['uuid v7() (reference)', r.uuid, `nextId is ${(r.snowflake.opsPerSec / r.uuid.opsPerSec).toFixed(2)}× uuid v7`, d.uuid],
    ['new ObjectId().toHexString()', r.oid, `${(r.oid.opsPerSec / r.bson.opsPerSec).toFixed(2)}× bson; goal ≥ 1×`, d.oid],
    ['ObjectId.generateHex()', r.oidHex, `${(r.oidHex.opsPerSec / r.bson.opsPerSec).toFixed(2)}× bson`, d.oidHex],
    ['bson new ObjectId().toHexString()', r.bson, 'baseline', d.bson],
    ["parse(bigint, 'twitter')", r.parse, `${(r.parse.opsPerSec / r.uuidParse.opsPerSec).toFixed(2)}× uuid parse + time`],
    ["parse(string, 'twitter')", r.parseStr, ''],
    ['uuid parse(v7) + timestamp (reference)', r.uuidParse, ''],
    ['new ObjectId(hex).getTimestamp()', r.oidTime, `${(r.oidTime.opsPerSec / r.bsonTime.opsPerSec).toFixed(2)}× bson; goal ≥ 1×`],
    ['bson new ObjectId(hex).getTimestamp()', r.bsonTime, 'baseline'],
];
const { lines, out } = printer();
const browserName = r.userAgent.match(/(Headless)?Chrome\/[\d.]+/)?.[0] ?? 'Chromium';
out(`\n${browserName}, one page, one thread; best of rounds; duplicates among ${d.n.toLocaleString('en')} consecutive IDs\n`);
out('| operation | ops/s | ratio | duplicates |');
out('|---|---:|---|---:|');
for (const [name, m, note, dup] of rows) out(`| ${name} | ${fmt(m.opsPerSec)} | ${note} | ${dup === undefined ? '—' : dup.toLocaleString('en')} |`);
const yes = (ok) => (ok ? 'yes' : 'NO');
const sfOk = r.snowflake.opsPerSec / r.cap >= 0.95 && d.snowflake === 0;
const oidOk = r.oid.opsPerSec >= r.bson.opsPerSec && d.oid === 0 && d.oidHex === 0;
const timeOk = r.oidTime.opsPerSec >= r.bsonTime.opsPerSec;
out(`\nsnowflake ≥ 95% of cap: ${yes(sfOk)}; ObjectId hex ≥ bson: ${yes(oidOk)}; ObjectId(hex).getTimestamp() ≥ bson: ${yes(timeOk)}`);
writeReport({
    name: 'web',
    title: 'Browser package benchmark',
    script: import.meta.url,
    runtime: [browserName, ...['bson', 'uuid'].map((p) => installed('web', p))],
    lines,
});

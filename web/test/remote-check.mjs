// idmint-web against a real ID server (`idmint serve`, idmint-serve.mjs) in headless Chromium:
// node leases and segment IDs drawn over `fetch` by pages of another origin (the server's CORS),
// every ID collected back here and counted.
//
//   1. 4 pages each lease a node value and mint 250,000 snowflake IDs: 4 distinct values, 0
//      duplicates, each ID carrying its page's node value;
//   2. the server stopped (SIGKILL) past a page's lease TTL: the page refuses to mint
//      (LeaseLostError), and once the server is back recovers by itself; a segment page meanwhile
//      serves its buffered IDs, then StoreUnavailableError (WouldBlockError for the sync call),
//      and recovers by itself; 0 duplicates;
//   3. a frozen tab (its JavaScript paused in the debugger, timers included): its lease lapses,
//      another page takes its value (only after the value's freeze), the tab refuses to mint,
//      and woken leases another value and switches to it; 0 duplicates, and the other page's IDs
//      of that value carry later times than the tab's;
//   4. 2 pages and this Node process (idmint-web's SegmentClient over the same /v1 route) draw one
//      tag: 0 duplicates;
//   5. a wrong token: NotAuthorizedError, one request per call, from the segment client and the
//      lease.
//
//   node test/remote-check.mjs      (IDMINT_BIN: the idmint binary; default target/ci/idmint)
import { fileURLToPath } from 'node:url';
import { launch } from './run-browser.mjs';
import { startServer } from './serve.mjs';
import { startIdmint } from './idmint-serve.mjs';

const PER_PAGE = 250_000;
const TWITTER_NODE = (id) => Number((id >> 12n) & 0x3ffn); // datacenter and worker: the lease value's bits

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
    if (ok) passed++;
    else failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} remote :: ${name}${detail ? ` (${detail})` : ''}`);
}

/** Every ID of `lists` (BigUint64Arrays) once? The number of duplicates. */
function duplicates(lists) {
    const all = new BigUint64Array(lists.reduce((n, l) => n + l.length, 0));
    let at = 0;
    for (const l of lists) {
        all.set(l, at);
        at += l.length;
    }
    all.sort();
    let dups = 0;
    for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) dups++;
    return { dups, total: all.length };
}

const unpack = (b64) => {
    const buf = Buffer.from(b64, 'base64');
    return new BigUint64Array(buf.buffer, buf.byteOffset, buf.length / 8);
};

async function openPage(browser, url) {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
    await page.goto(`${url}/web/test/remote.html`);
    await page.waitForFunction(() => window.__ready === true, null, { timeout: 60_000 });
    return page;
}

/** Until `probe` (run in the page) returns a non-null value: polled, bounded by `limitMs`. */
async function until(page, probe, arg, limitMs = 60_000) {
    await page.waitForFunction(probe, arg, { polling: 25, timeout: limitMs });
    return page.evaluate(probe, arg);
}

async function leases(browser, web, ids) {
    const pages = await Promise.all([0, 1, 2, 3].map(() => openPage(browser, web.url)));
    const out = await Promise.all(pages.map((p) => p.evaluate(async ({ url, token, n }) => {
        const g = await window.idmint.Snowflake.create({ lease: url, token });
        const got = new BigUint64Array(n);
        for (let i = 0; i < n; i += 10_000) {
            for (let j = i; j < Math.min(n, i + 10_000); j++) got[j] = g.nextId();
            await new Promise((r) => setTimeout(r, 0)); // the renewal timer may run
        }
        const nodes = g.nodes;
        await g.close();
        return { nodes, ids: window.packIds(got) };
    }, { url: ids.url, token: ids.token, n: PER_PAGE })));
    const lists = out.map((o) => unpack(o.ids));
    const values = out.map((o, i) => TWITTER_NODE(lists[i][0]));
    const { dups, total } = duplicates(lists);
    check('4 pages lease a node value each and mint 250,000 IDs: 4 distinct values, 0 duplicates',
        new Set(values).size === 4 && dups === 0 && total === 4 * PER_PAGE,
        `${total} IDs, ${dups} duplicates, values ${values.join(', ')}`);
    const own = lists.every((l, i) => l.every((id) => TWITTER_NODE(id) === values[i]));
    const nodesAgree = out.every((o, i) => (o.nodes.datacenter << 5 | o.nodes.worker) === values[i]);
    check("every ID carries its page's leased node value", own && nodesAgree, JSON.stringify(out.map((o) => o.nodes)));
    await Promise.all(pages.map((p) => p.close()));
}

/** The server stopped past a lease's TTL, then started again: the lease page and a segment page. */
async function outage(browser, web, ids) {
    const [lp, sp] = [await openPage(browser, web.url), await openPage(browser, web.url)];
    await lp.evaluate(async ({ url, token }) => {
        window.g = await window.idmint.Snowflake.create({ lease: url, token, leaseTtlMs: 6000 });
        window.minted = [];
        for (let i = 0; i < 1000; i++) window.minted.push(window.g.nextId());
    }, { url: ids.url, token: ids.token });
    await sp.evaluate(async ({ url, token }) => {
        window.client = await window.idmint.SegmentClient.connect(url, { token, maxWaitMs: 300, defaultStep: 1000 });
        window.t = await window.client.tag('outage');
        window.drawn = [];
        for (let i = 0; i < 10; i++) window.drawn.push(await window.t.nextIdAsync());
    }, { url: ids.url, token: ids.token });

    await ids.stop();
    // The lease page mints until its lease lapses, then every call refuses.
    const lost = await until(lp, () => {
        try {
            window.minted.push(window.g.nextId());
            return null;
        } catch (e) {
            return { kind: e.kind, isClass: e instanceof window.idmint.LeaseLostError, message: e.message };
        }
    });
    const still = await lp.evaluate(() => {
        let refused = 0;
        for (let i = 0; i < 100; i++) {
            try {
                window.g.nextId();
            } catch (e) {
                if (e.kind === 'lease_lost') refused++;
            }
        }
        return refused;
    });
    check('server down past the TTL: the page refuses to mint with LeaseLostError',
        lost.kind === 'lease_lost' && lost.isClass && still === 100, lost.message);
    // The segment page serves what it holds, then StoreUnavailableError.
    const seg = await sp.evaluate(async () => {
        let served = 0;
        for (;;) {
            try {
                window.drawn.push(await window.t.nextIdAsync());
                served++;
            } catch (e) {
                let sync;
                try {
                    window.t.nextId();
                } catch (s) {
                    sync = s.kind;
                }
                return { served, kind: e.kind, isClass: e instanceof window.idmint.StoreUnavailableError, sync, message: e.message };
            }
        }
    });
    check('server down: the segment page serves its buffered IDs, then StoreUnavailableError',
        seg.served > 0 && seg.kind === 'store_unavailable' && seg.isClass && ['would_block', 'store_unavailable'].includes(seg.sync),
        `${seg.served} buffered IDs served; then ${seg.message}`);

    await ids.restart();
    const back = await until(lp, () => {
        try {
            const id = window.g.nextId();
            window.minted.push(id);
            return true;
        } catch (e) {
            if (e.kind !== 'lease_lost') return { unexpected: e.message };
            return null;
        }
    });
    await lp.evaluate(() => {
        for (let i = 0; i < 1000; i++) window.minted.push(window.g.nextId());
    });
    const segBack = await until(sp, () => {
        window.t.nextIdAsync().then((id) => { window.drawn.push(id); window.segBack = true; }, () => {});
        return window.segBack ?? null;
    });
    const minted = unpack(await lp.evaluate(() => window.packIds(BigUint64Array.from(window.minted))));
    const drawn = unpack(await sp.evaluate(() => window.packIds(BigUint64Array.from(window.drawn))));
    const d1 = duplicates([minted]);
    const d2 = duplicates([drawn]);
    check('server back: both pages recover by themselves, 0 duplicates',
        back === true && segBack === true && d1.dups === 0 && d2.dups === 0,
        `${d1.total} snowflake IDs, ${d2.total} segment IDs`);
    await lp.evaluate(() => window.g.close());
    await Promise.all([lp.close(), sp.close()]);
}

/**
 * A frozen tab (its JavaScript paused in the debugger: no timer, no renewal): its value goes to
 * another page once free; the tab, asked for an ID before anything else of it runs, refuses
 * (lease_lost); woken, it leases another value and switches to it.
 */
async function frozenTab(browser, web, ids) {
    const fp = await openPage(browser, web.url);
    // The other page in a context of its own: its own renderer process, which the pause leaves alone.
    const op = await openPage(await browser.newContext(), web.url);
    const value = await fp.evaluate(async ({ url, token }) => {
        window.g = await window.idmint.Snowflake.create({ lease: url, token, leaseTtlMs: 6000 });
        window.minted = [];
        for (let i = 0; i < 5000; i++) window.minted.push(window.g.nextId());
        return window.g.nodes;
    }, { url: ids.url, token: ids.token });
    const v = value.datacenter << 5 | value.worker;
    const cdp = await fp.context().newCDPSession(fp);
    await cdp.send('Debugger.enable');
    const paused = new Promise((resolve) => cdp.once('Debugger.paused', resolve));
    await cdp.send('Debugger.pause'); // at the next task: the renewal timer, every TTL/3
    const { callFrames } = await paused;
    // The other page waits for that very value: held, then frozen after its lease expired.
    const taken = await until(op, ({ url, token, v }) => {
        if (window.taking === undefined) {
            window.taking = window.idmint.Snowflake.create({ lease: url, token, leaseRange: [v, v], leaseTtlMs: 6000 })
                .then((g) => { window.g = g; return true; }, (e) => { window.taking = undefined; window.lastKind = e.kind; });
        }
        return window.g ? window.g.nodes : null;
    }, { url: ids.url, token: ids.token, v });
    const other = await op.evaluate(() => {
        const got = new BigUint64Array(5000);
        for (let i = 0; i < got.length; i++) got[i] = window.g.nextId();
        return window.packIds(got);
    });
    const { result } = await cdp.send('Debugger.evaluateOnCallFrame', {
        callFrameId: callFrames[0].callFrameId,
        expression: "(() => { try { window.g.nextId(); return 'minted'; } catch (e) { return e.kind; } })()",
        returnByValue: true,
    });
    await cdp.send('Debugger.resume');
    await cdp.send('Debugger.disable');
    check('a frozen tab whose value went to another page refuses to mint (lease_lost)',
        result.value === 'lease_lost' && (taken.datacenter << 5 | taken.worker) === v, `value ${v}: ${result.value}`);
    await until(fp, () => {
        try {
            window.minted.push(window.g.nextId());
            return true;
        } catch (e) {
            return e.kind === 'lease_lost' ? null : { unexpected: e.message };
        }
    });
    const after = await fp.evaluate(() => {
        for (let i = 0; i < 5000; i++) window.minted.push(window.g.nextId());
        return { nodes: window.g.nodes, ids: window.packIds(BigUint64Array.from(window.minted)) };
    });
    const mine = unpack(after.ids);
    const theirs = unpack(other);
    const newValue = after.nodes.datacenter << 5 | after.nodes.worker;
    const { dups, total } = duplicates([mine, theirs]);
    const lastOld = mine.filter((id) => TWITTER_NODE(id) === v).reduce((m, id) => (id >> 22n > m ? id >> 22n : m), 0n);
    const firstTheirs = theirs.reduce((m, id) => (id >> 22n < m ? id >> 22n : m), 1n << 41n);
    check('the woken tab leases another value and switches to it: 0 duplicates; the value\'s new holder mints above its fence',
        newValue !== v && dups === 0 && mine.slice(-5000).every((id) => TWITTER_NODE(id) === newValue) && firstTheirs > lastOld,
        `${total} IDs, values ${v} -> ${newValue}`);
    await Promise.all([fp.evaluate(() => window.g.close()), op.evaluate(() => window.g.close())]);
    await Promise.all([fp.close(), op.context().close()]);
}

async function segments(browser, web, ids, idmint) {
    const N = 30_000;
    const pages = [await openPage(browser, web.url), await openPage(browser, web.url)];
    const draw = async ({ url, token, n }) => {
        const c = await window.idmint.SegmentClient.connect(url, { token, defaultStep: 500 });
        const t = await c.tag('shared');
        const got = new BigUint64Array(n);
        for (let i = 0; i < n; i++) {
            try {
                got[i] = t.nextId();
            } catch (e) {
                if (e.kind !== 'would_block') throw e;
                got[i] = await t.nextIdAsync();
            }
        }
        await c.close();
        return window.packIds(got);
    };
    const here = (async () => {
        const c = await idmint.SegmentClient.connect(ids.url, { token: ids.token, defaultStep: 500 });
        const t = await c.tag('shared');
        const got = new BigUint64Array(N);
        for (let i = 0; i < N; i++) got[i] = await t.nextIdAsync();
        const m = t.metrics();
        await c.close();
        return { got, m };
    })();
    const [a, b, mine] = await Promise.all([
        ...pages.map((p) => p.evaluate(draw, { url: ids.url, token: ids.token, n: N }).then(unpack)), here]);
    const { dups, total } = duplicates([a, b, mine.got]);
    const increasing = [a, b, mine.got].every((l) => l.every((id, i) => i === 0 || id > l[i - 1]));
    check('2 pages and a Node process draw one tag from the server: 0 duplicates, each increasing',
        dups === 0 && total === 3 * N && increasing, `${total} IDs, ${mine.m.refills} refills in Node`);
    await Promise.all(pages.map((p) => p.close()));
}

async function wrongToken(browser, web, ids) {
    const page = await openPage(browser, web.url);
    const r = await page.evaluate(async ({ url }) => {
        const { SegmentClient, Snowflake, errors } = window.idmint;
        const c = await SegmentClient.connect(url, { token: 'wrong' });
        const kinds = [];
        const before = window.__fetches;
        for (let i = 0; i < 2; i++) {
            try {
                await c.tag('t');
            } catch (e) {
                kinds.push(e instanceof errors.not_authorized ? e.kind : `other: ${e.message}`);
            }
        }
        const calls = window.__fetches - before;
        try {
            await Snowflake.create({ lease: url, token: 'wrong' });
        } catch (e) {
            kinds.push(e.kind);
        }
        return { kinds, calls, after: window.__fetches - before };
    }, { url: ids.url });
    check('a wrong token: NotAuthorizedError, one request per call',
        r.kinds.join() === 'not_authorized,not_authorized,not_authorized' && r.calls === 2 && r.after === 3,
        `${r.kinds.join(', ')}; ${r.after} requests`);
    await page.close();
}

async function main() {
    const web = await startServer();
    const ids = await startIdmint({ origins: [web.url] });
    const browser = await launch();
    const idmint = await import('../index.js');
    await idmint.default({ extras: true });
    try {
        console.log(`chromium ${browser.version()}, idmint serve at ${ids.url}, pages from ${web.url}`);
        await leases(browser, web, ids);
        await segments(browser, web, ids, idmint);
        await wrongToken(browser, web, ids);
        await frozenTab(browser, web, ids);
        await outage(browser, web, ids);
    } catch (e) {
        failed++;
        console.log(`FAIL remote :: ${e?.stack ?? e}\n--- idmint serve's log (tail):\n${ids.log().split('\n').slice(-30).join('\n')}`);
    } finally {
        await browser.close();
        await ids.close();
        await web.close();
    }
    console.log(`\nremote: ${passed} passed, ${failed} failed`);
    process.exitCode = failed || passed === 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
    await main();
}

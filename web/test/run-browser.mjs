// Runs the JS suite against idmint-web in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core), then drives the demo page: mint, paste, decode, screenshot.
//
// The suite is the shared one (js/test/*.test.mjs, the same cases as the native package) plus
// web/test/*.test.mjs. Files are served from the repo root by a server on a free loopback
// port, run in one page with node:test / node:assert shimmed by an import map (browser.html).
//
//   node test/run-browser.mjs            suite + demo
//   node test/run-browser.mjs --no-demo  suite only
import { mkdirSync, readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';
import { runDemo } from './demo-check.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
    '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

export function launch() {
    return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

function testFiles() {
    const shared = fileURLToPath(new URL('../../js/test/', import.meta.url));
    const web = fileURLToPath(new URL('./', import.meta.url));
    const list = (dir, prefix) => (existsSync(dir) ? readdirSync(dir) : [])
        .filter((f) => f.endsWith('.test.mjs')).sort().map((f) => prefix + f);
    return [...list(shared, '/js/test/'), ...list(web, '/web/test/')];
}

async function main() {
    const withDemo = !process.argv.includes('--no-demo');
    const files = testFiles();
    const server = await startServer();
    const browser = await launch();
    let failed = 0;
    try {
        const page = await browser.newPage();
        const consoleLines = [];
        page.on('console', (m) => consoleLines.push(`[console.${m.type()}] ${m.text()}`));
        page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
        const q = files.map((f) => `file=${encodeURIComponent(f)}`).join('&');
        console.log(`chromium ${browser.version()}: ${files.length} test files from ${server.url}`);
        await page.goto(`${server.url}/web/test/browser.html?${q}`);
        await page.waitForFunction(() => window.__results !== undefined, null, { timeout: 600_000 });
        const results = await page.evaluate(() => window.__results);
        let pass = 0;
        let skip = 0;
        for (const r of results) {
            if (r.status === 'pass') pass++;
            else if (r.status === 'skip') skip++;
            else failed++;
            const mark = r.status === 'pass' ? 'ok  ' : r.status === 'skip' ? 'skip' : 'FAIL';
            console.log(`${mark} ${r.file.replace(/^\//, '')} :: ${r.name}`);
            if (r.error) console.log('     ' + r.error.split('\n').slice(0, 6).join('\n     '));
        }
        if (failed && consoleLines.length) console.log(consoleLines.slice(-30).join('\n'));
        console.log(`\nchromium: ${pass} passed, ${failed} failed, ${skip} skipped`);
        if (results.length === 0) {
            console.log('no test ran');
            failed++;
        }
        await page.close();

        if (withDemo) {
            const out = fileURLToPath(new URL('./out/', import.meta.url));
            mkdirSync(out, { recursive: true });
            const demo = await runDemo(browser, server.url, `${out}demo.png`);
            for (const line of demo.lines) console.log(line);
            failed += demo.failed;
            console.log(`demo: ${demo.passed} passed, ${demo.failed} failed`);
        }
    } finally {
        await browser.close();
        await server.close();
    }
    process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
    await main();
}

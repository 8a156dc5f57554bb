// Opens a built site (a directory: tests/packages.sh's Vite app, dist/) in headless Chromium and
// waits for its page to report `window.__smoke = { ok, line }`; exits 1 unless ok.
//   node web/test/run-page.mjs DIR
import { resolve } from 'node:path';
import { startServer } from './serve.mjs';
import { launch } from './run-browser.mjs';

const root = resolve(process.argv[2]);
const server = await startServer({ root });
const browser = await launch();
let ok = false;
try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`[pageerror] ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && errors.push(`[console.error] ${m.text()}`));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => window.__smoke !== undefined, null, { timeout: 60_000 });
    const result = await page.evaluate(() => window.__smoke);
    ok = result.ok && errors.length === 0;
    console.log(`chromium ${browser.version()}: ${result.ok ? 'ok' : 'FAILED'}: ${result.line}`);
    if (errors.length) console.log(errors.join('\n'));
} finally {
    await browser.close();
    await server.close();
}
process.exit(ok ? 0 : 1);

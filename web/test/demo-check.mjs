// Drives web/demo/ in a page as a person would: mint snowflakes and ObjectIds, paste one of
// each into the decoder, then Discord's example and each other format's, check the decoded
// fields and dates, save a screenshot.

export async function runDemo(browser, baseUrl, screenshotPath) {
    const lines = [];
    let passed = 0;
    let failed = 0;
    const check = (ok, what, detail = '') => {
        if (ok) passed++;
        else failed++;
        lines.push(`${ok ? 'ok  ' : 'FAIL'} demo :: ${what}${!ok && detail ? `\n     ${detail}` : ''}`);
    };

    const page = await browser.newPage({ viewport: { width: 1000, height: 1100 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    try {
        await page.goto(`${baseUrl}/web/demo/`);
        await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
        check(true, 'page loads and initializes the wasm');

        // Snowflakes: twitter with node fields typed in.
        await page.selectOption('#layout', 'twitter');
        await page.fill('#nodes input[data-field="datacenter"]', '3');
        await page.fill('#nodes input[data-field="worker"]', '17');
        const before = Date.now();
        await page.click('#mint-snowflake');
        const ids = await page.$$eval('#snowflake-out li', (els) => els.map((e) => e.textContent));
        const after = Date.now();
        check(ids.length === 5 && ids.every((s) => /^\d+$/.test(s)), 'mints 5 snowflakes', JSON.stringify(ids));
        check(ids.every((s, i) => i === 0 || BigInt(s) > BigInt(ids[i - 1])), 'snowflakes increase');

        // Paste the last one into the decoder.
        await page.selectOption('#decode-layout', 'twitter');
        await page.fill('#decode-input', ids[4]);
        await page.click('#decode-btn');
        const sf = Object.fromEntries(await page.$$eval('#decode-out tr', (rows) => rows.map((r) => [r.cells[0].textContent, r.cells[1].textContent])));
        check(sf.datacenter === '3' && sf.worker === '17', 'decodes the pasted snowflake\'s node fields', JSON.stringify(sf));
        const ms = Number(sf.timestampMs);
        check(ms >= before - 2000 && ms <= after + 2000 && new Date(ms).toISOString() === sf['created (UTC)'],
            'decodes its creation date', JSON.stringify(sf));

        // Random node values on another layout.
        await page.selectOption('#layout', 'sonyflake');
        await page.check('#random');
        await page.click('#mint-snowflake');
        const gen = await page.textContent('#generator');
        const randomIds = await page.$$eval('#snowflake-out li', (els) => els.map((e) => e.textContent));
        check(/"machine":\d+/.test(gen) && randomIds.length === 5, 'mints with random: true', gen);
        await page.click('#snowflake-out li:first-child'); // click-to-decode
        check((await page.inputValue('#decode-layout')) === 'sonyflake'
            && (await page.$eval('#decode-out', (e) => e.dataset.kind)) === 'snowflake', 'a minted ID decodes on click');

        // ObjectIds.
        await page.click('#mint-objectid');
        const oids = await page.$$eval('#objectid-out li', (els) => els.map((e) => e.textContent));
        check(oids.length === 5 && oids.every((s) => /^[0-9a-f]{24}$/.test(s)) && new Set(oids).size === 5, 'mints 5 ObjectIds', JSON.stringify(oids));
        await page.fill('#decode-input', oids[0].toUpperCase());
        const od = Object.fromEntries(await page.$$eval('#decode-out tr', (rows) => rows.map((r) => [r.cells[0].textContent, r.cells[1].textContent])));
        const secs = parseInt(oids[0].slice(0, 8), 16);
        check(od.kind === 'ObjectId' && od['created (UTC)'] === new Date(secs * 1000).toISOString(), 'decodes a pasted ObjectId (any case) and its date', JSON.stringify(od));

        // Discord's documented example, with the 64-bit `discord` layout.
        const rowsOf = () => page.$$eval('#decode-out tr', (rows) => Object.fromEntries(rows.map((r) => [r.cells[0].textContent, r.cells[1].textContent])));
        await page.selectOption('#decode-layout', 'discord');
        await page.fill('#decode-input', '175928847299117063');
        const dc = await rowsOf();
        check(dc['created (UTC)'] === '2016-04-30T11:18:25.796Z' && dc.worker === '1' && dc.process === '0' && dc.sequence === '7',
            'decodes Discord\'s documented example', JSON.stringify(dc));

        // Every other format, from each one's own published example (the second module loads
        // on the first of them).
        for (const [text, kind, time, part] of [
            ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'ulid', '2016-07-30T23:54:10.259Z', ['random', 'd6764c61efb99302bd5b']],
            ['017F22E2-79B0-7CC3-98C4-DC0C0C07398F', 'uuid', '2022-02-22T19:22:22.000Z', ['version', '7']],
            ['C232AB00-9414-11EC-B3C8-9F6BDECED846', 'uuid', '2022-02-22T19:22:22.0000000Z', ['version', '1']],
            ['0ujtsYcgvSTl8PAuAdqWYSMnLOv', 'ksuid', '2017-10-10T04:00:47Z', ['timestamp', '107608047']],
            ['9m4e2mr0ui3e8a215n4g', 'xid', '2011-03-22T17:50:19Z', ['pid', '58408']],
            ['01226N0640J7Q', 'tsid', '2020-04-15T20:22:07.665Z', ['random', '18679']],
        ]) {
            await page.fill('#decode-input', text);
            await page.waitForSelector(`#decode-out[data-kind="${kind}"] tr`, { timeout: 30_000 });
            const r = await rowsOf();
            check(r.kind === kind && r['created (UTC)'] === time && r[part[0]] === part[1], `decodes a pasted ${kind} (${text})`, JSON.stringify(r));
            await page.fill('#decode-input', '');
        }
        await page.fill('#decode-input', 'hello');
        const unknown = await page.textContent('#decode-error');
        check(/InvalidIdError/.test(unknown) && /KSUID/.test(unknown), 'text of no format names the formats tried', unknown);

        // A bad paste shows the typed error, not a crash.
        await page.selectOption('#decode-layout', 'twitter');
        await page.fill('#decode-input', '9223372036854775808');
        const err = await page.textContent('#decode-error');
        check(/InvalidIdError/.test(err), 'shows an error for an ID that does not fit', err);

        // Leave a decoded snowflake on screen for the screenshot.
        await page.selectOption('#layout', 'twitter');
        await page.uncheck('#random');
        await page.fill('#nodes input[data-field="datacenter"]', '3');
        await page.fill('#nodes input[data-field="worker"]', '17');
        await page.click('#mint-snowflake');
        await page.click('#mint-objectid');
        await page.selectOption('#decode-layout', 'twitter');
        await page.fill('#decode-input', ids[4]);
        await page.screenshot({ path: screenshotPath, fullPage: true });
        check(true, `screenshot saved to ${screenshotPath}`);
        check(errors.length === 0, 'no page errors', errors.join('\n'));
    } catch (e) {
        check(false, 'demo run', e.stack ?? String(e));
    } finally {
        await page.close();
    }
    return { lines, passed, failed };
}

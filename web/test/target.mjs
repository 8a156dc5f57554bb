// The web package's own test target: always idmint-web (the shared suite in js/test/ picks its
// target from IDMINT_TARGET; these web-only cases need no choice). Same exports as
// js/test/target.mjs: { idmint, vectors, TARGET } (the vectors these cases use: snowflake,
// objectid), fetched in a browser, read from disk in Node.

const inBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';

async function loadVectors(name) {
    if (inBrowser) {
        const r = await fetch(`/tests/vectors/${name}.json`);
        if (!r.ok) throw new Error(`GET /tests/vectors/${name}.json: ${r.status}`);
        return r.json();
    }
    const { readFile } = await import('node:fs/promises');
    return JSON.parse(await readFile(new URL(`../../tests/vectors/${name}.json`, import.meta.url), 'utf8'));
}

const m = await import('../index.js');
if (typeof m.default === 'function') await m.default({ extras: true }); // the display IDs too

export const idmint = m;
export const TARGET = 'web';
export const vectors = {
    snowflake: await loadVectors('snowflake'),
    objectid: await loadVectors('objectid'),
};

// A tiny static file server for the browser tests, the demo and the benchmark: serves the repo
// root (so /tests/vectors/*.json, /js/test/*.mjs and /web/** resolve) on a free loopback
// port. `node serve.mjs` prints the URL and serves until stopped; tests import startServer().
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const TYPES = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.mjs': 'text/javascript; charset=utf-8',
    '.json': 'application/json; charset=utf-8',
    '.wasm': 'application/wasm',
    '.css': 'text/css; charset=utf-8',
    '.png': 'image/png',
    '.map': 'application/json',
};

export function startServer({ root = ROOT, port = 0, host = '127.0.0.1' } = {}) {
    const server = createServer(async (req, res) => {
        try {
            let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
            if (path.endsWith('/')) path += 'index.html';
            const file = normalize(join(root, path));
            if (!file.startsWith(normalize(root + sep)) && file !== normalize(root)) {
                res.writeHead(403).end();
                return;
            }
            const body = await readFile(file);
            res.writeHead(200, {
                'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
                'cache-control': 'no-store',
            });
            res.end(body);
        } catch {
            res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        }
    });
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
            const { port: p } = server.address();
            resolve({ server, url: `http://${host}:${p}`, close: () => new Promise((r) => server.close(r)) });
        });
    });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
    const { url } = await startServer({ port: Number(process.env.PORT ?? 0) });
    console.log(`serving ${ROOT} at ${url}/ (demo: ${url}/web/demo/)`);
}

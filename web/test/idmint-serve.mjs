// A real `idmint serve` for the browser tests of the lease and segment client (remote-check.mjs):
// its binary as `cargo test --workspace --profile ci --no-run` builds it (target/ci/idmint, or
// IDMINT_BIN), on free loopback ports, its SQLite store and config in a temp directory, one
// bearer token, CORS for the test pages' origin. Stopped by its PID (SIGKILL: the lapse test
// wants it gone at once), never by name; `restart()` starts it again on the same ports and store.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function idmintBin() {
    return process.env.IDMINT_BIN
        || join(process.env.CARGO_TARGET_DIR || join(ROOT, 'target'), process.env.IDMINT_CARGO_PROFILE || 'ci', 'idmint');
}

/** A port the OS had free a moment ago. */
function freePort() {
    return new Promise((resolve, reject) => {
        const s = createServer();
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

/**
 * Start `idmint serve`: `{ url, token, restart(), stop(), close(), log() }`. `origins` get CORS;
 * `config` is more TOML appended to the file.
 */
export async function startIdmint({ origins = [], config = '' } = {}) {
    const bin = idmintBin();
    if (!existsSync(bin)) {
        throw new Error(`no idmint binary at ${bin}: build it with \`cargo test --workspace --profile ci --no-run\` (or set IDMINT_BIN)`);
    }
    const dir = mkdtempSync(join(tmpdir(), 'idmint-web-'));
    const [port, adminPort] = [await freePort(), await freePort()];
    const token = randomBytes(24).toString('hex');
    const sha = createHash('sha256').update(token).digest('hex');
    writeFileSync(join(dir, 'config.toml'), `listen = "127.0.0.1:${port}"
admin_listen = "127.0.0.1:${adminPort}"
store = "sqlite:${join(dir, 'idmint.db')}"

[http]
cors_origins = ${JSON.stringify(origins)}

[limits]
drain_delay_ms = 0

[[tokens]]
name = "web-tests"
sha256 = "${sha}"
scopes = ["mint", "lease", "admin"]
${config}
`);
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('IDMINT_')) delete env[k];
    let child = null;
    let log = '';

    async function start() {
        child = spawn(bin, ['serve', '--config', 'config.toml'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
        const mine = child;
        mine.stdout.on('data', (d) => { log += d; });
        mine.stderr.on('data', (d) => { log += d; });
        const exited = new Promise((resolve) => mine.once('exit', (code, signal) => resolve(`exited (${code ?? signal})`)));
        mine.exited = exited;
        // Ready once /readyz answers 200 (the server's own lease and tags are in).
        for (let i = 0; i < 600; i++) {
            const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 50))]);
            if (gone) throw new Error(`idmint serve ${gone} before it was ready:\n${log}`);
            try {
                const r = await fetch(`http://127.0.0.1:${adminPort}/readyz`);
                if (r.ok) return;
            } catch {
                // not listening yet
            }
        }
        throw new Error(`idmint serve did not become ready in 30 s:\n${log}`);
    }

    async function stop() {
        if (child === null) return;
        const c = child;
        child = null;
        c.kill('SIGKILL'); // by its PID: the ChildProcess's own
        await c.exited;
    }

    await start();
    return {
        url: `http://127.0.0.1:${port}`,
        token,
        restart: start,
        stop,
        log: () => log,
        async close() {
            await stop();
            rmSync(dir, { recursive: true, force: true });
        },
    };
}

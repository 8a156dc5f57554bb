// A real `idmint serve` for the browser tests of the lease and segment client (remote-check.mjs):
// its binary as `cargo test --workspace --profile ci --no-run` builds it (target/ci/idmint, or
// IDMINT_BIN), its SQLite store and config in a temp directory, one bearer token, CORS for the
// test pages' origin. Both listeners bind loopback port 0: the OS picks the ports, and the server
// names them in its ready file (`--ready-file`), read here; no port is picked here and released
// for another process to take. Stopped by its PID (SIGKILL: the lapse test wants it gone at
// once), never by name; `restart()` starts it again on the same ports and store.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** How long one start may take to become ready: generous, for a loaded 2-core machine. */
const START_LIMIT_MS = 120_000;
/** How long a restart keeps trying while another process holds one of the ports. */
const PORT_TAKEN_LIMIT_MS = 120_000;

export function idmintBin() {
    return process.env.IDMINT_BIN
        || join(process.env.CARGO_TARGET_DIR || join(ROOT, 'target'), process.env.IDMINT_CARGO_PROFILE || 'ci', 'idmint');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A start that failed: `log` is what that process wrote. */
class StartFailed extends Error {
    constructor(message, log) {
        super(`${message}:\n${log}`);
        this.log = log;
    }
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
    const readyFile = join(dir, 'ready.json');
    const token = randomBytes(24).toString('hex');
    const sha = createHash('sha256').update(token).digest('hex');
    // 0 until the first start has read the ports the OS picked; a restart asks for them again.
    let port = 0;
    let adminPort = 0;
    const writeConfig = () => writeFileSync(join(dir, 'config.toml'), `listen = "127.0.0.1:${port}"
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

    /** The listener port of a ready file's `"127.0.0.1:PORT"`. */
    function portOf(bound, key, text) {
        const p = Number(/:(\d+)$/.exec(bound[key] ?? '')?.[1]);
        if (!(p > 0)) throw new Error(`idmint serve's ready file has no ${key}: ${text}`);
        return p;
    }

    /** One process: started, its ready file read, /readyz 200; StartFailed when it exits first. */
    async function startOnce() {
        writeConfig();
        rmSync(readyFile, { force: true }); // a SIGKILLed server leaves its own behind
        const from = log.length;
        const mine = spawn(bin, ['serve', '--config', 'config.toml', '--ready-file', readyFile],
            { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
        child = mine;
        mine.stdout.on('data', (d) => { log += d; });
        mine.stderr.on('data', (d) => { log += d; });
        let gone = null;
        mine.exited = new Promise((resolve) => mine.once('exit', (code, signal) => {
            gone = `exited (${code ?? signal})`;
            resolve(gone);
        }));
        const deadline = Date.now() + START_LIMIT_MS;
        const failed = async (what) => {
            if (child === mine) child = null;
            mine.kill('SIGKILL');
            await mine.exited;
            return new StartFailed(`idmint serve ${what}`, log.slice(from));
        };
        // The ready file: written (whole, renamed into place) once both listeners are bound.
        for (;;) {
            if (gone) throw await failed(`${gone} before it was ready`);
            let text = null;
            try {
                text = readFileSync(readyFile, 'utf8');
            } catch {
                // not written yet
            }
            if (text !== null) {
                const bound = JSON.parse(text);
                [port, adminPort] = [portOf(bound, 'listen', text), portOf(bound, 'admin_listen', text)];
                break;
            }
            if (Date.now() > deadline) throw await failed(`wrote no ready file in ${START_LIMIT_MS / 1000} s`);
            await sleep(25);
        }
        // Then /readyz: 200 once the server's own lease and tags are in.
        for (;;) {
            if (gone) throw await failed(`${gone} before it was ready`);
            try {
                const r = await fetch(`http://127.0.0.1:${adminPort}/readyz`);
                if (r.ok) return;
            } catch {
                // not answering yet
            }
            if (Date.now() > deadline) throw await failed(`did not become ready in ${START_LIMIT_MS / 1000} s`);
            await sleep(50);
        }
    }

    /**
     * Starts again on the ports of the first start (the pages keep their URL). A port the killed
     * process let go can be taken meanwhile by another process (an outgoing connection's local
     * port): then the server exits with "Address already in use", and it is started again until
     * the port is free.
     */
    async function restart() {
        if (child !== null) throw new Error('restart(): stop() it first');
        const deadline = Date.now() + PORT_TAKEN_LIMIT_MS;
        for (let starts = 1; ; starts++) {
            try {
                await startOnce();
                return;
            } catch (e) {
                if (!(e instanceof StartFailed) || !e.log.includes('Address already in use')) throw e;
                if (Date.now() > deadline) {
                    throw new Error(`ports ${port} and ${adminPort} stayed taken for ${PORT_TAKEN_LIMIT_MS / 1000} s (${starts} starts):\n${e.log}`);
                }
                await sleep(200);
            }
        }
    }

    async function stop() {
        if (child === null) return;
        const c = child;
        child = null;
        c.kill('SIGKILL'); // by its PID: the ChildProcess's own
        await c.exited;
    }

    try {
        await startOnce();
    } catch (e) {
        rmSync(dir, { recursive: true, force: true });
        throw e;
    }
    return {
        url: `http://127.0.0.1:${port}`,
        token,
        restart,
        stop,
        log: () => log,
        async close() {
            await stop();
            rmSync(dir, { recursive: true, force: true });
        },
    };
}

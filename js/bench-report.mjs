// What node/bench.mjs and web/bench.mjs share: the Markdown file a run writes to
// docs/bench/<name>.md, the one place its figures are published, with the date, the machine, the
// runtime and the command on top. IDMINT_BENCH_WRITE=0 leaves the file alone.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `out(text)` prints like console.log and keeps the lines, for `writeReport`. */
export function printer() {
    const lines = [];
    const out = (text) => {
        console.log(text);
        lines.push(...text.split('\n'));
    };
    return { lines, out };
}

/** `<pkg> <version>` as installed in `<dir>/node_modules`, for the runtime line. */
export function installed(dir, pkg) {
    try {
        const json = JSON.parse(readFileSync(path.join(root, dir, 'node_modules', pkg, 'package.json'), 'utf8'));
        return `${pkg} ${json.version}`;
    } catch {
        return `${pkg} (version unknown)`;
    }
}

/**
 * Write `lines` (the printed tables) under the header; `script` is the bench's import.meta.url,
 * `runtime` what ran it besides node (browser, peers' versions).
 */
export function writeReport({ name, title, script, runtime, lines }) {
    if (process.env.IDMINT_BENCH_WRITE === '0') return;
    const file = path.join(root, 'docs', 'bench', `${name}.md`);
    const command = ['node', path.relative(root, fileURLToPath(script)), ...process.argv.slice(2)].join(' ');
    const header = [
        `# ${title}`,
        '',
        `- date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        `- machine: ${os.platform()} ${os.arch()}, ${os.cpus()[0]?.model ?? 'CPU model unknown'} × ${os.cpus().length} CPUs, ` +
            `load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
        `- runtime: node ${process.version}, ${runtime.join(', ')}`,
        `- command: \`${command}\` (from the repository root)`,
        '',
        'Written by the bench; running the command again replaces this file.',
        '',
    ];
    writeFileSync(file, `${[...header, ...lines].join('\n').trim()}\n`);
    console.log(`\nwrote ${path.relative(process.cwd(), file)}`);
}

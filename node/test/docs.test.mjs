// Every ```js example of docs/node-frameworks.md runs as it is written: an ES module evaluated
// in this package's folder (so `import … from 'idmint'` is this package, by its own name, and the
// frameworks are its devDependencies), with the test PostgreSQL as DATABASE_URL. Each example
// checks its own results with node:assert; a failing one exits non-zero.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { server } from './stores.mjs';

const doc = fs.readFileSync(new URL('../../docs/node-frameworks.md', import.meta.url), 'utf8');
const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const url = server('IDMINT_TEST_POSTGRES_URL');

/** `[heading, code]` of each ```js block, named by the last `## ` heading above it. */
function examples() {
  const out = [];
  let heading = '';
  const lines = doc.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('## ')) heading = lines[i].slice(3);
    if (lines[i] !== '```js') continue;
    const end = lines.indexOf('```', i + 1);
    out.push([heading, lines.slice(i + 1, end).join('\n')]);
    i = end;
  }
  return out;
}

/** Runs `code` as an ES module in the package folder: its exit code and output. */
function run(code) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      cwd: pkgDir,
      env: { ...process.env, DATABASE_URL: url },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (status) => resolve({ status, output }));
  });
}

test('docs/node-frameworks.md has an example per integration', () => {
  const names = examples().map(([h]) => h);
  for (const want of ['Drizzle', 'TypeORM', 'Knex', 'bson', 'OpenTelemetry']) {
    assert.ok(names.some((n) => n.includes(want)), `no example under a heading with ${want}: ${names}`);
  }
});

for (const [heading, code] of examples()) {
  test(`docs/node-frameworks.md example runs: ${heading}`, { skip: url ? false : 'IDMINT_TEST_POSTGRES_URL not set' }, async () => {
    const { status, output } = await run(code);
    assert.equal(status, 0, output);
  });
}

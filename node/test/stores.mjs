// Helpers of the store tests. The test servers' URLs (tests/servers.sh, started by tests/run.sh): a test without its server
// is skipped, or fails when IDMINT_REQUIRE_SERVERS=1 (CI).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REQUIRE = process.env.IDMINT_REQUIRE_SERVERS === '1';

/** `{ name, url }` for each store: a SQLite file (no server), PostgreSQL, MariaDB, Redis plain and sharded. */
export function stores() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idmint-node-'));
  const out = [{ name: 'sqlite', url: `sqlite:${path.join(dir, 'segments.db')}` }];
  for (const [name, variable] of [
    ['postgres', 'IDMINT_TEST_POSTGRES_URL'],
    ['mariadb', 'IDMINT_TEST_MYSQL_URL'],
    ['redis', 'IDMINT_TEST_REDIS_URL'],
  ]) {
    out.push({ name, url: server(variable), variable });
  }
  const redis = server('IDMINT_TEST_REDIS_URL');
  out.push({ name: 'redis, sharded (?shards=2)', url: redis && `${redis}${redis.includes('?') ? '&' : '?'}shards=2` });
  return out;
}

/** The URL in `variable`; undefined (skip) unless servers are required, then an error. */
export function server(variable) {
  const url = process.env[variable];
  if (!url && REQUIRE) throw new Error(`${variable} is not set but IDMINT_REQUIRE_SERVERS=1: start the servers with tests/servers.sh`);
  return url || undefined;
}

/** A name no earlier run used, for tags and lease tables on long-lived servers. */
export const unique = (prefix) => `${prefix}_${process.pid}_${Date.now().toString(36)}`;

/** The error a Promise rejects with (it must reject). */
export async function rejected(p, what = 'the call') {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error(`${what} should have rejected`);
}

/** The IDs of OUTFILEs (one decimal a line) and how many of them repeat an earlier one. */
export function readIds(files) {
  const lines = files.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean));
  const ids = BigUint64Array.from(lines, (l) => BigInt(l));
  const sorted = ids.slice().sort();
  let duplicates = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) duplicates++;
  return { ids, duplicates };
}

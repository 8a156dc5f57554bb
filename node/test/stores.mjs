// Helpers of the store tests. The test servers' URLs (tests/servers.sh, started by tests/run.sh): a test without its server
// is skipped, or fails when IDMINT_REQUIRE_SERVERS=1 (CI).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REQUIRE = process.env.IDMINT_REQUIRE_SERVERS === '1';

/**
 * A new directory under the system's temp dir, removed when this test process exits (node:test runs
 * each file in a process of its own), so no run leaves its SQLite files and ID lists behind.
 */
const made = [];
export function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (made.push(dir) === 1) {
    process.on('exit', () => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  }
  return dir;
}

/** `{ name, url }` for each segment store: a SQLite file (no server), PostgreSQL, MariaDB, Redis plain and sharded, etcd, ZooKeeper. */
export function stores() {
  const dir = tempDir('idmint-node-');
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
  for (const [name, variable] of [
    ['etcd', 'IDMINT_TEST_ETCD_URL'],
    ['zookeeper', 'IDMINT_TEST_ZK_URL'],
  ]) {
    out.push({ name, url: server(variable), variable });
  }
  return out;
}

/**
 * `{ name, url }` for each lease store: a SQLite file (no server), PostgreSQL, etcd, ZooKeeper,
 * each with a table or key prefix no earlier run used (the servers keep their data).
 */
export function leaseStores() {
  const dir = tempDir('idmint-lease-');
  const out = [{ name: 'sqlite', url: `sqlite:${path.join(dir, 'leases.db')}` }];
  for (const [name, variable, option] of [
    ['postgres', 'IDMINT_TEST_POSTGRES_URL', 'table'],
    ['etcd', 'IDMINT_TEST_ETCD_URL', 'prefix'],
    ['zookeeper', 'IDMINT_TEST_ZK_URL', 'prefix'],
  ]) {
    const url = server(variable);
    out.push({ name, url: url && withParam(url, `${option}=${unique('leases')}`), variable });
  }
  return out;
}

/** `url` with a query parameter added. */
export const withParam = (url, param) => `${url}${url.includes('?') ? '&' : '?'}${param}`;

/** The URL in `variable`; undefined (skip) unless servers are required, then an error. */
export function server(variable) {
  const url = process.env[variable];
  if (!url && REQUIRE) throw new Error(`${variable} is not set but IDMINT_REQUIRE_SERVERS=1: start the servers with tests/servers.sh`);
  return url || undefined;
}

/** A name no earlier run or call used, for tags, lease tables and prefixes on long-lived servers. */
let calls = 0;
export const unique = (prefix) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${calls++}`;

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

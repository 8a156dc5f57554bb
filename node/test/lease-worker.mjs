#!/usr/bin/env node
// One OS process of the lease test (node/test/lease.test.mjs):
//
//   node node/test/lease-worker.mjs URL GENERATORS IDS_EACH OUTFILE
//
// Builds GENERATORS twitter-layout generators at once, each leasing a node value of 0..=7 from
// the store at URL, and prints `{"leased": n, "noFreeLease": m}` on one line. Then, on a line
// `go` on stdin (so every process has tried before any lets go), each leased generator mints
// IDS_EACH IDs into OUTFILE (one decimal a line) and is closed, releasing its lease.
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Snowflake } from '../index.mjs';

const [url, generators, idsEach, outfile] = process.argv.slice(2);
if (!outfile) {
  // `node --test node/test/` runs every file here: as a test, there is nothing to do.
  if (process.env.NODE_TEST_CONTEXT) process.exit(0);
  console.error('usage: lease-worker.mjs URL GENERATORS IDS_EACH OUTFILE');
  process.exit(2);
}

const tries = await Promise.allSettled(
  Array.from({ length: Number(generators) }, () =>
    Snowflake.create({ layout: 'twitter', lease: url, leaseRange: [0, 7], leaseTtlMs: 10_000 })
  )
);
const leased = tries.filter((t) => t.status === 'fulfilled').map((t) => t.value);
const failed = tries.filter((t) => t.status === 'rejected').map((t) => t.reason);
const noFree = failed.filter((e) => e.kind === 'no_free_lease').length;
for (const e of failed) if (e.kind !== 'no_free_lease') console.error(`unexpected: ${e.name}: ${e.message}`);
console.log(JSON.stringify({ leased: leased.length, noFreeLease: noFree, nodes: leased.map((g) => g.nodes) }));

const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === 'go') break;
lines.close();

const out = [];
for (const g of leased) {
  let left = Number(idsEach);
  while (left > 0) {
    const n = Math.min(left, 10_000);
    for (const id of g.nextIds(n)) out.push(String(id));
    left -= n;
  }
}
writeFileSync(outfile, out.join('\n') + '\n');
await Promise.all(leased.map((g) => g.close()));

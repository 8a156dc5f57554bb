#!/usr/bin/env node
// One OS process of the segment uniqueness tests (node/test/segment.test.mjs, and the mixed
// Python + Node + Java run on one PostgreSQL tag):
//
//   node node/test/segment-worker.mjs URL TAG COUNT THREADS OUTFILE
//
// THREADS worker threads, each with its own SegmentClient of the store at URL, draw COUNT IDs
// each from TAG (the hot path: `tag.nextId()` from memory, `await tag.nextIdAsync()` when
// memory is empty); OUTFILE gets every ID, one decimal a line.
import { writeFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const entry = new URL('../index.js', import.meta.url);

async function draw({ url, tag, count }) {
  const { default: idmint } = await import(entry);
  const client = await idmint.SegmentClient.connect(url);
  const t = await client.tag(tag);
  const ids = new BigUint64Array(count);
  for (let i = 0; i < count; i++) {
    try {
      ids[i] = t.nextId();
    } catch (e) {
      if (e.kind !== 'would_block') throw e;
      ids[i] = await t.nextIdAsync();
    }
  }
  await client.close();
  return ids;
}

if (isMainThread) {
  const [url, tag, count, threads, outfile] = process.argv.slice(2);
  if (!outfile) {
    // `node --test node/test/` runs every file here: as a test, there is nothing to do.
    if (process.env.NODE_TEST_CONTEXT) process.exit(0);
    console.error('usage: segment-worker.mjs URL TAG COUNT THREADS OUTFILE');
    process.exit(2);
  }
  const runs = Array.from({ length: Number(threads) }, () =>
    new Promise((resolve, reject) => {
      const w = new Worker(new URL(import.meta.url), { workerData: { url, tag, count: Number(count) } });
      w.once('message', resolve);
      w.once('error', reject);
      w.once('exit', (code) => code !== 0 && reject(new Error(`worker thread exited with ${code}`)));
    })
  );
  const lines = [];
  for (const ids of await Promise.all(runs)) for (const id of ids) lines.push(String(id));
  writeFileSync(outfile, lines.join('\n') + '\n');
} else {
  parentPort.postMessage(await draw(workerData));
}

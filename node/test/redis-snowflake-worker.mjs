#!/usr/bin/env node
// One OS process of the RedisSnowflake uniqueness test (node/test/redis-snowflake.test.mjs):
//
//   node node/test/redis-snowflake-worker.mjs URL[,URL...] TAG COUNT THREADS OUTFILE
//
// THREADS worker threads, each with its own RedisSnowflake (shard 7), draw COUNT IDs each: half
// by `nextId()` from the buffer (`await nextIdAsync()` when it is empty), half by runs of
// `await nextIds(100)`; OUTFILE gets every ID, one decimal a line.
import { writeFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const entry = new URL('../index.js', import.meta.url);
const SHARD = 7;

async function draw({ urls, tag, count }) {
  const { default: idmint } = await import(entry);
  const gen = await idmint.RedisSnowflake.connect(urls, { tag, shard: SHARD });
  const ids = new BigUint64Array(count);
  const half = Math.floor(count / 2);
  for (let i = 0; i < half; i++) {
    try {
      ids[i] = gen.nextId();
    } catch (e) {
      if (e.kind !== 'would_block') throw e;
      ids[i] = await gen.nextIdAsync();
    }
  }
  for (let i = half; i < count; ) {
    for (const id of await gen.nextIds(Math.min(100, count - i))) ids[i++] = id;
  }
  await gen.close();
  return ids;
}

if (isMainThread) {
  const [urls, tag, count, threads, outfile] = process.argv.slice(2);
  if (!outfile) {
    // `node --test node/test/` runs every file here: as a test, there is nothing to do.
    if (process.env.NODE_TEST_CONTEXT) process.exit(0);
    console.error('usage: redis-snowflake-worker.mjs URL[,URL...] TAG COUNT THREADS OUTFILE');
    process.exit(2);
  }
  const runs = Array.from({ length: Number(threads) }, () =>
    new Promise((resolve, reject) => {
      const w = new Worker(new URL(import.meta.url), { workerData: { urls, tag, count: Number(count) } });
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

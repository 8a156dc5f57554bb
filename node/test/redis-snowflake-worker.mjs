#!/usr/bin/env node
// One OS process of the RedisSnowflake uniqueness test (node/test/redis-snowflake.test.mjs):
//
//   node node/test/redis-snowflake-worker.mjs URL[,URL...] TAG COUNT THREADS OUTFILE
//
// THREADS worker threads, each with its own RedisSnowflake (shard 7), draw COUNT IDs each: half
// by `nextId()` from the buffer (`await nextIdAsync()` when it is empty), half by runs of
// `await nextIds(100)`; OUTFILE gets every ID, one decimal a line.
import { fillIds, runDrawProcess } from './draw-process.mjs';

const entry = new URL('../index.js', import.meta.url);
const SHARD = 7;

await runDrawProcess(import.meta.url, async ({ url, tag, count }) => {
  const { default: idmint } = await import(entry);
  const gen = await idmint.RedisSnowflake.connect(url, { tag, shard: SHARD });
  const ids = new BigUint64Array(count);
  const half = Math.floor(count / 2);
  await fillIds(gen, ids, 0, half);
  for (let i = half; i < count; ) {
    for (const id of await gen.nextIds(Math.min(100, count - i))) ids[i++] = id;
  }
  await gen.close();
  return ids;
});

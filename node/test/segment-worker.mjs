#!/usr/bin/env node
// One OS process of the segment uniqueness tests (node/test/segment.test.mjs, and the mixed
// Python + Node + Java run on one PostgreSQL tag):
//
//   node node/test/segment-worker.mjs URL TAG COUNT THREADS OUTFILE
//
// THREADS worker threads, each with its own SegmentClient of the store at URL, draw COUNT IDs
// each from TAG (the hot path: `tag.nextId()` from memory, `await tag.nextIdAsync()` when
// memory is empty); OUTFILE gets every ID, one decimal a line.
import { pathToFileURL } from 'node:url';
import { fillIds, runDrawProcess } from './draw-process.mjs';

// IDMINT_NODE_ENTRY: an installed package's entry point instead of this checkout's (the release
// matrix runs tests/pg.sh with the npm packages it built: tests/packages.sh pg).
const entry = process.env.IDMINT_NODE_ENTRY
  ? pathToFileURL(process.env.IDMINT_NODE_ENTRY)
  : new URL('../index.js', import.meta.url);

await runDrawProcess(import.meta.url, async ({ url, tag, count }) => {
  const { default: idmint } = await import(entry);
  const client = await idmint.SegmentClient.connect(url);
  const t = await client.tag(tag);
  const ids = new BigUint64Array(count);
  await fillIds(t, ids, 0, count);
  await client.close();
  return ids;
});

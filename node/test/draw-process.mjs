// The shape every multi-process uniqueness worker here shares: one OS process that runs THREADS
// worker threads, each drawing COUNT IDs with its own generator, and writes every ID to OUTFILE,
// one decimal a line. segment-worker.mjs and redis-snowflake-worker.mjs differ only in `draw`.
import { writeFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

/**
 * Fills `ids[from..to)` by `source.nextId()` from memory (synchronous, the hot path), and by
 * `await source.nextIdAsync()` for each call that finds memory empty.
 */
export async function fillIds(source, ids, from, to) {
  for (let i = from; i < to; i++) {
    try {
      ids[i] = source.nextId();
    } catch (e) {
      if (e.kind !== 'would_block') throw e;
      ids[i] = await source.nextIdAsync();
    }
  }
}

/**
 * Runs the calling module as a worker process: `node MODULE URL TAG COUNT THREADS OUTFILE`.
 * `draw({ url, tag, count })` runs in each worker thread and returns a BigUint64Array.
 */
export async function runDrawProcess(moduleUrl, draw) {
  if (!isMainThread) {
    parentPort.postMessage(await draw(workerData));
    return;
  }
  const [url, tag, count, threads, outfile] = process.argv.slice(2);
  if (!outfile) {
    // `node --test node/test/` runs every file here: as a test, there is nothing to do.
    if (process.env.NODE_TEST_CONTEXT) process.exit(0);
    const name = new URL(moduleUrl).pathname.split('/').pop();
    console.error(`usage: ${name} URL TAG COUNT THREADS OUTFILE`);
    process.exit(2);
  }
  const runs = Array.from({ length: Number(threads) }, () =>
    new Promise((resolve, reject) => {
      const w = new Worker(new URL(moduleUrl), { workerData: { url, tag, count: Number(count) } });
      w.once('message', resolve);
      w.once('error', reject);
      w.once('exit', (code) => code !== 0 && reject(new Error(`worker thread exited with ${code}`)));
    })
  );
  const lines = [];
  for (const ids of await Promise.all(runs)) for (const id of ids) lines.push(String(id));
  writeFileSync(outfile, lines.join('\n') + '\n');
}

// tests/vectors/health.json through `metrics.health` (the core's rule, as every package runs it),
// and the health of the live generators and clients.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Snowflake, SegmentClient, metrics, InvalidArgumentError } from '../index.mjs';

const vectors = JSON.parse(fs.readFileSync(new URL('../../tests/vectors/health.json', import.meta.url), 'utf8'));

/** The vector's expected answer in the package's names (camelCase). */
function jsForm({ status, reasons, lease, tags }) {
  return {
    status,
    reasons,
    lease: lease === null ? null : { held: lease.held, fenceS: lease.fence_s, renewFailures: lease.renew_failures },
    tags: tags.map((t) => ({ tag: t.tag, remaining: t.remaining, storeErrors: t.store_errors, starved: t.starved })),
  };
}

for (const c of vectors.valid) {
  test(`health: ${c.name}`, () => {
    assert.deepStrictEqual(metrics.health(c.observations), jsForm(c.expected));
  });
}

for (const c of vectors.invalid) {
  test(`health refuses: ${c.name}`, () => {
    assert.equal(c.error, 'invalid_argument');
    assert.throws(() => metrics.health(c.observations), InvalidArgumentError);
  });
}

test('health of the live generators and clients, and of what they observe', async () => {
  const gen = new Snowflake({ layout: 'sonyflake', machine: 5 });
  const client = await SegmentClient.connect('memory:');
  try {
    await (await client.tag('orders')).nextIdAsync();
    const h = metrics.health();
    assert.equal(h.status, 'up', JSON.stringify(h));
    assert.deepStrictEqual(h.reasons, []);
    const orders = h.tags.find((t) => t.tag === 'orders');
    assert.ok(orders.storeErrors === 0 && !orders.starved, JSON.stringify(h));
    assert.deepStrictEqual(metrics.health(metrics.observe()), h);
  } finally {
    gen.close();
    await client.close();
  }
});

test('a layout within a year of its end: a LayoutWarning at construction, degraded health', async () => {
  // 38 time bits of 1 ms (about 8.7 years), ending 100 days from now.
  const endMs = Date.now() + 100 * 86_400_000;
  const layout = `time:38@1ms,worker:10,sequence:12,epoch=${endMs - 2 ** 38}`;
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on('warning', onWarning);
  const gen = new Snowflake({ layout, worker: 3 });
  await new Promise(setImmediate); // process warnings are emitted on a later tick
  process.off('warning', onWarning);
  try {
    const ours = warnings.filter((w) => w.name === 'LayoutWarning');
    assert.equal(ours.length, 1, warnings.map(String).join('\n'));
    assert.match(ours[0].message, /^layout `time:38@1ms,worker:10,sequence:12,epoch=\d+` runs out at \S+, in (99|100) days/);
    const h = metrics.health();
    assert.equal(h.status, 'degraded', JSON.stringify(h));
    assert.match(h.reasons[0], /^the snowflake layout runs out in 99 days/);
  } finally {
    await gen.close();
  }
  // A layout with decades left warns nothing.
  warnings.length = 0;
  process.on('warning', onWarning);
  const calm = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 1 });
  await new Promise(setImmediate);
  process.off('warning', onWarning);
  await calm.close();
  assert.deepStrictEqual(warnings.filter((w) => w.name === 'LayoutWarning'), []);
});

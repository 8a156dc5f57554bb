// OpenTelemetry metrics: the core's definitions (docs/metrics.md) as observable instruments of
// the meter `idmint`, read into the SDK's in-memory exporter; and the package without the API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import * as otel from '@opentelemetry/api';
import {
  MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality,
} from '@opentelemetry/sdk-metrics';
import { Snowflake, SegmentClient, metrics } from '../index.mjs';

const docs = fs.readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');

/** A provider with an in-memory exporter; `collect()` gives `name -> [{ value, attributes }]` of scope idmint. */
function inMemory() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exports only when flushed (the interval is longer than any test).
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    async collect() {
      exporter.reset();
      await reader.forceFlush();
      const out = new Map();
      for (const rm of exporter.getMetrics()) {
        for (const sm of rm.scopeMetrics) {
          if (sm.scope.name !== 'idmint') continue;
          for (const m of sm.metrics) {
            out.set(m.descriptor.name, {
              descriptor: m.descriptor,
              points: m.dataPoints.map((p) => ({ value: p.value, attributes: p.attributes })),
            });
          }
        }
      }
      return out;
    },
    shutdown: () => provider.shutdown(),
  };
}

/** Attributes as sorted text (their order is not part of the set). */
const key = (attributes) => JSON.stringify(Object.entries(attributes).sort());
const point = (collected, name, attributes) =>
  collected.get(name)?.points.find((p) => key(p.attributes) === key(attributes))?.value;

test('definitions are the core table docs/metrics.md lists', () => {
  const defs = metrics.definitions();
  assert.ok(defs.length >= 10);
  for (const d of defs) {
    assert.ok(docs.includes(`| \`${d.name}\` | ${d.instrument} | \`${d.unit}\` | ${d.description} |`), d.name);
  }
});

test('snowflake and segment counters appear in an in-memory exporter with their values', async () => {
  const otelSdk = inMemory();
  const handle = metrics.register(otelSdk.provider);
  assert.equal(metrics.register(otelSdk.provider), handle, 'one registration per provider');
  const a = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 1 });
  const b = new Snowflake({ layout: 'sonyflake', machine: 2 });
  a.nextIds(5);
  b.nextIds(7);
  const client = await SegmentClient.connect('memory:');
  const orders = await client.tag('orders');
  for (let i = 0; i < 10; i++) await orders.nextIdAsync();
  await client.createTag('users', { step: 50 });
  await (await client.tag('users')).nextIds(3);

  let c = await otelSdk.collect();
  // Every definition is an instrument with the core's unit, description and kind.
  for (const d of metrics.definitions()) {
    const m = c.get(d.name);
    if (m === undefined) continue; // lease metrics: no leased generator here
    assert.equal(m.descriptor.unit, d.unit, d.name);
    assert.equal(m.descriptor.description, d.description, d.name);
    // SDK 2.x: 'OBSERVABLE_COUNTER' / 'OBSERVABLE_GAUGE'
    assert.equal(m.descriptor.type, d.instrument === 'counter' ? 'OBSERVABLE_COUNTER' : 'OBSERVABLE_GAUGE', d.name);
  }
  // Two generators' counts are added up (the core's merge), not overwritten.
  assert.equal(point(c, 'idmint.ids.issued', { kind: 'snowflake' }), 12);
  assert.ok(point(c, 'idmint.ids.issued', { kind: 'segment', tag: 'orders' }) >= 10);
  assert.ok(point(c, 'idmint.ids.issued', { kind: 'segment', tag: 'users' }) >= 3);
  assert.ok(point(c, 'idmint.segment.refills', { tag: 'orders' }) >= 1);
  assert.ok(point(c, 'idmint.segment.remaining', { tag: 'orders' }) > 0);
  assert.ok(point(c, 'idmint.segment.refill.time', { tag: 'orders' }) >= 0);
  assert.equal(point(c, 'idmint.clock.rollbacks', {}), 0);
  assert.equal(typeof point(c, 'idmint.clock.waits', {}), 'number');

  // Values are read at collection time: more IDs, higher counts; nothing counted per ID in JS.
  a.nextIds(100);
  c = await otelSdk.collect();
  assert.equal(point(c, 'idmint.ids.issued', { kind: 'snowflake' }), 112);
  // A closed generator and client leave the sums.
  await a.close();
  await client.close();
  c = await otelSdk.collect();
  assert.equal(point(c, 'idmint.ids.issued', { kind: 'snowflake' }), 7);
  // (The SDK's cumulative points keep an attribute set no longer observed: ask the package.)
  assert.deepEqual(metrics.observe().filter((o) => o.attributes.tag === 'orders'), []);

  handle.unregister();
  b.nextIds(1);
  c = await otelSdk.collect();
  // (The SDK repeats the last cumulative point; the callback no longer reads the new count, 8.)
  assert.equal(point(c, 'idmint.ids.issued', { kind: 'snowflake' }), 7, 'unregistered: no callback any more');
  await otelSdk.shutdown();
});

test('the time left in the layout is published by the generator\'s clock', async () => {
  const otelSdk = inMemory();
  const handle = metrics.register(otelSdk.provider);
  // sonyflake's end (the layout every package checks this metric with; the Python and JVM
  // packages on a manual clock, this one between two readings of the wall clock).
  const gen = new Snowflake({ layout: 'sonyflake', machine: 4 });
  try {
    const endMs = gen.layout.exhaustsAt.getTime();
    const before = Date.now();
    const c = await otelSdk.collect();
    const after = Date.now();
    const left = point(c, 'idmint.layout.remaining', {});
    assert.ok((endMs - after) / 1000 <= left && left <= (endMs - before) / 1000, `${left} s left, end ${endMs}`);
  } finally {
    await gen.close();
    handle.unregister();
    await otelSdk.shutdown();
  }
});

test('a leased generator publishes its lease state', async () => {
  const otelSdk = inMemory();
  const handle = metrics.register(otelSdk.provider);
  const g = await Snowflake.create({ layout: 'twitter', lease: 'memory:' });
  g.nextId();
  const c = await otelSdk.collect();
  assert.equal(point(c, 'idmint.lease.held', {}), 1);
  assert.ok(point(c, 'idmint.lease.fence', {}) > Date.now() / 1000 - 60);
  assert.equal(point(c, 'idmint.lease.renew.failures', {}), 0);
  await g.close();
  handle.unregister();
  await otelSdk.shutdown();
});

test('with the API global provider set, generators made afterwards publish on it', async () => {
  const otelSdk = inMemory();
  assert.ok(otel.metrics.setGlobalMeterProvider(otelSdk.provider));
  try {
    const g = new Snowflake({ layout: 'twitter', datacenter: 2, worker: 2 });
    g.nextIds(4);
    const c = await otelSdk.collect();
    assert.ok(point(c, 'idmint.ids.issued', { kind: 'snowflake' }) >= 4);
    assert.equal(metrics.observe().find((o) => o.metric === 'idmint.ids.issued' && o.attributes.kind === 'snowflake').value,
      point(c, 'idmint.ids.issued', { kind: 'snowflake' }));
  } finally {
    otel.metrics.disable();
    await otelSdk.shutdown();
  }
});

test('without @opentelemetry/api the package loads, mints and observes; register() needs a provider', () => {
  // A child process in which resolving @opentelemetry/api fails as when it is not installed.
  const index = fileURLToPath(new URL('../index.js', import.meta.url));
  const script = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === '@opentelemetry/api') {
        const e = new Error("Cannot find module '@opentelemetry/api'");
        e.code = 'MODULE_NOT_FOUND';
        throw e;
      }
      return resolve.call(this, request, ...rest);
    };
    const idmint = require(${JSON.stringify(index)});
    const g = new idmint.Snowflake({ layout: 'twitter', datacenter: 1, worker: 1 });
    g.nextIds(3);
    const issued = idmint.metrics.observe().find((o) => o.metric === 'idmint.ids.issued');
    let refused = '';
    try { idmint.metrics.register(); } catch (e) { refused = e.name; }
    console.log(JSON.stringify({ issued: issued.value, refused }));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { issued: 3, refused: 'InvalidArgumentError' });
});


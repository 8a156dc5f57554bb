// Every numeric argument of the shared API at the extremes of what JS can pass (the smallest and
// largest numbers and bigints, NaN, infinities, fractions): each call returns, or throws a typed
// error (an idmint error, RangeError or TypeError). Never a process abort, never a plain Error
// from a caught panic, and the package works after each call (a wasm instance that trapped on a
// panic would not).
//
// CALLS covers every function and method the package exports that takes a number; every other
// export is listed in NO_NUMBERS. The test fails for an export in neither, so a new function gets
// its extremes too (add it to CALLS, or to NO_NUMBERS if it takes no number).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, TARGET } from './target.mjs';

const {
  Snowflake, Layout, ObjectId, parse, guess, compose, encode, Keyring, Template, OrderNumbers,
  uuid7, IdmintError,
} = idmint;

const EXTREMES = [
  0, -0, -1, 1.5, NaN, Infinity, -Infinity,
  Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 64, Number.MAX_VALUE,
  -Number.MAX_VALUE, Number.MIN_VALUE,
  0n, -1n, 2n ** 24n + 1n, 2n ** 32n, 2n ** 53n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n,
  2n ** 64n, -(2n ** 64n), 2n ** 200n,
];

const twitterParts = (over) => ({ timestampMs: 1_700_000_000_000, datacenter: 1, worker: 1, sequence: 0, ...over });
const sf = () => new Snowflake({ datacenter: 1, worker: 1 });
const ring = () => Keyring.fromText('idmint-key-v1:000102030405060708090a0b0c0d0e0f');
const tpl = () => new Template('%Y%M%D%5S');

// name -> (x) => list of calls, each a function making one call with x in one numeric slot.
const CALLS = {
  'Layout': (x) => [() => new Layout('twitter', { epoch: x })],
  'Layout#parse': (x) => [() => new Layout('twitter').parse(x)],
  'Layout#compose': (x) => ['timestampMs', 'time', 'datacenter', 'worker', 'sequence']
    .map((k) => () => new Layout('twitter').compose(twitterParts({ [k]: x }))),
  'Layout#minIdAt': (x) => [() => new Layout('twitter').minIdAt(x)],
  'Layout#maxIdAt': (x) => [() => new Layout('twitter').maxIdAt(x)],
  'Snowflake': (x) => [
    () => new Snowflake({ datacenter: x, worker: 1 }),
    () => new Snowflake({ datacenter: 1, worker: 1, epoch: x }),
    () => new Snowflake({ nodes: { datacenter: 1, worker: x } }),
  ],
  'Snowflake#nextIds': (x) => [() => sf().nextIds(x)],
  'plan': (x) => [
    () => idmint.plan(x, 1, 1),
    () => idmint.plan(1, x, 1),
    () => idmint.plan(1, 1, x),
    () => idmint.plan(1, 1, 1, { start: x }),
  ],
  'checkMigration': (x) => [
    () => idmint.checkMigration('twitter', 'twitter', { above: x }),
    () => idmint.checkMigration('twitter', 'twitter', { at: x }),
  ],
  'Snowflake#parse': (x) => [() => sf().parse(x)],
  'Snowflake#compose': (x) => ['timestampMs', 'worker', 'sequence']
    .map((k) => () => sf().compose(twitterParts({ [k]: x }))),
  'ObjectId': (x) => [() => new ObjectId(x)],
  'ObjectId.createFromTime': (x) => [() => ObjectId.createFromTime(x)],
  'parse': (x) => [() => parse(x, 'twitter'), () => parse(x), () => parse(x, 'discord')],
  'guess': (x) => [() => guess(x)],
  'compose': (x) => ['timestampMs', 'datacenter', 'sequence']
    .map((k) => () => compose(twitterParts({ [k]: x }), 'twitter')),
  'encode': (x) => [() => encode(x, 'base62'), () => encode(x, 'base32-fixed')],
  'Keyring.generate': (x) => [() => Keyring.generate(x)],
  'Keyring#obfuscate': (x) => [() => ring().obfuscate(x)],
  'Keyring#reveal': (x) => [() => ring().reveal(x, 1), () => ring().reveal(1, x)],
  'Keyring#obfuscateTagged': (x) => [() => ring().obfuscateTagged(x)],
  'Template': (x) => [() => new Template('%Y%5S', { offset: x })],
  'Template#format': (x) => [() => tpl().format(x, 1), () => tpl().format(0, x)],
  'Template#formatSnowflake': (x) => [() => new Template('%19S').formatSnowflake(x, 'twitter')],
  'Template#dayOf': (x) => [() => tpl().dayOf(x)],
  'OrderNumbers': (x) => [
    () => new OrderNumbers(tpl(), { day: x, first: 1 }),
    () => new OrderNumbers(tpl(), { day: 20240522, first: x }),
  ],
  'OrderNumbers#next': (x) => [() => new OrderNumbers(tpl()).next(x)],
  'OrderNumbers#nextAsync': (x) => [() => new OrderNumbers(tpl()).nextAsync(x)],
};

// What only the native package has: stores, leases, resuming.
const client = (options) => idmint.SegmentClient.connect('memory:', options);
const NATIVE_CALLS = {
  'Snowflake': (x) => [
    () => new Snowflake({ datacenter: 1, worker: 1, resumeAfter: x }),
    () => new Snowflake({ lease: 'memory:', leaseRange: [x, 1] }),
    () => new Snowflake({ lease: 'memory:', leaseRange: [0, x] }),
  ],
  'Snowflake.create': (x) => ['leaseTtlMs', 'leaseFreezeMs'].map((k) => async () => {
    const g = await Snowflake.create({ lease: 'memory:', [k]: x });
    await g.close();
  }),
  'OrderNumbers': (x) => [() => new OrderNumbers(tpl(), { counter: 'memory:', step: x })],
  'SegmentClient.connect': (x) => ['refillAt', 'maxStep', 'defaultStep', 'maxWaitMs', 'opTimeoutMs']
    .map((k) => async () => (await client({ [k]: x })).close()),
  'SegmentClient#createTag': (x) => [
    async () => (await client()).createTag('extremes', { start: x }),
    async () => (await client()).createTag('extremes', { step: x }),
  ],
  'SegmentTag#nextIds': (x) => [async () => (await (await client()).tag('extremes')).nextIds(x)],
  'leaseList': (x) => [() => idmint.leaseList('memory:', { timeoutMs: x })],
  'idFromDatabase': (x) => [() => idmint.idFromDatabase(x)],
};
// The browser's lease and segment client take an ID server's URL: a closed loopback port, so a
// value the options allow ends in a refused connection (StoreUnavailableError), a typed error.
const NO_SERVER = 'http://127.0.0.1:9';
const webClient = (options) => idmint.SegmentClient.connect(NO_SERVER, options);
const WEB_CALLS = {
  'Snowflake.create': (x) => [async () => {
    const g = await Snowflake.create({ lease: NO_SERVER, leaseTtlMs: x });
    await g.close();
  }],
  'SegmentClient.connect': (x) => ['refillAt', 'maxStep', 'defaultStep', 'maxWaitMs', 'opTimeoutMs']
    .map((k) => async () => (await webClient({ [k]: x })).close()),
  'SegmentClient#createTag': (x) => [
    async () => (await webClient()).createTag('extremes', { start: x }),
    async () => (await webClient()).createTag('extremes', { step: x }),
  ],
};
for (const [name, make] of Object.entries(TARGET === 'native' ? NATIVE_CALLS : WEB_CALLS)) {
  const shared = CALLS[name];
  CALLS[name] = shared ? (x) => [...shared(x), ...make(x)] : make;
}

// Exports that take no number (text, objects, nothing).
// (`SegmentTag#nextIds` in the browser: a tag needs a running ID server; web/test/remote-check.mjs
// draws from one.)
const NO_NUMBERS = new Set([
  'decode', 'uuid7', 'parseUuid7', 'parseUlid', 'Uuid7Generator', 'Uuid7Generator#next',
  'Uuid7Generator#nextUlid', 'Snowflake#nextId', 'Snowflake#nextIdString', 'Layout#toString',
  'Layout#toJSON', 'ObjectId.generateHex', 'ObjectId.createFromHexString', 'ObjectId.isValid',
  'ObjectId#toHexString', 'ObjectId#toString', 'ObjectId#toJSON', 'ObjectId#getTimestamp',
  'ObjectId#equals', 'ObjectId#toBSON', 'ObjectId#inspect', 'Keyring.fromText',
  'Keyring#revealTagged', 'Keyring#toText', 'Keyring#toString', 'Keyring#toJSON',
  'Template#parse', 'Template#toString', 'Template#toJSON', 'Keyring', 'Layout._wrap',
  'Snowflake#close', 'SegmentClient', 'SegmentClient#tag', 'SegmentClient#metrics',
  'SegmentClient#close', 'SegmentTag', 'SegmentTag#nextId', 'SegmentTag#nextIdAsync',
  'SegmentTag#nextNumber', 'SegmentTag#nextNumberAsync', 'SegmentTag#metrics',
  'errorClass', 'version', 'ObjectId.useBson', 'parseTypeId', 'typeIdFromUuid', 'TypeIdGenerator',
  'TypeIdGenerator#next',
  ...(TARGET === 'native' ? ['idDefault', 'assignIds', 'typeormSubscriber', 'pgBigintTypes'] : ['SegmentTag#nextIds']),
]);

/** Every exported function, class, static method and method, as `name`, `Class.m`, `Class#m`. */
function exportedCallables() {
  const names = [];
  for (const [name, value] of Object.entries(idmint)) {
    if (typeof value !== 'function' || /Error$/.test(name) || name === 'default') continue;
    if (name.startsWith('init') || name === 'initSync') continue;
    // RedisSnowflake's every call talks to a live Redis, where an extreme timeout may wait that
    // long: its arguments are covered by its own tests (node/test/redis-snowflake.test.mjs).
    if (name === 'RedisSnowflake') continue;
    names.push(name);
    if (!/^[A-Z]/.test(name)) continue;
    for (const m of Object.getOwnPropertyNames(value)) {
      const d = Object.getOwnPropertyDescriptor(value, m);
      if (typeof d.value === 'function' && !['length', 'name', 'prototype'].includes(m)) names.push(`${name}.${m}`);
    }
    for (const m of Object.getOwnPropertyNames(value.prototype ?? {})) {
      const d = Object.getOwnPropertyDescriptor(value.prototype, m);
      if (m !== 'constructor' && typeof d.value === 'function') names.push(`${name}#${m}`);
    }
  }
  return names;
}

function assertTyped(e, what) {
  assert.ok(e instanceof Error, `${what}: threw a non-Error ${String(e)}`);
  assert.ok(
    e instanceof IdmintError || e instanceof RangeError || e instanceof TypeError,
    `${what}: ${e.name} (${e.code}): ${e.message}`,
  );
  assert.doesNotMatch(String(e.message), /panic/i, `${what}: a panic reached JS`);
}

/** The package still mints and parses. */
function stillWorks(what) {
  const g = sf();
  const id = g.nextId();
  assert.equal(g.parse(id).worker, 1, `${what}: the package works afterwards`);
  assert.equal(uuid7().length, 36, `${what}: uuid7 afterwards`);
}

test(`every exported callable is covered (${TARGET})`, () => {
  const missing = exportedCallables().filter((n) => !(n in CALLS) && !NO_NUMBERS.has(n));
  assert.deepEqual(missing, [], 'add these to CALLS (numeric arguments) or NO_NUMBERS');
});

test(`numeric arguments at their extremes: a value or a typed error (${TARGET})`, async () => {
  let calls = 0;
  for (const [name, make] of Object.entries(CALLS)) {
    if (!exportedCallables().includes(name)) continue; // nextAsync: native package only
    for (const x of EXTREMES) {
      for (const [i, call] of make(x).entries()) {
        const what = `${name} [${i}] with ${typeof x === 'bigint' ? `${x}n` : String(x)}`;
        try {
          await call();
        } catch (e) {
          assertTyped(e, what);
        }
        calls++;
        stillWorks(what);
      }
    }
  }
  assert.ok(calls > 500, `${calls} calls`);
});

test(`nextIds above the core's limit is invalid_argument, not an abort (${TARGET})`, () => {
  const g = sf();
  for (const n of [2 ** 24 + 1, 2 ** 32 - 1]) {
    let err;
    try {
      g.nextIds(n);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof RangeError && err.kind === 'invalid_argument', `${n}: ${err}`);
  }
  assert.equal(g.nextIds(3).length, 3);
});

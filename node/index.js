'use strict';
// idmint for Node.js: the shared API (facade.cjs, copied from js/facade.js by scripts/build.js)
// over the native addon (crate bindings/node). This file only gives the addon's exports the
// backend shape the facade expects (js/README.md); the API itself is the facade's.

const { loadNative } = require('./platform.js');
// The stores add-on's addon when `idmint-stores` is installed, else this package's own (slim
// when published); the published package.json lists its prebuilt platform packages
// (tests/packages.sh adds them).
const native = loadNative(require('./package.json'));
const { createIdmint } = require('./facade.cjs');
const { segmentApi } = require('./segment.cjs');
const { redisSnowflakeApi } = require('./redis-snowflake.js');
const { metricsApi } = require('./metrics.js');
const { interopApi } = require('./interop.js');

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const DECIMAL_19 = /^[0-9]{1,19}$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const { fastDecompose, fastObjectIdBlock, fastObjectIdBlockSeconds } = native;

/** A NativeLayout as the facade's layout; parts objects come from the addon's fast path. */
function layoutOf(n) {
  let decompose = (id) => n.decompose(id);
  let decomposeStr = (text) => n.decomposeStr(text);
  if (!n.hasWideFields) {
    const names = n.fields.map((f) => f.name);
    // One object literal per layout, so every parts object has the same shape (fast in V8).
    // Field names are checked by the core: lowercase letters, digits and `_`.
    const body = names.map((name, i) => `${JSON.stringify(name)}: out[${i + 1}]`).join(', ');
    const make = new Function('out', `return { time: new Date(out[0]), timestampMs: out[0], ${body} };`);
    // Preferred: a function bound to the layout writing into addon-owned memory; where
    // external buffers are not allowed, the handle form with our own Float64Array.
    const bound = n.bindFast();
    let fill;
    let out;
    if (bound) {
      fill = bound.decompose;
      out = bound.out;
    } else {
      const h = n.handle();
      out = new Float64Array(names.length + 1);
      fill = (id) => fastDecompose(h, id, out);
    }
    decompose = (id) => {
      fill(id);
      return make(out);
    };
    // Plain decimal text of up to 19 digits is read with BigInt(); anything else (signs,
    // spaces, other bases, longer text) goes to the core as text, which reports it exactly.
    decomposeStr = (text) => (DECIMAL_19.test(text) ? decompose(BigInt(text)) : n.decomposeStr(text));
  }
  return {
    raw: n,
    decompose,
    decomposeStr,
    compose: (time, names, values, sequence) => n.compose(time, names, values, sequence),
    minIdAt: (time) => n.minIdAt(time),
    maxIdAt: (time) => n.maxIdAt(time),
    wordPlan: () => n.wordPlan,
    spec: () => n.spec,
    preset: () => n.preset,
    fields: () => n.fields,
    nodeNames: n.nodeNames,
    timeBits: n.timeBits,
    tickMs: n.tickMs,
    epochMs: n.epochMs,
    totalBits: n.totalBits,
    exhaustsAtMs: n.exhaustsAtMs,
    maxId: () => n.maxId,
    idsPerSecondCap: () => n.idsPerSecondCap,
  };
}

const backend = {
  need() {},
  errorKindOf: (e) => (e && typeof e.code === 'string' ? e.code : undefined),
  // The addon throws the core's error of `kind`; the facade wants it as a value.
  clientError(kind, fields) {
    try {
      native.clientError(kind, fields);
    } catch (e) {
      return e;
    }
    throw new Error(`the addon's clientError(${kind}) returned instead of throwing`);
  },
  maxDirectId: U64_MAX,
  maxBatch: undefined,
  resumeAfter: true,
  startAbove: true,
  sharedCounters: true,
  layout: (spec, epoch) => layoutOf(new native.NativeLayout(spec, epoch)),
  parseTimeMs: (what, text) => native.parseTimeMs(what, text),
  // Native-only Snowflake options (facade.js passes them in one object): a worker lease, which
  // `Snowflake.create` waits on (`new Snowflake` refuses it), and a high-water-mark file.
  snowflakeOptions: ['lease', 'token', 'leaseRange', 'leaseTtlMs', 'leaseFreezeMs', 'leaseHolder', 'highWaterMark'],
  snowflake(...options) {
    // (`lease` is refused by the facade: it needs `Snowflake.create`.)
    return snowflakeBackend(new native.NativeSnowflake(snowflakeArgs(options)[0]));
  },
  async snowflakeAsync(...options) {
    const [args, lease] = snowflakeArgs(options);
    return snowflakeBackend(await native.NativeSnowflake.create(args, lease));
  },
  oidBlock: () => ({ hex: fastObjectIdBlock(), seconds: fastObjectIdBlockSeconds() }),
  oidCut: (block, at) => block.toString('latin1', at, at + 24),
  oidParseHex: (text) => native.objectIdParse(text),
  oidFromBytes: (bytes) => native.objectIdFromBytes(bytes),
  oidFromTime: (seconds) => native.objectIdFromParts(seconds, new Uint8Array(5), 0),
  oidBytes: (hex) => native.objectIdBytes(hex),
  oidTimestamp: (hex) => native.objectIdTimestamp(hex),
  encodeId: (value, encoding) => native.encodeId(value, encoding),
  decodeId: (text, encoding) => native.decodeId(text, encoding),
  keyGenerate: (version) => native.keyGenerate(version),
  keyring: (text) => new native.NativeKeyring(text),
  uuid7Next: () => native.uuid7Next(false),
  uuid7Parse: (text) => uuidRow(native.uuid7Parse(text)),
  ulidParse: (text) => uuidRow(native.ulidParse(text)),
  uuid7Generator: () => new native.NativeUuid7Generator(),
  planLayouts: (nodes, rate, years, start, width) => native.planLayouts(nodes, rate, years, start, width),
  checkMigration: (from, to, above, at) => native.checkMigration(from, to, above, at),
  typeIdParse: (text) => native.typeidParse(text),
  typeIdFromUuid: (prefix, uuid) => native.typeidFromUuid(prefix, uuid),
  typeIdGenerator: (prefix) => new native.NativeTypeIdGenerator(prefix),
  decodeAny: (text, layout) => native.decodeAny(text, layout),
  guessId: (text) => native.guessId(text),
  template(pattern, label, offset, check) {
    const n = new native.NativeTemplate(pattern, label, offset, check);
    return {
      raw: n,
      format: (time, sequence) => n.format(time, sequence),
      formatSnowflake: (layout, id) => n.formatSnowflake(layout.raw, id),
      parse: (text) => n.parse(text),
      dayOf: (time) => n.dayOf(time),
      pattern: () => n.pattern,
      check: () => n.check,
      offsetSeconds: n.offsetSeconds,
      sequenceWidth: n.sequenceWidth,
      capacity: () => n.capacity,
    };
  },
  orderNumbers: (template, day, first, counter, name, step) =>
    new native.NativeOrderNumbers(template.raw, day, first, counter, name, step),
};

/** An Error the facade gives the class of the core's `kind` (as the addon's errors). */
function codeError(kind, message) {
  return Object.assign(new Error(message), { code: kind });
}

/**
 * The facade's Snowflake arguments as the addon takes them: `[SnowflakeArgs, LeaseArgs or
 * undefined]`, the native-only options (`extras`) converted.
 */
function snowflakeArgs([layout, epoch, names, values, random, onExhausted, onRollback, resumeAfter, extras, unsigned]) {
  const { wholeValue, show } = convert;
  const str = (name, v) => {
    if (v === undefined || typeof v === 'string') return v;
    throw codeError('invalid_argument', `invalid argument \`${name}\` = ${show(v)}: a string`);
  };
  const ms = (name, v) => (v === undefined ? undefined : wholeValue(name, v));
  const url = withToken(str('lease', extras.lease), str('token', extras.token));
  let range = extras.leaseRange;
  if (range !== undefined) {
    if (!Array.isArray(range) || range.length !== 2) {
      throw codeError('invalid_argument', `invalid argument \`leaseRange\` = ${show(range)}: [first, last], node values`);
    }
    range = range.map((v) => wholeValue('leaseRange', v));
  }
  const lease =
    url === undefined
      ? undefined
      : {
          url,
          range,
          ttlMs: ms('leaseTtlMs', extras.leaseTtlMs),
          freezeMs: ms('leaseFreezeMs', extras.leaseFreezeMs),
          holder: str('leaseHolder', extras.leaseHolder),
        };
  const highWaterMark = str('highWaterMark', extras.highWaterMark);
  const startAbove = extras.startAbove; // decimal text: the facade's idText
  return [{ layout, epoch, names, values, random, onExhausted, onRollback, resumeAfter, startAbove, highWaterMark, unsigned }, lease];
}

/**
 * A store URL with the bearer token `token` (an option of the shared API) as the core reads it:
 * the `?token=` URL parameter of an `http(s)://` store (conversion only; the core refuses it
 * for other stores).
 */
function withToken(url, token) {
  if (url === undefined || token === undefined) return url;
  return `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

/** A NativeSnowflake as the facade's generator, counted in the metrics while it is open. */
function snowflakeBackend(n) {
  const next = n.bindFast(); // { nextId, nextIdString } bound to the generator
  const untrack = track(n);
  return {
    layout: layoutOf(new native.NativeLayout(n.layoutSpec)),
    nextId: next.nextId,
    nextIdString: next.nextIdString,
    nextIds: (count) => n.nextIds(count),
    stats: () => n.stats(),
    nodes() {
      const out = {};
      const names = n.nodeNames;
      const values = n.nodeValues;
      for (let i = 0; i < names.length; i++) out[names[i]] = values[i] <= MAX_SAFE ? Number(values[i]) : values[i];
      return out;
    },
    onExhausted: () => n.onExhausted,
    onRollback: () => n.onRollback,
    lifetimeWarning: () => n.lifetimeWarning() ?? undefined,
    close() {
      untrack();
      return n.close();
    },
  };
}

function uuidRow({ uuid, ulid, timestampMs, randA, randB }) {
  return [uuid, ulid, timestampMs, randA, randB];
}

const idmint = createIdmint(backend);
const { convert } = idmint;
idmint.addKinds(native.errorKinds());
const errors = idmint.errors();
const { track, metrics } = metricsApi(native, {
  version: require('./package.json').version,
  InvalidArgumentError: idmint.api.InvalidArgumentError,
  call: convert.call,
});
// The slim package's addon (without the add-on `idmint-stores`) has no store: what needs one
// is a stand-in that throws the core's StoresNotInstalledError, naming the add-on.
const stores = native.hasStores();
const needsStores = (what) => () => native.storesMissing(what);
// The addon's segment module, with the shared API's `token` option as the URL parameter; each
// client is counted in the metrics until it is closed.
const segmentNative = !stores ? {
  NativeSegmentClient: { connect: async () => needsStores('SegmentClient.connect')() },
  exactNumber: (id) => native.exactNumber(id),
  leaseList: needsStores('leaseList'),
} : {
  NativeSegmentClient: {
    async connect(url, { token, ...options }) {
      const n = await native.NativeSegmentClient.connect(withToken(url, token), options);
      const untrack = track(n);
      // segment.js closes the client through this object: the metrics let go of it then.
      const close = n.close;
      n.close = function closeTracked() {
        untrack();
        return close.call(n);
      };
      return n;
    },
  },
  exactNumber: (id) => native.exactNumber(id),
  leaseList: (url, timeoutMs) => native.leaseList(url, timeoutMs),
};
const { SegmentClient, SegmentTag, leaseList } = segmentApi(segmentNative, idmint, {
  urls: 'a store URL: sqlite:PATH, postgres://…, mysql://…, redis://…, memory: or http(s):// (idmint serve)',
  connectOptions: ['autoCreate', 'defaultTag'],
});
const { RedisSnowflake } = redisSnowflakeApi(stores ? native : {
  ...native,
  NativeRedisSnowflake: { connect: async () => needsStores('RedisSnowflake.connect')() },
}, idmint);
const interop = interopApi(native, idmint, { SegmentTag, RedisSnowflake });

module.exports = {
  ...idmint.api,
  SegmentClient,
  SegmentTag,
  leaseList,
  RedisSnowflake,
  // OpenTelemetry metrics (metrics.js) and the helpers for ORMs, query builders and pg (interop.js).
  metrics,
  ...interop,
  /** kind -> error class, for every kind the core reports. */
  errors,
  ERROR_KINDS: Object.freeze(Object.keys(errors)),
};

// The public JS API of idmint, once for both packages: `idmint` (Node, over the napi-rs addon of
// bindings/node) and `idmint-web` (browsers, over the wasm-bindgen module of bindings/wasm).
// Each package's entry passes its backend, an object that gives the addon's or the wasm's
// exports one shape (the list of what a backend provides is in js/README.md); this file converts
// JS values to the backend's arguments and its results and errors back. The rules (layouts,
// ranges, generation, parsing) all live in the Rust core.
//
// This is the one source: each package's build copies it in (node/scripts/build.js as
// node/facade.cjs, web/build.mjs as web/facade.js); edit it here.

function createIdmint(backend) {
  // ---------------------------------------------------------------------------------------------
  // Errors: one class per core error kind, each with a stable `code` (the kind in upper case) and
  // `kind` (the core's kind string). Range-like kinds extend RangeError; all are `IdmintError`s.

  const BRAND = Symbol.for('idmint.error');

  class IdmintError extends Error {
    static [Symbol.hasInstance](value) {
      if (this === IdmintError) return value != null && value[BRAND] === true;
      return Function.prototype[Symbol.hasInstance].call(this, value);
    }
  }
  Object.defineProperty(IdmintError.prototype, 'name', { value: 'IdmintError', writable: true, configurable: true });
  Object.defineProperty(IdmintError.prototype, BRAND, { value: true });

  // The kinds this file names, each with its base class: kinds that say a value is out of its
  // range extend RangeError, the others IdmintError (text that does not read, as for ObjectIds and
  // display IDs, is not a RangeError). Classes exist for these before a backend is ready (the wasm
  // loads asynchronously); every other kind the backend's core reports gets one in `addKinds`.
  const KINDS = {
    invalid_layout: IdmintError,
    value_out_of_range: RangeError,
    unknown_field: IdmintError,
    missing_field: IdmintError,
    time_out_of_range: RangeError,
    epoch_in_future: IdmintError,
    layout_exhausted: IdmintError,
    clock_moved_backwards: IdmintError,
    invalid_id: RangeError,
    invalid_object_id: IdmintError,
    invalid_argument: RangeError,
    invalid_key: IdmintError,
    invalid_encoding: IdmintError,
    invalid_template: IdmintError,
    counter_overflow: IdmintError,
    invalid_uuid: IdmintError,
    check_digit_mismatch: IdmintError,
    invalid_tag: IdmintError,
    store_unavailable: IdmintError,
  };

  /**
   * The class name and base class of a kind: `invalid_id` -> ['InvalidIdError', RangeError].
   * The one place that decides them; a kind this file does not name extends IdmintError.
   */
  function kindClass(kind) {
    const name = kind.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + 'Error';
    return [name, KINDS[kind] ?? IdmintError];
  }

  const errorClasses = {};
  const byKind = Object.create(null);

  /** Give every kind of `kinds` a class (those that have one keep it). */
  function addKinds(kinds) {
    for (const kind of kinds) {
      if (byKind[kind] !== undefined) continue;
      const [name, Base] = kindClass(kind);
      const code = kind.toUpperCase();
      const C = {
        [name]: class extends Base {
          constructor(message, options) {
            super(message, options);
            this.code = code;
            this.kind = kind;
          }
        },
      }[name];
      Object.defineProperty(C.prototype, 'name', { value: name, writable: true, configurable: true });
      Object.defineProperty(C.prototype, BRAND, { value: true });
      Object.defineProperty(C, 'code', { value: code });
      Object.defineProperty(C, 'kind', { value: kind });
      errorClasses[name] = C;
      byKind[kind] = C;
    }
  }
  addKinds(Object.keys(KINDS));
  const {
    InvalidIdError,
    InvalidArgumentError,
    InvalidObjectIdError,
    InvalidKeyError,
    InvalidEncodingError,
    InvalidTemplateError,
    InvalidUuidError,
  } = errorClasses;

  /** The backend throws Errors that name their core kind; give them their class. */
  function fromBackend(e) {
    const kind = backend.errorKindOf(e);
    const C = kind === undefined ? undefined : byKind[kind];
    if (C === undefined) return e;
    const err = new C(e.message);
    if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(err, fromBackend);
    return err;
  }

  /** Throws unless the backend is ready (the wasm must be instantiated first). */
  const need = backend.need;

  function show(value) {
    switch (typeof value) {
      case 'bigint':
        return `${value}n`;
      case 'string':
        return JSON.stringify(value);
      case 'number':
      case 'boolean':
      case 'undefined':
        return String(value);
      case 'symbol':
        return value.toString();
      case 'function':
        return `[function ${value.name || 'anonymous'}]`;
      default:
        if (value === null) return 'null';
        if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
        return `[object ${value?.constructor?.name ?? 'Object'}]`;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Conversions

  const U64_MAX = 0xffff_ffff_ffff_ffffn;
  const MAX_SAFE = Number.MAX_SAFE_INTEGER;
  const MAX_DIRECT_ID = backend.maxDirectId;

  /** Decompose an ID given as bigint, decimal string or (safe, exact) number. */
  function decomposeAny(nl, id) {
    switch (typeof id) {
      case 'bigint':
        // Bigints the backend cannot take as they are go as text, so the core reports them with
        // their exact value (wasm-bindgen would wrap them silently).
        return id >= 0n && id <= MAX_DIRECT_ID ? nl.decompose(id) : nl.decomposeStr(String(id));
      case 'string':
        return nl.decomposeStr(id);
      case 'number':
        if (Number.isInteger(id)) {
          if (id < 0) return nl.decomposeStr(BigInt(id).toString());
          if (id <= MAX_SAFE) return nl.decompose(BigInt(id));
          throw new InvalidIdError(
            `invalid id \`${id}\`: a number above 2^53-1 (9007199254740991) is not exact ` +
              `(this one is ${BigInt(id)}); pass IDs as a bigint or a decimal string`
          );
        }
        throw new InvalidIdError(
          `invalid id \`${id}\`: not a whole number; pass IDs as a bigint or a decimal string`
        );
      default:
        throw new InvalidIdError(
          `invalid id \`${show(id)}\`: pass IDs as a bigint or a decimal string (a number only up to 2^53-1)`
        );
    }
  }

  /** A whole value (node field, sequence, time) as a bigint for the addon, or an error naming it. */
  function wholeValue(name, value) {
    if (typeof value === 'bigint') return value;
    if (typeof value === 'number' && Number.isInteger(value)) {
      if (Math.abs(value) <= MAX_SAFE) return BigInt(value);
      throw new InvalidArgumentError(
        `invalid argument \`${name}\` = ${value}: a number beyond ±2^53-1 is not exact (this one is ${BigInt(value)}); pass a bigint`
      );
    }
    throw new InvalidArgumentError(
      `invalid argument \`${name}\` = ${show(value)}: a whole number (number or bigint)`
    );
  }

  /** An epoch or time as the core's text form: unix ms digits or RFC 3339. */
  function timeText(name, value) {
    if (typeof value === 'string') return value;
    if (typeof value === 'bigint') return String(value);
    if (typeof value === 'number') {
      if (Number.isSafeInteger(value)) return String(value);
      throw new InvalidArgumentError(
        `invalid argument \`${name}\` = ${value}: unix milliseconds as a whole number, an RFC 3339 string or a Date`
      );
    }
    if (value instanceof Date) {
      const ms = value.getTime();
      if (Number.isNaN(ms)) {
        throw new InvalidArgumentError(`invalid argument \`${name}\` = Invalid Date: a valid Date`);
      }
      return String(ms);
    }
    throw new InvalidArgumentError(
      `invalid argument \`${name}\` = ${show(value)}: unix milliseconds, an RFC 3339 string or a Date`
    );
  }

  function isPlainObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
  }

  // ---------------------------------------------------------------------------------------------
  // Layout

  const LAYOUT = Symbol('idmint.layout');
  let handleOf; // Layout -> its backend layout (set in Layout's static block)

  /** A snowflake bit layout: a preset name or spec, optionally with another epoch. */
  class Layout {
    #n; // the backend's layout (see js/README.md)
    constructor(spec = 'twitter', options = {}) {
      need();
      if (spec === LAYOUT) {
        this.#n = options;
      } else {
        if (typeof spec !== 'string') {
          throw new InvalidArgumentError(
            `invalid argument \`layout\` = ${show(spec)}: a preset name (twitter, sonyflake, redis-lua, baidu) or a layout spec`
          );
        }
        if (!isPlainObject(options)) {
          throw new InvalidArgumentError(`invalid argument \`options\` = ${show(options)}: an object such as { epoch }`);
        }
        const epoch = options.epoch === undefined ? undefined : timeText('epoch', options.epoch);
        this.#n = call(() => backend.layout(spec, epoch));
      }
    }

    static {
      // For Template.formatSnowflake, in this file only.
      handleOf = (layout) => layout.#n;
    }

    /** @internal */
    static _wrap(handle) {
      return new Layout(LAYOUT, handle);
    }

    /** Split an ID (bigint or decimal string) into `{ time, timestampMs, sequence, ...nodeFields }`. */
    parse(id) {
      try {
        // The common case first, without a call in between (parsing is on hot paths).
        if (typeof id === 'bigint' && id >= 0n && id <= MAX_DIRECT_ID) return this.#n.decompose(id);
        return decomposeAny(this.#n, id);
      } catch (e) {
        throw fromBackend(e);
      }
    }

    /** Put `{ timestampMs | time, sequence, ...nodeFields }` together into an ID (bigint). */
    compose(parts) {
      if (!isPlainObject(parts)) {
        throw new InvalidArgumentError(
          `invalid argument \`parts\` = ${show(parts)}: an object { timestampMs or time, sequence, ...nodeFields }`
        );
      }
      let time;
      const hasMs = parts.timestampMs !== undefined;
      const hasTime = parts.time !== undefined;
      if (hasMs) time = wholeValue('timestampMs', parts.timestampMs);
      if (hasTime) {
        const t = parts.time;
        const ms = t instanceof Date ? t.getTime() : t;
        if (typeof ms === 'string') {
          time = BigInt(call(() => backend.parseTimeMs('time', ms)));
        } else {
          if (typeof ms === 'number' && Number.isNaN(ms)) {
            throw new InvalidArgumentError('invalid argument `time` = Invalid Date: a valid Date');
          }
          const v = wholeValue('time', ms);
          if (hasMs && v !== time) {
            throw new InvalidArgumentError(
              `invalid argument \`time\` = ${show(t)}: it disagrees with timestampMs = ${parts.timestampMs}; give one of them`
            );
          }
          time = v;
        }
      }
      if (!hasMs && !hasTime) {
        throw new InvalidArgumentError(
          'invalid argument `parts`: needs `timestampMs` (unix ms) or `time` (a Date)'
        );
      }
      if (parts.sequence === undefined) {
        throw new InvalidArgumentError('invalid argument `parts`: needs `sequence`');
      }
      const sequence = wholeValue('sequence', parts.sequence);
      const names = [];
      const values = [];
      for (const key of Object.keys(parts)) {
        if (key === 'time' || key === 'timestampMs' || key === 'sequence') continue;
        const v = parts[key];
        if (v === undefined) continue;
        names.push(key);
        values.push(wholeValue(key, v));
      }
      return call(() => this.#n.compose(time, names, values, sequence));
    }

    /** The canonical spec, e.g. `time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657`. */
    get spec() {
      return this.#n.spec();
    }
    /** The preset name when unchanged from a preset, else null. */
    get preset() {
      return this.#n.preset() ?? null;
    }
    /** Fields below the time field: `{ name, bits, shift, kind: 'node' | 'sequence' }`. */
    get fields() {
      return this.#n.fields();
    }
    /** Names of the node fields, in layout order. */
    get nodeFields() {
      return [...this.#n.nodeNames];
    }
    get timeBits() {
      return this.#n.timeBits;
    }
    get tickMs() {
      return this.#n.tickMs;
    }
    get epochMs() {
      return this.#n.epochMs;
    }
    get epoch() {
      return new Date(this.#n.epochMs);
    }
    get totalBits() {
      return this.#n.totalBits;
    }
    /** The largest ID (bigint). */
    get maxId() {
      return this.#n.maxId();
    }
    /** The first instant the time field cannot hold. */
    get exhaustsAt() {
      return new Date(this.#n.exhaustsAtMs);
    }
    /** How many IDs per second one generator can mint at most. */
    get idsPerSecondCap() {
      return this.#n.idsPerSecondCap();
    }
    toString() {
      return this.spec;
    }
    toJSON() {
      return this.spec;
    }
  }

  const layoutCache = new Map();
  const LAYOUT_CACHE_MAX = 64;

  let lastSpec;
  let lastLayout;

  function toLayout(layout, what) {
    if (typeof layout === 'string') {
      if (layout === lastSpec) return lastLayout;
      let l = layoutCache.get(layout);
      if (l === undefined) {
        l = new Layout(layout);
        if (layoutCache.size >= LAYOUT_CACHE_MAX) layoutCache.delete(layoutCache.keys().next().value);
        layoutCache.set(layout, l);
      }
      lastSpec = layout;
      lastLayout = l;
      return l;
    }
    if (layout instanceof Layout) return layout;
    if (layout instanceof Snowflake) return layout.layout;
    throw new InvalidArgumentError(
      `invalid argument \`layout\` = ${show(layout)}: ${what} needs the layout the ID was made with: ` +
        'a preset name (twitter, sonyflake, redis-lua, baidu), a spec, a Layout or a Snowflake'
    );
  }

  /** Split an ID made with `layout` into `{ time, timestampMs, sequence, ...nodeFields }`. */
  function parse(id, layout) {
    return toLayout(layout, 'parse').parse(id);
  }

  /** Put parts together into an ID of `layout` (bigint). */
  function compose(parts, layout) {
    return toLayout(layout, 'compose').compose(parts);
  }

  // ---------------------------------------------------------------------------------------------
  // Snowflake

  // `resumeAfter` only where the backend supports it (not the wasm yet): elsewhere it is what it
  // was before, the name of a node field.
  const OPTION_KEYS = new Set(['layout', 'epoch', 'onRollback', 'onExhausted', 'random', 'nodes']);
  if (backend.resumeAfter) OPTION_KEYS.add('resumeAfter');

  /**
   * An ID option (`resumeAfter`) as decimal text for the core, which reads it and reports a bad one
   * (negative, above 2^63-1, not digits) with its exact value. Numbers only up to 2^53-1.
   */
  function idText(name, id) {
    switch (typeof id) {
      case 'bigint':
      case 'string':
        return String(id);
      case 'number':
        if (Number.isSafeInteger(id)) return String(id);
        if (Number.isInteger(id)) {
          throw new InvalidIdError(
            `invalid id \`${id}\`: a number above 2^53-1 (9007199254740991) is not exact ` +
              `(this one is ${BigInt(id)}); pass \`${name}\` as a bigint or a decimal string`
          );
        }
        throw new InvalidIdError(`invalid id \`${id}\`: not a whole number; pass \`${name}\` as a bigint or a decimal string`);
      default:
        throw new InvalidIdError(
          `invalid id \`${show(id)}\`: pass \`${name}\` as a bigint or a decimal string (a number only up to 2^53-1)`
        );
    }
  }

  /**
   * A snowflake ID generator for one node. (In a browser, which has no stable machine identity:
   * give every node field of the layout, or `random: true` to draw the ones not given from
   * `crypto.getRandomValues`; see idmint-web's README for what that risks.)
   */
  class Snowflake {
    #n; // the backend's generator (see js/README.md)
    #layout;
    constructor(options = {}) {
      need();
      if (!isPlainObject(options)) {
        throw new InvalidArgumentError(
          `invalid argument \`options\` = ${show(options)}: an object such as { layout: 'twitter', datacenter: 1, worker: 7 }`
        );
      }
      let spec = options.layout ?? 'twitter';
      let epoch = options.epoch;
      if (spec instanceof Layout) {
        spec = spec.spec;
      } else if (typeof spec !== 'string') {
        throw new InvalidArgumentError(
          `invalid argument \`layout\` = ${show(spec)}: a preset name (twitter, sonyflake, redis-lua, baidu), a spec or a Layout`
        );
      }
      epoch = epoch === undefined ? undefined : timeText('epoch', epoch);
      const names = [];
      const values = [];
      const addNode = (k, v) => {
        if (v === undefined) return;
        names.push(k);
        values.push(wholeValue(k, v));
      };
      for (const k of Object.keys(options)) {
        if (OPTION_KEYS.has(k)) continue;
        addNode(k, options[k]);
      }
      // Fields whose names clash with an option go in `nodes`; a non-object `nodes` (or a
      // non-boolean `random`) is the value of a field of that name.
      if (options.nodes !== undefined) {
        if (isPlainObject(options.nodes)) {
          for (const k of Object.keys(options.nodes)) addNode(k, options.nodes[k]);
        } else {
          addNode('nodes', options.nodes);
        }
      }
      let random = false;
      if (typeof options.random === 'boolean') random = options.random;
      else addNode('random', options.random);
      const policy = (name, v) => {
        if (v === undefined || typeof v === 'string') return v;
        throw new InvalidArgumentError(`invalid argument \`${name}\` = ${show(v)}: a policy string`);
      };
      const onExhausted = policy('onExhausted', options.onExhausted);
      const onRollback = policy('onRollback', options.onRollback);
      const resumeAfter =
        !backend.resumeAfter || options.resumeAfter === undefined ? undefined : idText('resumeAfter', options.resumeAfter);
      this.#n = call(() => backend.snowflake(spec, epoch, names, values, random, onExhausted, onRollback, resumeAfter));
      this.#layout = Layout._wrap(this.#n.layout);
    }

    /** The next ID, as a bigint. */
    nextId() {
      try {
        return this.#n.nextId();
      } catch (e) {
        throw fromBackend(e);
      }
    }

    /** The next ID as a decimal string (for JSON). */
    nextIdString() {
      try {
        return this.#n.nextIdString();
      } catch (e) {
        throw fromBackend(e);
      }
    }

    /** `n` increasing IDs in a BigUint64Array. */
    nextIds(n) {
      if (!Number.isSafeInteger(n) || n < 0 || n > 0xffff_ffff) {
        throw new InvalidArgumentError(`invalid argument \`n\` = ${show(n)}: a whole number 0..=4294967295`);
      }
      if (backend.maxBatch !== undefined && n > backend.maxBatch) {
        throw new InvalidArgumentError(
          `invalid argument \`n\` = ${n}: the browser build mints at most ${backend.maxBatch} IDs per call (wasm memory is 4 GiB); call nextIds again`
        );
      }
      try {
        return this.#n.nextIds(n);
      } catch (e) {
        throw fromBackend(e);
      }
    }

    /** Split an ID of this generator's layout. */
    parse(id) {
      return this.#layout.parse(id);
    }

    /** Compose an ID of this generator's layout. */
    compose(parts) {
      return this.#layout.compose(parts);
    }

    /** `{ issued, waits, rollbacks, leadMs, maxLeadMs }`. */
    get stats() {
      return this.#n.stats();
    }

    get layout() {
      return this.#layout;
    }

    /** This generator's node field values: numbers, or bigints for fields wider than 53 bits. */
    get nodes() {
      return this.#n.nodes();
    }

    get onExhausted() {
      return this.#n.onExhausted();
    }

    get onRollback() {
      return this.#n.onRollback();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // ObjectId

  const inspect = Symbol.for('nodejs.util.inspect.custom');
  // Minting an ObjectId is on hot paths: one call, the readiness check is the backend's own.
  const oidNextHex = backend.oidNextHex;

  function objectIdHex(input) {
    if (typeof input === 'string') return backend.oidParseHex(input);
    if (input instanceof ObjectId) return input.toHexString();
    if (ArrayBuffer.isView(input)) {
      const bytes =
        input instanceof Uint8Array ? input : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
      return backend.oidFromBytes(bytes);
    }
    if (input !== null && typeof input === 'object' && typeof input.toHexString === 'function') {
      // bson's ObjectId, or anything else that prints as hex
      const hex = input.toHexString();
      if (typeof hex === 'string') return backend.oidParseHex(hex);
    }
    throw new InvalidObjectIdError(
      `invalid ObjectId \`${show(input)}\`: give 24 hex characters, 12 bytes or an ObjectId (this package's or bson's)`
    );
  }

  /** A MongoDB-compatible ObjectId (12 bytes), never repeated within a process (or page). */
  class ObjectId {
    #hex;
    constructor(input) {
      if (input === undefined) {
        this.#hex = oidNextHex();
        return;
      }
      need();
      try {
        this.#hex = objectIdHex(input);
      } catch (e) {
        throw fromBackend(e);
      }
    }

    /** A new ObjectId's hex without making an object: the fastest way to a fresh ID string. */
    static generateHex() {
      return oidNextHex();
    }

    static createFromHexString(hex) {
      if (typeof hex !== 'string') {
        throw new InvalidObjectIdError(`invalid ObjectId \`${show(hex)}\`: give 24 hex characters`);
      }
      return new ObjectId(hex);
    }

    /** An ObjectId of the given unix seconds with random and counter bytes zero (for range queries). */
    static createFromTime(seconds) {
      if (!Number.isInteger(seconds) || seconds < 0 || seconds > 0xffff_ffff) {
        throw new InvalidArgumentError(
          `invalid argument \`seconds\` = ${show(seconds)}: whole unix seconds 0..=4294967295`
        );
      }
      need();
      return new ObjectId(call(() => backend.oidFromTime(seconds)));
    }

    /** Whether `value` is (or reads as) a valid ObjectId. */
    static isValid(value) {
      need();
      try {
        objectIdHex(value);
        return true;
      } catch {
        return false;
      }
    }

    toHexString() {
      return this.#hex;
    }

    toString() {
      return this.#hex;
    }

    toJSON() {
      return this.#hex;
    }

    /** The 12 bytes (a new Buffer in Node, Uint8Array in a browser, each time), as bson's `id`. */
    get id() {
      return backend.oidBytes(this.#hex);
    }

    get buffer() {
      return this.id;
    }

    /** When it was made, to the second. */
    getTimestamp() {
      return new Date(backend.oidTimestamp(this.#hex) * 1000);
    }

    /** Equal to another ObjectId (this package's or bson's), 24 hex characters or 12 bytes. */
    equals(other) {
      if (other instanceof ObjectId) return other.#hex === this.#hex;
      if (other === undefined || other === null) return false;
      try {
        return objectIdHex(other) === this.#hex;
      } catch {
        return false;
      }
    }

    /**
     * bson's serializer calls this. This ObjectId is not bson's class, and writing it as an embedded
     * document would silently store the wrong value, so convert first: `new bson.ObjectId(oid)`.
     */
    toBSON() {
      throw new InvalidArgumentError(
        `invalid argument \`ObjectId("${this.#hex}")\` = idmint ObjectId: bson cannot store it directly; ` +
          'convert it with `new ObjectId(oid)` from bson/mongodb (exact, 12 bytes) or store `oid.toHexString()`'
      );
    }

    [inspect]() {
      return `ObjectId("${this.#hex}")`;
    }

    get [Symbol.toStringTag]() {
      return 'ObjectId';
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Display IDs (docs/formats.md): short strings, keyed obfuscation, UUIDv7/ULID, order numbers.
  // The rules (alphabets, the Feistel network, RFC 9562, templates, check digits) are the core's;
  // this section converts arguments and results. Same API as the wasm package (idmint-web).

  const ENCODINGS = Object.freeze(['base62', 'base62-fixed', 'base32', 'base32-fixed']);

  /**
   * A 64-bit unsigned value (an ID to encode or obfuscate) as a bigint for the addon: a bigint, a
   * decimal string or a safe-integer number, in 0..=2^64-1, else an InvalidIdError (a RangeError)
   * naming the value. `domain` says what the operation takes, for the message; narrower domains
   * (obfuscation's 2^63-1) are the core's to check.
   */
  function u64Arg(value, domain) {
    let v;
    switch (typeof value) {
      case 'bigint':
        v = value;
        break;
      case 'string':
        if (!/^-?[0-9]+$/.test(value)) {
          throw new InvalidIdError(`invalid id \`${value}\`: not a decimal integer; ${domain}`);
        }
        v = BigInt(value);
        break;
      case 'number':
        if (Number.isSafeInteger(value)) {
          v = BigInt(value);
          break;
        }
        throw new InvalidIdError(
          Number.isInteger(value)
            ? `invalid id \`${value}\`: a number beyond ±2^53-1 is not exact (this one is ${BigInt(value)}); pass a bigint or a decimal string`
            : `invalid id \`${value}\`: not a whole number; pass a bigint or a decimal string`
        );
      default:
        throw new InvalidIdError(
          `invalid id \`${show(value)}\`: pass a bigint or a decimal string (a number only up to 2^53-1); ${domain}`
        );
    }
    if (v < 0n) throw new InvalidIdError(`invalid id \`${v}\`: negative; ${domain}`);
    if (v > U64_MAX) throw new InvalidIdError(`invalid id \`${v}\`: above 2^64-1 (18446744073709551615); ${domain}`);
    return v;
  }

  const ENCODE_DOMAIN = 'encodings take 0..=18446744073709551615 (2^64-1)';
  const OBFUSCATE_DOMAIN = 'obfuscation takes IDs in 0..=9223372036854775807 (2^63-1)';

  function encodingArg(encoding) {
    if (typeof encoding === 'string') return encoding; // the core names what it accepts
    throw new InvalidArgumentError(
      `invalid argument \`encoding\` = ${show(encoding)}: base62, base62-fixed, base32 or base32-fixed`
    );
  }

  /** Text for a parser: a string, else the kind's error (`invalid ${what} \`value\`: ...`). */
  function textArg(value, ErrorClass, what) {
    if (typeof value === 'string') return value;
    throw new ErrorClass(`invalid ${what} \`${show(value)}\`: give the text as a string`);
  }

  /** Run an addon call, rethrowing its error as the class of its kind. */
  function call(fn) {
    try {
      return fn();
    } catch (e) {
      throw fromBackend(e);
    }
  }

  /**
   * `id` (bigint, decimal string or safe number, 0..=2^64-1) as a short string: `'base62'`
   * (1-11 characters), `'base62-fixed'` (11, sorts like the numbers), `'base32'` (Crockford, 1-13)
   * or `'base32-fixed'` (13, sorts like the numbers).
   */
  function encode(id, encoding) {
    need();
    const v = u64Arg(id, ENCODE_DOMAIN);
    const e = encodingArg(encoding);
    return call(() => backend.encodeId(v, e));
  }

  /** The value (bigint) of a short string, read strictly (`InvalidEncodingError` otherwise). */
  function decode(text, encoding) {
    need();
    const e = encodingArg(encoding);
    const t = textArg(text, InvalidEncodingError, typeof encoding === 'string' ? encoding : 'text');
    return call(() => backend.decodeId(t, e));
  }

  const KEYRING = Symbol('idmint.keyring');

  /** A key version (number or bigint) for the addon; the core reports one outside 0..=61. */
  function versionArg(version) {
    if (typeof version === 'bigint' || (typeof version === 'number' && Number.isSafeInteger(version))) {
      return BigInt(version);
    }
    throw new InvalidArgumentError(`invalid argument \`version\` = ${show(version)}: a key version 0..=61`);
  }

  /**
   * Keys for keyed, reversible obfuscation of IDs in 0..=2^63-1 (a pseudonym, not encryption:
   * read docs/formats.md). The highest version obfuscates; every version reveals.
   */
  class Keyring {
    #n;
    #text;
    #versions;

    /** @internal use Keyring.fromText or Keyring.generate */
    constructor(token, n, text) {
      if (token !== KEYRING) {
        throw new InvalidArgumentError(
          'invalid argument `Keyring`: make one with Keyring.fromText(text) or Keyring.generate(version)'
        );
      }
      this.#n = n;
      this.#text = text;
      this.#versions = Object.freeze(Array.from(n.versions()));
    }

    /** Read key-file text: one `idmint-key-v<version>:<32 hex>` a line, `#` comments allowed. */
    static fromText(text) {
      need();
      const t = textArg(text, InvalidKeyError, 'key');
      return new Keyring(KEYRING, call(() => backend.keyring(t)), t);
    }

    /** A key ring of one new key of `version` (0..=61) from the OS random source. */
    static generate(version) {
      need();
      const v = versionArg(version);
      const text = call(() => backend.keyGenerate(v)) + '\n';
      return new Keyring(KEYRING, call(() => backend.keyring(text)), text);
    }

    /** The ID shown in place of `id` (0..=2^63-1), with the active key: a bigint in 0..=2^63-1. */
    obfuscate(id) {
      const v = u64Arg(id, OBFUSCATE_DOMAIN);
      return call(() => this.#n.obfuscate(v));
    }

    /** The ID that `obfuscate` turned into `shown`, with key `version` (default: the active key). */
    reveal(shown, version) {
      const v = u64Arg(shown, OBFUSCATE_DOMAIN);
      const k = version === undefined ? undefined : versionArg(version);
      return call(() => this.#n.reveal(v, k));
    }

    /** Obfuscate with the active key into the 12-character tagged form (names its key version). */
    obfuscateTagged(id) {
      const v = u64Arg(id, OBFUSCATE_DOMAIN);
      return call(() => this.#n.obfuscateTagged(v));
    }

    /** Reveal the tagged form with the key it names. */
    revealTagged(text) {
      const t = textArg(text, InvalidEncodingError, 'tagged id');
      return call(() => this.#n.revealTagged(t));
    }

    /** The key versions held, ascending. */
    get versions() {
      return [...this.#versions];
    }

    /** The version that obfuscates: the highest. */
    get activeVersion() {
      return this.#versions[this.#versions.length - 1];
    }

    /** The key-file text this ring was read from or generated as. It holds the secrets: store it as one. */
    toText() {
      return this.#text;
    }

    /** Never the secrets. */
    toString() {
      return `Keyring(${this.#versions.map((v) => `v${v}`).join(', ')}; active v${this.activeVersion})`;
    }

    /** Never the secrets: `{ versions, activeVersion }`. */
    toJSON() {
      return { versions: this.versions, activeVersion: this.activeVersion };
    }

    [inspect]() {
      return this.toString();
    }
  }

  function uuidFields(raw) {
    const [uuid, ulid, timestampMs, randA, randB] = raw;
    return { uuid, ulid, time: new Date(timestampMs), timestampMs, randA, randB };
  }

  /**
   * A new UUIDv7 (lowercase, hyphenated) from the process-wide generator: increasing within the
   * process, worker threads included.
   */
  function uuid7() {
    need();
    return call(() => backend.uuid7Next());
  }

  /**
   * Read a UUIDv7 (hyphenated or 32 hex digits, either case):
   * `{ uuid, ulid, time: Date, timestampMs, randA, randB }`.
   */
  function parseUuid7(text) {
    need();
    const t = textArg(text, InvalidUuidError, 'UUIDv7');
    return uuidFields(call(() => backend.uuid7Parse(t)));
  }

  /** Read the 26-character ULID text of a UUIDv7 (either case): the same fields as `parseUuid7`. */
  function parseUlid(text) {
    need();
    const t = textArg(text, InvalidUuidError, 'UUIDv7');
    return uuidFields(call(() => backend.ulidParse(t)));
  }

  /**
   * A UUIDv7 generator of its own (RFC 9562 §6.2 method 1: a 12-bit counter after the
   * millisecond), strictly increasing.
   */
  class Uuid7Generator {
    #n;
    constructor() {
      need();
      this.#n = backend.uuid7Generator();
    }

    /** The next UUID, lowercase and hyphenated. */
    next() {
      return call(() => this.#n.next(false));
    }

    /** The next UUID as its 26-character ULID text (upper case). */
    nextUlid() {
      return call(() => this.#n.next(true));
    }
  }

  const TEMPLATE_OPTIONS = new Set(['label', 'offset', 'check']);
  const DATE_PARTS = ['year', 'month', 'day', 'hour', 'minute', 'second'];
  // A sequence of up to 15 digits is below 2^53: a number; wider ones are bigints.
  const MAX_NUMBER_WIDTH = 15;
  const TEMPLATE_HANDLE = new WeakMap(); // Template -> the backend's template, for OrderNumbers

  function optionalString(name, value, expected) {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    throw new InvalidArgumentError(`invalid argument \`${name}\` = ${show(value)}: ${expected}`);
  }

  /**
   * An order-number template such as `'%L%Y%M%D%m%5S'` (see docs/formats.md), with the node
   * `label` for `%L`, the UTC `offset` of its date parts (`'Z'` by default, `'+08:00'`, ...) and
   * `check` digits (`'none'`, `'luhn'`, `'mod97'`).
   */
  class Template {
    #n;
    #label;
    #wide;

    constructor(pattern, options = {}) {
      need();
      if (typeof pattern !== 'string') {
        throw new InvalidTemplateError(
          `invalid template \`${show(pattern)}\`: give the template as a string, e.g. '%L%Y%M%D%m%5S'`
        );
      }
      if (!isPlainObject(options)) {
        throw new InvalidArgumentError(
          `invalid argument \`options\` = ${show(options)}: an object such as { label, offset, check }`
        );
      }
      for (const k of Object.keys(options)) {
        if (!TEMPLATE_OPTIONS.has(k)) {
          throw new InvalidArgumentError(
            `invalid argument \`${k}\`: not an option of Template; options are label, offset, check`
          );
        }
      }
      const label = optionalString('label', options.label, 'ASCII letters and digits');
      const offset = optionalString('offset', options.offset, "a UTC offset such as 'Z', '+08:00' or '-05:30'");
      const check = optionalString('check', options.check, 'none, luhn or mod97');
      this.#n = call(() => backend.template(pattern, label, offset, check));
      this.#label = label ?? null;
      this.#wide = this.#n.sequenceWidth > MAX_NUMBER_WIDTH;
      TEMPLATE_HANDLE.set(this, this.#n);
    }

    /**
     * The order number for `time` (a Date, unix ms or RFC 3339 text) and `sequence` (a whole
     * number or bigint, at most `capacity`).
     */
    format(time, sequence) {
      const t = timeText('time', time);
      const seq = wholeValue('sequence', sequence);
      return call(() => this.#n.format(t, seq));
    }

    /**
     * A snowflake ID of `layout` as the sequence, its own time as the date parts: collision-free
     * when the sequence is as wide as the layout's largest ID (`%19S` for 63 bits; checked).
     */
    formatSnowflake(id, layout) {
      const v = u64Arg(id, 'snowflake IDs are 0..=9223372036854775807');
      const l = toLayout(layout, 'formatSnowflake');
      return call(() => this.#n.formatSnowflake(handleOf(l), v));
    }

    /**
     * Read an order number back, checking its check digits: `{ year, month, day, hour, minute,
     * second, label, sequence, check }`, each only if the template has it.
     */
    parse(text) {
      const t = textArg(text, InvalidIdError, 'id');
      const p = call(() => this.#n.parse(t));
      const out = {};
      for (const k of DATE_PARTS) if (p[k] != null) out[k] = p[k];
      if (p.label != null) out.label = p.label;
      out.sequence = this.#wide ? p.sequence : Number(p.sequence);
      if (p.check != null) out.check = p.check;
      return out;
    }

    /** The day of `time` in the template's offset as the number yyyymmdd (a daily counter's key). */
    dayOf(time) {
      const t = timeText('time', time);
      return call(() => this.#n.dayOf(t));
    }

    /** The template as given. */
    get pattern() {
      return this.#n.pattern();
    }
    /** The label for `%L`, or null. */
    get label() {
      return this.#label;
    }
    /** The UTC offset of the date parts, in seconds. */
    get offsetSeconds() {
      return this.#n.offsetSeconds;
    }
    /** `'none'`, `'luhn'` or `'mod97'`. */
    get check() {
      return this.#n.check();
    }
    /** The sequence's width in digits. */
    get sequenceWidth() {
      return this.#n.sequenceWidth;
    }
    /** The largest sequence that fits: 10^width - 1 (a bigint beyond 15 digits). */
    get capacity() {
      const c = this.#n.capacity();
      return this.#wide ? c : Number(c);
    }
    toString() {
      return this.pattern;
    }
    toJSON() {
      return this.pattern;
    }
  }

  /**
   * Daily order numbers: a `Template` with a full date (`%Y`/`%y`, `%M`, `%D`) and a counter that
   * starts at 1 each day (in the template's offset): by default one of this object's own, so two
   * objects (or two processes, or two pages) with the same template repeat each other's numbers:
   * give each its own `%L` label or, in Node, share one counter with `{ counter: URL, name }` (see
   * the package's README).
   */
  class OrderNumbers {
    #n;
    #template;

    /**
     * `options.day` (yyyymmdd) with `options.first`: the counter's next value on that day.
     * In Node, `options.counter`: a shared counter's URL (`sqlite:PATH`, `postgres://…`,
     * `mysql://…`, `redis://…`, `memory:`) with `options.name` (default 'orders') and `options.step`.
     */
    constructor(template, options = {}) {
      need();
      const nt = template instanceof Template ? TEMPLATE_HANDLE.get(template) : undefined;
      if (nt === undefined) {
        throw new InvalidArgumentError(`invalid argument \`template\` = ${show(template)}: a Template`);
      }
      const shared = backend.sharedCounters;
      if (!isPlainObject(options)) {
        throw new InvalidArgumentError(
          `invalid argument \`options\` = ${show(options)}: an object such as { day, first }${shared ? ' or { counter, name }' : ''}`
        );
      }
      const { day, first } = options;
      if ((day === undefined) !== (first === undefined)) {
        throw new InvalidArgumentError(
          'invalid argument `options`: give both `day` (yyyymmdd) and `first`, or neither'
        );
      }
      // Shared counters are the native build's (the wasm has no store to count in); elsewhere
      // these options are not read.
      const { counter, name, step } = shared ? options : {};
      for (const [key, value] of [['counter', counter], ['name', name]]) {
        if (value !== undefined && typeof value !== 'string') {
          throw new InvalidArgumentError(`invalid argument \`${key}\` = ${show(value)}: a string`);
        }
      }
      const d = day === undefined ? undefined : wholeValue('day', day);
      const f = first === undefined ? undefined : wholeValue('first', first);
      const s = step === undefined ? undefined : wholeValue('step', step);
      this.#n = call(() => backend.orderNumbers(nt, d, f, counter, name, s));
      this.#template = template;
    }

    /** The next order number, now or at `time` (a Date, unix ms or RFC 3339 text). */
    next(time) {
      const t = time === undefined ? undefined : timeText('time', time);
      return call(() => this.#n.next(t));
    }

    get template() {
      return this.#template;
    }
  }

  return {
    api: {
      Snowflake,
      Layout,
      ObjectId,
      parse,
      compose,
      encode,
      decode,
      ENCODINGS,
      Keyring,
      uuid7,
      parseUuid7,
      parseUlid,
      Uuid7Generator,
      Template,
      OrderNumbers,
      IdmintError,
      ...errorClasses,
      PRESETS: Object.freeze(['twitter', 'sonyflake', 'redis-lua', 'baidu']),
    },
    /** Give every kind the backend's core reports a class; call once the backend is ready. */
    addKinds,
    /** kind -> error class, for every kind known so far. */
    errors: () => Object.freeze({ ...byKind }),
    /** The error class of a kind (`invalid_id` -> InvalidIdError). */
    errorClass: (kind) => byKind[kind],
    fromBackend,
  };
}

export { createIdmint };

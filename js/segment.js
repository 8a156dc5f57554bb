// Segment IDs (`SegmentClient`, `SegmentTag`) and, where the backend has it, the lease listing
// (`leaseList`): the API both packages share, over a segment backend. Node's is the addon's
// segment module (bindings/node/src/segment.rs: the core's `idmint_core::segment::SegmentClient`);
// the browser's is web/remote.js (the same double buffer over `fetch` to `idmint serve`, every
// rule and default read from the core). Conversion only: the client, its refills, every rule
// and default are the core's.
//
// Nothing here waits on a store on the event loop: every call that may wait returns a Promise.
// The one synchronous call, `tag.nextId()`, hands out IDs of a block the backend granted from
// memory (`tryBlock`, never waiting): this file keeps that block, [next, end), and counts
// through it in JS, so the hot path does not cross into the backend.
//
// This is the one source: each package's build copies it in (node/scripts/build.js as
// node/segment.cjs, web/build.mjs as web/segment.js); edit it here.
//
// `native` (the segment backend): `NativeSegmentClient.connect(url, options)` (a Promise of a
// client: `tag(name)`, `createTag(tag, start, step, description)`, `metrics()`, `close()`,
// `store`; a tag: `tag`, `tryBlock()` -> [start, end), `nextIdAsync()`, `nextIdsAsync(n)` ->
// [start, end), `metrics()`), `exactNumber(id)` (an ID above 2^53-1 as the core's
// value_out_of_range error), optionally `leaseList(url, timeoutMs)`. `urls` says what `url` may
// be; `connectOptions` lists the options `connect` takes besides the shared ones.

const asyncDispose = Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose');
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function segmentApi(native, idmint, { urls, connectOptions = [] }) {
  const {
    fromBackend,
    convert: { wholeValue, show, isPlainObject, call, coreError },
  } = idmint;

  /** A Promise of the addon's call, its errors given their classes (thrown ones too). */
  async function settle(start) {
    try {
      return await start();
    } catch (e) {
      throw fromBackend(e);
    }
  }

  function text(name, value, expected) {
    if (typeof value === 'string') return value;
    throw coreError('invalid_argument', name, show(value), expected);
  }

  function options(what, given, known) {
    if (!isPlainObject(given)) {
      throw coreError('invalid_argument', 'options', show(given), `an object of ${what}'s options`);
    }
    for (const k of Object.keys(given)) {
      if (!known.includes(k)) {
        throw coreError('invalid_argument', k, show(given[k]), `not an option of ${what}; options are ${known.join(', ')}`);
      }
    }
    return given;
  }

  const whole = (name, v) => (v === undefined ? undefined : wholeValue(name, v));

  /** An ID as a number: the core's `value_out_of_range` above 2^53-1. */
  const toNumber = (id) => (id <= MAX_SAFE ? Number(id) : call(() => native.exactNumber(id)));

  /** The addon's metrics object; no last error is `null`. */
  const metricsOf = (m) => ({ ...m, lastError: m.lastError ?? null });

  const TOKEN = Symbol('idmint.segment');
  const CLOSE = Symbol('idmint.segment.close');
  const STORE_URLS = urls;
  const CONNECT_OPTIONS = ['refillAt', 'maxStep', 'defaultStep', 'maxWaitMs', 'opTimeoutMs', 'token', ...connectOptions];

  /** A cached tag of a SegmentClient: `await client.tag(name)`. */
  class SegmentTag {
    #n; // the addon's NativeTag
    #name;
    // The block of IDs the core granted this handle: next, next + 1, …, end - 1.
    #next = 0n;
    #end = 0n;

    /** @internal use `await client.tag(name)` */
    constructor(token, n) {
      if (token !== TOKEN) {
        throw coreError('invalid_argument', 'SegmentTag', show(token), 'get one with `await client.tag(name)`');
      }
      this.#n = n;
      this.#name = n.tag;
    }

    /**
     * The next ID (bigint) from memory, synchronously. When the client holds none (the refill
     * is on its way) it throws WouldBlockError: `await nextIdAsync()` then.
     */
    nextId() {
      if (this.#next < this.#end) return this.#next++;
      return this.#block();
    }

    #block() {
      let r;
      try {
        r = this.#n.tryBlock();
      } catch (e) {
        throw fromBackend(e);
      }
      this.#next = r[0] + 1n;
      this.#end = r[1];
      return r[0];
    }

    /** A Promise of the next ID (bigint): from memory when it can, else after the refill. */
    async nextIdAsync() {
      if (this.#next < this.#end) return this.#next++;
      try {
        return this.#block();
      } catch (e) {
        if (e?.kind !== 'would_block') throw e;
      }
      return settle(() => this.#n.nextIdAsync());
    }

    /** `nextId()` as a number: ValueOutOfRangeError (a RangeError) for an ID above 2^53-1. */
    nextNumber() {
      return toNumber(this.nextId());
    }

    /** `nextIdAsync()` as a number, as `nextNumber`. */
    async nextNumberAsync() {
      return toNumber(await this.nextIdAsync());
    }

    /**
     * A Promise of `n` contiguous IDs as `{ start, end }` (bigints; the IDs are start, start + 1,
     * …, end - 1). Runs longer than the tag's step come straight from the store.
     */
    async nextIds(n) {
      const count = wholeValue('n', n);
      const [start, end] = await settle(() => this.#n.nextIdsAsync(count));
      return { start, end };
    }

    /**
     * The tag's counters: `{ tag, remaining, step, refills, lastRefillLatencyMs,
     * maxRefillLatencyMs, meanRefillLatencyMs, storeErrors, lastError }`; `remaining` counts the
     * IDs of this handle's block too.
     */
    metrics() {
      const m = metricsOf(call(() => this.#n.metrics()));
      m.remaining += Number(this.#end - this.#next);
      return m;
    }

    /** The tag as stored (the default tag's name when this tag falls back to it). */
    get tag() {
      return this.#name;
    }

    /** The client was closed: the block is dropped, never handed out. */
    [CLOSE]() {
      this.#next = this.#end;
    }
  }

  /**
   * Segment IDs from a shared store: `await SegmentClient.connect(url, options)`. IDs of a tag
   * are unique across every client of the store; each client's only grow.
   */
  class SegmentClient {
    #n; // the addon's NativeSegmentClient
    #tags = new Map(); // name -> SegmentTag

    /** @internal use `await SegmentClient.connect(url, options)` */
    constructor(token, n) {
      if (token !== TOKEN) {
        throw coreError('invalid_argument', 'SegmentClient', show(token), 'connect with `await SegmentClient.connect(url, options)`');
      }
      this.#n = n;
    }

    /**
     * A Promise of a client of the store at `url`, with the options `{ refillAt, maxStep,
     * defaultStep, autoCreate, defaultTag, maxWaitMs, opTimeoutMs }` (defaults: the core's).
     */
    static async connect(url, opts = {}) {
      const u = text('url', url, STORE_URLS);
      const o = options('SegmentClient.connect', opts, CONNECT_OPTIONS);
      if (o.autoCreate !== undefined && typeof o.autoCreate !== 'boolean') {
        throw coreError('invalid_argument', 'autoCreate', show(o.autoCreate), 'true or false');
      }
      const native_ = {
        refillAt: whole('refillAt', o.refillAt),
        maxStep: whole('maxStep', o.maxStep),
        defaultStep: whole('defaultStep', o.defaultStep),
        autoCreate: o.autoCreate,
        defaultTag: o.defaultTag === undefined ? undefined : text('defaultTag', o.defaultTag, 'a tag name'),
        maxWaitMs: whole('maxWaitMs', o.maxWaitMs),
        opTimeoutMs: whole('opTimeoutMs', o.opTimeoutMs),
        token: o.token === undefined ? undefined : text('token', o.token, 'a bearer token'),
      };
      return new SegmentClient(TOKEN, await settle(() => native.NativeSegmentClient.connect(u, native_)));
    }

    /** A Promise of the tag's handle, loaded from the store on first use and then cached. */
    async tag(name) {
      const t = text('tag', name, 'a tag name');
      const cached = this.#tags.get(t);
      if (cached !== undefined) return cached;
      const n = await settle(() => this.#n.tag(t));
      let tag = this.#tags.get(t);
      if (tag === undefined) {
        tag = new SegmentTag(TOKEN, n);
        this.#tags.set(t, tag);
      }
      return tag;
    }

    /**
     * A Promise of whether `tag` was created with `{ start, step, description }` (false: it
     * existed, and nothing changed).
     */
    async createTag(tag, opts = {}) {
      const t = text('tag', tag, 'a tag name');
      const o = options('createTag', opts, ['start', 'step', 'description']);
      const description =
        o.description === undefined ? undefined : text('description', o.description, 'a description');
      const start = whole('start', o.start);
      const step = whole('step', o.step);
      return settle(() => this.#n.createTag(t, start, step, description));
    }

    /** The counters of every tag this client has loaded, sorted by tag (as `tag.metrics()`). */
    metrics() {
      const held = new Map([...this.#tags.values()].map((t) => [t.tag, t]));
      return call(() => this.#n.metrics()).map((m) => held.get(m.tag)?.metrics() ?? metricsOf(m));
    }

    /**
     * Stop the background refills and drop every ID held in memory (never handed out); later
     * calls throw ClosedError. A Promise, for `await using`: it resolves once the unused tails
     * went back to the store and the store the client opened is closed (a SQLite file can then
     * be deleted, which Windows refuses while it is open).
     */
    async close() {
      for (const t of this.#tags.values()) t[CLOSE]();
      await this.#n.close();
    }

    [asyncDispose]() {
      return this.close();
    }

    /** The store, as kind and address (no credentials). */
    get store() {
      return this.#n.store;
    }
  }

  /**
   * A Promise of the leases of the store at `url`: `[{ value, state, holder, expiresInMs,
   * freeInMs, lastTimeMs }]`, state `'held'`, `'frozen'` or `'free'`.
   */
  async function leaseList(url, opts = {}) {
    const u = text('url', url, STORE_URLS);
    const o = options('leaseList', opts, ['timeoutMs']);
    const timeout = whole('timeoutMs', o.timeoutMs);
    return settle(() => native.leaseList(u, timeout));
  }

  return native.leaseList ? { SegmentClient, SegmentTag, leaseList } : { SegmentClient, SegmentTag };
}

export { segmentApi };

'use strict';
// Snowflake IDs minted on Redis (`RedisSnowflake`): native package only, over the addon's
// NativeRedisSnowflake (bindings/node/src/redis_snowflake.rs). Conversion only: the Lua script,
// the servers' residues, the buffer and every rule and default are the core's
// (idmint_core::RedisSnowflake).
//
// Nothing here waits on a server on the event loop: connecting and every call that may wait
// return a Promise settled from the addon's tokio runtime. The one synchronous call, `nextId()`,
// takes an ID the core already holds (`tryNextId`, never waiting), else throws WouldBlockError.

const asyncDispose = Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose');

function redisSnowflakeApi(native, idmint) {
  const {
    fromBackend,
    convert: { wholeValue, show, isPlainObject, call },
  } = idmint;
  const { InvalidArgumentError, Layout } = idmint.api;

  async function settle(start) {
    try {
      return await start();
    } catch (e) {
      throw fromBackend(e);
    }
  }

  const TOKEN = Symbol('idmint.redisSnowflake');
  const OPTIONS = [
    'tag',
    'shard',
    'layout',
    'prefix',
    'batch',
    'opTimeoutMs',
    'maxWaitMs',
    'retryAfterMs',
    'maxAheadMs',
    'counterTtlSecs',
    'resumeAfterMs',
    'testClockKey',
  ];
  const URLS = 'Redis URLs (redis://host:port), a comma-separated string or an array of strings';

  function text(name, value, expected) {
    if (value === undefined || typeof value === 'string') return value;
    throw new InvalidArgumentError(`invalid argument \`${name}\` = ${show(value)}: ${expected}`);
  }

  function urlList(urls) {
    if (typeof urls === 'string') return urls;
    if (Array.isArray(urls) && urls.every((u) => typeof u === 'string')) return urls.join(',');
    throw new InvalidArgumentError(`invalid argument \`urls\` = ${show(urls)}: ${URLS}`);
  }

  function layoutSpec(layout) {
    if (layout === undefined || typeof layout === 'string') return layout;
    if (layout instanceof Layout) return layout.spec;
    throw new InvalidArgumentError(
      `invalid argument \`layout\` = ${show(layout)}: a preset name, a layout spec or a Layout`
    );
  }

  const whole = (name, v) => (v === undefined ? undefined : wholeValue(name, v));

  /**
   * Snowflake IDs minted on Redis by idmint's Lua script: `await RedisSnowflake.connect(urls,
   * options)`. IDs (bigints) of a tag are unique across every client, process and server of the
   * set; list the servers in the same order on every client.
   */
  class RedisSnowflake {
    #n; // the addon's NativeRedisSnowflake
    #layout;

    /** @internal use `await RedisSnowflake.connect(urls, options)` */
    constructor(token, n) {
      if (token !== TOKEN) {
        throw new InvalidArgumentError(
          'invalid argument `RedisSnowflake`: connect with `await RedisSnowflake.connect(urls, options)`'
        );
      }
      this.#n = n;
      this.#layout = new Layout(n.layoutSpec);
    }

    /**
     * A Promise of a generator on the servers `urls`, with the options `{ tag, shard, layout,
     * prefix, batch, opTimeoutMs, maxWaitMs, retryAfterMs, maxAheadMs, counterTtlSecs,
     * resumeAfterMs, testClockKey }` (defaults: the core's).
     */
    static async connect(urls, opts = {}) {
      const u = urlList(urls);
      if (!isPlainObject(opts)) {
        throw new InvalidArgumentError(`invalid argument \`options\` = ${show(opts)}: an object of RedisSnowflake's options`);
      }
      for (const k of Object.keys(opts)) {
        if (!OPTIONS.includes(k)) {
          throw new InvalidArgumentError(`invalid argument \`${k}\`: not an option of RedisSnowflake; options are ${OPTIONS.join(', ')}`);
        }
      }
      const o = {
        tag: text('tag', opts.tag, 'a tag name'),
        shard: whole('shard', opts.shard),
        layout: layoutSpec(opts.layout),
        prefix: text('prefix', opts.prefix, 'a key prefix'),
        batch: whole('batch', opts.batch),
        opTimeoutMs: whole('opTimeoutMs', opts.opTimeoutMs),
        maxWaitMs: whole('maxWaitMs', opts.maxWaitMs),
        retryAfterMs: whole('retryAfterMs', opts.retryAfterMs),
        maxAheadMs: whole('maxAheadMs', opts.maxAheadMs),
        counterTtlSecs: whole('counterTtlSecs', opts.counterTtlSecs),
        resumeAfterMs: whole('resumeAfterMs', opts.resumeAfterMs),
        testClockKey: text('testClockKey', opts.testClockKey, 'a key name'),
      };
      return new RedisSnowflake(TOKEN, await settle(() => native.NativeRedisSnowflake.connect(u, o)));
    }

    /**
     * The next ID (bigint) of the generator's shard, or of `shard`, from the buffer,
     * synchronously. When the buffer is empty it throws WouldBlockError (a run is then on its
     * way): `await nextIdAsync()` then.
     */
    nextId(shard) {
      const s = whole('shard', shard);
      return call(() => this.#n.tryNextId(s));
    }

    /** A Promise of the next ID (bigint) of the generator's shard, or of `shard`. */
    async nextIdAsync(shard) {
      const s = whole('shard', shard);
      try {
        return this.#n.tryNextId(s);
      } catch (e) {
        const err = fromBackend(e);
        if (err?.kind !== 'would_block') throw err;
      }
      return settle(() => this.#n.nextIdAsync(s));
    }

    /** A Promise of `k` increasing IDs (bigints; 1..=2^20) of the generator's shard, one round trip. */
    async nextIds(k) {
      const count = wholeValue('k', k);
      return settle(() => this.#n.nextIdsAsync(undefined, count));
    }

    /** A Promise of `k` increasing IDs of `shard`, as `nextIds`. */
    async nextIdsFor(shard, k) {
      const s = wholeValue('shard', shard);
      const count = wholeValue('k', k);
      return settle(() => this.#n.nextIdsAsync(s, count));
    }

    /** The layout of the IDs (a Layout: `layout.parse(id).shard`). */
    get layout() {
      return this.#layout;
    }

    /** The servers, in order, without credentials. */
    get servers() {
      return call(() => this.#n.servers);
    }

    /** `{ roundTrips, nodeFailures }` so far. */
    stats() {
      const [roundTrips, nodeFailures] = call(() => this.#n.stats());
      return { roundTrips, nodeFailures };
    }

    /** Drop the connections and the buffered IDs; later calls throw ClosedError. A Promise, for `await using`. */
    async close() {
      this.#n.close();
    }

    [asyncDispose]() {
      return this.close();
    }
  }

  return { RedisSnowflake };
}

module.exports = { redisSnowflakeApi };

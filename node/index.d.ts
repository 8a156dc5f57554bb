// Types for idmint (Node): the shared API (facade.d.ts, copied from js/facade.d.ts by
// scripts/build.js) and what only the native package has.
import type { IdInput, Whole, TimeInput } from './facade';
import * as api from './facade';

export * from './facade';

declare module './facade' {
  interface Platform {
    bytes: Buffer;
  }
  interface SnowflakeOptions {
    /**
     * The last ID this node issued before a restart (kept by you, e.g. in a database): every new
     * ID is greater than it, and a clock behind its time is a rollback, handled by `onRollback`.
     * A bigint or decimal string (a number only up to 2^53-1); InvalidIdError if it is not an ID
     * of the layout.
     */
    resumeAfter?: IdInput;
    /** How long an expired lease stays frozen before others may take it, ms (a store URL; an ID server decides it itself). */
    leaseFreezeMs?: Whole;
    /**
     * A file the generator keeps the last time its IDs may carry in (written ahead of time): after
     * a restart, new IDs are later than any the previous process issued, even if the clock is behind.
     */
    highWaterMark?: string;
  }
  interface OrderNumbers {
    /**
     * A Promise of the next order number; a shared counter (`counter`) waits on its store off the
     * event loop. With a shared counter `next()` throws InvalidArgumentError: use this.
     */
    nextAsync(time?: TimeInput): Promise<string>;
  }
  /** Node's own options of `SegmentClient.connect` (a store URL's; an ID server decides them itself). */
  interface SegmentClientOptions {
    /** Whether unknown tags are created on first use (default true) or are UnknownTagError. */
    autoCreate?: boolean;
    /** A tag that tags unknown to the store draw from (with `autoCreate: false`). */
    defaultTag?: string;
  }
  /** With a shared counter (`counter`, `name`, `step`), `day`/`first` is an InvalidArgumentError. */
  interface OrderNumbersOptions {
    /**
     * A shared daily counter's URL: `sqlite:PATH`, `postgres://…`, `mysql://…` (a tag per day;
     * unique across processes, with gaps), `redis://…` (`INCR` per day) or `memory:` (this object).
     * InvalidArgumentError for another URL, StoreUnavailableError when the store does not answer.
     */
    counter?: string;
    /** The shared counter's name (default `'orders'`): each day's tag or key is `name:yyyymmdd`. */
    name?: string;
    /** SQL stores: how many numbers a process takes at once (default 100); only with `counter`. */
    step?: Whole;
  }
}

/** Options of `RedisSnowflake.connect`; every one defaults to the core's. */
export interface RedisSnowflakeOptions {
  /** The ID space (default `'default'`; `A-Z a-z 0-9 _ . : -`, 1-128). */
  tag?: string;
  /** The shard of `nextId()` / `nextIds(k)` (else pass one per call). */
  shard?: Whole;
  /** A layout with exactly one node field, the shard (default `'redis-lua'`). */
  layout?: string | api.Layout;
  /** Key prefix (default `'idmint:sf'`). */
  prefix?: string;
  /** IDs per round trip behind `nextId` (default 100). */
  batch?: Whole;
  /** One call to one server, ms (default 1000). */
  opTimeoutMs?: Whole;
  /** One call, every server and retry, ms (default 3000). */
  maxWaitMs?: Whole;
  /** How long a failed server is skipped, ms (default 1000). */
  retryAfterMs?: Whole;
  /** How far past the server's clock IDs may carry, ms (default 1000). */
  maxAheadMs?: Whole;
  /** No longer used; still checked (2..=3600) so existing configurations build. */
  counterTtlSecs?: Whole;
  /** Never issue at or before this unix ms (moving in from another generator). */
  resumeAfterMs?: Whole;
  /** Tests only: the key the script reads its time from. */
  testClockKey?: string;
}

/** Snowflake IDs minted on Redis; unique per tag across every client, process and server. */
export declare class RedisSnowflake {
  private constructor();
  /** Connect to the servers (`'redis://a,redis://b'` or an array), in the same order on every client. */
  static connect(urls: string | string[], options?: RedisSnowflakeOptions): Promise<RedisSnowflake>;
  /** The next ID of the generator's shard (or `shard`) from the buffer, no Promise; WouldBlockError when it is empty (await `nextIdAsync()`). */
  nextId(shard?: Whole): bigint;
  /** The next ID of the generator's shard (or `shard`): from the buffer, or after a round trip. */
  nextIdAsync(shard?: Whole): Promise<bigint>;
  /** `k` increasing IDs (1..=2^20) of the generator's shard in one round trip. */
  nextIds(k: Whole): Promise<bigint[]>;
  /** `k` increasing IDs of `shard` in one round trip. */
  nextIdsFor(shard: Whole, k: Whole): Promise<bigint[]>;
  /** The layout of the IDs. */
  readonly layout: api.Layout;
  /** The servers, in order, without credentials. */
  readonly servers: string[];
  stats(): { roundTrips: number; nodeFailures: number };
  /** Drop the connections and buffered IDs; later calls throw ClosedError. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** One value of a lease store. */
export interface LeaseInfo {
  /** The value (a bigint only above 2^53-1). */
  value: number | bigint;
  state: 'held' | 'frozen' | 'free';
  /** The holder's name, empty when released. */
  holder: string;
  /** Ms until the holder's lease ends (negative: ended that long ago). */
  expiresInMs: number;
  /** Ms until others may take the value (0: now). */
  freeInMs: number;
  /** The fence: IDs of this value so far carry times up to this (unix ms). */
  lastTimeMs: number;
}

/** The leases of the store at `url` (the same URLs as `lease`), within `timeoutMs` (default 5000). */
export declare function leaseList(url: string, options?: { timeoutMs?: Whole }): Promise<LeaseInfo[]>;

/** Where IDs come from for the helpers below: a generator made once per process. */
export type IdSource = api.Snowflake | api.SegmentTag | RedisSnowflake;

/** A synchronous `() => bigint` from `source` for a column default (Drizzle's `$defaultFn`); a segment tag or RedisSnowflake only from memory (WouldBlockError when empty). */
export declare function idDefault(source: IdSource): () => bigint;
/** `rows` with IDs in `column` (default `'id'`) where it is undefined or null, drawn in one batch. */
export declare function assignIds<T extends object>(rows: T[], source: IdSource, options?: { column?: string }): Promise<T[]>;
/** An ID as a driver returned it (decimal text, bigint, or a number up to 2^53-1) as a bigint; anything else is an error. */
export declare function idFromDatabase(value: string | bigint | number): bigint;
/** A TypeORM column transformer: the entity holds a bigint, the database decimal text. */
export declare const bigintTransformer: {
  to(value: bigint | string | number | null | undefined): bigint | null | undefined;
  from(value: bigint | string | number | null | undefined): bigint | null | undefined;
};
/** A TypeORM subscriber class (DataSource `subscribers`) giving new entities of `target` an ID from `source` before insert. */
export declare function typeormSubscriber(
  target: unknown,
  source: IdSource,
  options?: { column?: string }
): new () => { listenTo(): unknown; beforeInsert(event: { entity?: Record<string, unknown> }): Promise<void> };
/** pg's `types` option (a pool, a client, Knex's `connection.types`) reading int8 and int8[] as bigints. */
export declare function pgBigintTypes(types: { getTypeParser(oid: number, format?: string): (text: string) => unknown }): {
  getTypeParser(oid: number, format?: string): (text: string) => unknown;
};

/** One metric of docs/metrics.md, as the core defines it. */
export interface MetricDefinition {
  name: string;
  instrument: 'counter' | 'gauge';
  unit: string;
  description: string;
  attributes: string[];
}
/** One metric's value now, across every live generator and client of the process. */
export interface MetricObservation {
  metric: string;
  value: number;
  attributes: Record<string, string>;
}
/** The core's health of a process's generators (`idmint_core::health`). */
export interface Health {
  status: 'up' | 'degraded' | 'down';
  /** Why it is down, one sentence per cause (empty when up). */
  reasons: string[];
  /** The snowflake lease; null without one (`fenceS`, `renewFailures`: null when not observed). */
  lease: { held: boolean; fenceS: number | null; renewFailures: number | null } | null;
  /** Each segment tag, in the order observed; `starved`: nothing buffered and store calls failed. */
  tags: { tag: string; remaining: number; storeErrors: number; starved: boolean }[];
}
/** idmint's metrics through the OpenTelemetry API (meter `idmint`), when `@opentelemetry/api` is installed. */
export declare const metrics: {
  definitions(): MetricDefinition[];
  observe(): MetricObservation[];
  /**
   * The core's health of `observations` (default: `observe()`): down while a snowflake lease is
   * not held, or while a tag has no IDs buffered and failed store calls.
   */
  health(observations?: MetricObservation[]): Health;
  /** One observable instrument per metric on `meterProvider` (default: the API's global one). */
  register(meterProvider?: unknown): { unregister(): void; [Symbol.asyncDispose](): Promise<void> };
};

/** Every core error kind -> its class (kinds added to the core later included). */
export declare const errors: Readonly<Record<string, new (message: string) => Error & { code: string; kind: string }>>;
export declare const ERROR_KINDS: readonly string[];

declare const idmint: typeof api & {
  errors: typeof errors;
  ERROR_KINDS: typeof ERROR_KINDS;
  SegmentClient: typeof SegmentClient;
  SegmentTag: typeof SegmentTag;
  leaseList: typeof leaseList;
  RedisSnowflake: typeof RedisSnowflake;
  metrics: typeof metrics;
  idDefault: typeof idDefault;
  assignIds: typeof assignIds;
  idFromDatabase: typeof idFromDatabase;
  bigintTransformer: typeof bigintTransformer;
  typeormSubscriber: typeof typeormSubscriber;
  pgBigintTypes: typeof pgBigintTypes;
};
export default idmint;

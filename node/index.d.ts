// Types for idmint (Node): the shared API (facade.d.ts, copied from js/facade.d.ts by
// scripts/build.js) and what only the native package has.
import type { IdInput, Whole } from './facade';
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

/** Every core error kind -> its class (kinds added to the core later included). */
export declare const errors: Readonly<Record<string, new (message: string) => Error & { code: string; kind: string }>>;
export declare const ERROR_KINDS: readonly string[];

declare const idmint: typeof api & { errors: typeof errors; ERROR_KINDS: typeof ERROR_KINDS };
export default idmint;

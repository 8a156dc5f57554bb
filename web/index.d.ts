// Types for idmint-web (browsers and bundlers): the API it shares with the Node package `idmint`
// (facade.d.ts, copied from js/facade.d.ts by build.mjs), plus `init` (the default export),
// which must be awaited once first. IDs are `bigint`; decimal strings are accepted wherever an
// ID is taken.

export * from './facade.js';

/** What `init` loads the wasm from: a URL, a fetch `Response`, the bytes or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Load and instantiate the wasm; every other export needs it. Calling it again is a no-op.
 * Without an argument it fetches `pkg/idmint_wasm_bg.wasm` next to `index.js` (in Node it reads
 * that file from disk).
 */
export default function init(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Instantiate synchronously from a compiled module or the .wasm bytes (workers, tests). */
export declare function initSync(module: WebAssembly.Module | BufferSource): void;

/** The version of the wasm core. */
export declare function version(): string;

/** The error class of a core error kind (`invalid_id` -> InvalidIdError). */
export declare function errorClass(kind: string): (new (message: string) => Error & { code: string; kind: string }) | undefined;

/** Every core error kind -> its class (after `init()`, kinds added to the core later included). */
export declare let errors: Readonly<Record<string, new (message: string) => Error & { code: string; kind: string }>>;
/** The core's error kinds, one class each (after `init()`, every kind the wasm's core has). */
export declare let ERROR_KINDS: readonly string[];

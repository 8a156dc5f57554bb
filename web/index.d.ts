// Types for idmint-web (browsers and bundlers): the API it shares with the Node package `idmint`
// (facade.d.ts, copied from js/facade.d.ts by build.mjs), plus `init` (the default export),
// which must be awaited once first. IDs are `bigint`; decimal strings are accepted wherever an
// ID is taken.

export * from './facade.js';

/** What `init` loads the wasm from: a URL, a fetch `Response`, the bytes or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** `init`'s options: the main module's input, and whether (or from where) to load the extras. */
export interface InitOptions {
    /** The main module (snowflakes, ObjectIds, parse); default: `pkg/idmint_wasm_bg.wasm`. */
    main?: InitInput | Promise<InitInput>;
    /**
     * `true` (or the second module's input) loads the display IDs too, as `initExtras` does;
     * default `false`: they throw until `initExtras()` has resolved.
     */
    extras?: boolean | InitInput | Promise<InitInput>;
}

/**
 * Load and instantiate the main wasm module; every other export needs it. Calling it again is a
 * no-op. Without an argument it fetches `pkg/idmint_wasm_bg.wasm` next to `index.js` (in Node it
 * reads that file from disk). The display IDs (`encode`, `decode`, `Keyring`, `uuid7`,
 * `parseUuid7`, `parseUlid`, `Uuid7Generator`, `Template`, `OrderNumbers`) are a second module:
 * pass `{ extras: true }` or call `initExtras()` to load it.
 */
export default function init(input?: InitInput | Promise<InitInput> | InitOptions): Promise<void>;

/**
 * Load and instantiate the display IDs' module (and the main one, if `init` was not called yet).
 * Without an argument it fetches `pkg/idmint_wasm_extras_bg.wasm` next to `index.js`. Calling it
 * again is a no-op.
 */
export declare function initExtras(input?: InitInput | Promise<InitInput>): Promise<void>;

/**
 * Instantiate the main module synchronously from a compiled module or the .wasm bytes (workers,
 * tests). The display IDs' module loads only asynchronously (`initExtras`).
 */
export declare function initSync(module: WebAssembly.Module | BufferSource): void;

/** The version of the wasm core. */
export declare function version(): string;

/** The error class of a core error kind (`invalid_id` -> InvalidIdError). */
export declare function errorClass(kind: string): (new (message: string) => Error & { code: string; kind: string }) | undefined;

/** Every core error kind -> its class (after `init()`, kinds added to the core later included). */
export declare let errors: Readonly<Record<string, new (message: string) => Error & { code: string; kind: string }>>;
/** The core's error kinds, one class each (after `init()`, every kind the wasm's core has). */
export declare let ERROR_KINDS: readonly string[];

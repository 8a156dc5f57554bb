// idmint-web: idmint's snowflake IDs, ObjectIds and parser for browsers and bundlers, and the
// display IDs of docs/formats.md (short strings, keyed obfuscation, UUIDv7/ULID, order numbers).
//
// The rules live in idmint-core (Rust), compiled to ./pkg/idmint_wasm_bg.wasm; this file only
// converts between JS values and the wasm exports and maps errors to classes. Call the default
// export (`await init()`) once before anything else.

import initWasm, * as wasm from './pkg/idmint_wasm.js';

let ready = null;
let initialized = false;
let memory = null; // the wasm's memory, for the ObjectId buffer

function isNode() {
    return typeof process !== 'undefined' && process.versions != null && process.versions.node != null
        && typeof window === 'undefined';
}

/**
 * Load and instantiate the wasm. Call once (again is a no-op) before using the package.
 *
 * In a browser it fetches `pkg/idmint_wasm_bg.wasm` next to this file (or `input`: a URL, a
 * `Response`, bytes or a `WebAssembly.Module`); in Node it reads that file from disk.
 */
export default function init(input) {
    if (!ready) {
        ready = (async () => {
            let source = input;
            if (source === undefined && isNode()) {
                const fs = 'node:fs/promises';
                const { readFile } = await import(/* @vite-ignore */ /* webpackIgnore: true */ fs);
                source = await readFile(new URL('./pkg/idmint_wasm_bg.wasm', import.meta.url));
            }
            const exports = await initWasm(source === undefined ? undefined : { module_or_path: source });
            memory = exports.memory;
            initialized = true;
            checkKinds();
        })();
        ready.catch(() => { ready = null; });
    }
    return ready;
}

/** Instantiate synchronously from a `WebAssembly.Module` or the .wasm bytes (e.g. in a worker). */
export function initSync(module) {
    if (!initialized) {
        memory = wasm.initSync({ module }).memory;
        initialized = true;
        checkKinds();
        ready = Promise.resolve();
    }
}

function need() {
    if (!initialized) {
        throw new Error('idmint-web is not initialized: `await init()` (the default export) first');
    }
}

// ---------------------------------------------------------------------------------------------
// Errors: one class per core error kind, each with a stable `code` (the kind in upper case) and
// `kind` (the core's kind string). Range-like kinds extend RangeError; all are `IdmintError`s.
// The same classes, names and codes as the native package `idmint`.

const BRAND = Symbol.for('idmint.error');

/** Base of every idmint error: `err instanceof IdmintError` holds for all of them. */
export class IdmintError extends Error {
    static [Symbol.hasInstance](value) {
        if (this === IdmintError) return value != null && value[BRAND] === true;
        return Function.prototype[Symbol.hasInstance].call(this, value);
    }
}
Object.defineProperty(IdmintError.prototype, 'name', { value: 'IdmintError', writable: true, configurable: true });
Object.defineProperty(IdmintError.prototype, BRAND, { value: true });

/** kind -> [class name, base class] */
const KINDS = {
    invalid_layout: ['InvalidLayoutError', IdmintError],
    value_out_of_range: ['ValueOutOfRangeError', RangeError],
    unknown_field: ['UnknownFieldError', IdmintError],
    missing_field: ['MissingFieldError', IdmintError],
    time_out_of_range: ['TimeOutOfRangeError', RangeError],
    epoch_in_future: ['EpochInFutureError', IdmintError],
    layout_exhausted: ['LayoutExhaustedError', IdmintError],
    clock_moved_backwards: ['ClockMovedBackwardsError', IdmintError],
    invalid_id: ['InvalidIdError', RangeError],
    invalid_object_id: ['InvalidObjectIdError', IdmintError],
    invalid_argument: ['InvalidArgumentError', RangeError],
    // Display IDs (docs/formats.md). Text that does not read is not a RangeError, as for ObjectIds.
    invalid_key: ['InvalidKeyError', IdmintError],
    invalid_encoding: ['InvalidEncodingError', IdmintError],
    invalid_template: ['InvalidTemplateError', IdmintError],
    counter_overflow: ['CounterOverflowError', IdmintError],
    invalid_uuid: ['InvalidUuidError', IdmintError],
    check_digit_mismatch: ['CheckDigitMismatchError', IdmintError],
};

const byKind = Object.create(null);

function defineError(kind, name, Base) {
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
    byKind[kind] = C;
    return C;
}
for (const [kind, [name, Base]] of Object.entries(KINDS)) defineError(kind, name, Base);

export const InvalidLayoutError = byKind.invalid_layout;
export const ValueOutOfRangeError = byKind.value_out_of_range;
export const UnknownFieldError = byKind.unknown_field;
export const MissingFieldError = byKind.missing_field;
export const TimeOutOfRangeError = byKind.time_out_of_range;
export const EpochInFutureError = byKind.epoch_in_future;
export const LayoutExhaustedError = byKind.layout_exhausted;
export const ClockMovedBackwardsError = byKind.clock_moved_backwards;
export const InvalidIdError = byKind.invalid_id;
export const InvalidObjectIdError = byKind.invalid_object_id;
export const InvalidArgumentError = byKind.invalid_argument;
export const InvalidKeyError = byKind.invalid_key;
export const InvalidEncodingError = byKind.invalid_encoding;
export const InvalidTemplateError = byKind.invalid_template;
export const CounterOverflowError = byKind.counter_overflow;
export const InvalidUuidError = byKind.invalid_uuid;
export const CheckDigitMismatchError = byKind.check_digit_mismatch;

/** The core's error kinds, one class each (after `init()`, every kind the wasm's core has). */
export let ERROR_KINDS = Object.freeze(Object.keys(KINDS));
/** Every core error kind -> its class (after `init()`, kinds added to the core later included). */
export let errors = Object.freeze({ ...byKind });
/** The preset layout names. */
export const PRESETS = Object.freeze(['twitter', 'sonyflake', 'redis-lua', 'baidu']);

function checkKinds() {
    // A kind the core has but this file has no class for (the core grows features this package
    // does not expose) still gets a class of its own: `store_unavailable` -> StoreUnavailableError.
    for (const kind of wasm.errorKinds()) {
        if (!byKind[kind]) {
            const name = kind.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + 'Error';
            defineError(kind, name, IdmintError);
        }
    }
    ERROR_KINDS = Object.freeze(Object.keys(byKind));
    errors = Object.freeze({ ...byKind });
}

/** The error class of a core error kind (`invalid_id` -> InvalidIdError). */
export function errorClass(kind) {
    return byKind[kind];
}

/** The wasm throws Errors whose `kind` is the core kind; give them their class. */
function fromWasm(e) {
    const C = e instanceof Error && !e[BRAND] && typeof e.kind === 'string' ? byKind[e.kind] : undefined;
    if (C === undefined) return e;
    const err = new C(e.message);
    if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(err, fromWasm);
    return err;
}

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
// Conversions. wasm-bindgen wraps a bigint that does not fit its u64/i64 silently, so every
// bigint is range-checked here before it crosses; what does not fit goes as decimal text, for
// the core to report with its exact value.

const MAX_ID = (1n << 63n) - 1n;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
// A BigUint64Array of n IDs is built in the wasm's memory (at most 4 GiB) and copied out.
const MAX_BATCH = 1 << 26;

/** Decompose an ID given as bigint, decimal string or (safe, exact) number: the raw parts. */
function decomposeAny(w, id) {
    switch (typeof id) {
        case 'bigint':
            return id >= 0n && id <= MAX_ID ? w.decompose(id) : w.decomposeStr(String(id));
        case 'string':
            return w.decomposeStr(id);
        case 'number':
            if (Number.isInteger(id)) {
                if (id < 0) return w.decomposeStr(BigInt(id).toString());
                if (id <= MAX_SAFE) return w.decompose(BigInt(id));
                throw new InvalidIdError(
                    `invalid id \`${id}\`: a number above 2^53-1 (9007199254740991) is not exact ` +
                        `(this one is ${BigInt(id)}); pass IDs as a bigint or a decimal string`
                );
            }
            throw new InvalidIdError(`invalid id \`${id}\`: not a whole number; pass IDs as a bigint or a decimal string`);
        default:
            throw new InvalidIdError(
                `invalid id \`${show(id)}\`: pass IDs as a bigint or a decimal string (a number only up to 2^53-1)`
            );
    }
}

/** A whole value (node field, sequence, time) as a bigint for the wasm, or an error naming it. */
function wholeValue(name, value) {
    if (typeof value === 'bigint') return value;
    if (typeof value === 'number' && Number.isInteger(value)) {
        if (Math.abs(value) <= MAX_SAFE) return BigInt(value);
        throw new InvalidArgumentError(
            `invalid argument \`${name}\` = ${value}: a number beyond ±2^53-1 is not exact (this one is ${BigInt(value)}); pass a bigint`
        );
    }
    throw new InvalidArgumentError(`invalid argument \`${name}\` = ${show(value)}: a whole number (number or bigint)`);
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
        if (Number.isNaN(ms)) throw new InvalidArgumentError(`invalid argument \`${name}\` = Invalid Date: a valid Date`);
        return String(ms);
    }
    throw new InvalidArgumentError(`invalid argument \`${name}\` = ${show(value)}: unix milliseconds, an RFC 3339 string or a Date`);
}

function isPlainObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

function call(f) {
    try {
        return f();
    } catch (e) {
        throw fromWasm(e);
    }
}

// ---------------------------------------------------------------------------------------------
// Layout

const LAYOUT = Symbol('idmint.layout');

/** A snowflake bit layout: a preset name or spec, optionally with another epoch. */
export class Layout {
    #w;
    #names; // the parts object's keys, in the order decompose returns values: time, sequence, nodes
    #wide; // per value: whether it travels as a bigint (fields wider than 53 bits)
    #fields;
    #shape;

    constructor(spec = 'twitter', options = {}) {
        need();
        if (spec === LAYOUT) {
            this.#w = options;
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
            this.#w = call(() => new wasm.WasmLayout(spec, epoch));
        }
        const w = this.#w;
        const names = w.fieldNames();
        const shapes = w.fieldShapes();
        this.#fields = Object.freeze(names.map((name, i) => Object.freeze({
            name, bits: shapes[3 * i], shift: shapes[3 * i + 1], kind: shapes[3 * i + 2] ? 'sequence' : 'node',
        })));
        const nodes = this.#fields.filter((f) => f.kind === 'node');
        const seq = this.#fields.find((f) => f.kind === 'sequence');
        this.#names = nodes.map((f) => f.name);
        this.#wide = [seq.bits > 53, ...nodes.map((f) => f.bits > 53)];
        const [timeBits, tickMs, epochMs, totalBits, , exhaustsAtMs] = w.shape();
        this.#shape = { timeBits, tickMs, epochMs, totalBits, exhaustsAtMs };
    }

    /** @internal */
    static _wrap(w) {
        return new Layout(LAYOUT, w);
    }

    /** @internal the wasm layout */
    get _w() {
        return this.#w;
    }

    /** Split an ID (bigint or decimal string) into `{ time, timestampMs, sequence, ...nodeFields }`. */
    parse(id) {
        let raw;
        try {
            raw = decomposeAny(this.#w, id);
        } catch (e) {
            throw fromWasm(e);
        }
        const timestampMs = Number(raw[0]); // at most year 9999: exact
        const out = { time: new Date(timestampMs), timestampMs };
        const names = this.#names;
        const wide = this.#wide;
        for (let i = 0; i < names.length; i++) out[names[i]] = wide[i + 1] ? raw[i + 2] : Number(raw[i + 2]);
        out.sequence = wide[0] ? raw[1] : Number(raw[1]);
        return out;
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
                time = BigInt(call(() => wasm.parseTimeMs('time', ms)));
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
            throw new InvalidArgumentError('invalid argument `parts`: needs `timestampMs` (unix ms) or `time` (a Date)');
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
        return call(() => this.#w.compose(time, names, values, sequence));
    }

    /** The canonical spec, e.g. `time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657`. */
    get spec() {
        return this.#w.spec();
    }
    /** The preset name when unchanged from a preset, else null. */
    get preset() {
        return this.#w.presetName() ?? null;
    }
    /** Fields below the time field: `{ name, bits, shift, kind: 'node' | 'sequence' }`. */
    get fields() {
        return this.#fields.map((f) => ({ ...f }));
    }
    /** Names of the node fields, in layout order. */
    get nodeFields() {
        return [...this.#names];
    }
    get timeBits() {
        return this.#shape.timeBits;
    }
    get tickMs() {
        return this.#shape.tickMs;
    }
    get epochMs() {
        return this.#shape.epochMs;
    }
    get epoch() {
        return new Date(this.#shape.epochMs);
    }
    get totalBits() {
        return this.#shape.totalBits;
    }
    /** The largest ID (bigint). */
    get maxId() {
        return this.#w.maxId();
    }
    /** The first instant the time field cannot hold. */
    get exhaustsAt() {
        return new Date(this.#shape.exhaustsAtMs);
    }
    /** How many IDs per second one generator can mint at most. */
    get idsPerSecondCap() {
        return this.#w.idsPerSecondCap();
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

function toLayout(layout, what) {
    if (layout instanceof Layout) return layout;
    if (layout instanceof Snowflake) return layout.layout;
    if (typeof layout === 'string') {
        let l = layoutCache.get(layout);
        if (l === undefined) {
            l = new Layout(layout);
            if (layoutCache.size >= LAYOUT_CACHE_MAX) layoutCache.delete(layoutCache.keys().next().value);
            layoutCache.set(layout, l);
        }
        return l;
    }
    throw new InvalidArgumentError(
        `invalid argument \`layout\` = ${show(layout)}: ${what} needs the layout the ID was made with: ` +
            'a preset name (twitter, sonyflake, redis-lua, baidu), a spec, a Layout or a Snowflake'
    );
}

/** Split an ID made with `layout` into `{ time, timestampMs, sequence, ...nodeFields }`. */
export function parse(id, layout) {
    return toLayout(layout, 'parse').parse(id);
}

/** Put parts together into an ID of `layout` (bigint). */
export function compose(parts, layout) {
    return toLayout(layout, 'compose').compose(parts);
}

// ---------------------------------------------------------------------------------------------
// Snowflake

const OPTION_KEYS = new Set(['layout', 'epoch', 'onRollback', 'onExhausted', 'random', 'nodes']);

/**
 * A snowflake ID generator for one node. A browser has no stable machine identity: give every
 * node field of the layout, or `random: true` to draw the ones not given from
 * `crypto.getRandomValues` (see the README for what that risks).
 */
export class Snowflake {
    #w;
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
        const layout = call(() => new wasm.WasmLayout(spec, epoch));
        this.#w = call(() => new wasm.WasmSnowflake(layout, names, values, random, onRollback, onExhausted));
        this.#layout = Layout._wrap(layout);
    }

    /** The next ID, as a bigint. */
    nextId() {
        const id = this.#w.nextIdOrNeg(Date.now()); // -1: failed, the error is kept for takeError
        if (id < 0n) throw fromWasm(wasm.takeError());
        return id;
    }

    /** The next ID as a decimal string (for JSON). */
    nextIdString() {
        try {
            return this.#w.nextIdString();
        } catch (e) {
            throw fromWasm(e);
        }
    }

    /** `n` increasing IDs in a BigUint64Array. */
    nextIds(n) {
        if (!Number.isSafeInteger(n) || n < 0 || n > 0xffff_ffff) {
            throw new InvalidArgumentError(`invalid argument \`n\` = ${show(n)}: a whole number 0..=4294967295`);
        }
        if (n > MAX_BATCH) {
            throw new InvalidArgumentError(
                `invalid argument \`n\` = ${n}: the browser build mints at most ${MAX_BATCH} IDs per call (wasm memory is 4 GiB); call nextIds again`
            );
        }
        try {
            return this.#w.nextIds(n);
        } catch (e) {
            throw fromWasm(e);
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
        const [issued, waits, rollbacks, leadMs, maxLeadMs] = this.#w.stats();
        return { issued, waits, rollbacks, leadMs, maxLeadMs };
    }

    get layout() {
        return this.#layout;
    }

    /** This generator's node field values: numbers, or bigints for fields wider than 53 bits. */
    get nodes() {
        const out = {};
        const names = this.#layout.nodeFields;
        const bits = this.#layout.fields.filter((f) => f.kind === 'node').map((f) => f.bits);
        const values = this.#w.nodeValues();
        for (let i = 0; i < names.length; i++) out[names[i]] = bits[i] > 53 ? values[i] : Number(values[i]);
        return out;
    }

    get onExhausted() {
        return this.#w.onExhausted();
    }

    get onRollback() {
        return this.#w.onRollback();
    }
}

// ---------------------------------------------------------------------------------------------
// ObjectId

// A new ObjectId's hex: the core writes its 24 ASCII hex digits into a fixed buffer in the wasm's
// memory and they become a string here, with no allocation or UTF-8 decoding in between (that
// path is what makes `new ObjectId()` as fast as bson's). The view is remade when the memory
// grows (the old one is then detached: length 0).
let oidView = null;
function nextHex() {
    wasm.oidNextIntoBuffer(Date.now());
    let b = oidView;
    if (b === null || b.length === 0) b = oidView = new Uint8Array(memory.buffer, wasm.oidBufferPtr(), 24);
    return String.fromCharCode(
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
        b[12], b[13], b[14], b[15], b[16], b[17], b[18], b[19], b[20], b[21], b[22], b[23]
    );
}

const inspect = Symbol.for('nodejs.util.inspect.custom');

function objectIdHex(input) {
    if (typeof input === 'string') return wasm.oidParseHex(input);
    if (input instanceof ObjectId) return input.toHexString();
    if (ArrayBuffer.isView(input)) {
        const bytes = input instanceof Uint8Array ? input : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
        return wasm.oidFromBytes(bytes);
    }
    if (input !== null && typeof input === 'object' && typeof input.toHexString === 'function') {
        // bson's ObjectId, or anything else that prints as hex
        const hex = input.toHexString();
        if (typeof hex === 'string') return wasm.oidParseHex(hex);
    }
    throw new InvalidObjectIdError(
        `invalid ObjectId \`${show(input)}\`: give 24 hex characters, 12 bytes or an ObjectId (this package's or bson's)`
    );
}

/** A MongoDB-compatible ObjectId (12 bytes), never repeated within a page. */
export class ObjectId {
    #hex;
    constructor(input) {
        if (input === undefined) {
            need();
            this.#hex = nextHex();
            return;
        }
        need();
        try {
            this.#hex = objectIdHex(input);
        } catch (e) {
            throw fromWasm(e);
        }
    }

    /** A new ObjectId's hex without making an object: the fastest way to a fresh ID string. */
    static generateHex() {
        need();
        return nextHex();
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
            throw new InvalidArgumentError(`invalid argument \`seconds\` = ${show(seconds)}: whole unix seconds 0..=4294967295`);
        }
        need();
        return new ObjectId(call(() => wasm.oidFromTime(seconds)));
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

    /** The 12 bytes (a new Uint8Array each time), as bson's `id`. */
    get id() {
        return wasm.oidBytes(this.#hex);
    }

    get buffer() {
        return this.id;
    }

    /** When it was made, to the second. */
    getTimestamp() {
        return new Date(wasm.oidTimestamp(this.#hex) * 1000);
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
// this section converts arguments and results.

const MAX_U64 = (1n << 64n) - 1n;

/** The short-string encodings, as `encode` and `decode` name them. */
export const ENCODINGS = Object.freeze(['base62', 'base62-fixed', 'base32', 'base32-fixed']);

/**
 * A 64-bit unsigned value (an ID to encode or obfuscate) as a bigint that crosses into the wasm
 * unwrapped: a bigint, a decimal string or a safe-integer number, in 0..=2^64-1. `domain` says
 * what the operation takes, for the message. The core checks narrower domains (2^63-1) itself.
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
            throw new InvalidIdError(`invalid id \`${show(value)}\`: pass a bigint or a decimal string (a number only up to 2^53-1); ${domain}`);
    }
    if (v < 0n) throw new InvalidIdError(`invalid id \`${v}\`: negative; ${domain}`);
    if (v > MAX_U64) throw new InvalidIdError(`invalid id \`${v}\`: above 2^64-1 (18446744073709551615); ${domain}`);
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

/**
 * `id` (bigint, decimal string or safe number, 0..=2^64-1) as a short string: `'base62'`
 * (1-11 characters), `'base62-fixed'` (11, sorts like the numbers), `'base32'` (Crockford, 1-13)
 * or `'base32-fixed'` (13, sorts like the numbers).
 */
export function encode(id, encoding) {
    need();
    const v = u64Arg(id, ENCODE_DOMAIN);
    const e = encodingArg(encoding);
    return call(() => wasm.encodeId(v, e));
}

/** The value (bigint) of a short string, read strictly (`InvalidEncodingError` otherwise). */
export function decode(text, encoding) {
    need();
    const e = encodingArg(encoding);
    const t = textArg(text, InvalidEncodingError, typeof encoding === 'string' ? encoding : 'text');
    return call(() => wasm.decodeId(t, e));
}

const KEYRING = Symbol('idmint.keyring');

/**
 * Keys for keyed, reversible obfuscation of IDs in 0..=2^63-1 (a pseudonym, not encryption:
 * read docs/formats.md). The highest version obfuscates; every version reveals.
 */
export class Keyring {
    #w;
    #text;
    #versions;

    /** @internal use Keyring.fromText or Keyring.generate */
    constructor(token, w, text) {
        if (token !== KEYRING) {
            throw new InvalidArgumentError('invalid argument `Keyring`: make one with Keyring.fromText(text) or Keyring.generate(version)');
        }
        this.#w = w;
        this.#text = text;
        this.#versions = Object.freeze(Array.from(w.versions()));
    }

    /** Read key-file text: one `idmint-key-v<version>:<32 hex>` a line, `#` comments allowed. */
    static fromText(text) {
        need();
        const t = textArg(text, InvalidKeyError, 'key');
        return new Keyring(KEYRING, call(() => new wasm.WasmKeyring(t)), t);
    }

    /** A key ring of one new key of `version` (0..=61) from `crypto.getRandomValues`. */
    static generate(version) {
        need();
        const text = call(() => wasm.keyGenerate(version)) + '\n';
        return new Keyring(KEYRING, call(() => new wasm.WasmKeyring(text)), text);
    }

    /** The ID shown in place of `id` (0..=2^63-1), with the active key: a bigint in 0..=2^63-1. */
    obfuscate(id) {
        const v = u64Arg(id, OBFUSCATE_DOMAIN);
        return call(() => this.#w.obfuscate(v));
    }

    /** The ID that `obfuscate` turned into `shown`, with key `version` (default: the active key). */
    reveal(shown, version) {
        const v = u64Arg(shown, OBFUSCATE_DOMAIN);
        if (version !== undefined && typeof version !== 'number' && typeof version !== 'bigint') {
            throw new InvalidArgumentError(`invalid argument \`version\` = ${show(version)}: a key version 0..=61`);
        }
        return call(() => this.#w.reveal(v, version));
    }

    /** Obfuscate with the active key into the 12-character tagged form (names its key version). */
    obfuscateTagged(id) {
        const v = u64Arg(id, OBFUSCATE_DOMAIN);
        return call(() => this.#w.obfuscateTagged(v));
    }

    /** Reveal the tagged form with the key it names. */
    revealTagged(text) {
        const t = textArg(text, InvalidEncodingError, 'tagged id');
        return call(() => this.#w.revealTagged(t));
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

/** A new UUIDv7 (lowercase, hyphenated) from the page's generator: increasing within the page. */
export function uuid7() {
    need();
    return call(() => wasm.uuid7Next(Date.now()));
}

/**
 * Read a UUIDv7 (hyphenated or 32 hex digits, either case):
 * `{ uuid, ulid, time: Date, timestampMs, randA, randB }`.
 */
export function parseUuid7(text) {
    need();
    const t = textArg(text, InvalidUuidError, 'UUIDv7');
    return uuidFields(call(() => wasm.uuid7Parse(t)));
}

/** Read the 26-character ULID text of a UUIDv7 (either case): the same fields as `parseUuid7`. */
export function parseUlid(text) {
    need();
    const t = textArg(text, InvalidUuidError, 'UUIDv7');
    return uuidFields(call(() => wasm.ulidParse(t)));
}

/**
 * A UUIDv7 generator of its own (RFC 9562 §6.2 method 1: a 12-bit counter after the
 * millisecond), strictly increasing; time is `Date.now()`.
 */
export class Uuid7Generator {
    #w;
    constructor() {
        need();
        this.#w = new wasm.WasmUuid7Generator();
    }

    /** The next UUID, lowercase and hyphenated. */
    next() {
        return call(() => this.#w.next(Date.now(), false));
    }

    /** The next UUID as its 26-character ULID text (upper case). */
    nextUlid() {
        return call(() => this.#w.next(Date.now(), true));
    }
}

const TEMPLATE_OPTIONS = new Set(['label', 'offset', 'check']);
const DATE_PARTS = ['year', 'month', 'day', 'hour', 'minute', 'second'];
// A sequence of up to 15 digits is below 2^53: a number; wider ones are bigints.
const MAX_NUMBER_WIDTH = 15;

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
export class Template {
    #w;
    #label;
    #wide;
    #shape;

    constructor(pattern, options = {}) {
        need();
        if (typeof pattern !== 'string') {
            throw new InvalidTemplateError(`invalid template \`${show(pattern)}\`: give the template as a string, e.g. '%L%Y%M%D%m%5S'`);
        }
        if (!isPlainObject(options)) {
            throw new InvalidArgumentError(`invalid argument \`options\` = ${show(options)}: an object such as { label, offset, check }`);
        }
        for (const k of Object.keys(options)) {
            if (!TEMPLATE_OPTIONS.has(k)) {
                throw new InvalidArgumentError(`invalid argument \`${k}\`: not an option of Template; options are label, offset, check`);
            }
        }
        const label = optionalString('label', options.label, 'ASCII letters and digits');
        const offset = optionalString('offset', options.offset, "a UTC offset such as 'Z', '+08:00' or '-05:30'");
        const check = optionalString('check', options.check, 'none, luhn or mod97');
        this.#w = call(() => new wasm.WasmTemplate(pattern, label, offset, check));
        this.#label = label ?? null;
        const [offsetSeconds, sequenceWidth] = this.#w.shape();
        this.#shape = { offsetSeconds, sequenceWidth };
        this.#wide = sequenceWidth > MAX_NUMBER_WIDTH;
    }

    /** @internal the wasm template */
    get _w() {
        return this.#w;
    }

    /**
     * The order number for `time` (a Date, unix ms or RFC 3339 text) and `sequence` (a whole
     * number or bigint, at most `capacity`).
     */
    format(time, sequence) {
        const t = timeText('time', time);
        const seq = wholeValue('sequence', sequence);
        return call(() => this.#w.format(t, seq));
    }

    /**
     * A snowflake ID of `layout` as the sequence, its own time as the date parts: collision-free
     * when the sequence is as wide as the layout's largest ID (`%19S` for 63 bits; checked).
     */
    formatSnowflake(id, layout) {
        const v = u64Arg(id, 'snowflake IDs are 0..=9223372036854775807');
        const l = toLayout(layout, 'formatSnowflake');
        return call(() => this.#w.formatSnowflake(l._w, v));
    }

    /**
     * Read an order number back, checking its check digits: `{ year, month, day, hour, minute,
     * second, label, sequence, check }`, each only if the template has it.
     */
    parse(text) {
        const t = textArg(text, InvalidIdError, 'id');
        const [numbers, label, sequence, check] = call(() => this.#w.parse(t));
        const out = {};
        for (let i = 0; i < DATE_PARTS.length; i++) if (!Number.isNaN(numbers[i])) out[DATE_PARTS[i]] = numbers[i];
        if (label !== undefined) out.label = label;
        out.sequence = this.#wide ? sequence : Number(sequence);
        if (check !== undefined) out.check = check;
        return out;
    }

    /** The day of `time` in the template's offset as the number yyyymmdd (a daily counter's key). */
    dayOf(time) {
        const t = timeText('time', time);
        return call(() => this.#w.dayOf(t));
    }

    /** The template as given. */
    get pattern() {
        return this.#w.pattern();
    }
    /** The label for `%L`, or null. */
    get label() {
        return this.#label;
    }
    /** The UTC offset of the date parts, in seconds. */
    get offsetSeconds() {
        return this.#shape.offsetSeconds;
    }
    /** `'none'`, `'luhn'` or `'mod97'`. */
    get check() {
        return this.#w.check();
    }
    /** The sequence's width in digits. */
    get sequenceWidth() {
        return this.#shape.sequenceWidth;
    }
    /** The largest sequence that fits: 10^width - 1 (a bigint beyond 15 digits). */
    get capacity() {
        const c = this.#w.capacity();
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
 * Daily order numbers: a `Template` with a full date (`%Y`/`%y`, `%M`, `%D`) and a counter in
 * this page that starts at 1 each day (in the template's offset). It is the page's alone: see
 * the README before numbering records other pages or the server also number.
 */
export class OrderNumbers {
    #w;
    #template;

    /** `options.day` (yyyymmdd) with `options.first`: the counter's next value on that day. */
    constructor(template, options = {}) {
        need();
        if (!(template instanceof Template)) {
            throw new InvalidArgumentError(`invalid argument \`template\` = ${show(template)}: a Template`);
        }
        if (!isPlainObject(options)) {
            throw new InvalidArgumentError(`invalid argument \`options\` = ${show(options)}: an object such as { day, first }`);
        }
        const { day, first } = options;
        if ((day === undefined) !== (first === undefined)) {
            throw new InvalidArgumentError('invalid argument `options`: give both `day` (yyyymmdd) and `first`, or neither');
        }
        const d = day === undefined ? undefined : wholeValue('day', day);
        const f = first === undefined ? undefined : wholeValue('first', first);
        this.#w = call(() => new wasm.WasmOrderNumbers(template._w, d, f));
        this.#template = template;
    }

    /** The next order number, at `Date.now()` or at `time` (a Date, unix ms or RFC 3339 text). */
    next(time) {
        const t = time === undefined ? undefined : timeText('time', time);
        return call(() => this.#w.next(t));
    }

    get template() {
        return this.#template;
    }
}

/** The version of the wasm core. */
export function version() {
    need();
    return wasm.version();
}

// idmint-web: idmint's snowflake IDs, ObjectIds and parser for browsers and bundlers, and the
// display IDs of docs/formats.md (short strings, keyed obfuscation, UUIDv7/ULID, order numbers).
//
// The rules live in idmint-core (Rust), compiled to two wasm modules: ./pkg/idmint_wasm_bg.wasm
// (snowflakes, ObjectIds, parse; small) and ./pkg/idmint_wasm_extras_bg.wasm (the display IDs),
// which a page loads only when it uses them. The API is the one of the Node package `idmint`:
// ./facade.js (copied from js/facade.js by build.mjs); this file only gives the modules' exports
// the backend shape the facade expects (js/README.md). Call the default export (`await init()`,
// or `await init({ extras: true })` for the display IDs too) once before anything else.

import initWasm, * as wasm from './pkg/idmint_wasm.js';
import { createIdmint } from './facade.js';
import { segmentApi } from './segment.js';
import { remoteClient } from './remote.js';

let ready = null;
let initialized = false;
let memory = null; // the wasm's memory, for the ObjectId buffer
let extras = null; // the display IDs' module (pkg/idmint_wasm_extras.js) once instantiated
let extrasReady = null;

function isNode() {
    return typeof process !== 'undefined' && process.versions != null && process.versions.node != null
        && typeof window === 'undefined';
}

// A BigUint64Array of n IDs is built in the wasm's memory (at most 4 GiB) and copied out.
const MAX_BATCH = 1 << 26;
// wasm-bindgen wraps a bigint that does not fit its u64/i64 silently: IDs above this go as text.
const MAX_ID = (1n << 63n) - 1n;
const DATE_PARTS = ['year', 'month', 'day', 'hour', 'minute', 'second'];

// New ObjectIds in blocks: the core writes up to 256 IDs' hex (24 ASCII characters each) into a
// fixed buffer in the wasm's memory, which becomes one string here; the facade hands the IDs out.
// Views over the wasm's memory are remade when it grows (the old ones are then detached:
// length 0).
const ascii = new TextDecoder('latin1'); // the hex is ASCII; Latin-1 decodes it fastest
let blockView = null;
function oidBlock(now) {
    if (!initialized) need();
    const n = wasm.oidNextBlock(now);
    let b = blockView;
    if (b === null || b.length === 0) b = blockView = new Uint8Array(memory.buffer, wasm.oidBlockPtr(), 24 * 256);
    return { hex: ascii.decode(b.subarray(0, 24 * n)), seconds: wasm.oidBlockSeconds() };
}

// An ObjectId's text as UTF-16 code units in the wasm's memory, read there by the core: no
// string crosses (`oidParseFast` in js/README.md). Other lengths go the string way.
let unitsView = null;
function oidParseFast(text) {
    if (text.length !== 24) return -1;
    let u = unitsView;
    if (u === null || u.length === 0) u = unitsView = new Uint16Array(memory.buffer, wasm.oidUnitsPtr(), 24);
    for (let i = 0; i < 24; i++) u[i] = text.charCodeAt(i);
    return wasm.oidParseUnits();
}

/** A WasmLayout as the facade's layout: parts objects built from the wasm's raw values. */
function layoutOf(w) {
    const names = w.fieldNames();
    const shapes = w.fieldShapes();
    const fields = Object.freeze(names.map((name, i) => Object.freeze({
        name, bits: shapes[3 * i], shift: shapes[3 * i + 1], kind: shapes[3 * i + 2] ? 'sequence' : 'node',
    })));
    const nodes = fields.filter((f) => f.kind === 'node');
    const seq = fields.find((f) => f.kind === 'sequence');
    const nodeNames = nodes.map((f) => f.name);
    const wide = [seq.bits > 53, ...nodes.map((f) => f.bits > 53)]; // travels as a bigint
    const parts = (raw) => {
        const timestampMs = Number(raw[0]); // at most year 9999: exact
        const out = { time: new Date(timestampMs), timestampMs };
        for (let i = 0; i < nodeNames.length; i++) out[nodeNames[i]] = wide[i + 1] ? raw[i + 2] : Number(raw[i + 2]);
        out.sequence = wide[0] ? raw[1] : Number(raw[1]);
        return out;
    };
    const [timeBits, tickMs, epochMs, totalBits, , exhaustsAtMs, idsPerSecondCap] = w.shape();
    return {
        raw: w,
        decompose: (id) => parts(w.decompose(id)),
        decomposeStr: (text) => parts(w.decomposeStr(text)),
        compose: (time, n, values, sequence) => w.compose(time, n, values, sequence),
        // In the extras module (the main module's size budget): they need initExtras().
        minIdAt: (time) => ex().minIdAt(w.spec(), time),
        maxIdAt: (time) => ex().maxIdAt(w.spec(), time),
        wordPlan: () => w.wordPlan(),
        spec: () => w.spec(),
        preset: () => w.presetName(),
        fields: () => fields.map((f) => ({ ...f })),
        nodeNames,
        timeBits,
        tickMs,
        epochMs,
        totalBits,
        exhaustsAtMs,
        maxId: () => w.maxId(),
        idsPerSecondCap: () => idsPerSecondCap,
    };
}

const BRAND = Symbol.for('idmint.error');

function need() {
    if (!initialized) {
        throw new Error('idmint-web is not initialized: `await init()` (the default export) first');
    }
}

/** The display IDs' module, or an error saying how to load it. */
function ex() {
    if (extras === null) {
        throw new Error('the display IDs of idmint-web (encode, decode, Keyring, uuid7, parseUuid7, parseUlid, '
            + 'Uuid7Generator, Template, OrderNumbers, plan, checkMigration, parseTypeId, typeIdFromUuid, '
            + 'TypeIdGenerator, Snowflake\'s startAbove, Layout\'s minIdAt and maxIdAt) and the reader of every ID format (parse without a layout, '
            + 'or of text other than a decimal ID; guess) are a second wasm module: `await initExtras()` '
            + '(or `await init({ extras: true })`) first');
    }
    return extras;
}

const backend = {
    need,
    errorKindOf: (e) => (e instanceof Error && !e[BRAND] && typeof e.kind === 'string' ? e.kind : undefined),
    // The facade raises only input kinds (invalid_argument, invalid_id, ...), with up to three
    // fields: the main module builds just those (core's rules::input_error); remote.js raises
    // the I/O kinds through the display IDs' module.
    clientError: (kind, [a = '', b = '', c = ''] = []) => {
        need();
        return wasm.inputError(kind, a, b, c);
    },
    maxDirectId: MAX_ID,
    maxBatch: MAX_BATCH,
    resumeAfter: false,
    startAbove: true,
    sharedCounters: false,
    layout: (spec, epoch) => layoutOf(new wasm.WasmLayout(spec, epoch)),
    parseTimeMs: (what, text) => wasm.parseTimeMs(what, text),
    // A node value leased from an ID server (`idmint serve`, over fetch: remote.js), which
    // `Snowflake.create` waits on.
    snowflakeOptions: ['lease', 'token', 'leaseRange', 'leaseTtlMs', 'leaseHolder'],
    async snowflakeAsync(...args) {
        const opts = args[8];
        if (opts.lease === undefined) return { ...backend.snowflake(...args), close: async () => {} };
        await initExtras();
        const [spec, epoch, names, , random, onExhausted, onRollback, resumeAfter, , unsigned] = args;
        const make = (leased, values) => backend.snowflake(spec, epoch, leased, values, false, onExhausted, onRollback,
            resumeAfter, { startAbove: opts.startAbove }, unsigned);
        return remote().leasedSnowflake(make, opts, names.length > 0 || random);
    },
    snowflake(spec, epoch, names, values, random, onExhausted, onRollback, resumeAfter, extras, unsigned) {
        const layout = new wasm.WasmLayout(spec, epoch);
        const w = new wasm.WasmSnowflake(layout, names, values, random, onRollback, onExhausted, unsigned);
        const l = layoutOf(layout);
        // `startAbove`: the main module's generator has no such option (its size budget). The
        // core in the display-ID module checks it (the refusals are SnowflakeBuilder::start_above's)
        // and names the instant this layout's IDs pass the ID; the first ID is minted with the
        // clock read as at least that instant, and from then on the generator's own rollback
        // policy keeps every ID above it.
        let floorMs = extras?.startAbove === undefined
            ? 0 : ex().startAboveMs(spec, epoch, extras.startAbove, onRollback, Date.now());
        const nextId = () => {
            const now = Date.now();
            const id = w.nextIdOrNeg(floorMs > now ? floorMs : now); // -1: failed, the error is kept for takeError
            floorMs = 0;
            if (id < 0n) {
                // Or an ID of a 64-bit layout from 2^63 on, as its two's complement.
                const e = wasm.takeError();
                if (e !== undefined) throw e;
                return BigInt.asUintN(64, id);
            }
            return id;
        };
        return {
            layout: l,
            nextId,
            // In decimal here: one export fewer in the main module (its size budget).
            nextIdString: () => String(nextId()),
            nextIds(n) {
                if (floorMs === 0 || !(n >= 1)) return w.nextIds(n);
                const first = nextId(); // the first ID at the start instant; the rest as usual
                const out = new BigUint64Array(n);
                out[0] = first;
                out.set(w.nextIds(n - 1), 1);
                return out;
            },
            stats() {
                const [issued, waits, rollbacks, leadMs, maxLeadMs] = w.stats();
                return { issued, waits, rollbacks, leadMs, maxLeadMs };
            },
            nodes() {
                const out = {};
                const bits = l.fields().filter((f) => f.kind === 'node').map((f) => f.bits);
                const v = w.nodeValues();
                for (let i = 0; i < l.nodeNames.length; i++) out[l.nodeNames[i]] = bits[i] > 53 ? v[i] : Number(v[i]);
                return out;
            },
            onExhausted: () => w.policies().split('\n')[1],
            onRollback: () => w.policies().split('\n')[0],
        };
    },
    oidBlock,
    oidCut: (block, at) => block.substring(at, at + 24),
    oidParseFast,
    oidParseHex: (text) => wasm.oidParseHex(text),
    oidFromBytes: (bytes) => wasm.oidFromBytes(bytes),
    // Seconds (checked by the facade: 0..=2^32-1) as an ObjectId's first 4 bytes, big-endian,
    // the rest zero; the core reads the 12 bytes (one export fewer in the main module).
    oidFromTime(seconds) {
        const bytes = new Uint8Array(12);
        new DataView(bytes.buffer).setUint32(0, seconds);
        return wasm.oidFromBytes(bytes);
    },
    oidBytes: (hex) => wasm.oidBytes(hex),
    // The hex the facade passes is an ObjectId's canonical text: the core reads its seconds
    // through the code-unit path (no string crossing, one export fewer).
    oidTimestamp: (hex) => oidParseFast(hex),
    encodeId: (value, encoding) => ex().encodeId(value, encoding),
    decodeId: (text, encoding) => ex().decodeId(text, encoding),
    keyGenerate: (version) => ex().keyGenerate(version),
    keyring: (text) => new (ex().WasmKeyring)(text),
    uuid7Next: () => ex().uuid7Next(),
    uuid7Parse: (text) => ex().uuid7Parse(text),
    ulidParse: (text) => ex().ulidParse(text),
    uuid7Generator() {
        const w = new (ex().WasmUuid7Generator)();
        return { next: (ulid) => w.next(ulid) };
    },
    // The layout planner, the migration check and TypeIDs: in the display-ID module too.
    planLayouts: (nodes, rate, years, start, width) => ex().planLayouts(nodes, rate, years, start, width),
    checkMigration: (from, to, above, at) => ex().checkMigration(from, to, above, at),
    typeIdParse: (text) => ex().typeidParse(text),
    typeIdFromUuid: (prefix, uuid) => ex().typeidFromUuid(prefix, uuid),
    typeIdGenerator(prefix) {
        const w = new (ex().WasmTypeIdGenerator)(prefix);
        return { next: () => w.next() };
    },
    template(pattern, label, offset, check) {
        const w = new (ex().WasmTemplate)(pattern, label, offset, check);
        const [offsetSeconds, sequenceWidth] = w.shape();
        return {
            raw: w,
            format: (time, sequence) => w.format(time, sequence),
            formatSnowflake: (layout, id) => w.formatSnowflake(layout.spec(), id),
            parse(text) {
                const [numbers, label, sequence, check] = w.parse(text);
                const out = { label, sequence, check };
                for (let i = 0; i < DATE_PARTS.length; i++) if (!Number.isNaN(numbers[i])) out[DATE_PARTS[i]] = numbers[i];
                return out;
            },
            dayOf: (time) => w.dayOf(time),
            pattern: () => w.pattern(),
            check: () => w.check(),
            offsetSeconds,
            sequenceWidth,
            capacity: () => w.capacity(),
        };
    },
    orderNumbers: (template, day, first) => new (ex().WasmOrderNumbers)(template.raw, day, first),
    decodeAny: (text, layout) => plainDecoded(ex().decodeAny(text, layout)),
    guessId: (text) => ex().guessId(text).map(plainDecoded),
};

/** A WasmDecoded as a plain object (its fields copied out, the wasm's copy freed). */
function plainDecoded(w) {
    try {
        return {
            format: w.format, id: w.id, value: w.value, timeMs: w.timeMs, time: w.time, layout: w.layout,
            partNames: w.partNames, partValues: w.partValues, partInts: w.partInts,
        };
    } finally {
        w.free();
    }
}

const idmint = createIdmint(backend);

/** The client of `idmint serve` (remote.js) over the extras module, once that is loaded. */
let remoteCache = null;
function remote() {
    remoteCache ??= remoteClient(ex());
    return remoteCache;
}

// Segment IDs from an ID server: the shared SegmentClient (segment.js, copied from js/segment.js
// by build.mjs) over remote.js, which needs the extras module (the core's rules and errors).
const segments = segmentApi({
    NativeSegmentClient: {
        async connect(url, options) {
            await initExtras();
            return remote().segmentNative.NativeSegmentClient.connect(url, options);
        },
    },
    exactNumber: (id) => remote().segmentNative.exactNumber(id),
}, idmint, { urls: 'the URL of an ID server (idmint serve): http(s)://HOST[:PORT]' });

/** Segment IDs from an ID server: `await SegmentClient.connect('https://…', { token })`. */
export const SegmentClient = segments.SegmentClient;
/** A tag of a SegmentClient: `await client.tag(name)`. */
export const SegmentTag = segments.SegmentTag;

/** Every core error kind -> its class (after `init()`, kinds added to the core later included). */
export let errors = idmint.errors();
/** The core's error kinds, one class each (after `init()`, every kind the wasm's core has). */
export let ERROR_KINDS = Object.freeze(Object.keys(errors));

function ready_() {
    initialized = true;
    // A kind the core has but the facade names no class for still gets one of its own.
    idmint.addKinds(wasm.errorKinds().split(','));
    errors = idmint.errors();
    ERROR_KINDS = Object.freeze(Object.keys(errors));
}

/** `source`, or in Node (no fetch of a file URL) the bytes of `pkg/<file>` next to this file. */
async function sourceOf(source, file) {
    if (source === undefined && isNode()) {
        const fs = 'node:fs/promises';
        const { readFile } = await import(/* @vite-ignore */ /* webpackIgnore: true */ fs);
        return readFile(new URL(`./pkg/${file}`, import.meta.url));
    }
    return source;
}

/** `init`'s options object (not a URL, Response, bytes, module or promise of one). */
function isOptions(v) {
    if (v === null || typeof v !== 'object') return false;
    const proto = Object.getPrototypeOf(v);
    return proto === Object.prototype || proto === null;
}

/**
 * Load and instantiate the main wasm module (snowflakes, ObjectIds, parse). Call once (again is a
 * no-op) before using the package.
 *
 * In a browser it fetches `pkg/idmint_wasm_bg.wasm` next to this file (or `input`: a URL, a
 * `Response`, bytes or a `WebAssembly.Module`); in Node it reads that file from disk. With an
 * options object `{ main?, extras? }` instead, `main` is that input and `extras` (`true`, or the
 * second module's input) loads the display IDs too (see `initExtras`).
 */
export default function init(input) {
    const options = isOptions(input) ? input : { main: input };
    if (!ready) {
        ready = (async () => {
            const source = await sourceOf(options.main, 'idmint_wasm_bg.wasm');
            const exports = await initWasm(source === undefined ? undefined : { module_or_path: source });
            memory = exports.memory;
            ready_();
        })();
        ready.catch(() => { ready = null; });
    }
    if (options.extras === undefined || options.extras === false) return ready;
    return initExtras(options.extras === true ? undefined : options.extras);
}

/**
 * Load and instantiate the second wasm module, the display IDs (`encode`, `decode`, `Keyring`,
 * `uuid7`, `parseUuid7`, `parseUlid`, `Uuid7Generator`, `Template`, `OrderNumbers`) and the
 * reader of every ID format (`parse` without a layout or of non-decimal text, `guess`); until
 * then they throw an Error saying so. Loads the main module too if `init` has not been called. Call
 * again: a no-op.
 *
 * In a browser it fetches `pkg/idmint_wasm_extras_bg.wasm` next to this file (or `input`, as
 * for `init`); in Node it reads that file from disk.
 */
export function initExtras(input) {
    if (!extrasReady) {
        extrasReady = (async () => {
            const [glue, source] = await Promise.all([
                import('./pkg/idmint_wasm_extras.js'),
                sourceOf(input, 'idmint_wasm_extras_bg.wasm'),
                init(),
            ]);
            await glue.default(source === undefined ? undefined : { module_or_path: source });
            extras = glue;
        })();
        extrasReady.catch(() => { extrasReady = null; });
    }
    return extrasReady;
}

/** Instantiate synchronously from a `WebAssembly.Module` or the .wasm bytes (e.g. in a worker). */
export function initSync(module) {
    if (!initialized) {
        memory = wasm.initSync({ module }).memory;
        ready_();
        ready = Promise.resolve();
    }
}

/** The error class of a core error kind (`invalid_id` -> InvalidIdError). */
export const errorClass = idmint.errorClass;

/** The version of the wasm core. */
export function version() {
    need();
    return wasm.version();
}

export const {
    // BEGIN generated by js/scripts/generated.mjs: the facade's API; do not edit
    Snowflake,
    Layout,
    ObjectId,
    parse,
    guess,
    compose,
    encode,
    decode,
    ENCODINGS,
    Keyring,
    uuid7,
    parseUuid7,
    parseUlid,
    Uuid7Generator,
    plan,
    checkMigration,
    parseTypeId,
    typeIdFromUuid,
    TypeIdGenerator,
    Template,
    OrderNumbers,
    IdmintError,
    InvalidLayoutError,
    ValueOutOfRangeError,
    UnknownFieldError,
    MissingFieldError,
    TimeOutOfRangeError,
    EpochInFutureError,
    LayoutExhaustedError,
    ClockMovedBackwardsError,
    InvalidIdError,
    InvalidObjectIdError,
    InvalidArgumentError,
    StoreUnavailableError,
    UnknownTagError,
    InvalidTagError,
    RangeBelowIssuedError,
    TagExhaustedError,
    InvalidKeyError,
    InvalidEncodingError,
    InvalidTemplateError,
    CounterOverflowError,
    InvalidUuidError,
    CheckDigitMismatchError,
    NoFreeLeaseError,
    LeaseLostError,
    ForkedError,
    ClosedError,
    StoresNotInstalledError,
    WouldBlockError,
    NotAuthorizedError,
    PRESETS,
    UNSIGNED_PRESETS,
    // END generated
} = idmint.api;

// Types of the API both packages share, `idmint` (Node) and `idmint-web` (browsers): the types of
// js/facade.js. Each package's index.d.ts re-exports them and adds its own: what only Node has
// (`resumeAfter`, shared daily counters, ObjectId bytes as a Buffer) through the interfaces
// `SnowflakeOptions`, `OrderNumbersOptions` and `Platform`, which it extends.
// IDs are `bigint`; decimal strings are accepted wherever an ID is taken.

/**
 * What differs by package: `bytes` is the type of an ObjectId's 12 bytes (`Buffer` in Node,
 * `Uint8Array` in a browser). A package's index.d.ts sets it by declaration merging.
 */
export interface Platform {}
/** The type of an ObjectId's 12 bytes in this package. */
export type ObjectIdBytes = Platform extends { bytes: infer B } ? B : Uint8Array;

/** An ID as accepted by every API: a bigint, a decimal string, or a number up to 2^53-1. */
export type IdInput = bigint | string | number;

/** A node field value, sequence or time given to idmint: a safe-integer number or a bigint. */
export type Whole = number | bigint;

/** What `parse` returns: the time, the sequence and each node field of the layout by name. */
export interface Parts {
  /** The start of the ID's tick. */
  time: Date;
  /** The same instant in unix milliseconds. */
  timestampMs: number;
  /** The sequence within the tick (a bigint only in layouts whose sequence is wider than 53 bits). */
  sequence: number | bigint;
  /** Node fields (datacenter, worker, shard, machine, ...): numbers, or bigints for fields wider than 53 bits. */
  [nodeField: string]: number | bigint | Date;
}

/** What `compose` takes: `timestampMs` or `time`, `sequence`, and every node field of the layout. */
export interface PartsInput {
  timestampMs?: Whole;
  time?: Date | Whole | string;
  sequence: Whole;
  [nodeField: string]: Whole | Date | string | undefined;
}

/** A preset name or a layout spec such as `time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z`. */
export type LayoutSpec = 'twitter' | 'sonyflake' | 'redis-lua' | 'baidu' | (string & {});

/** An epoch: unix milliseconds, digits or RFC 3339 text, or a Date. */
export type EpochInput = number | bigint | string | Date;

export interface FieldInfo {
  name: string;
  bits: number;
  shift: number;
  kind: 'node' | 'sequence';
}

export declare class Layout {
  constructor(spec?: LayoutSpec, options?: { epoch?: EpochInput });
  parse(id: IdInput): Parts;
  compose(parts: PartsInput): bigint;
  readonly spec: string;
  readonly preset: string | null;
  readonly fields: FieldInfo[];
  readonly nodeFields: string[];
  readonly timeBits: number;
  readonly tickMs: number;
  readonly epochMs: number;
  readonly epoch: Date;
  readonly totalBits: number;
  readonly maxId: bigint;
  readonly exhaustsAt: Date;
  readonly idsPerSecondCap: number;
  toString(): string;
  toJSON(): string;
}

export interface SnowflakeOptions {
  /** Default `'twitter'`. */
  layout?: LayoutSpec | Layout;
  /** Replaces the layout's epoch. */
  epoch?: EpochInput;
  /** `'wait'` (default) or `'borrow:MS'`. */
  onExhausted?: string;
  /** `'error'` (default), `'wait:MS'` or `'continue'`: what to do when the clock reads earlier than the last issued time. */
  onRollback?: string;
  /** `true`: node fields not given get random values (no stable identity; see README). */
  random?: boolean;
  /** Node fields whose names clash with an option (`layout`, `random`, `nodes`, ...). */
  nodes?: Record<string, Whole>;
  /** Node fields by name: every node field of the layout is required (unless `random: true`). */
  [nodeField: string]: Whole | string | boolean | Date | Layout | Record<string, Whole> | undefined;
}

export interface Stats {
  issued: number;
  waits: number;
  rollbacks: number;
  leadMs: number;
  maxLeadMs: number;
}

export declare class Snowflake {
  constructor(options?: SnowflakeOptions);
  nextId(): bigint;
  nextIdString(): string;
  nextIds(n: number): BigUint64Array;
  parse(id: IdInput): Parts;
  compose(parts: PartsInput): bigint;
  readonly stats: Stats;
  readonly layout: Layout;
  readonly nodes: Record<string, number | bigint>;
  readonly onExhausted: string;
  readonly onRollback: string;
}

/** Anything with a `toHexString()`, such as bson's ObjectId. */
export interface HexStringable {
  toHexString(): string;
}

export declare class ObjectId {
  constructor(input?: string | Uint8Array | ObjectId | HexStringable);
  static generateHex(): string;
  static createFromHexString(hex: string): ObjectId;
  static createFromTime(seconds: number): ObjectId;
  static isValid(value: unknown): boolean;
  toHexString(): string;
  toString(): string;
  toJSON(): string;
  /** The 12 bytes (a new Buffer in Node, Uint8Array in a browser, each call). */
  readonly id: ObjectIdBytes;
  readonly buffer: ObjectIdBytes;
  getTimestamp(): Date;
  equals(other: unknown): boolean;
  /** Throws: convert to bson's ObjectId before serializing. */
  toBSON(): never;
}

export declare function parse(id: IdInput, layout: LayoutSpec | Layout | Snowflake): Parts;
export declare function compose(parts: PartsInput, layout: LayoutSpec | Layout | Snowflake): bigint;

/** Base of every idmint error (`instanceof IdmintError` is true for all of them). */
export declare class IdmintError extends Error {
  readonly code: string;
  readonly kind: string;
}
// One class per kind of the core's error table; kinds whose value is out of its range are
// RangeErrors (at run time `instanceof IdmintError` holds for them too).
// BEGIN generated by js/scripts/generated.mjs: the core's error table; do not edit
/** A layout spec or preset name that does not describe a valid layout. */
export declare class InvalidLayoutError extends IdmintError {
  readonly kind: 'invalid_layout';
  readonly code: 'INVALID_LAYOUT';
}
/** A node field or the sequence given a value that does not fit its bits. */
export declare class ValueOutOfRangeError extends RangeError {
  readonly kind: 'value_out_of_range';
  readonly code: 'VALUE_OUT_OF_RANGE';
}
/** Parts name a field the layout does not have. */
export declare class UnknownFieldError extends IdmintError {
  readonly kind: 'unknown_field';
  readonly code: 'UNKNOWN_FIELD';
}
/** Parts lack a node field of the layout. */
export declare class MissingFieldError extends IdmintError {
  readonly kind: 'missing_field';
  readonly code: 'MISSING_FIELD';
}
/** A time that the layout's time field cannot represent. */
export declare class TimeOutOfRangeError extends RangeError {
  readonly kind: 'time_out_of_range';
  readonly code: 'TIME_OUT_OF_RANGE';
}
/** A generator whose epoch lies ahead of the clock. */
export declare class EpochInFutureError extends IdmintError {
  readonly kind: 'epoch_in_future';
  readonly code: 'EPOCH_IN_FUTURE';
}
/** The time field has run out: no more IDs can be minted with this layout and epoch. */
export declare class LayoutExhaustedError extends IdmintError {
  readonly kind: 'layout_exhausted';
  readonly code: 'LAYOUT_EXHAUSTED';
}
/** The clock reads earlier than the last issued time and the policy does not allow going on. */
export declare class ClockMovedBackwardsError extends IdmintError {
  readonly kind: 'clock_moved_backwards';
  readonly code: 'CLOCK_MOVED_BACKWARDS';
}
/** An ID that does not fit the layout (negative, above 2^63-1, above the layout's bits, not a number). */
export declare class InvalidIdError extends RangeError {
  readonly kind: 'invalid_id';
  readonly code: 'INVALID_ID';
}
/** An ObjectId in text or bytes that is not 12 bytes / 24 hex characters. */
export declare class InvalidObjectIdError extends IdmintError {
  readonly kind: 'invalid_object_id';
  readonly code: 'INVALID_OBJECT_ID';
}
/** An argument outside the values an operation accepts. */
export declare class InvalidArgumentError extends RangeError {
  readonly kind: 'invalid_argument';
  readonly code: 'INVALID_ARGUMENT';
}
/** A store (segment, lease, daily counter, high-water-mark file) that could not be reached or answered with an error; a segment client returns it only once no buffered IDs are left to serve while it waits. */
export declare class StoreUnavailableError extends IdmintError {
  readonly kind: 'store_unavailable';
  readonly code: 'STORE_UNAVAILABLE';
}
/** A segment tag the store does not hold, with auto-creation off. */
export declare class UnknownTagError extends IdmintError {
  readonly kind: 'unknown_tag';
  readonly code: 'UNKNOWN_TAG';
}
/** A segment tag name or table name that is not allowed. */
export declare class InvalidTagError extends IdmintError {
  readonly kind: 'invalid_tag';
  readonly code: 'INVALID_TAG';
}
/** A store returned a range that starts at or below an ID this client already handed out: the store lost its state (e.g. Redis restarted without persistence). The range is refused. */
export declare class RangeBelowIssuedError extends IdmintError {
  readonly kind: 'range_below_issued';
  readonly code: 'RANGE_BELOW_ISSUED';
}
/** A segment tag whose counter cannot grow by the requested count without passing 2^63-1. */
export declare class TagExhaustedError extends IdmintError {
  readonly kind: 'tag_exhausted';
  readonly code: 'TAG_EXHAUSTED';
}
/** An obfuscation key, key text or key file that cannot be used. The message never shows the key's secret bytes. */
export declare class InvalidKeyError extends IdmintError {
  readonly kind: 'invalid_key';
  readonly code: 'INVALID_KEY';
}
/** Text that is not a valid value of a short-string encoding (base62, base32, ULID). */
export declare class InvalidEncodingError extends IdmintError {
  readonly kind: 'invalid_encoding';
  readonly code: 'INVALID_ENCODING';
}
/** An order-number template that cannot be used. */
export declare class InvalidTemplateError extends IdmintError {
  readonly kind: 'invalid_template';
  readonly code: 'INVALID_TEMPLATE';
}
/** A period's counter passed what its fixed-width field can hold. */
export declare class CounterOverflowError extends IdmintError {
  readonly kind: 'counter_overflow';
  readonly code: 'COUNTER_OVERFLOW';
}
/** Text or bytes that are not a version-7 UUID. */
export declare class InvalidUuidError extends IdmintError {
  readonly kind: 'invalid_uuid';
  readonly code: 'INVALID_UUID';
}
/** A formatted ID whose check digits do not match the rest of it (a typo, most likely). */
export declare class CheckDigitMismatchError extends IdmintError {
  readonly kind: 'check_digit_mismatch';
  readonly code: 'CHECK_DIGIT_MISMATCH';
}
/** No value of a worker-ID range could be leased: every value is held, or frozen after its holder's lease expired. */
export declare class NoFreeLeaseError extends IdmintError {
  readonly kind: 'no_free_lease';
  readonly code: 'NO_FREE_LEASE';
}
/** A generator's worker lease is no longer known to be held (renewals failed, or another holder took the value), so it issues no IDs until it holds a lease again. */
export declare class LeaseLostError extends IdmintError {
  readonly kind: 'lease_lost';
  readonly code: 'LEASE_LOST';
}
// END generated

// ---------------------------------------------------------------------------------------------
// Display IDs (docs/formats.md). Values are range-checked before they reach the core (in the
// wasm, before they cross into it): a bigint, decimal string or number outside what an
// operation takes is an InvalidIdError (a RangeError) quoting it.

/**
 * A short-string encoding: `base62` (1-11 characters), `base62-fixed` (11, sorts like the
 * numbers), `base32` (Crockford, 1-13), `base32-fixed` (13, sorts like the numbers).
 */
export type EncodingName = 'base62' | 'base62-fixed' | 'base32' | 'base32-fixed';
export declare const ENCODINGS: readonly ['base62', 'base62-fixed', 'base32', 'base32-fixed'];

/**
 * `id` (0..=2^64-1) as a short string. Throws InvalidIdError (a RangeError) outside that range,
 * InvalidArgumentError for an unknown encoding.
 */
export declare function encode(id: IdInput, encoding: EncodingName): string;
/**
 * The value of a short string, read strictly: no signs, spaces or hyphens, no leading zero in
 * the variable forms, exact length in the fixed ones; base32 is case-insensitive with I/L = 1,
 * O = 0. Throws InvalidEncodingError.
 */
export declare function decode(text: string, encoding: EncodingName): bigint;

/**
 * Keys for keyed, reversible obfuscation of IDs in 0..=2^63-1: a pseudonym that hides volume and
 * order, not encryption (docs/formats.md). The highest version obfuscates, every version reveals.
 * A key in a web page is visible to its users: obfuscate on a server, a worker or an edge runtime.
 */
export declare class Keyring {
  private constructor();
  /** Key-file text: one `idmint-key-v<version>:<32 hex>` a line; `#` comments, blank lines. InvalidKeyError. */
  static fromText(text: string): Keyring;
  /** One new key of `version` (0..=61) from the OS random source (`crypto.getRandomValues` in a browser); export it with `toText()`. */
  static generate(version: number | bigint): Keyring;
  /** The ID shown in place of `id`, with the active key: a bigint in 0..=2^63-1. */
  obfuscate(id: IdInput): bigint;
  /** The ID `obfuscate` turned into `shown`, with key `version` (default: the active key). */
  reveal(shown: IdInput, version?: number | bigint): bigint;
  /** 12 characters: the active key's version (one base62 character) and 11 base62 digits. */
  obfuscateTagged(id: IdInput): string;
  /** Reveal the tagged form with the key it names (InvalidKeyError if the ring lacks it). */
  revealTagged(text: string): bigint;
  /** The versions held, ascending. */
  readonly versions: number[];
  /** The highest version: the one that obfuscates. */
  readonly activeVersion: number;
  /** The key-file text the ring was read from or generated as. It holds the secrets. */
  toText(): string;
  /** `Keyring(v1, v2; active v2)`: never the secrets. */
  toString(): string;
  /** `{ versions, activeVersion }`: never the secrets. */
  toJSON(): { versions: number[]; activeVersion: number };
}

/** What `parseUuid7` and `parseUlid` return. */
export interface Uuid7Parts {
  /** Lowercase, hyphenated. */
  uuid: string;
  /** The same 128 bits as 26 Crockford base32 characters, upper case. */
  ulid: string;
  /** The 48-bit unix-millisecond timestamp. */
  time: Date;
  timestampMs: number;
  /** The 12 bits after the version (the counter, for UUIDs of idmint's generators). */
  randA: number;
  /** The 62 bits after the variant. */
  randB: bigint;
}

/**
 * A new UUIDv7 (lowercase, hyphenated) from the process-wide generator (in a browser the page's):
 * increasing within the process, across worker threads too.
 */
export declare function uuid7(): string;
/** Read a UUIDv7: hyphenated or 32 hex digits, either case. Throws InvalidUuidError. */
export declare function parseUuid7(text: string): Uuid7Parts;
/** Read the 26-character ULID text of a UUIDv7, either case. Throws InvalidUuidError. */
export declare function parseUlid(text: string): Uuid7Parts;

/** A UUIDv7 generator of its own: RFC 9562 §6.2 method 1 (a 12-bit counter), strictly increasing. */
export declare class Uuid7Generator {
  constructor();
  /** The next UUID, lowercase and hyphenated. */
  next(): string;
  /** The next UUID as its ULID text (same sequence as `next`). */
  nextUlid(): string;
}

/** A time for templates: a Date, unix milliseconds, or RFC 3339 / unix-ms digits as text. */
export type TimeInput = Date | number | bigint | string;

export interface TemplateOptions {
  /** The node label for `%L` / `%NL`: ASCII letters and digits. */
  label?: string | null;
  /** The fixed UTC offset of the date parts: `'Z'` (default), `'+08:00'`, `'-0530'`, ... (no IANA names). */
  offset?: string | null;
  /** Check digits appended: `'none'` (default), `'luhn'` (1 digit) or `'mod97'` (2, ISO 7064). */
  check?: 'none' | 'luhn' | 'mod97' | null;
}

/** What `Template.parse` returns: only the parts the template has. */
export interface TemplateParts {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  /** As it appears (padding included). */
  label?: string;
  /** A number, or a bigint when the template's sequence is wider than 15 digits. */
  sequence: number | bigint;
  /** The check digits, already verified. */
  check?: string;
}

/**
 * An order-number template such as `'%L%Y%M%D%m%5S'`: `%Y %y %M %D %H %m %s` date parts,
 * `%L`/`%NL` label, `%NS` sequence of N digits (1-19, exactly one), `%%`; anything else literal.
 * InvalidTemplateError for a template that cannot be used.
 */
export declare class Template {
  constructor(pattern: string, options?: TemplateOptions);
  /**
   * The order number for `time` and `sequence` (at most `capacity`: ValueOutOfRangeError beyond).
   */
  format(time: TimeInput, sequence: Whole): string;
  /**
   * A snowflake ID as the sequence and its own time as the date parts; InvalidTemplateError
   * unless the sequence is as wide as the layout's largest ID (`%19S` for 63 bits).
   */
  formatSnowflake(id: IdInput, layout: LayoutSpec | Layout | Snowflake): string;
  /** Read an order number back: InvalidIdError naming the position, CheckDigitMismatchError for a typo. */
  parse(text: string): TemplateParts;
  /** The day of `time` in the template's offset as the number yyyymmdd (a daily counter's key). */
  dayOf(time: TimeInput): number;
  readonly pattern: string;
  readonly label: string | null;
  readonly offsetSeconds: number;
  readonly check: 'none' | 'luhn' | 'mod97';
  readonly sequenceWidth: number;
  /** 10^sequenceWidth - 1: a bigint when wider than 15 digits. */
  readonly capacity: number | bigint;
  toString(): string;
  toJSON(): string;
}

/** Where an `OrderNumbers` counter resumes: its next value on `day` is `first`. */
export interface OrderNumbersOptions {
  /** yyyymmdd in the template's offset (`Template.dayOf`). */
  day?: Whole;
  /** 1 or more. */
  first?: Whole;
}

/**
 * Daily order numbers: a Template with `%Y`/`%y`, `%M` and `%D`, and a counter of this object's
 * own that restarts at 1 each day (CounterOverflowError once past the sequence width). Two
 * objects, processes or pages with the same template repeat each other's numbers: see the README.
 */
export declare class OrderNumbers {
  constructor(template: Template, options?: OrderNumbersOptions);
  /** The next order number, now or at `time` (ClockMovedBackwardsError for an earlier day). */
  next(time?: TimeInput): string;
  readonly template: Template;
}

export declare const PRESETS: readonly ['twitter', 'sonyflake', 'redis-lua', 'baidu'];

// A browser stand-in for `node:assert/strict`: the strict assertions the shared suite uses.

export class AssertionError extends Error {
    constructor({ message, actual, expected, operator }) {
        super(message);
        this.name = 'AssertionError';
        this.code = 'ERR_ASSERTION';
        this.actual = actual;
        this.expected = expected;
        this.operator = operator;
    }
}

function show(v) {
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'string') return JSON.stringify(v);
    if (v instanceof Date) return `Date(${Number.isNaN(v.getTime()) ? 'Invalid' : v.toISOString()})`;
    if (v instanceof Error) return `${v.name}: ${v.message}`;
    try {
        return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x)) ?? String(v);
    } catch {
        return String(v);
    }
}

function fail(message, actual, expected, operator, fallback) {
    if (message instanceof Error) throw message;
    throw new AssertionError({ message: message ?? fallback, actual, expected, operator });
}

function isDeepStrictEqual(a, b, seen = new Map()) {
    if (Object.is(a, b)) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (seen.get(a) === b) return true;
    seen.set(a, b);
    const tag = Object.prototype.toString.call(a);
    if (tag !== Object.prototype.toString.call(b)) return false;
    if (a instanceof Date) return Object.is(a.getTime(), b.getTime()) && keysEqual(a, b, seen);
    if (a instanceof RegExp) return String(a) === String(b);
    if (ArrayBuffer.isView(a)) {
        if (a.length !== b.length || a.byteLength !== b.byteLength) return false;
        for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
        return true;
    }
    if (a instanceof Map) {
        if (a.size !== b.size) return false;
        for (const [k, v] of a) if (!b.has(k) || !isDeepStrictEqual(v, b.get(k), seen)) return false;
        return true;
    }
    if (a instanceof Set) {
        if (a.size !== b.size) return false;
        for (const v of a) if (!b.has(v)) return false;
        return true;
    }
    if (a instanceof Error && (a.message !== b.message || a.name !== b.name)) return false;
    if (typeof a.valueOf === 'function' && (a instanceof Number || a instanceof String || a instanceof Boolean || a instanceof BigInt)) {
        if (!Object.is(a.valueOf(), b.valueOf())) return false;
    }
    return keysEqual(a, b, seen);
}

function keysEqual(a, b, seen) {
    const ka = Reflect.ownKeys(a).filter((k) => Object.prototype.propertyIsEnumerable.call(a, k));
    const kb = Reflect.ownKeys(b).filter((k) => Object.prototype.propertyIsEnumerable.call(b, k));
    if (ka.length !== kb.length) return false;
    for (const k of ka) {
        if (!Object.prototype.propertyIsEnumerable.call(b, k)) return false;
        if (!isDeepStrictEqual(a[k], b[k], seen)) return false;
    }
    return true;
}

function assert(value, message) {
    if (!value) fail(message, value, true, '==', `The expression evaluated to a falsy value: ${show(value)}`);
}

assert.ok = assert;
assert.AssertionError = AssertionError;
assert.fail = (message = 'Failed') => fail(message, undefined, undefined, 'fail', message);

assert.equal = assert.strictEqual = (a, b, message) => {
    if (!Object.is(a, b)) fail(message, a, b, 'strictEqual', `Expected values to be strictly equal:\n${show(a)} !== ${show(b)}`);
};
assert.notEqual = assert.notStrictEqual = (a, b, message) => {
    if (Object.is(a, b)) fail(message, a, b, 'notStrictEqual', `Expected "actual" to be strictly unequal to: ${show(b)}`);
};
assert.deepEqual = assert.deepStrictEqual = (a, b, message) => {
    if (!isDeepStrictEqual(a, b)) fail(message, a, b, 'deepStrictEqual', `Expected values to be strictly deep-equal:\n${show(a)}\n!==\n${show(b)}`);
};
assert.notDeepEqual = assert.notDeepStrictEqual = (a, b, message) => {
    if (isDeepStrictEqual(a, b)) fail(message, a, b, 'notDeepStrictEqual', `Expected "actual" not to be strictly deep-equal to: ${show(b)}`);
};
assert.match = (s, re, message) => {
    if (typeof s !== 'string' || !re.test(s)) fail(message, s, re, 'match', `The input did not match the regular expression ${re}. Input: ${show(s)}`);
};
assert.doesNotMatch = (s, re, message) => {
    if (typeof s !== 'string' || re.test(s)) fail(message, s, re, 'doesNotMatch', `The input was expected to not match ${re}. Input: ${show(s)}`);
};

function checkError(err, expected, message) {
    if (expected === undefined) return;
    if (typeof expected === 'function') {
        if (expected.prototype !== undefined && err instanceof expected) return;
        if (Error.isPrototypeOf(expected) || expected === Error) {
            fail(message, err, expected, 'throws', `The error is expected to be an instance of "${expected.name}". Received "${err?.constructor?.name}"\n\n${show(err)}`);
        }
        if (expected.call({}, err) === true) return;
        fail(message, err, expected, 'throws', `The validation function is expected to return "true". Received false\n\n${show(err)}`);
    }
    if (expected instanceof RegExp) {
        if (expected.test(String(err))) return;
        fail(message, err, expected, 'throws', `The input did not match the regular expression ${expected}. Input: ${show(String(err))}`);
    }
    if (typeof expected === 'object' && expected !== null) {
        for (const key of Reflect.ownKeys(expected)) {
            const want = expected[key];
            const got = err?.[key];
            const ok = want instanceof RegExp && typeof got === 'string' ? want.test(got) : isDeepStrictEqual(got, want);
            if (!ok) {
                fail(message, err, expected, 'throws', `Expected error property ${String(key)} to be ${show(want)}, got ${show(got)} (${show(err)})`);
            }
        }
        return;
    }
    throw new TypeError('assert.throws: unsupported "error" argument');
}

assert.throws = (fn, expected, message) => {
    if (typeof expected === 'string') { message = expected; expected = undefined; }
    let threw = false;
    let err;
    try {
        fn();
    } catch (e) {
        threw = true;
        err = e;
    }
    if (!threw) fail(message, undefined, expected, 'throws', `Missing expected exception${expected?.name ? ` (${expected.name})` : ''}.${message ? ' ' + message : ''}`);
    checkError(err, expected, message);
};

assert.doesNotThrow = (fn, message) => {
    try {
        fn();
    } catch (e) {
        fail(typeof message === 'string' ? message : undefined, e, undefined, 'doesNotThrow', `Got unwanted exception.\nActual message: "${e?.message}"`);
    }
};

assert.rejects = async (promiseOrFn, expected, message) => {
    if (typeof expected === 'string') { message = expected; expected = undefined; }
    let threw = false;
    let err;
    try {
        await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
    } catch (e) {
        threw = true;
        err = e;
    }
    if (!threw) fail(message, undefined, expected, 'rejects', 'Missing expected rejection.');
    checkError(err, expected, message);
};

assert.doesNotReject = async (promiseOrFn, message) => {
    try {
        await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
    } catch (e) {
        fail(typeof message === 'string' ? message : undefined, e, undefined, 'doesNotReject', `Got unwanted rejection.\nActual message: "${e?.message}"`);
    }
};

assert.strict = assert;
export default assert;
export const { ok, equal, strictEqual, notEqual, notStrictEqual, deepEqual, deepStrictEqual, notDeepEqual,
    notDeepStrictEqual, throws, doesNotThrow, rejects, doesNotReject, match, doesNotMatch } = assert;
export { assert as strict };

// The display IDs of docs/formats.md in idmint-web: short strings, keyed obfuscation, UUIDv7/ULID,
// order-number templates. Every case of tests/vectors/{shortid,obfuscate,uuid7,template}.json,
// then what the browser package adds: bigint range checks before the wasm, argument types, error
// classes, the page's clock and randomness. Runs in Node and in headless Chromium (run-browser.mjs
// picks up every web/test/*.test.mjs).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors, TARGET } from './target.mjs';

const {
    encode, decode, ENCODINGS, Keyring, uuid7, parseUuid7, parseUlid, Uuid7Generator, Template, OrderNumbers,
    IdmintError, Layout, Snowflake,
} = idmint;

const className = (kind) => kind.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + 'Error';

/** `fn` must throw the idmint error of `kind`: class (exported by name), code, kind, message. */
function throwsKind(fn, kind, what = '') {
    let err;
    try {
        fn();
    } catch (e) {
        err = e;
    }
    assert.ok(err !== undefined, `${what}: should have thrown ${kind}`);
    assert.ok(err instanceof Error, `${what}: not an Error: ${err}`);
    assert.equal(err.kind, kind, `${what}: kind of ${err.name}: ${err.message}`);
    assert.equal(err.code, kind.toUpperCase(), `${what}: code`);
    assert.equal(err.name, className(kind), `${what}: name`);
    assert.ok(err instanceof IdmintError, `${what}: instanceof IdmintError`);
    assert.equal(typeof idmint[className(kind)], 'function', `${what}: ${className(kind)} is exported`);
    assert.ok(err instanceof idmint[className(kind)], `${what}: instanceof ${className(kind)}`);
    assert.ok(err.message.length > 0, `${what}: message`);
    return err;
}

const NEW_KINDS = ['invalid_key', 'invalid_encoding', 'invalid_template', 'counter_overflow', 'invalid_uuid', 'check_digit_mismatch'];

describe(`display IDs (${TARGET}): error classes`, () => {
    for (const kind of NEW_KINDS) {
        test(`${className(kind)}: code ${kind.toUpperCase()}, an IdmintError, not a RangeError`, () => {
            const C = idmint[className(kind)];
            assert.equal(typeof C, 'function');
            const e = new C('message');
            assert.equal(e.kind, kind);
            assert.equal(e.code, kind.toUpperCase());
            assert.equal(e.name, className(kind));
            assert.equal(C.kind, kind);
            assert.ok(e instanceof IdmintError);
            assert.ok(!(e instanceof RangeError));
            assert.equal(idmint.errorClass(kind), C);
            assert.equal(idmint.errors[kind], C);
            assert.ok(idmint.ERROR_KINDS.includes(kind));
        });
    }
});

describe(`short strings (${TARGET}): shortid.json`, () => {
    const sv = vectors.shortid;
    test('there are vectors', () => assert.ok(sv.valid.length > 10 && sv.invalid.length > 10));
    test('ENCODINGS', () => assert.deepEqual([...ENCODINGS], ['base62', 'base62-fixed', 'base32', 'base32-fixed']));

    test('valid: every value encodes to each text and decodes back (bigint and decimal string)', () => {
        for (const v of sv.valid) {
            for (const enc of ENCODINGS) {
                assert.equal(encode(BigInt(v.value), enc), v[enc], `${v.value} ${enc}`);
                assert.equal(encode(v.value, enc), v[enc], `${v.value} ${enc} (string)`);
                const back = decode(v[enc], enc);
                assert.equal(typeof back, 'bigint');
                assert.equal(back, BigInt(v.value), `${v[enc]} ${enc}`);
            }
            if (BigInt(v.value) <= BigInt(Number.MAX_SAFE_INTEGER)) assert.equal(encode(Number(v.value), 'base62'), v.base62);
        }
    });

    test('aliases: Crockford decoding of lower case and I/L/O', () => {
        for (const v of sv.aliases) assert.equal(decode(v.text, v.encoding), BigInt(v.value), `${v.encoding} ${v.text}`);
    });

    test('invalid: InvalidEncodingError', () => {
        for (const v of sv.invalid) {
            const e = throwsKind(() => decode(v.text, v.encoding), v.error, `${v.encoding} ${JSON.stringify(v.text)}`);
            assert.ok(e.message.includes(v.encoding), e.message);
        }
    });

    test('fixed widths sort like the numbers', () => {
        const values = sv.valid.map((v) => BigInt(v.value)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const enc of ['base62-fixed', 'base32-fixed']) {
            const texts = values.map((v) => encode(v, enc));
            assert.deepEqual([...texts].sort(), texts, enc);
        }
    });

    test('values outside 0..=2^64-1 are InvalidIdError with the exact value, never wrapped', () => {
        let e = throwsKind(() => encode(1n << 64n, 'base62'), 'invalid_id');
        assert.ok(e instanceof RangeError);
        assert.match(e.message, /18446744073709551616/);
        e = throwsKind(() => encode((1n << 64n) + 5n, 'base32'), 'invalid_id');
        assert.match(e.message, /18446744073709551621/);
        assert.match(throwsKind(() => encode(-1n, 'base62'), 'invalid_id').message, /negative/);
        assert.match(throwsKind(() => encode('-5', 'base62'), 'invalid_id').message, /negative/);
        throwsKind(() => encode('12a', 'base62'), 'invalid_id');
        throwsKind(() => encode(' 12', 'base62'), 'invalid_id');
        throwsKind(() => encode('0x10', 'base62'), 'invalid_id');
        throwsKind(() => encode('', 'base62'), 'invalid_id');
        throwsKind(() => encode(2 ** 60, 'base62'), 'invalid_id');
        throwsKind(() => encode(1.5, 'base62'), 'invalid_id');
        throwsKind(() => encode(null, 'base62'), 'invalid_id');
        assert.equal(encode((1n << 64n) - 1n, 'base62'), 'LygHa16AHYF');
    });

    test('encoding names and text types', () => {
        const e = throwsKind(() => encode(1n, 'base64'), 'invalid_argument');
        assert.match(e.message, /base62, base62-fixed, base32 or base32-fixed/);
        throwsKind(() => encode(1n), 'invalid_argument');
        throwsKind(() => decode('1', 62), 'invalid_argument');
        throwsKind(() => decode(1, 'base62'), 'invalid_encoding');
        throwsKind(() => decode('1-2', 'base32'), 'invalid_encoding'); // no Crockford hyphens
    });
});

describe(`obfuscation (${TARGET}): obfuscate.json`, () => {
    const ov = vectors.obfuscate;
    const RING = 'idmint-key-v1:000102030405060708090a0b0c0d0e0f\nidmint-key-v2:f0e0d0c0b0a090807060504030201000\n';

    test('valid: obfuscate, reveal, tagged and back', () => {
        assert.ok(ov.valid.length > 10);
        const rings = new Map();
        for (const v of ov.valid) {
            if (!rings.has(v.key)) rings.set(v.key, Keyring.fromText(v.key));
            const ring = rings.get(v.key);
            const shown = ring.obfuscate(BigInt(v.id));
            assert.equal(typeof shown, 'bigint');
            assert.equal(shown, BigInt(v.obfuscated), `${v.key} ${v.id}`);
            assert.equal(ring.obfuscate(v.id), shown, 'decimal string');
            assert.equal(ring.reveal(shown), BigInt(v.id));
            assert.equal(ring.reveal(v.obfuscated, ring.activeVersion), BigInt(v.id));
            assert.equal(ring.obfuscateTagged(BigInt(v.id)), v.tagged);
            assert.equal(ring.revealTagged(v.tagged), BigInt(v.id));
        }
    });

    test('invalid ids: obfuscate and reveal fail with InvalidIdError', () => {
        const ring = Keyring.fromText(ov.valid[0].key);
        for (const v of ov.invalid_ids) {
            for (const f of [() => ring.obfuscate(v.id), () => ring.reveal(BigInt(v.id)), () => ring.obfuscateTagged(v.id)]) {
                const e = throwsKind(f, v.error, v.name);
                assert.ok(e instanceof RangeError);
                assert.ok(e.message.includes(v.id), e.message);
            }
        }
        // beyond 64 bits: refused here, with the exact value, before the wasm could wrap it
        for (const id of [1n << 64n, (1n << 64n) + 1n, -1n, (1n << 63n) * 4n + 7n]) {
            const e = throwsKind(() => ring.obfuscate(id), 'invalid_id', String(id));
            assert.ok(e.message.includes(String(id)), e.message);
            throwsKind(() => ring.reveal(id), 'invalid_id', String(id));
        }
    });

    test('invalid keys: InvalidKeyError, never showing a secret', () => {
        for (const v of ov.invalid_keys) {
            const e = throwsKind(() => Keyring.fromText(v.key), v.error, v.name);
            const secret = v.key.split(':')[1];
            if (secret && secret.length >= 6) assert.ok(!e.message.includes(secret), e.message);
        }
        throwsKind(() => Keyring.fromText(42), 'invalid_key');
    });

    test('invalid tagged forms', () => {
        for (const v of ov.invalid_tagged) throwsKind(() => Keyring.fromText(v.keyring).revealTagged(v.tagged), v.error, v.name);
        throwsKind(() => Keyring.fromText(RING).revealTagged(12), 'invalid_encoding');
    });

    test('rotation: the highest version obfuscates, every version reveals', () => {
        const old = Keyring.fromText(RING.split('\n')[0]);
        const ring = Keyring.fromText(`# keys\n\n${RING}`);
        assert.deepEqual(ring.versions, [1, 2]);
        assert.equal(ring.activeVersion, 2);
        const shownOld = old.obfuscate(42n);
        assert.equal(ring.reveal(shownOld, 1), 42n);
        assert.equal(ring.reveal(shownOld, 1n), 42n);
        assert.notEqual(ring.obfuscate(42n), shownOld);
        assert.equal(ring.revealTagged(old.obfuscateTagged(42n)), 42n);
        assert.ok(ring.obfuscateTagged(42n).startsWith('2'));
        throwsKind(() => ring.reveal(shownOld, 3), 'invalid_key');
        throwsKind(() => ring.reveal(shownOld, 300), 'invalid_key');
        throwsKind(() => ring.reveal(shownOld, 1.5), 'invalid_argument');
        throwsKind(() => ring.reveal(shownOld, '1'), 'invalid_argument');
        throwsKind(() => Keyring.fromText(`${RING}idmint-key-v2:00000000000000000000000000000000`), 'invalid_key');
    });

    test('generate: a fresh key each time, exported with toText, secrets kept out of strings', () => {
        const a = Keyring.generate(5);
        const b = Keyring.generate(5);
        assert.deepEqual(a.versions, [5]);
        assert.match(a.toText(), /^idmint-key-v5:[0-9a-f]{32}\n$/);
        assert.notEqual(a.toText(), b.toText());
        assert.notEqual(a.obfuscate(1n), b.obfuscate(1n));
        const again = Keyring.fromText(a.toText());
        for (const id of [0n, 1n, 12345n, (1n << 63n) - 1n]) {
            assert.equal(again.obfuscate(id), a.obfuscate(id));
            assert.equal(a.reveal(a.obfuscate(id)), id);
        }
        const secret = a.toText().slice(14, 46);
        assert.equal(String(a), 'Keyring(v5; active v5)');
        assert.ok(!JSON.stringify(a).includes(secret));
        assert.deepEqual(JSON.parse(JSON.stringify({ a })), { a: { versions: [5], activeVersion: 5 } });
        assert.equal(Keyring.generate(0).activeVersion, 0);
        assert.equal(Keyring.generate(61n).activeVersion, 61);
        for (const v of [62, 255, 256, 300, -1]) assert.match(throwsKind(() => Keyring.generate(v), 'invalid_key', String(v)).message, /0..=61/);
        throwsKind(() => Keyring.generate(1.5), 'invalid_argument');
        throwsKind(() => Keyring.generate(), 'invalid_argument');
        throwsKind(() => new Keyring('idmint-key-v1:000102030405060708090a0b0c0d0e0f'), 'invalid_argument');
    });

    test('outputs stay in 0..2^63 and neighbours are unrelated', () => {
        const ring = Keyring.fromText(RING);
        const outs = new Set();
        for (let i = 0n; i < 2000n; i++) {
            const o = ring.obfuscate(1541815603606036480n + i);
            assert.ok(o >= 0n && o < 1n << 63n);
            outs.add(o);
        }
        assert.equal(outs.size, 2000);
        const [x, y] = [ring.obfuscate(1000n), ring.obfuscate(1001n)];
        assert.ok(x - y > 1000n || y - x > 1000n);
    });
});

describe(`UUIDv7 and ULID (${TARGET}): uuid7.json`, () => {
    const uv = vectors.uuid7;

    test('valid: fields and ULID text', () => {
        assert.equal(uv.valid[0].name, 'rfc9562_a6');
        for (const v of uv.valid) {
            const p = parseUuid7(v.uuid);
            assert.equal(p.uuid, v.uuid);
            assert.equal(p.ulid, v.ulid);
            assert.equal(p.timestampMs, v.time_ms);
            assert.ok(p.time instanceof Date);
            assert.equal(p.time.getTime(), v.time_ms);
            // the vector's text is the core's, capped at year 9999; a Date holds the exact time
            if (v.time_ms <= 253402300799999) assert.equal(p.time.toISOString(), v.time);
            assert.equal(p.randA, v.rand_a);
            assert.equal(typeof p.randB, 'bigint');
            assert.equal(p.randB, BigInt(`0x${v.rand_b}`));
            assert.deepEqual(parseUlid(v.ulid), p);
        }
    });

    test('forms: upper case, 32 digits, ULID', () => {
        for (const v of uv.forms) {
            const p = v.ulid ? parseUlid(v.text) : parseUuid7(v.text);
            assert.equal(p.uuid, v.uuid, v.text);
        }
    });

    test('invalid UUIDs and ULIDs: InvalidUuidError', () => {
        for (const v of uv.invalid) throwsKind(() => parseUuid7(v.text), v.error, v.name);
        for (const v of uv.invalid_ulids) throwsKind(() => parseUlid(v.text), v.error, v.name);
        throwsKind(() => parseUuid7(uv.valid[0].ulid), 'invalid_uuid', 'a ULID is not a UUID text');
        throwsKind(() => parseUlid(uv.valid[0].uuid), 'invalid_uuid', 'a UUID is not a ULID text');
        throwsKind(() => parseUuid7(null), 'invalid_uuid');
        throwsKind(() => parseUlid(123), 'invalid_uuid');
    });

    test('uuid7(): version 7, increasing, the time of Date.now()', () => {
        const before = Date.now();
        const ids = [];
        for (let i = 0; i < 5000; i++) ids.push(uuid7());
        const after = Date.now();
        for (const u of ids) assert.match(u, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${ids[i]} after ${ids[i - 1]}`);
        const first = parseUuid7(ids[0]).timestampMs;
        const last = parseUuid7(ids[ids.length - 1]).timestampMs;
        assert.ok(first >= before && first <= after, `${first} not in ${before}..${after}`);
        // the counter may carry into the timestamp under a burst: a few ms ahead at most
        assert.ok(last >= before && last <= after + 5, `${last} not in ${before}..${after}`);
        assert.equal(new Set(ids.map((u) => u.slice(19))).size, ids.length, 'random tails');
    });

    test('Uuid7Generator: next and nextUlid share one increasing sequence', () => {
        const g = new Uuid7Generator();
        const out = [];
        for (let i = 0; i < 3000; i++) out.push(i % 2 ? parseUlid(g.nextUlid()).uuid : g.next());
        for (let i = 1; i < out.length; i++) assert.ok(out[i] > out[i - 1]);
        const ulid = g.nextUlid();
        assert.match(ulid, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
        assert.equal(parseUlid(ulid).ulid, ulid);
        assert.ok(Math.abs(parseUlid(ulid).timestampMs - Date.now()) < 2000);
        const sorted = Array.from({ length: 100 }, () => g.nextUlid());
        assert.deepEqual([...sorted].sort(), sorted, 'ULID text sorts in time order');
    });
});

const templateOf = (v) => new Template(v.template, { label: v.label, offset: v.offset, check: v.check });

describe(`order-number templates (${TARGET}): template.json`, () => {
    const tv = vectors.template;

    test('valid: format, then parse back into the parts', () => {
        assert.ok(tv.valid.length > 5);
        for (const v of tv.valid) {
            const t = templateOf(v);
            assert.equal(t.format(v.time_ms, BigInt(v.sequence)), v.formatted, v.name);
            assert.equal(t.format(new Date(v.time_ms), BigInt(v.sequence)), v.formatted, `${v.name} (Date)`);
            assert.equal(t.format(new Date(v.time_ms).toISOString(), BigInt(v.sequence)), v.formatted, `${v.name} (RFC 3339)`);
            if (BigInt(v.sequence) <= BigInt(Number.MAX_SAFE_INTEGER)) assert.equal(t.format(v.time_ms, Number(v.sequence)), v.formatted);
            const p = t.parse(v.formatted);
            const wide = t.sequenceWidth > 15;
            assert.equal(typeof p.sequence, wide ? 'bigint' : 'number', v.name);
            assert.equal(BigInt(p.sequence), BigInt(v.sequence), v.name);
            // the JSON's parts.sequence is a number (inexact past 2^53): compared above as text
            const { sequence, ...rest } = p;
            const { sequence: _, ...expected } = v.parts;
            assert.deepEqual(rest, expected, v.name);
        }
    });

    test('invalid templates: InvalidTemplateError', () => {
        for (const v of tv.invalid_templates) throwsKind(() => new Template(v.template), v.error, v.name);
        throwsKind(() => new Template(5), 'invalid_template');
    });

    test('invalid order numbers: InvalidIdError or CheckDigitMismatchError', () => {
        for (const v of tv.invalid_parse) throwsKind(() => templateOf(v).parse(v.text), v.error, v.name);
        throwsKind(() => new Template('%5S').parse(12345), 'invalid_id');
    });

    test('invalid format arguments', () => {
        for (const v of tv.invalid_format) throwsKind(() => templateOf(v).format(v.time_ms, BigInt(v.sequence)), v.error, v.name);
    });

    test('daily: a fresh counter read at each time in turn', () => {
        for (const v of tv.daily) {
            const orders = new OrderNumbers(templateOf(v));
            assert.deepEqual(v.times_ms.map((ms) => orders.next(ms)), v.formatted, v.name);
        }
    });
});

describe(`order-number templates (${TARGET}): the JS API`, () => {
    const T = '%L%Y%M%D%m%5S';
    const AT = 1716309000000; // 2024-05-22 00:30 at +08:00

    test('options and getters', () => {
        const t = new Template(T, { label: '7', offset: '+08:00' });
        assert.equal(t.pattern, T);
        assert.equal(String(t), T);
        assert.equal(JSON.stringify({ t }), `{"t":"${T}"}`);
        assert.equal(t.label, '7');
        assert.equal(t.offsetSeconds, 8 * 3600);
        assert.equal(t.check, 'none');
        assert.equal(t.sequenceWidth, 5);
        assert.equal(t.capacity, 99999);
        assert.equal(t.dayOf(AT), 20240522);
        assert.equal(new Template('%Y%M%D%5S').dayOf(AT), 20240521);
        assert.equal(new Template('%Y%19S').capacity, 9999999999999999999n);
        assert.equal(new Template('%15S').capacity, 999999999999999);
        const m = new Template('%Y%5S', { offset: '-05:30', check: 'mod97', label: null });
        assert.equal(m.offsetSeconds, -(5 * 3600 + 30 * 60));
        assert.equal(m.check, 'mod97');
        assert.equal(m.label, null);
    });

    test('bad options', () => {
        throwsKind(() => new Template(T, { offset: 'Asia/Shanghai' }), 'invalid_argument');
        throwsKind(() => new Template(T, { offset: 8 }), 'invalid_argument');
        throwsKind(() => new Template(T, { check: 'crc' }), 'invalid_argument');
        throwsKind(() => new Template(T, { label: 'a-b' }), 'invalid_argument');
        throwsKind(() => new Template('%2L%5S', { label: '123' }), 'invalid_argument');
        throwsKind(() => new Template(T, { tz: '+08:00' }), 'invalid_argument');
        throwsKind(() => new Template(T, 'x'), 'invalid_argument');
        throwsKind(() => new Template(T).format(AT, 1), 'invalid_argument', 'no label for %L');
    });

    test('sequences and times out of range', () => {
        const t = new Template(T, { label: '7' });
        throwsKind(() => t.format(AT, 100000), 'value_out_of_range');
        const e = throwsKind(() => t.format(AT, -1n), 'value_out_of_range');
        assert.match(e.message, /-1/);
        assert.match(throwsKind(() => t.format(AT, 1n << 64n), 'value_out_of_range').message, /18446744073709551616/);
        throwsKind(() => t.format(AT, 1.5), 'invalid_argument');
        throwsKind(() => t.format(AT, '5'), 'invalid_argument');
        throwsKind(() => t.format(-1, 5), 'invalid_argument');
        throwsKind(() => t.format(new Date(NaN), 5), 'invalid_argument');
        throwsKind(() => t.format(253402300800000, 5), 'invalid_argument'); // year 10000
    });

    test('formatSnowflake: the whole ID as the sequence, checked for width', () => {
        const id = 1541815603606036480n;
        const t = new Template('%Y%M%D-%19S');
        assert.equal(t.formatSnowflake(id, 'twitter'), '20220628-1541815603606036480');
        assert.equal(t.formatSnowflake(String(id), new Layout('twitter')), '20220628-1541815603606036480');
        const g = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 2 });
        const fresh = g.nextId();
        assert.equal(t.parse(t.formatSnowflake(fresh, g)).sequence, fresh);
        throwsKind(() => new Template('%Y%M%D-%12S').formatSnowflake(id, 'twitter'), 'invalid_template');
        throwsKind(() => t.formatSnowflake(1n << 64n, 'twitter'), 'invalid_id');
        throwsKind(() => t.formatSnowflake(1n << 63n, 'twitter'), 'invalid_id');
        throwsKind(() => t.formatSnowflake(id, 42), 'invalid_argument');
    });

    test('check digits catch a typo', () => {
        const t = new Template('SO-%y%M%D-%6S', { check: 'luhn', offset: '+08:00' });
        const n = t.format(AT, 7);
        assert.equal(n, 'SO-240522-0000079'); // Luhn over 2 8 2 4 (S, O) 2 4 0 5 2 2 0 0 0 0 0 7
        assert.deepEqual(t.parse(n), { year: 2024, month: 5, day: 22, sequence: 7, check: '9' });
        const e = throwsKind(() => t.parse(n.replace('-000007', '-000008')), 'check_digit_mismatch');
        assert.ok(!(e instanceof RangeError));
    });

    test('OrderNumbers: now, resume, overflow, an earlier day', () => {
        const t = new Template('%Y%M%D%3S', { offset: '+08:00' });
        const orders = new OrderNumbers(t);
        assert.equal(orders.template, t);
        const today = t.dayOf(Date.now());
        const a = orders.next();
        const b = orders.next();
        assert.ok(a === `${today}001` || a.endsWith('001'), a);
        assert.equal(t.parse(b).sequence, 2);

        const resumed = new OrderNumbers(t, { day: 20240522, first: 500 });
        assert.equal(resumed.next(AT), '20240522500');
        assert.equal(resumed.next(new Date(AT)), '20240522501');
        assert.equal(resumed.next(AT + 86_400_000), '20240523001');
        throwsKind(() => resumed.next(AT), 'clock_moved_backwards');

        const small = new OrderNumbers(new Template('%Y%M%D%1S'));
        for (let i = 1; i <= 9; i++) assert.equal(small.next(AT), `20240521${i}`);
        const over = throwsKind(() => small.next(AT), 'counter_overflow');
        assert.match(over.message, /2024-05-21 \(\+00:00\)/);
        assert.ok(!(over instanceof RangeError));

        throwsKind(() => new OrderNumbers(new Template('%H%m%5S')), 'invalid_template');
        throwsKind(() => new OrderNumbers('%Y%M%D%3S'), 'invalid_argument');
        throwsKind(() => new OrderNumbers(t, { day: 20240522 }), 'invalid_argument');
        throwsKind(() => new OrderNumbers(t, { day: 20240522, first: 0 }), 'invalid_argument');
        throwsKind(() => new OrderNumbers(t, { day: 20240522, first: -1n }), 'invalid_argument');
        throwsKind(() => new OrderNumbers(t, { day: 2 ** 40, first: 1 }), 'invalid_argument');
        throwsKind(() => orders.next('yesterday'), 'invalid_argument');
    });
});

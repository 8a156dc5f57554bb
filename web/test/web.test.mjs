// Cases of the browser package itself (run in Node and in headless Chromium, next to the shared
// suite in js/test/): the vectors, the random node choice, bigint range checks, the wasm's
// clock and randomness.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors, TARGET } from './target.mjs';

const { Snowflake, Layout, ObjectId, parse, compose, IdmintError } = idmint;

describe(`idmint-web (${TARGET}): vectors`, () => {
    test('valid snowflakes decompose and compose', () => {
        for (const v of vectors.snowflake.valid) {
            for (const id of [v.id, BigInt(v.id)]) {
                const p = parse(id, v.layout);
                assert.equal(p.timestampMs, v.time_ms, v.name);
                assert.equal(p.time.toISOString(), v.time, v.name);
                assert.equal(p.sequence, v.sequence, v.name);
                for (const [k, val] of Object.entries(v.fields)) assert.equal(p[k], val, `${v.name} ${k}`);
            }
            const id = compose({ timestampMs: v.time_ms, sequence: v.sequence, ...v.fields }, v.layout);
            assert.equal(id, BigInt(v.id), v.name);
            assert.equal(compose({ time: new Date(v.time_ms), sequence: v.sequence, ...v.fields }, v.layout), BigInt(v.id));
        }
    });

    test('invalid ids are InvalidIdError (a RangeError)', () => {
        for (const v of vectors.snowflake.invalid_ids) {
            assert.throws(() => parse(v.id, v.layout), (e) => e instanceof RangeError && e.kind === v.error && e instanceof IdmintError, v.name);
        }
    });

    test('invalid parts fail with their kind', () => {
        for (const v of vectors.snowflake.invalid_parts) {
            const { time_ms: timestampMs, fields, sequence } = v.parts;
            assert.throws(() => compose({ timestampMs, sequence, ...fields }, v.layout), { kind: v.error, code: v.error.toUpperCase() }, v.name);
        }
    });

    test('invalid layouts fail with invalid_layout', () => {
        for (const v of vectors.snowflake.invalid_layouts) {
            assert.throws(() => new Layout(v.layout), { kind: 'invalid_layout', name: 'InvalidLayoutError' }, v.name);
        }
    });

    test('exhausts_at', () => {
        for (const v of vectors.snowflake.exhausts_at) {
            assert.equal(new Layout(v.layout).exhaustsAt.getTime(), v.exhausts_at_ms);
        }
    });

    test('ObjectId vectors', () => {
        for (const v of vectors.objectid.valid) {
            const o = ObjectId.createFromHexString(v.hex);
            assert.equal(o.toHexString(), v.hex);
            assert.equal(o.getTimestamp().getTime(), v.time_s * 1000);
            assert.equal(o.id.length, 12);
            assert.ok(new ObjectId(o.id).equals(o));
        }
        for (const v of vectors.objectid.uppercase_input) assert.equal(new ObjectId(v.hex).toString(), v.canonical);
        for (const v of vectors.objectid.invalid) {
            assert.throws(() => new ObjectId(v.hex), { kind: v.error, name: 'InvalidObjectIdError' }, v.name);
        }
    });
});

describe(`idmint-web (${TARGET}): browser specifics`, () => {
    test('node fields are required unless random: true', () => {
        assert.throws(() => new Snowflake({ layout: 'twitter', datacenter: 1 }), { kind: 'missing_field' });
        const g = new Snowflake({ layout: 'twitter', datacenter: 1, random: true });
        assert.equal(g.nodes.datacenter, 1);
        assert.ok(g.nodes.worker >= 0 && g.nodes.worker <= 31);
        const p = g.parse(g.nextId());
        assert.equal(p.datacenter, 1);
        assert.equal(p.worker, g.nodes.worker);
    });

    test('random node values differ between generators', () => {
        const seen = new Set();
        for (let i = 0; i < 20; i++) seen.add(new Snowflake({ layout: 'sonyflake', random: true }).nodes.machine);
        assert.ok(seen.size > 10, `only ${seen.size} distinct 16-bit machine values in 20 draws`);
    });

    test('IDs increase and carry the time of Date.now()', () => {
        const g = new Snowflake({ layout: 'twitter', datacenter: 3, worker: 17 });
        const before = Date.now();
        let last = -1n;
        for (let i = 0; i < 20000; i++) {
            const id = g.nextId();
            assert.ok(id > last);
            last = id;
        }
        const after = Date.now();
        const p = parse(last, 'twitter');
        assert.ok(p.timestampMs >= before && p.timestampMs <= after, `${p.timestampMs} not in ${before}..${after}`);
        assert.equal(g.stats.issued, 20000);
        assert.equal(typeof g.nextIdString(), 'string');
    });

    test('nextIds spans ticks (waits by spinning on Date.now)', () => {
        const g = new Snowflake({ layout: 'time:41,worker:10,sequence:4', worker: 5 });
        const ids = g.nextIds(200);
        assert.ok(ids instanceof BigUint64Array);
        for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1]);
        assert.ok(g.stats.waits > 0);
        const first = g.parse(ids[0]).timestampMs;
        const last = g.parse(ids[199]).timestampMs;
        assert.ok(last - first >= 12, `200 IDs at 16 per ms span ${last - first} ms`);
    });

    test('bigints that do not fit are rejected, never wrapped', () => {
        assert.throws(() => parse(1n << 64n, 'twitter'), (e) => e instanceof RangeError && e.kind === 'invalid_id');
        assert.throws(() => parse((1n << 64n) + 5n, 'twitter'), /invalid id `18446744073709551621`/);
        assert.throws(() => parse(-1n, 'twitter'), /negative/);
        assert.throws(() => parse(2 ** 60, 'twitter'), { kind: 'invalid_id' });
        assert.throws(
            () => compose({ timestampMs: 1426212000000, sequence: 0, shard: (1n << 64n) + 1n }, 'redis-lua'),
            (e) => e instanceof RangeError && e.kind === 'value_out_of_range' && /18446744073709551617/.test(e.message)
        );
        assert.throws(
            () => compose({ timestampMs: 1426212000000, sequence: -(1n << 70n), shard: 1 }, 'redis-lua'),
            { kind: 'value_out_of_range' }
        );
        assert.throws(() => new Snowflake({ layout: 'redis-lua', shard: 1n << 65n }), { kind: 'value_out_of_range' });
        assert.throws(() => new Snowflake({ layout: 'redis-lua', shard: 1.5 }), { kind: 'invalid_argument' });
    });

    test('ObjectIds: unique, increasing counter, current time', () => {
        const a = new ObjectId();
        const b = new ObjectId();
        assert.notEqual(a.toHexString(), b.toHexString());
        assert.equal(a.toHexString().slice(8, 18), b.toHexString().slice(8, 18), 'same page, same random bytes');
        assert.ok(Math.abs(a.getTimestamp().getTime() - Date.now()) < 2000);
        assert.equal(JSON.stringify({ a }), `{"a":"${a}"}`);
        const n = 10000;
        const set = new Set();
        for (let i = 0; i < n; i++) set.add(ObjectId.generateHex());
        assert.equal(set.size, n);
    });

    test('errors carry class, code and kind', () => {
        try {
            new Layout('time:42,worker:10,sequence:12');
            assert.fail('no error');
        } catch (e) {
            assert.ok(e instanceof IdmintError);
            assert.ok(e instanceof idmint.InvalidLayoutError);
            assert.equal(e.code, 'INVALID_LAYOUT');
            assert.equal(e.kind, 'invalid_layout');
            assert.match(e.message, /64 bits/);
        }
    });

    test('an ID server\'s lease and segment client: arguments checked before any request', async () => {
        const { SegmentClient } = idmint;
        // A lease is waited for: only Snowflake.create takes it; its options need it.
        assert.throws(() => new Snowflake({ lease: 'http://127.0.0.1:9' }), { kind: 'invalid_argument', message: /Snowflake\.create/ });
        assert.throws(() => new Snowflake({ datacenter: 1, worker: 1, token: 't' }), { kind: 'invalid_argument', message: /`token`/ });
        await assert.rejects(Snowflake.create({ lease: 'ftp://127.0.0.1', token: 't' }), { kind: 'invalid_argument', message: /ftp/ });
        await assert.rejects(Snowflake.create({ lease: 'http://127.0.0.1:9', worker: 1 }), { kind: 'invalid_argument', message: /every node field/ });
        await assert.rejects(Snowflake.create({ lease: 'http://127.0.0.1:9', leaseTtlMs: 299 }), { kind: 'invalid_argument', message: /300/ });
        // The core's checks and texts, through the extras module.
        await assert.rejects(SegmentClient.connect('http://127.0.0.1:9', { refillAt: 100 }), { kind: 'invalid_argument', message: /0\.\.=99/ });
        await assert.rejects(SegmentClient.connect('http://127.0.0.1:9', { autoCreate: false }), { kind: 'invalid_argument', message: /autoCreate/ });
        // Nobody listens on port 9: the store's kind, with the core's text.
        const c = await SegmentClient.connect('http://127.0.0.1:9', { maxWaitMs: 1 });
        await assert.rejects(c.tag('t'), { name: 'StoreUnavailableError', message: /store `http:\/\/127\.0\.0\.1:9` unavailable/ });
        await c.close();
        await assert.rejects(c.tag('t'), { kind: 'closed' });
        await assert.rejects(Snowflake.create({ lease: 'http://127.0.0.1:9' }), { kind: 'store_unavailable' });
        // Without a lease, create builds a plain generator (nothing to release).
        const g = await Snowflake.create({ datacenter: 1, worker: 2 });
        assert.equal(g.parse(g.nextId()).worker, 2);
        await g.close();
    });

    test('errorClass(kind): the exported class of every kind, undefined for an unknown one', () => {
        for (const kind of idmint.ERROR_KINDS) {
            const name = kind.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + 'Error';
            assert.equal(typeof idmint[name], 'function', name);
            assert.equal(idmint.errorClass(kind), idmint[name], kind);
        }
        assert.equal(idmint.errorClass('no_such_kind'), undefined);
    });
});

// Display IDs (docs/formats.md) in the native package: every case of tests/vectors/{shortid,
// obfuscate,uuid7,template}.json, the error classes of the new kinds, argument conversion and
// precision rules, and UUIDv7 uniqueness across worker threads.
//
// Native-only for now: the shared suite (test/*.test.mjs) must keep passing against the wasm
// package, which may not have this API yet. The cases are written against the package's public
// API only, so this file can move to the shared suite once both packages have it.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import * as idmint from '../index.mjs';
import { thrown, assertKind } from '../../js/test/helpers.mjs';

const {
  encode,
  decode,
  ENCODINGS,
  Keyring,
  uuid7,
  parseUuid7,
  parseUlid,
  Uuid7Generator,
  Template,
  OrderNumbers,
  Layout,
} = idmint;

const vector = (name) =>
  JSON.parse(fs.readFileSync(new URL(`../../tests/vectors/${name}.json`, import.meta.url), 'utf8'));
const shortid = vector('shortid');
const obf = vector('obfuscate');
const uuid = vector('uuid7');
const tpl = vector('template');

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_RFC3339_MS = 253402300800000; // 10000-01-01T00:00:00Z

// ---------------------------------------------------------------------------------------------
describe('shortid vectors', () => {
  test('there are vectors', () => assert.ok(shortid.valid.length > 20 && shortid.invalid.length > 10));
  for (const v of shortid.valid) {
    test(`valid ${v.value}: encodes to and decodes from every encoding`, () => {
      const inputs = [BigInt(v.value), v.value];
      if (BigInt(v.value) <= MAX_SAFE) inputs.push(Number(v.value));
      for (const encoding of ENCODINGS) {
        for (const input of inputs) assert.equal(encode(input, encoding), v[encoding], `${encoding} ${typeof input}`);
        const back = decode(v[encoding], encoding);
        assert.equal(typeof back, 'bigint');
        assert.equal(back, BigInt(v.value), encoding);
      }
    });
  }
  for (const v of shortid.aliases) {
    test(`alias ${v.encoding} ${JSON.stringify(v.text)} decodes to ${v.value}`, () => {
      assert.equal(decode(v.text, v.encoding), BigInt(v.value));
    });
  }
  for (const v of shortid.invalid) {
    test(`invalid ${v.encoding} ${JSON.stringify(v.text)}: ${v.error}`, () => {
      assertKind(thrown(() => decode(v.text, v.encoding)), v.error, v.text);
    });
  }
  test('fixed-width forms sort like the numbers', () => {
    const values = [0n, 1n, 61n, 62n, 1000n, 2n ** 53n, 2n ** 63n - 1n, 2n ** 64n - 1n];
    for (const e of ['base62-fixed', 'base32-fixed']) {
      const texts = values.map((x) => encode(x, e));
      assert.deepEqual([...texts].sort(), texts, e);
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('obfuscate vectors', () => {
  test('there are vectors', () => assert.ok(obf.valid.length > 20));
  const rings = new Map();
  const ring = (text) => {
    if (!rings.has(text)) rings.set(text, Keyring.fromText(text));
    return rings.get(text);
  };
  for (const v of obf.valid) {
    test(`valid ${v.key.slice(0, 14)}… ${v.id}: obfuscate, reveal, tagged`, () => {
      const k = ring(v.key);
      for (const input of [BigInt(v.id), v.id]) {
        assert.equal(k.obfuscate(input), BigInt(v.obfuscated));
        assert.equal(k.obfuscateTagged(input), v.tagged);
      }
      assert.equal(k.reveal(BigInt(v.obfuscated)), BigInt(v.id));
      assert.equal(k.reveal(v.obfuscated, k.activeVersion), BigInt(v.id));
      assert.equal(k.revealTagged(v.tagged), BigInt(v.id));
    });
  }
  const any = Keyring.fromText(obf.valid[0].key);
  for (const v of obf.invalid_ids) {
    test(`invalid id ${v.name}: ${v.error}`, () => {
      for (const input of [BigInt(v.id), v.id]) {
        assertKind(thrown(() => any.obfuscate(input)), v.error, 'obfuscate');
        assertKind(thrown(() => any.reveal(input)), v.error, 'reveal');
        assertKind(thrown(() => any.obfuscateTagged(input)), v.error, 'obfuscateTagged');
      }
      assert.match(thrown(() => any.obfuscate(BigInt(v.id))).message, new RegExp(v.id));
    });
  }
  for (const v of obf.invalid_keys) {
    test(`invalid key ${v.name}: ${v.error}`, () => {
      const e = thrown(() => Keyring.fromText(v.key));
      assertKind(e, v.error, v.name);
      // a key's secret is never in a message
      const secret = v.key.split(':')[1];
      if (secret && secret.length >= 6) assert.ok(!e.message.includes(secret), e.message);
    });
  }
  for (const v of obf.invalid_tagged) {
    test(`invalid tagged ${v.name}: ${v.error}`, () => {
      assertKind(thrown(() => ring(v.keyring).revealTagged(v.tagged)), v.error, v.name);
    });
  }
});

// ---------------------------------------------------------------------------------------------
describe('uuid7 vectors', () => {
  const hex16 = (b) => b.toString(16).padStart(16, '0');
  for (const v of uuid.valid) {
    test(`valid ${v.name}: fields and ULID`, () => {
      for (const text of [v.uuid, v.uuid.toUpperCase()]) {
        const p = parseUuid7(text);
        assert.deepEqual(Object.keys(p), ['uuid', 'ulid', 'time', 'timestampMs', 'randA', 'randB']);
        assert.equal(p.uuid, v.uuid);
        assert.equal(p.ulid, v.ulid);
        assert.equal(p.timestampMs, v.time_ms);
        assert.ok(p.time instanceof Date);
        assert.equal(p.time.getTime(), v.time_ms);
        // The core's text caps at year 9999 (RFC 3339 has 4-digit years); a Date holds the exact
        // instant (up to 2^48-1 ms, in the year 10889).
        if (v.time_ms < MAX_RFC3339_MS) assert.equal(p.time.toISOString(), v.time);
        else assert.equal(v.time, '9999-12-31T23:59:59.999Z');
        assert.equal(p.randA, v.rand_a);
        assert.equal(typeof p.randB, 'bigint');
        assert.equal(hex16(p.randB), v.rand_b);
      }
      assert.deepEqual(parseUlid(v.ulid), parseUuid7(v.uuid));
      assert.deepEqual(parseUlid(v.ulid.toLowerCase()), parseUuid7(v.uuid));
    });
  }
  for (const v of uuid.forms) {
    test(`form ${v.text}${v.ulid ? ' (ULID)' : ''} parses to ${v.uuid}`, () => {
      assert.equal((v.ulid ? parseUlid : parseUuid7)(v.text).uuid, v.uuid);
    });
  }
  for (const v of uuid.invalid) {
    test(`invalid ${v.name}: ${v.error}`, () => assertKind(thrown(() => parseUuid7(v.text)), v.error, v.name));
  }
  for (const v of uuid.invalid_ulids) {
    test(`invalid ULID ${v.name}: ${v.error}`, () => assertKind(thrown(() => parseUlid(v.text)), v.error, v.name));
  }
});

// ---------------------------------------------------------------------------------------------
describe('template vectors', () => {
  const make = (v) => new Template(v.template, { label: v.label, offset: v.offset, check: v.check });
  for (const v of tpl.valid) {
    test(`valid ${v.name}: format and parse`, () => {
      const t = make(v);
      const seqs = [BigInt(v.sequence)];
      if (BigInt(v.sequence) <= MAX_SAFE) seqs.push(Number(v.sequence));
      for (const seq of seqs) {
        for (const time of [v.time_ms, new Date(v.time_ms), String(v.time_ms), new Date(v.time_ms).toISOString()]) {
          assert.equal(t.format(time, seq), v.formatted, `${typeof time} ${typeof seq}`);
        }
      }
      const p = t.parse(v.formatted);
      const { sequence, ...rest } = v.parts;
      const { sequence: got, ...gotRest } = p;
      assert.deepEqual(gotRest, rest);
      // sequences of up to 15 digits are numbers; wider ones bigints (JSON.parse rounds those)
      if (t.sequenceWidth <= 15) {
        assert.equal(got, Number(v.sequence));
      } else {
        assert.equal(got, BigInt(v.sequence));
      }
      // keys in a fixed order: date parts, label, sequence, check
      const order = ['year', 'month', 'day', 'hour', 'minute', 'second', 'label', 'sequence', 'check'];
      assert.deepEqual(Object.keys(p), order.filter((k) => k in v.parts));
    });
  }
  for (const v of tpl.invalid_templates) {
    test(`invalid template ${v.name}: ${v.error}`, () => assertKind(thrown(() => new Template(v.template)), v.error, v.name));
  }
  for (const v of tpl.invalid_parse) {
    test(`invalid parse ${v.name}: ${v.error}`, () => assertKind(thrown(() => make(v).parse(v.text)), v.error, v.name));
  }
  for (const v of tpl.invalid_format) {
    test(`invalid format ${v.name}: ${v.error}`, () => {
      for (const seq of [BigInt(v.sequence), Number(v.sequence)]) {
        assertKind(thrown(() => make(v).format(v.time_ms, seq)), v.error, v.name);
      }
    });
  }
  for (const v of tpl.daily) {
    test(`daily ${v.name}: a fresh counter at each time in turn`, () => {
      const orders = new OrderNumbers(make(v));
      assert.deepEqual(v.times_ms.map((t) => orders.next(t)), v.formatted);
      // the same with the times as Dates, on another fresh counter
      const again = new OrderNumbers(make(v));
      assert.deepEqual(v.times_ms.map((t) => again.next(new Date(t))), v.formatted);
    });
  }
});

// ---------------------------------------------------------------------------------------------
describe('error mapping', () => {
  const NEW_KINDS = [
    'invalid_key',
    'invalid_encoding',
    'invalid_template',
    'counter_overflow',
    'invalid_uuid',
    'check_digit_mismatch',
  ];
  const require = createRequire(import.meta.url);
  const cjs = require('../index.js');

  for (const kind of NEW_KINDS) {
    test(`${kind}: its class, exported from both entries, an IdmintError and not a RangeError`, () => {
      const name = kind.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + 'Error';
      const C = idmint[name];
      assert.equal(typeof C, 'function', name);
      assert.equal(cjs[name], C);
      assert.equal(idmint.errors[kind], C);
      assert.ok(idmint.ERROR_KINDS.includes(kind));
      const e = new C('m');
      assert.equal(e.code, kind.toUpperCase());
      assert.equal(e.kind, kind);
      assert.equal(e.name, name);
      assert.ok(e instanceof idmint.IdmintError);
      assert.equal(e instanceof RangeError, false);
    });
  }

  test('each new kind as the API raises it', () => {
    const ring = Keyring.fromText('idmint-key-v1:000102030405060708090a0b0c0d0e0f');
    assertKind(thrown(() => ring.reveal(5n, 7)), 'invalid_key', 'reveal with a version the ring lacks');
    assertKind(thrown(() => Keyring.generate(62)), 'invalid_key', 'generate(62)');
    assertKind(thrown(() => Keyring.generate(300n)), 'invalid_key', 'generate(300n)');
    assertKind(thrown(() => ring.reveal(5n, -1)), 'invalid_key', 'reveal version -1');
    assertKind(thrown(() => decode('U', 'base32')), 'invalid_encoding', 'decode U');
    assertKind(thrown(() => new Template('%Y%M%D')), 'invalid_template', 'no sequence');
    assertKind(thrown(() => new Template(42)), 'invalid_template', 'not a string');
    assertKind(thrown(() => new Template('%Y%M%D%19S').formatSnowflake(2n ** 63n, 'twitter')), 'invalid_id', 'formatSnowflake of 2^63');
    assertKind(thrown(() => new Template('%Y%M%D-%12S').formatSnowflake(1n, 'twitter')), 'invalid_template', 'too narrow for snowflakes');
    const orders = new OrderNumbers(new Template('%Y%M%D%1S'));
    for (let i = 1; i <= 9; i++) assert.equal(orders.next(0), `19700101${i}`);
    const over = thrown(() => orders.next(0));
    assertKind(over, 'counter_overflow', 'the tenth number of a day with %1S');
    assert.match(over.message, /1970-01-01/);
    assertKind(thrown(() => parseUuid7('nope')), 'invalid_uuid', 'parseUuid7');
    assertKind(thrown(() => parseUlid(12)), 'invalid_uuid', 'parseUlid(number)');
    const luhn = new Template('SO-%6S', { check: 'luhn' });
    const n = luhn.format(0, 7);
    assertKind(thrown(() => luhn.parse(n.replace('7', '8'))), 'check_digit_mismatch', 'typo');
  });

  test('arguments the core refuses: invalid_argument, time_out_of_range, value_out_of_range', () => {
    assertKind(thrown(() => encode(1n, 'base64')), 'invalid_argument', 'encoding name');
    assertKind(thrown(() => decode('1', 'base64')), 'invalid_argument', 'encoding name');
    assertKind(thrown(() => encode(1n)), 'invalid_argument', 'no encoding');
    assertKind(thrown(() => new Template('%5S', { offset: 'Asia/Shanghai' })), 'invalid_argument', 'IANA zone');
    assertKind(thrown(() => new Template('%5S', { check: 'crc' })), 'invalid_argument', 'check');
    assertKind(thrown(() => new Template('%5S', { offset: 8 })), 'invalid_argument', 'offset number');
    assertKind(thrown(() => new Template('%5S', { zone: 'Z' })), 'invalid_argument', 'unknown option');
    assertKind(thrown(() => new Template('%L%5S').format(0, 1)), 'invalid_argument', 'no label for %L');
    assertKind(thrown(() => new Template('%2L%5S', { label: '123' })), 'invalid_argument', 'label too long');
    assertKind(thrown(() => new Template('%5S').format(253402300800000, 1)), 'invalid_argument', 'a time past 9999 (the core reads times up to 9999)');
    assertKind(thrown(() => new Template('%5S', { offset: '+08:00' }).format(253402300799999, 1)), 'time_out_of_range', 'year 10000 at +08:00');
    assertKind(thrown(() => new Template('%5S').format(0, -1)), 'value_out_of_range', 'negative sequence');
    assertKind(thrown(() => new Template('%5S').format(0, 2n ** 64n)), 'value_out_of_range', 'sequence 2^64');
    assertKind(thrown(() => new Template('%5S').format(0, 1.5)), 'invalid_argument', 'sequence 1.5');
    assertKind(thrown(() => Keyring.generate(1.5)), 'invalid_argument', 'version 1.5');
    assertKind(thrown(() => new OrderNumbers('%Y%M%D%5S')), 'invalid_argument', 'a string, not a Template');
    assertKind(thrown(() => new OrderNumbers(new Template('%Y%M%D%5S'), { day: 20240522 })), 'invalid_argument', 'day without first');
    assertKind(thrown(() => new OrderNumbers(new Template('%Y%M%D%5S'), { day: 20240522, first: 0 })), 'invalid_argument', 'first 0');
    assertKind(thrown(() => new OrderNumbers(new Template('%M%D%5S'))), 'invalid_template', 'no year');
    assertKind(thrown(() => new Keyring()), 'invalid_argument', 'new Keyring()');
  });
});

// ---------------------------------------------------------------------------------------------
describe('precision: IDs as bigint, decimal string or safe number, range-checked', () => {
  const ring = Keyring.fromText('idmint-key-v1:000102030405060708090a0b0c0d0e0f');
  const ops = {
    encode: (x) => encode(x, 'base62'),
    obfuscate: (x) => ring.obfuscate(x),
    reveal: (x) => ring.reveal(x),
    obfuscateTagged: (x) => ring.obfuscateTagged(x),
    formatSnowflake: (x) => new Template('%19S').formatSnowflake(x, 'twitter'),
  };
  for (const [name, op] of Object.entries(ops)) {
    test(`${name}: a number above 2^53-1 is an InvalidIdError (a RangeError) naming the value`, () => {
      const e = thrown(() => op(2 ** 53));
      assertKind(e, 'invalid_id', name);
      assert.ok(e instanceof RangeError);
      assert.match(e.message, /9007199254740992/);
    });
    test(`${name}: negative, not whole, not decimal, not an ID type: InvalidIdError naming the value`, () => {
      for (const [bad, shown] of [[-1n, '-1'], ['-5', '-5'], [-1, '-1'], [1.5, '1.5'], ['0x10', '0x10'], [' 1', ' 1'], ['', '``'], [null, 'null'], [{}, 'object']]) {
        const e = thrown(() => op(bad), `${name}(${String(bad)})`);
        assertKind(e, 'invalid_id', `${name}(${String(bad)})`);
        assert.ok(e.message.includes(shown), `${e.message} names ${shown}`);
      }
    });
    test(`${name}: a bigint above 2^64-1 is an InvalidIdError naming it`, () => {
      const e = thrown(() => op(2n ** 64n));
      assertKind(e, 'invalid_id', name);
      assert.match(e.message, /18446744073709551616/);
      assertKind(thrown(() => op('18446744073709551616')), 'invalid_id', name);
    });
  }
  test('bigint, string and number give the same result', () => {
    for (const [name, op] of Object.entries(ops)) {
      assert.deepEqual(op(12345n), op('12345'), name);
      assert.deepEqual(op(12345), op('12345'), name);
    }
  });
  test('encode takes the whole u64 range; obfuscation only 0..=2^63-1 (the core says so)', () => {
    assert.equal(encode(2n ** 64n - 1n, 'base62'), 'LygHa16AHYF');
    assert.equal(encode('18446744073709551615', 'base32'), 'FZZZZZZZZZZZZ');
    const e = thrown(() => ring.obfuscate(2n ** 64n - 1n));
    assertKind(e, 'invalid_id');
    assert.match(e.message, /18446744073709551615/);
    assert.equal(ring.reveal(ring.obfuscate(2n ** 63n - 1n)), 2n ** 63n - 1n);
  });
  test('decode returns a bigint, also above 2^53', () => {
    assert.equal(decode('LygHa16AHYF', 'base62'), 2n ** 64n - 1n);
    assert.equal(decode('1', 'base62'), 1n);
  });
  test('decode of a non-string: InvalidEncodingError naming it', () => {
    const e = thrown(() => decode(123, 'base62'));
    assertKind(e, 'invalid_encoding');
    assert.match(e.message, /123/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('Keyring', () => {
  const TWO = 'idmint-key-v1:000102030405060708090a0b0c0d0e0f\n# rotated 2024-05\nidmint-key-v2:f0e0d0c0b0a090807060504030201000\n';
  test('rotation: the highest version obfuscates, every version reveals', () => {
    const ring = Keyring.fromText(TWO);
    const old = Keyring.fromText('idmint-key-v1:000102030405060708090a0b0c0d0e0f');
    assert.deepEqual(ring.versions, [1, 2]);
    assert.equal(ring.activeVersion, 2);
    const tagged = ring.obfuscateTagged(42n);
    assert.equal(tagged.length, 12);
    assert.equal(tagged[0], '2');
    assert.equal(ring.revealTagged(tagged), 42n);
    assert.equal(ring.revealTagged(old.obfuscateTagged(42n)), 42n);
    assert.equal(ring.reveal(old.obfuscate(42n), 1), 42n);
    assert.equal(ring.reveal(old.obfuscate(42n), 1n), 42n);
    assert.notEqual(ring.obfuscate(42n), old.obfuscate(42n));
  });
  test('neighbouring IDs give unrelated outputs, all below 2^63', () => {
    const ring = Keyring.fromText(TWO);
    const outs = Array.from({ length: 1000 }, (_, i) => ring.obfuscate(1_000_000n + BigInt(i)));
    assert.equal(new Set(outs).size, 1000);
    assert.ok(outs.every((o) => o >= 0n && o < 2n ** 63n));
    let ascending = 0;
    for (let i = 1; i < outs.length; i++) if (outs[i] > outs[i - 1]) ascending++;
    assert.ok(ascending > 350 && ascending < 650, `${ascending} of 999 steps up`);
  });
  test('generate: a new random key of that version; toText reads back; no secret in toString/JSON/inspect', async () => {
    const a = Keyring.generate(3);
    const b = Keyring.generate(3n);
    assert.deepEqual(a.versions, [3]);
    assert.match(a.toText(), /^idmint-key-v3:[0-9a-f]{32}\n$/);
    assert.notEqual(a.toText(), b.toText());
    assert.notEqual(a.obfuscate(1n), b.obfuscate(1n));
    const c = Keyring.fromText(a.toText());
    assert.equal(c.obfuscate(99n), a.obfuscate(99n));
    const secret = a.toText().trim().split(':')[1];
    const { inspect } = await import('node:util');
    for (const shown of [String(a), JSON.stringify(a), inspect(a)]) assert.ok(!shown.includes(secret), shown);
    assert.equal(String(a), 'Keyring(v3; active v3)');
    assert.equal(inspect(a), 'Keyring(v3; active v3)');
    assert.deepEqual(a.toJSON(), { versions: [3], activeVersion: 3 });
  });
  test('two keys of one version: InvalidKeyError', () => {
    const e = thrown(() => Keyring.fromText('idmint-key-v1:000102030405060708090a0b0c0d0e0f\nidmint-key-v1:f0e0d0c0b0a090807060504030201000'));
    assertKind(e, 'invalid_key');
    assertKind(thrown(() => Keyring.fromText('# nothing\n')), 'invalid_key', 'no keys');
    assertKind(thrown(() => Keyring.fromText(undefined)), 'invalid_key', 'undefined');
  });
});

// ---------------------------------------------------------------------------------------------
describe('UUIDv7', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  test('uuid7(): version 7, now, strictly increasing', () => {
    const before = Date.now();
    const ids = Array.from({ length: 10_000 }, () => uuid7());
    const after = Date.now();
    for (const u of ids) assert.match(u, UUID);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${ids[i - 1]} < ${ids[i]}`);
    const t = parseUuid7(ids[0]).timestampMs;
    // the generator may run ahead by a few ms under load (RFC 9562 §6.2), never behind
    assert.ok(t >= before - 1 && t <= after + 50, `${before} <= ${t} <= ${after}`);
  });
  test('Uuid7Generator: next() and nextUlid() share one increasing sequence', () => {
    const g = new Uuid7Generator();
    const a = g.next();
    const b = parseUlid(g.nextUlid()).uuid;
    const c = g.next();
    assert.match(a, UUID);
    assert.ok(a < b && b < c, `${a} ${b} ${c}`);
    const ulid = g.nextUlid();
    assert.match(ulid, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    const p = parseUlid(ulid);
    assert.equal(p.ulid, ulid);
    assert.ok(p.uuid > c);
  });
  test('within a millisecond, rand_a counts up by one', () => {
    const g = new Uuid7Generator();
    const ps = Array.from({ length: 100 }, () => parseUuid7(g.next()));
    let same = 0;
    for (let i = 1; i < ps.length; i++) {
      if (ps[i].timestampMs === ps[i - 1].timestampMs) {
        assert.equal(ps[i].randA, ps[i - 1].randA + 1);
        same++;
      }
    }
    assert.ok(same > 0);
  });
});

// ---------------------------------------------------------------------------------------------
describe('Template and OrderNumbers', () => {
  test('getters', () => {
    const t = new Template('%L%Y%M%D%m%5S', { label: '7', offset: '+08:00', check: 'mod97' });
    assert.equal(t.pattern, '%L%Y%M%D%m%5S');
    assert.equal(t.label, '7');
    assert.equal(t.offsetSeconds, 8 * 3600);
    assert.equal(t.check, 'mod97');
    assert.equal(t.sequenceWidth, 5);
    assert.equal(t.capacity, 99_999);
    assert.equal(String(t), '%L%Y%M%D%m%5S');
    assert.equal(JSON.stringify({ t }), '{"t":"%L%Y%M%D%m%5S"}');
    const plain = new Template('%3S');
    assert.equal(plain.label, null);
    assert.equal(plain.offsetSeconds, 0);
    assert.equal(plain.check, 'none');
    assert.equal(new Template('%19S').capacity, 10n ** 19n - 1n);
    assert.equal(new Template('%15S').capacity, 10 ** 15 - 1);
  });
  test('dayOf in the template offset', () => {
    assert.equal(new Template('%Y%M%D%5S', { offset: '+08:00' }).dayOf(1716309000000), 20240522);
    assert.equal(new Template('%Y%M%D%5S').dayOf('2024-05-21T16:30:00Z'), 20240521);
  });
  test('formatSnowflake: the ID is the sequence, its time the date parts', () => {
    const t = new Template('%Y%M%D-%19S');
    assert.equal(t.formatSnowflake(1541815603606036480n, 'twitter'), '20220628-1541815603606036480');
    assert.equal(t.formatSnowflake('1541815603606036480', new Layout('twitter')), '20220628-1541815603606036480');
    const g = new idmint.Snowflake({ datacenter: 1, worker: 2 });
    const id = g.nextId();
    assert.equal(t.formatSnowflake(id, g), t.format(g.parse(id).time, id));
    assertKind(thrown(() => t.formatSnowflake(1n, 42)), 'invalid_argument', 'no layout');
  });
  test('OrderNumbers: resume with { day, first }; without a time it reads the clock', () => {
    const t = new Template('%Y%M%D%4S', { offset: '+08:00' });
    const day = t.dayOf(1716309000000);
    const orders = new OrderNumbers(t, { day, first: 500 });
    assert.equal(orders.next(1716309000000), '202405220500');
    assert.equal(orders.next('2024-05-21T16:30:01Z'), '202405220501');
    assert.equal(orders.template, t);
    // an earlier day than one already counted: the counter refuses it
    assertKind(thrown(() => orders.next(1716309000000 - 86_400_000)), 'clock_moved_backwards', 'the day before');
    assert.equal(orders.next(1716309000000), '202405220502', 'and the day goes on');
    const now = new OrderNumbers(t).next();
    assert.equal(now.slice(0, 8), String(t.dayOf(Date.now())));
    assert.equal(now.slice(8), '0001');
  });
});

// ---------------------------------------------------------------------------------------------
const N_WORKERS = 4;
const PER_WORKER = 50_000;

function runWorkers(source) {
  return Promise.all(
    Array.from({ length: N_WORKERS }, (_, i) =>
      new Promise((resolve, reject) => {
        const w = new Worker(source, { eval: true, workerData: i });
        w.once('message', resolve);
        w.once('error', reject);
        w.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
      })
    )
  );
}

const pkg = JSON.stringify(new URL('../index.js', import.meta.url).pathname);

test(`UUIDv7s from ${N_WORKERS} worker threads: 0 duplicates, each sequence increasing`, async () => {
  const results = await runWorkers(
    `const { parentPort } = require('node:worker_threads');
     const { Uuid7Generator, uuid7, parseUlid } = require(${pkg});
     const g = new Uuid7Generator();
     const own = new Array(${PER_WORKER});
     for (let i = 0; i < own.length; i++) own[i] = i % 2 ? g.next() : parseUlid(g.nextUlid()).uuid;
     const shared = new Array(${PER_WORKER});
     for (let i = 0; i < shared.length; i++) shared[i] = uuid7();
     let increasing = true;
     for (let i = 1; i < own.length; i++) increasing &&= own[i] > own[i - 1];
     for (let i = 1; i < shared.length; i++) increasing &&= shared[i] > shared[i - 1];
     parentPort.postMessage({ own, shared, increasing });`
  );
  const total = N_WORKERS * PER_WORKER * 2;
  const all = new Set();
  for (const r of results) {
    assert.equal(r.increasing, true, 'each worker\'s UUIDs increase');
    for (const u of r.own) all.add(u);
    for (const u of r.shared) all.add(u);
  }
  const duplicates = total - all.size;
  assert.equal(duplicates, 0, `${duplicates} duplicates in ${total}`);
  // uuid7() is one process-wide generator: its (ms, counter) slots never repeat across threads,
  // even before the 62 random bits are counted.
  const prefixes = new Set(results.flatMap((r) => r.shared.map((u) => u.slice(0, 18))));
  assert.equal(N_WORKERS * PER_WORKER - prefixes.size, 0, 'shared (ms, counter) prefixes repeated');
  // and the main thread's continues after all of them
  const last = results.map((r) => r.shared[r.shared.length - 1]).sort().at(-1);
  assert.ok(uuid7() > last);
});

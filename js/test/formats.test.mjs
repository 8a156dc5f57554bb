// Display IDs (docs/formats.md): short strings, keyed obfuscation, UUIDv7/ULID, order-number
// templates. Every case of tests/vectors/{shortid,obfuscate,uuid7,template}.json, then what the JS
// API adds over the core: argument conversion and types, bigint range checks (the exact value in
// the message, never wrapped to 64 bits), the error classes of the new kinds, the clock and
// randomness of the process or page. What only one package has stays in its own test folder
// (node/test/formats.test.mjs: CommonJS exports, util.inspect, worker threads;
// web/test/web.test.mjs: errorClass).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { idmint, vectors, TARGET } from './target.mjs';
import { thrown, assertKind, className, throwsKind, NEW_KINDS } from './helpers.mjs';

const {
  encode, decode, ENCODINGS, Keyring, uuid7, parseUuid7, parseUlid, Uuid7Generator, Template, OrderNumbers,
  IdmintError, Layout, Snowflake,
} = idmint;

const { shortid, obfuscate: obf, uuid7: uuid, template: tpl } = vectors;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_RFC3339_MS = 253402300800000; // 10000-01-01T00:00:00Z

// ---------------------------------------------------------------------------------------------
describe(`display IDs (${TARGET}): error classes`, () => {
  for (const kind of NEW_KINDS) {
    test(`${className(kind)}: code ${kind.toUpperCase()}, an IdmintError, not a RangeError`, () => {
      const name = className(kind);
      const C = idmint[name];
      assert.equal(typeof C, 'function', name);
      const e = new C('m');
      assert.equal(e.code, kind.toUpperCase());
      assert.equal(e.kind, kind);
      assert.equal(e.name, name);
      assert.equal(C.kind, kind);
      assert.ok(e instanceof IdmintError);
      assert.equal(e instanceof RangeError, false);
      assert.equal(idmint.errors[kind], C);
      assert.ok(idmint.ERROR_KINDS.includes(kind));
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
describe(`short strings (${TARGET}): shortid.json`, () => {
  test('there are vectors', () => assert.ok(shortid.valid.length > 20 && shortid.invalid.length > 10));
  test('ENCODINGS', () => assert.deepEqual([...ENCODINGS], ['base62', 'base62-fixed', 'base32', 'base32-fixed']));
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
    test(`invalid ${v.encoding} ${JSON.stringify(v.text)}: ${v.error}, naming the encoding`, () => {
      const e = throwsKind(() => decode(v.text, v.encoding), v.error, v.text);
      assert.ok(e.message.includes(v.encoding), e.message);
    });
  }
  test('fixed-width forms sort like the numbers', () => {
    const chosen = [0n, 1n, 61n, 62n, 1000n, 2n ** 53n, 2n ** 63n - 1n, 2n ** 64n - 1n];
    const ofVectors = shortid.valid.map((v) => BigInt(v.value)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const values of [chosen, ofVectors]) {
      for (const e of ['base62-fixed', 'base32-fixed']) {
        const texts = values.map((x) => encode(x, e));
        assert.deepEqual([...texts].sort(), texts, e);
      }
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
    for (const bad of ['12a', ' 12', '0x10', '', 2 ** 60, 1.5, null]) throwsKind(() => encode(bad, 'base62'), 'invalid_id', String(bad));
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

// ---------------------------------------------------------------------------------------------
describe(`obfuscation (${TARGET}): obfuscate.json`, () => {
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
        const shown = k.obfuscate(input);
        assert.equal(typeof shown, 'bigint');
        assert.equal(shown, BigInt(v.obfuscated));
        assert.equal(k.obfuscateTagged(input), v.tagged);
      }
      assert.equal(k.reveal(BigInt(v.obfuscated)), BigInt(v.id));
      assert.equal(k.reveal(v.obfuscated, k.activeVersion), BigInt(v.id));
      assert.equal(k.revealTagged(v.tagged), BigInt(v.id));
    });
  }
  const any = Keyring.fromText(obf.valid[0].key);
  for (const v of obf.invalid_ids) {
    test(`invalid id ${v.name}: ${v.error}, a RangeError naming the ID`, () => {
      for (const input of [BigInt(v.id), v.id]) {
        for (const [op, f] of [['obfuscate', () => any.obfuscate(input)], ['reveal', () => any.reveal(input)], ['obfuscateTagged', () => any.obfuscateTagged(input)]]) {
          const e = throwsKind(f, v.error, `${op}(${typeof input})`);
          assert.ok(e instanceof RangeError);
          assert.ok(e.message.includes(v.id), e.message);
        }
      }
      assert.match(thrown(() => any.obfuscate(BigInt(v.id))).message, new RegExp(v.id));
    });
  }
  test('beyond 64 bits: refused with the exact value, before the backend could wrap it', () => {
    for (const id of [1n << 64n, (1n << 64n) + 1n, -1n, (1n << 63n) * 4n + 7n]) {
      const e = throwsKind(() => any.obfuscate(id), 'invalid_id', String(id));
      assert.ok(e.message.includes(String(id)), e.message);
      throwsKind(() => any.reveal(id), 'invalid_id', String(id));
    }
  });
  for (const v of obf.invalid_keys) {
    test(`invalid key ${v.name}: ${v.error}`, () => {
      const e = throwsKind(() => Keyring.fromText(v.key), v.error, v.name);
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
  test('a tagged form that is not a string: InvalidEncodingError', () => {
    throwsKind(() => any.revealTagged(12), 'invalid_encoding');
  });
});

// ---------------------------------------------------------------------------------------------
describe(`Keyring (${TARGET})`, () => {
  const V1 = 'idmint-key-v1:000102030405060708090a0b0c0d0e0f';
  const V2 = 'idmint-key-v2:f0e0d0c0b0a090807060504030201000';
  // the same two keys with a comment between them, and with a comment and a blank line before them
  const RINGS = [`${V1}\n# rotated 2024-05\n${V2}\n`, `# keys\n\n${V1}\n${V2}\n`];
  test('rotation: the highest version obfuscates, every version reveals', () => {
    const old = Keyring.fromText(V1);
    for (const text of RINGS) {
      const ring = Keyring.fromText(text);
      assert.deepEqual(ring.versions, [1, 2]);
      assert.equal(ring.activeVersion, 2);
      const tagged = ring.obfuscateTagged(42n);
      assert.equal(tagged.length, 12);
      assert.equal(tagged[0], '2');
      assert.equal(ring.revealTagged(tagged), 42n);
      assert.equal(ring.revealTagged(old.obfuscateTagged(42n)), 42n);
      const shownOld = old.obfuscate(42n);
      assert.equal(ring.reveal(shownOld, 1), 42n);
      assert.equal(ring.reveal(shownOld, 1n), 42n);
      assert.notEqual(ring.obfuscate(42n), shownOld);
      throwsKind(() => ring.reveal(shownOld, 3), 'invalid_key');
      throwsKind(() => ring.reveal(shownOld, 300), 'invalid_key');
      throwsKind(() => ring.reveal(shownOld, 1.5), 'invalid_argument');
      throwsKind(() => ring.reveal(shownOld, '1'), 'invalid_argument');
    }
  });
  test('neighbouring IDs give unrelated outputs, all below 2^63', () => {
    const ring = Keyring.fromText(RINGS[0]);
    const outs = Array.from({ length: 1000 }, (_, i) => ring.obfuscate(1_000_000n + BigInt(i)));
    assert.equal(new Set(outs).size, 1000);
    assert.ok(outs.every((o) => o >= 0n && o < 2n ** 63n));
    let ascending = 0;
    for (let i = 1; i < outs.length; i++) if (outs[i] > outs[i - 1]) ascending++;
    assert.ok(ascending > 350 && ascending < 650, `${ascending} of 999 steps up`);
    // and near a snowflake of today
    const near = new Set();
    for (let i = 0n; i < 2000n; i++) {
      const o = ring.obfuscate(1541815603606036480n + i);
      assert.ok(o >= 0n && o < 1n << 63n);
      near.add(o);
    }
    assert.equal(near.size, 2000);
    const [x, y] = [ring.obfuscate(1000n), ring.obfuscate(1001n)];
    assert.ok(x - y > 1000n || y - x > 1000n);
  });
  test('generate: a new random key of that version; toText reads back; no secret in toString/JSON', () => {
    for (const [version, again] of [[3, 3n], [5, 5]]) {
      const a = Keyring.generate(version);
      const b = Keyring.generate(again);
      assert.deepEqual(a.versions, [version]);
      assert.match(a.toText(), new RegExp(`^idmint-key-v${version}:[0-9a-f]{32}\\n$`));
      assert.notEqual(a.toText(), b.toText());
      assert.notEqual(a.obfuscate(1n), b.obfuscate(1n));
      const c = Keyring.fromText(a.toText());
      assert.equal(c.obfuscate(99n), a.obfuscate(99n));
      for (const id of [0n, 1n, 12345n, (1n << 63n) - 1n]) {
        assert.equal(c.obfuscate(id), a.obfuscate(id));
        assert.equal(a.reveal(a.obfuscate(id)), id);
      }
      const secret = a.toText().trim().split(':')[1];
      assert.equal(secret, a.toText().slice(14, 46));
      for (const shown of [String(a), JSON.stringify(a)]) assert.ok(!shown.includes(secret), shown);
      assert.equal(String(a), `Keyring(v${version}; active v${version})`);
      assert.deepEqual(a.toJSON(), { versions: [version], activeVersion: version });
      assert.deepEqual(JSON.parse(JSON.stringify({ a })), { a: { versions: [version], activeVersion: version } });
    }
    assert.equal(Keyring.generate(0).activeVersion, 0);
    assert.equal(Keyring.generate(61n).activeVersion, 61);
    for (const v of [62, 255, 256, 300, -1]) assert.match(throwsKind(() => Keyring.generate(v), 'invalid_key', String(v)).message, /0..=61/);
    throwsKind(() => Keyring.generate(1.5), 'invalid_argument');
    throwsKind(() => Keyring.generate(), 'invalid_argument');
    throwsKind(() => new Keyring(V1), 'invalid_argument');
  });
  test('two keys of one version, no key, not text: InvalidKeyError', () => {
    const e = thrown(() => Keyring.fromText(`${V1}\nidmint-key-v1:f0e0d0c0b0a090807060504030201000`));
    assertKind(e, 'invalid_key');
    throwsKind(() => Keyring.fromText(`${V1}\n${V2}\nidmint-key-v2:00000000000000000000000000000000`), 'invalid_key');
    assertKind(thrown(() => Keyring.fromText('# nothing\n')), 'invalid_key', 'no keys');
    assertKind(thrown(() => Keyring.fromText(undefined)), 'invalid_key', 'undefined');
    throwsKind(() => Keyring.fromText(42), 'invalid_key', '42');
  });
});

// ---------------------------------------------------------------------------------------------
describe(`precision (${TARGET}): IDs as bigint, decimal string or safe number, range-checked`, () => {
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
describe(`UUIDv7 and ULID (${TARGET}): uuid7.json`, () => {
  const hex16 = (b) => b.toString(16).padStart(16, '0');
  test('the first vector is RFC 9562 A.6', () => assert.equal(uuid.valid[0].name, 'rfc9562_a6'));
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
        assert.equal(p.randB, BigInt(`0x${v.rand_b}`));
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
  test('one form is not the other, nor a non-string: InvalidUuidError', () => {
    throwsKind(() => parseUuid7(uuid.valid[0].ulid), 'invalid_uuid', 'a ULID is not a UUID text');
    throwsKind(() => parseUlid(uuid.valid[0].uuid), 'invalid_uuid', 'a UUID is not a ULID text');
    throwsKind(() => parseUuid7(null), 'invalid_uuid');
    throwsKind(() => parseUlid(123), 'invalid_uuid');
  });
});

// ---------------------------------------------------------------------------------------------
describe(`UUIDv7 (${TARGET}): minting`, () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  test('uuid7(): version 7, strictly increasing, the time of Date.now()', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, () => uuid7());
    const mid = Date.now();
    ids.push(...Array.from({ length: 5000 }, () => uuid7()));
    const after = Date.now();
    for (const u of ids) assert.match(u, UUID);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${ids[i - 1]} < ${ids[i]}`);
    const first = parseUuid7(ids[0]).timestampMs;
    assert.ok(first >= before && first <= mid, `${first} not in ${before}..${mid}`);
    // the counter may carry into the timestamp under a burst (RFC 9562 §6.2): a few ms ahead at
    // most, never behind
    const last = parseUuid7(ids[4999]).timestampMs;
    assert.ok(last >= before && last <= mid + 5, `${last} not in ${before}..${mid}+5`);
    assert.ok(parseUuid7(ids.at(-1)).timestampMs <= after + 50);
    assert.equal(new Set(ids.map((u) => u.slice(19))).size, ids.length, 'random tails');
  });
  test('Uuid7Generator: next() and nextUlid() share one increasing sequence', () => {
    const g = new Uuid7Generator();
    const a = g.next();
    const b = parseUlid(g.nextUlid()).uuid;
    const c = g.next();
    assert.match(a, UUID);
    assert.ok(a < b && b < c, `${a} ${b} ${c}`);
    const out = [c];
    for (let i = 0; i < 3000; i++) out.push(i % 2 ? parseUlid(g.nextUlid()).uuid : g.next());
    for (let i = 1; i < out.length; i++) assert.ok(out[i] > out[i - 1]);
    const ulid = g.nextUlid();
    assert.match(ulid, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    const p = parseUlid(ulid);
    assert.equal(p.ulid, ulid);
    assert.ok(p.uuid > out.at(-1));
    assert.ok(Math.abs(p.timestampMs - Date.now()) < 2000);
    const sorted = Array.from({ length: 100 }, () => g.nextUlid());
    assert.deepEqual([...sorted].sort(), sorted, 'ULID text sorts in time order');
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
const make = (v) => new Template(v.template, { label: v.label, offset: v.offset, check: v.check });

describe(`order-number templates (${TARGET}): template.json`, () => {
  test('there are vectors', () => assert.ok(tpl.valid.length > 5));
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
      // sequences of up to 15 digits are numbers; wider ones bigints (JSON.parse rounds those, so
      // the vector's text is the one to compare with)
      if (t.sequenceWidth <= 15) {
        assert.equal(got, Number(v.sequence));
      } else {
        assert.equal(got, BigInt(v.sequence));
      }
      assert.equal(BigInt(got), BigInt(v.sequence));
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
  test('a template or an order number that is not a string', () => {
    throwsKind(() => new Template(5), 'invalid_template');
    throwsKind(() => new Template('%5S').parse(12345), 'invalid_id');
  });
});

// ---------------------------------------------------------------------------------------------
describe(`order-number templates (${TARGET}): the JS API`, () => {
  const T = '%L%Y%M%D%m%5S';
  const AT = 1716309000000; // 2024-05-22 00:30 at +08:00

  test('options and getters', () => {
    const t = new Template(T, { label: '7', offset: '+08:00', check: 'mod97' });
    assert.equal(t.pattern, T);
    assert.equal(t.label, '7');
    assert.equal(t.offsetSeconds, 8 * 3600);
    assert.equal(t.check, 'mod97');
    assert.equal(t.sequenceWidth, 5);
    assert.equal(t.capacity, 99_999);
    assert.equal(String(t), T);
    assert.equal(JSON.stringify({ t }), `{"t":"${T}"}`);
    assert.equal(t.dayOf(AT), 20240522);
    assert.equal(new Template(T, { label: '7', offset: '+08:00' }).check, 'none');
    const plain = new Template('%3S');
    assert.equal(plain.label, null);
    assert.equal(plain.offsetSeconds, 0);
    assert.equal(plain.check, 'none');
    assert.equal(new Template('%19S').capacity, 10n ** 19n - 1n);
    assert.equal(new Template('%Y%19S').capacity, 9999999999999999999n);
    assert.equal(new Template('%15S').capacity, 10 ** 15 - 1);
    const m = new Template('%Y%5S', { offset: '-05:30', check: 'mod97', label: null });
    assert.equal(m.offsetSeconds, -(5 * 3600 + 30 * 60));
    assert.equal(m.check, 'mod97');
    assert.equal(m.label, null);
  });

  test('dayOf in the template offset', () => {
    assert.equal(new Template('%Y%M%D%5S', { offset: '+08:00' }).dayOf(AT), 20240522);
    assert.equal(new Template('%Y%M%D%5S').dayOf(AT), 20240521);
    assert.equal(new Template('%Y%M%D%5S').dayOf('2024-05-21T16:30:00Z'), 20240521);
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

  test('formatSnowflake: the whole ID as the sequence, its time the date parts, checked for width', () => {
    const id = 1541815603606036480n;
    const t = new Template('%Y%M%D-%19S');
    assert.equal(t.formatSnowflake(id, 'twitter'), '20220628-1541815603606036480');
    assert.equal(t.formatSnowflake(String(id), new Layout('twitter')), '20220628-1541815603606036480');
    const g = new Snowflake({ datacenter: 1, worker: 2 });
    const fresh = g.nextId();
    assert.equal(t.formatSnowflake(fresh, g), t.format(g.parse(fresh).time, fresh));
    const twitter = new Snowflake({ layout: 'twitter', datacenter: 1, worker: 2 });
    const tweet = twitter.nextId();
    assert.equal(t.parse(t.formatSnowflake(tweet, twitter)).sequence, tweet);
    throwsKind(() => new Template('%Y%M%D-%12S').formatSnowflake(id, 'twitter'), 'invalid_template');
    throwsKind(() => t.formatSnowflake(1n << 64n, 'twitter'), 'invalid_id');
    throwsKind(() => t.formatSnowflake(1n << 63n, 'twitter'), 'invalid_id');
    throwsKind(() => t.formatSnowflake(id, 42), 'invalid_argument', 'no layout');
    throwsKind(() => t.formatSnowflake(1n, 42), 'invalid_argument', 'no layout');
  });

  test('check digits catch a typo', () => {
    const t = new Template('SO-%y%M%D-%6S', { check: 'luhn', offset: '+08:00' });
    const n = t.format(AT, 7);
    assert.equal(n, 'SO-240522-0000079'); // Luhn over 2 8 2 4 (S, O) 2 4 0 5 2 2 0 0 0 0 0 7
    assert.deepEqual(t.parse(n), { year: 2024, month: 5, day: 22, sequence: 7, check: '9' });
    const e = throwsKind(() => t.parse(n.replace('-000007', '-000008')), 'check_digit_mismatch');
    assert.ok(!(e instanceof RangeError));
  });

  test('OrderNumbers: resume with { day, first }; an earlier day is refused, the day goes on', () => {
    const t = new Template('%Y%M%D%4S', { offset: '+08:00' });
    const day = t.dayOf(AT);
    const orders = new OrderNumbers(t, { day, first: 500 });
    assert.equal(orders.next(AT), '202405220500');
    assert.equal(orders.next('2024-05-21T16:30:01Z'), '202405220501');
    assert.equal(orders.template, t);
    // an earlier day than one already counted: the counter refuses it
    assertKind(thrown(() => orders.next(AT - 86_400_000)), 'clock_moved_backwards', 'the day before');
    assert.equal(orders.next(AT), '202405220502', 'and the day goes on');
    // a narrower sequence: the next day starts at 1, and the day before it is then refused
    const resumed = new OrderNumbers(new Template('%Y%M%D%3S', { offset: '+08:00' }), { day: 20240522, first: 500 });
    assert.equal(resumed.next(AT), '20240522500');
    assert.equal(resumed.next(new Date(AT)), '20240522501');
    assert.equal(resumed.next(AT + 86_400_000), '20240523001');
    throwsKind(() => resumed.next(AT), 'clock_moved_backwards');
  });

  test('OrderNumbers: without a time it reads the clock', () => {
    const t = new Template('%Y%M%D%4S', { offset: '+08:00' });
    const now = new OrderNumbers(t).next();
    assert.equal(now.slice(0, 8), String(t.dayOf(Date.now())));
    assert.equal(now.slice(8), '0001');
    const t3 = new Template('%Y%M%D%3S', { offset: '+08:00' });
    const orders = new OrderNumbers(t3);
    assert.equal(orders.template, t3);
    const today = t3.dayOf(Date.now());
    const a = orders.next();
    const b = orders.next();
    assert.ok(a === `${today}001` || a.endsWith('001'), a);
    assert.equal(t3.parse(b).sequence, 2);
    throwsKind(() => orders.next('yesterday'), 'invalid_argument');
  });

  test('OrderNumbers: overflow and bad arguments', () => {
    const small = new OrderNumbers(new Template('%Y%M%D%1S'));
    for (let i = 1; i <= 9; i++) assert.equal(small.next(AT), `20240521${i}`);
    const over = throwsKind(() => small.next(AT), 'counter_overflow');
    assert.match(over.message, /2024-05-21 \(\+00:00\)/);
    assert.ok(!(over instanceof RangeError));
    const t = new Template('%Y%M%D%3S', { offset: '+08:00' });
    throwsKind(() => new OrderNumbers(new Template('%H%m%5S')), 'invalid_template');
    throwsKind(() => new OrderNumbers('%Y%M%D%3S'), 'invalid_argument');
    throwsKind(() => new OrderNumbers(t, { day: 20240522 }), 'invalid_argument');
    throwsKind(() => new OrderNumbers(t, { day: 20240522, first: 0 }), 'invalid_argument');
    throwsKind(() => new OrderNumbers(t, { day: 20240522, first: -1n }), 'invalid_argument');
    throwsKind(() => new OrderNumbers(t, { day: 2 ** 40, first: 1 }), 'invalid_argument');
  });
});

// Drizzle, TypeORM and Knex on a real PostgreSQL through the pg driver, with the package's
// helpers (interop.js), as docs/node-frameworks.md shows them: rows get idmint keys, `bigint`
// columns round-trip exactly, and no ID (all of them above 2^53) is ever a JS number.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import knexFactory from 'knex';
import { drizzle } from 'drizzle-orm/node-postgres';
import { pgTable, bigint, text } from 'drizzle-orm/pg-core';
import { eq, sql } from 'drizzle-orm';
import { DataSource, EntitySchema, EventSubscriber } from 'typeorm';
import {
  Snowflake, SegmentClient, RedisSnowflake, idDefault, assignIds, idFromDatabase, bigintTransformer, typeormSubscriber,
  pgBigintTypes, InvalidIdError, ValueOutOfRangeError, InvalidArgumentError,
} from '../index.mjs';
import { server, unique } from './stores.mjs';

const url = server('IDMINT_TEST_POSTGRES_URL');
const redisUrl = server('IDMINT_TEST_REDIS_URL');
const skip = url ? false : 'IDMINT_TEST_POSTGRES_URL not set';
const ABOVE_53 = 2n ** 53n;

/** Every value of every row (nested) that is a number: there must be none among the IDs. */
function numbersIn(rows, keys) {
  return rows.flatMap((r) => keys.filter((k) => typeof r[k] === 'number').map((k) => `${k}=${r[k]}`));
}

/** IDs strictly increasing, all bigints above 2^53 and unique. */
function assertIds(ids, what) {
  for (const id of ids) assert.equal(typeof id, 'bigint', `${what}: ${id} is a ${typeof id}`);
  for (const id of ids) assert.ok(id > ABOVE_53, `${what}: ${id} is not above 2^53`);
  assert.equal(new Set(ids).size, ids.length, `${what}: repeated IDs`);
}

// A twitter-layout generator: every ID it mints today is about 2^60, far above 2^53.
const gen = new Snowflake({ layout: 'twitter', datacenter: 3, worker: 9 });
let segments; // a SegmentClient on the same PostgreSQL
let tag; // a tag whose IDs start above 2^53

before(async () => {
  if (!url) return;
  segments = await SegmentClient.connect(url);
  const name = unique('orm');
  await segments.createTag(name, { start: ABOVE_53 + 1000n, step: 100 });
  tag = await segments.tag(name);
});

after(async () => {
  await segments?.close();
});

test('idFromDatabase: decimal text and bigints exactly; a number only while exact', () => {
  assert.equal(idFromDatabase('1541815603606036480'), 1541815603606036480n);
  assert.equal(idFromDatabase('18446744073709551615'), 2n ** 64n - 1n);
  assert.equal(idFromDatabase(7n), 7n);
  assert.equal(idFromDatabase(42), 42n);
  // A driver that parsed int8 into a number has already rounded anything above 2^53-1.
  assert.throws(() => idFromDatabase(2 ** 53 + 2), InvalidArgumentError);
  for (const bad of ['', '-1', '1e3', ' 1', '0x10', '18446744073709551616']) {
    assert.throws(() => idFromDatabase(bad), InvalidIdError, JSON.stringify(bad));
  }
  assert.throws(() => idFromDatabase(-1), InvalidIdError);
  assert.throws(() => idFromDatabase(1.5), InvalidArgumentError);
  assert.throws(() => idFromDatabase({}), InvalidArgumentError);
  assert.equal(bigintTransformer.from(null), null);
  assert.equal(bigintTransformer.from('9007199254740993'), 9007199254740993n);
  assert.equal(bigintTransformer.to(9007199254740993n), 9007199254740993n);
});

test('idDefault and assignIds refuse what is not an ID source', async () => {
  assert.throws(() => idDefault({ nextId: () => 1 }), InvalidArgumentError);
  await assert.rejects(assignIds([{}], gen, { column: '' }), InvalidArgumentError);
  await assert.rejects(assignIds('rows', gen), InvalidArgumentError);
  // Rows with an ID keep it; the others get increasing ones.
  const rows = await assignIds([{ id: 5n }, {}, { id: null }], gen);
  assert.equal(rows[0].id, 5n);
  assert.ok(rows[1].id > ABOVE_53 && rows[2].id > rows[1].id);
});

test('pg: pgBigintTypes reads int8 and int8[] as bigints; pg alone gives text, never a number', { skip }, async () => {
  const big = '9223372036854775807'; // 2^63-1: as a number it would be 9223372036854775808
  const plain = new pg.Client({ connectionString: url });
  await plain.connect();
  try {
    const { rows } = await plain.query(`select ${big}::int8 as id`);
    assert.equal(rows[0].id, big);
  } finally {
    await plain.end();
  }
  const pool = new pg.Pool({ connectionString: url, types: pgBigintTypes(pg.types), max: 2 });
  try {
    const { rows } = await pool.query(
      `select ${big}::int8 as id, null::int8 as none, array[1, ${big}, null]::int8[] as ids, 7::int4 as small`
    );
    assert.deepEqual(rows[0], { id: 2n ** 63n - 1n, none: null, ids: [1n, 2n ** 63n - 1n, null], small: 7 });
  } finally {
    await pool.end();
  }
  assert.throws(() => pgBigintTypes({}), InvalidArgumentError);
});

test('Drizzle: $defaultFn(idDefault(generator)) keys, bigint mode round-trips', { skip }, async () => {
  const table = unique('drizzle_orders');
  const orders = pgTable(table, {
    id: bigint('id', { mode: 'bigint' }).primaryKey().$defaultFn(idDefault(gen)),
    item: text('item').notNull(),
  });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const db = drizzle({ client: pool });
  try {
    await db.execute(sql.raw(`create table ${table} (id bigint primary key, item text not null)`));
    const inserted = await db.insert(orders).values([{ item: 'tea' }, { item: 'cake' }, { item: 'jam' }]).returning();
    assert.deepEqual(numbersIn(inserted, ['id']), []);
    assertIds(inserted.map((r) => r.id), 'drizzle insert');
    // Read back by key: the exact bigint, equal to what was minted.
    const [cake] = await db.select().from(orders).where(eq(orders.id, inserted[1].id));
    assert.deepEqual(cake, inserted[1]);
    const all = await db.select().from(orders).orderBy(orders.id);
    assert.deepEqual(all, inserted, 'snowflake keys sort as they were minted');
    // The database agrees digit for digit (text of the stored int8).
    const text_ = await db.execute(sql.raw(`select id::text as t from ${table} order by id`));
    assert.deepEqual(text_.rows.map((r) => r.t), inserted.map((r) => String(r.id)));
  } finally {
    await db.execute(sql.raw(`drop table if exists ${table}`));
    await pool.end();
  }
});

test('idDefault with a segment tag: synchronous IDs from the tag\'s memory', { skip }, async () => {
  await tag.nextIdAsync(); // the first range is in memory now
  const next = idDefault(tag);
  const a = next();
  const b = next();
  assert.ok(typeof a === 'bigint' && a > ABOVE_53 && b > a, `${a} ${b}`);
});

test('TypeORM: EntitySchema + typeormSubscriber + bigintTransformer', { skip }, async () => {
  const tableName = unique('typeorm_orders');
  const Order = new EntitySchema({
    name: 'Order',
    tableName,
    columns: {
      id: { type: 'bigint', primary: true, transformer: bigintTransformer },
      item: { type: 'text' },
    },
  });
  // Segment IDs above 2^53, drawn before each insert (waiting for a refill if need be).
  const OrderIds = typeormSubscriber(Order, tag);
  EventSubscriber()(OrderIds); // what @EventSubscriber() does to a class
  const ds = new DataSource({
    type: 'postgres',
    url,
    entities: [Order],
    subscribers: [OrderIds],
    synchronize: true,
    logging: false,
  });
  await ds.initialize();
  try {
    const repo = ds.getRepository(Order);
    const saved = await repo.save([{ item: 'tea' }, { item: 'cake' }, { item: 'jam' }]);
    assertIds(saved.map((o) => o.id), 'typeorm save');
    assert.deepEqual(numbersIn(saved, ['id']), []);
    const found = await repo.findOneBy({ id: saved[1].id });
    assert.deepEqual(found, { id: saved[1].id, item: 'cake' });
    const all = await repo.find({ order: { id: 'ASC' } });
    assert.deepEqual(numbersIn(all, ['id']), []);
    assert.deepEqual(all.map((o) => o.id), saved.map((o) => o.id));
    // An entity that has its key keeps it.
    const own = await repo.save({ id: ABOVE_53 + 7n, item: 'own' });
    assert.equal((await repo.findOneByOrFail({ item: 'own' })).id, own.id);
    // The stored digits are the minted ones.
    const rows = await ds.query(`select id::text as t from ${tableName} where item = 'cake'`);
    assert.equal(rows[0].t, String(saved[1].id));
  } finally {
    await ds.query(`drop table if exists ${tableName}`);
    await ds.destroy();
  }
});

test('Knex: assignIds draws a batch, pgBigintTypes reads it back as bigints', { skip }, async () => {
  const table = unique('knex_orders');
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString: url, types: pgBigintTypes(pg.types) },
    pool: { min: 0, max: 2 },
  });
  try {
    await knex.schema.createTable(table, (t) => {
      t.bigInteger('id').primary();
      t.text('item').notNullable();
    });
    // Segment IDs: 250 rows, more than the tag's step of 100, in one contiguous run.
    const rows = Array.from({ length: 250 }, (_, i) => ({ item: `item ${i}` }));
    const inserted = await knex(table).insert(await assignIds(rows, tag)).returning(['id', 'item']);
    assertIds(inserted.map((r) => r.id), 'knex insert');
    assert.deepEqual(numbersIn(inserted, ['id']), []);
    const ids = inserted.map((r) => r.id);
    assert.ok(ids.every((id, i) => i === 0 || id === ids[i - 1] + 1n), 'one contiguous run');
    const one = await knex(table).where({ id: ids[200] }).first();
    assert.deepEqual(one, { id: ids[200], item: 'item 200' });
    const { rows: agg } = await knex.raw(`select array_agg(id order by id) as ids, max(id) as top from ${table}`);
    assert.deepEqual(agg[0].ids, ids);
    assert.equal(agg[0].top, ids.at(-1));
    // Snowflake IDs into the same table.
    const more = await knex(table).insert(await assignIds([{ item: 'x' }, { item: 'y' }], gen)).returning('id');
    assertIds(more.map((r) => r.id), 'knex snowflake insert');
  } finally {
    await knex.schema.dropTableIfExists(table);
    await knex.destroy();
  }
});

test('ValueOutOfRangeError: a segment ID above 2^53 asked for as a number', { skip }, async () => {
  assert.throws(() => tag.nextNumber(), ValueOutOfRangeError);
});

test('Knex with snowflakes minted on Redis: assignIds takes a RedisSnowflake too', { skip: url && redisUrl ? false : 'IDMINT_TEST_POSTGRES_URL or IDMINT_TEST_REDIS_URL not set' }, async () => {
  const redisIds = await RedisSnowflake.connect(redisUrl, { tag: unique('orm'), shard: 5 });
  const table = unique('knex_redis');
  const knex = knexFactory({ client: 'pg', connection: { connectionString: url, types: pgBigintTypes(pg.types) } });
  try {
    await knex.schema.createTable(table, (t) => {
      t.bigInteger('id').primary();
      t.text('item');
    });
    const rows = await assignIds(Array.from({ length: 20 }, (_, i) => ({ item: String(i) })), redisIds);
    const back = await knex(table).insert(rows).returning('id');
    assertIds(back.map((r) => r.id), 'redis snowflakes');
    assert.deepEqual(back.map((r) => r.id), rows.map((r) => r.id));
    // From memory, synchronously, once the generator holds IDs.
    await redisIds.nextIdAsync();
    assert.equal(typeof idDefault(redisIds)(), 'bigint');
  } finally {
    await knex.schema.dropTableIfExists(table);
    await knex.destroy();
    await redisIds.close();
  }
});

'use strict';
// Helpers for the places application code meets IDs: column defaults (Drizzle's `$defaultFn`),
// TypeORM's subscribers and column transformers, rows for Knex, and PostgreSQL's `bigint`
// through the pg driver. None of those libraries is a dependency: each helper is plain JS that
// they call. Wiring and conversion only: IDs come from the package's generators, and text read
// back from a database becomes a bigint by the core's rules (`parseDecimalId`), never a number.

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function interopApi(native, idmint, { SegmentTag, RedisSnowflake }) {
  const { Snowflake, InvalidArgumentError } = idmint.api;
  const { call, show, wholeValue } = idmint.convert;

  /**
   * `source` as `{ next, nextAsync, nextMany }`: a Snowflake (always synchronous), a SegmentTag
   * or a RedisSnowflake (synchronous only from memory: WouldBlockError when it is empty).
   */
  function sourceOf(source) {
    if (source instanceof Snowflake) {
      return {
        next: () => source.nextId(),
        nextAsync: async () => source.nextId(),
        nextMany: async (n) => Array.from(source.nextIds(n)),
      };
    }
    if (source instanceof SegmentTag) {
      return {
        next: () => source.nextId(),
        nextAsync: () => source.nextIdAsync(),
        // One contiguous run: one store round trip at most, however many rows.
        async nextMany(n) {
          const { start, end } = await source.nextIds(n);
          const out = [];
          for (let id = start; id < end; id++) out.push(id);
          return out;
        },
      };
    }
    if (source instanceof RedisSnowflake) {
      return {
        next: () => source.nextId(),
        nextAsync: () => source.nextIdAsync(),
        nextMany: (n) => source.nextIds(n),
      };
    }
    throw new InvalidArgumentError(
      `invalid argument \`source\` = ${show(source)}: a Snowflake, a SegmentTag (\`await client.tag(name)\`) or a RedisSnowflake`
    );
  }

  function columnName(column) {
    if (typeof column === 'string' && column !== '') return column;
    throw new InvalidArgumentError(`invalid argument \`column\` = ${show(column)}: a property name`);
  }

  /**
   * A synchronous `() => bigint` from `source`, for a column default that cannot wait (Drizzle's
   * `$defaultFn`, a class field's initializer).
   */
  function idDefault(source) {
    const s = sourceOf(source);
    return () => s.next();
  }

  /**
   * `rows` (objects) with IDs in `column` (default `'id'`) where it is `undefined` or `null`,
   * all drawn at once (`nextIds`: one store round trip for a segment tag); a Promise of the same
   * array. For Knex: `await knex('orders').insert(await assignIds(rows, tag))`.
   */
  async function assignIds(rows, source, { column = 'id' } = {}) {
    const name = columnName(column);
    if (!Array.isArray(rows)) {
      throw new InvalidArgumentError(`invalid argument \`rows\` = ${show(rows)}: an array of row objects`);
    }
    const s = sourceOf(source);
    const missing = rows.filter((r) => r[name] === undefined || r[name] === null);
    if (missing.length === 0) return rows;
    const ids = await s.nextMany(missing.length);
    missing.forEach((r, i) => {
      r[name] = ids[i];
    });
    return rows;
  }

  /**
   * An ID read back from a database as a bigint: decimal text by the core's rules (digits only,
   * 0..=2^64-1), a bigint as it is, a number only while it is exact (up to 2^53-1; a driver that
   * made a larger one a number has rounded it already, so it is refused, not passed on).
   */
  function idFromDatabase(value) {
    switch (typeof value) {
      case 'bigint':
        return value;
      case 'string':
        return call(() => native.parseDecimalId(value));
      case 'number': {
        // wholeValue refuses a number beyond 2^53-1 (not exact) with the value it became.
        const id = wholeValue('id', value);
        return id >= 0n && id <= MAX_SAFE ? id : call(() => native.parseDecimalId(String(id)));
      }
      default:
        throw new InvalidArgumentError(
          `invalid argument \`id\` = ${show(value)}: an ID as the database returns it (decimal text or a bigint)`
        );
    }
  }

  /**
   * A TypeORM column transformer for `bigint` IDs: the entity holds a bigint, the database its
   * decimal text (pg returns `int8` as a string, TypeORM passes it on); `null` stays `null`.
   */
  const bigintTransformer = Object.freeze({
    to: (value) => (value === undefined || value === null ? value : idFromDatabase(value)),
    from: (value) => (value === undefined || value === null ? value : idFromDatabase(value)),
  });

  /**
   * A TypeORM subscriber class that gives each new entity of `target` (an EntitySchema, its name
   * or an entity class) an ID from `source` in `column` (default `'id'`) before it is inserted,
   * unless it has one. It waits for a segment tag's refill (`nextIdAsync`) rather than fail.
   * TypeORM takes only classes its `@EventSubscriber()` marked: `EventSubscriber()(cls)`, then
   * the DataSource's `subscribers: [cls]`.
   */
  function typeormSubscriber(target, source, { column = 'id' } = {}) {
    const name = columnName(column);
    const s = sourceOf(source);
    // TypeORM compares listenTo() with the entity's metadata target, which for an EntitySchema
    // is its `target` option or else its name.
    const schema = target !== null && typeof target === 'object' ? target.options : undefined;
    const listened = schema && typeof schema.name === 'string' ? (schema.target ?? schema.name) : target;
    return class IdmintSubscriber {
      listenTo() {
        return listened;
      }

      async beforeInsert(event) {
        const entity = event.entity;
        if (entity && (entity[name] === undefined || entity[name] === null)) entity[name] = await s.nextAsync();
      }
    };
  }

  // PostgreSQL's type OIDs (pg_type.oid, fixed since PostgreSQL 7): int8 and int8[].
  const INT8 = 20;
  const INT8_ARRAY = 1016;

  /**
   * Type parsers for the pg driver (`new pg.Pool({ types })`, Knex's `connection.types`) that
   * read `bigint` columns as bigints: `types` is `pg.types`, whose parsers do everything else.
   * Only this pool's clients change (pg's global parsers stay as they are).
   */
  function pgBigintTypes(types) {
    if (!types || typeof types.getTypeParser !== 'function') {
      throw new InvalidArgumentError(`invalid argument \`types\` = ${show(types)}: pg's \`types\` (require('pg').types)`);
    }
    const exact = (text) => (text === null ? null : idFromDatabase(text));
    const deep = (v) => (Array.isArray(v) ? v.map(deep) : exact(v));
    return {
      getTypeParser(oid, format) {
        const base = types.getTypeParser(oid, format);
        // Binary results (rare with pg) keep pg's own parser.
        if (format !== undefined && format !== 'text') return base;
        if (oid === INT8) return exact;
        // pg's int8[] parser gives the elements as text: each becomes a bigint.
        if (oid === INT8_ARRAY) return (text) => (text === null ? null : deep(base(text)));
        return base;
      },
    };
  }

  return { idDefault, assignIds, idFromDatabase, bigintTransformer, typeormSubscriber, pgBigintTypes };
}

module.exports = { interopApi };

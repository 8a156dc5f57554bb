//! Segment tags in a SQL table: SQLite, PostgreSQL, MySQL/MariaDB.
//!
//! The table (name configurable, default `idmint_segments`) holds what Leaf's `leaf_alloc`
//! does: `tag` (primary key), `max_id` (the last ID handed out, `BIGINT`), `step`,
//! `description`, `updated_at`. Allocating `count` IDs is one statement that adds `count` to
//! `max_id` and reads the new value, guarded by `max_id <= 2^63-1 - count` so a counter never
//! overflows (SQLite would silently turn it into a float). One round trip, no transaction, no
//! compare-and-set retried under contention:
//!
//! - SQLite and PostgreSQL: `UPDATE … SET max_id = max_id + ? … RETURNING max_id`. SQLite runs
//!   one write transaction at a time per database file (across processes, by file locks), and
//!   a single statement is its own transaction, so the read-modify-write cannot interleave with
//!   another. In PostgreSQL the UPDATE takes the row's lock; a concurrent UPDATE of the same
//!   row waits for it and then, under READ COMMITTED, re-evaluates its WHERE clause against
//!   the *committed new* row and adds to that value, so two allocations always see different
//!   `max_id`s.
//! - MySQL and MariaDB have no `UPDATE … RETURNING`, so allocation uses the Flickr
//!   ticket-server form: `UPDATE t SET max_id = LAST_INSERT_ID(max_id + ?) WHERE …`. InnoDB's
//!   row lock makes the increment atomic, and `LAST_INSERT_ID(expr)` stores the new value in
//!   the connection's OK packet, so the statement itself returns it. (Leaf's form, `UPDATE`
//!   then `SELECT` in one transaction, is equally safe with four round trips.) The tag column
//!   is `ascii_bin`: MySQL's default collations are case-insensitive, which would make
//!   `Orders` and `orders` one counter.
//!
//! With a [`TableMapping`] the store uses, in place, a table another allocator is using
//! (Leaf's `leaf_alloc`, a `sequence_value` table): the same statements with that table's
//! column names, never a `CREATE` or `ALTER`. Its rows may mean "next ID" where idmint's mean
//! "last ID" ([`MaxIdMeaning`]); the range read out of the new value follows the table's
//! meaning, so both allocators' ranges meet exactly.

use super::store::{exhausted, give_back_to, IdRange, SegmentStore, TagInfo};
use super::tag::{check_count, TagSpec, TagUpdate, DEFAULT_TABLE};
use crate::store::{
    validate_tag, Bind, Dialect, MaxIdMeaning, Pooling, SqlTable, StoreFuture, StoreOptions,
    TableMapping, Use,
};
use crate::{Error, Result};

/// Connections in a segment store's pool unless the options or `?pool=` say otherwise: a
/// client's allocations, prefetches and admin calls at once.
const POOL: u32 = 4;

/// A segment store in a SQL table (features `sqlite`, `postgres`, `mysql`); the URL says
/// which engine: `sqlite:PATH` (created if missing) or `sqlite::memory:`,
/// `postgres://user:pass@host:port/db`, `mysql://user:pass@host:port/db` (or `mariadb://`).
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use idmint_core::segment::{SegmentStore, SqlStore, StoreOptions, TagSpec};
/// let store = SqlStore::connect("sqlite::memory:", &StoreOptions::default()).await?;
/// store.create_tag(&TagSpec::new("orders")?.step(100)?).await?;
/// assert_eq!(store.allocate("orders", 100).await?.start, 1);
/// assert_eq!(store.allocate("orders", 100).await?.start, 101);
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct SqlStore {
    table: SqlTable,
    /// The statements, written once for the table's column names.
    sql: Statements,
    max_id_is: MaxIdMeaning,
    /// Whether the table belongs to another allocator ([`TableMapping`]).
    mapped: bool,
    /// The tag column as given (for the catalog).
    tag_column: String,
}

/// The store's statements for its table's columns.
#[derive(Debug, Clone)]
struct Statements {
    /// `max_id`, `step` (0 without a step column) and `description` of a tag.
    row: String,
    /// Adds `?` to a tag's `max_id` unless it passes `?`; returns the new value except in
    /// MySQL, which returns it through `LAST_INSERT_ID`.
    add: String,
    /// Sets a tag's `max_id` to `?` if it is still `?`: the give-back's compare-and-set.
    back: String,
    /// Inserts a tag's row if missing: tag, max_id, and step and description where the table
    /// has those columns.
    insert: String,
    /// Every tag with its `row` columns, ordered by tag.
    list: String,
    /// The quoted tag, max_id, step and description columns, for `update_tag`'s statement.
    tag_col: String,
    max_col: String,
    step_col: Option<String>,
    description_col: Option<String>,
    /// `, updated = expr` where the table has an update-time column (empty otherwise).
    set_updated: String,
    /// `max_id, step, description` as `row` selects them (the `RETURNING` list).
    row_cols: String,
    has_step: bool,
    has_description: bool,
}

/// Which columns hold what, and how the update time is set when the counter moves.
struct Columns<'a> {
    tag: &'a str,
    max_id: &'a str,
    step: Option<&'a str>,
    description: Option<&'a str>,
    updated: Option<(&'a str, &'a str)>,
}

impl Statements {
    fn new(t: &SqlTable, c: &Columns<'_>) -> Statements {
        let q = |col: &str| t.quote(col);
        let (tag, max) = (q(c.tag), q(c.max_id));
        let row_cols = format!(
            "{max}, {}, {}",
            c.step.map_or("0".to_string(), q),
            c.description
                .map_or("''".to_string(), |d| format!("COALESCE({}, '')", q(d))),
        );
        let row = format!("SELECT {row_cols} FROM {{t}} WHERE {tag} = ?");
        // MySQL marks a binary-collated column (idmint's `ascii_bin` tag) BINARY, which the
        // driver will not read as text; a CAST reads it in the connection's character set.
        let tag_text = match t.dialect() {
            Dialect::MySql => format!("CAST({tag} AS CHAR)"),
            _ => tag.clone(),
        };
        let list = format!("SELECT {tag_text}, {row_cols} FROM {{t}} ORDER BY {tag}");
        let updated = c.updated.map_or(String::new(), |(col, expr)| {
            format!(", {} = {expr}", q(col))
        });
        let add = match t.dialect() {
            Dialect::MySql => format!(
                "UPDATE {{t}} SET {max} = LAST_INSERT_ID({max} + ?){updated} \
                 WHERE {tag} = ? AND {max} <= ?"
            ),
            _ => format!(
                "UPDATE {{t}} SET {max} = {max} + ?{updated} \
                 WHERE {tag} = ? AND {max} <= ? RETURNING {max}"
            ),
        };
        // One statement, so the compare and the set cannot interleave with an allocation:
        // the row's lock (PostgreSQL, InnoDB) or the database's one writer (SQLite).
        let back = format!("UPDATE {{t}} SET {max} = ?{updated} WHERE {tag} = ? AND {max} = ?");
        let mut cols = vec![tag.clone(), max.clone()];
        cols.extend(c.step.map(q));
        cols.extend(c.description.map(q));
        let marks = vec!["?"; cols.len()].join(", ");
        let insert = t
            .dialect()
            .insert_if_missing(&cols.join(", "), &marks, &tag);
        Statements {
            row,
            add,
            back,
            insert,
            list,
            tag_col: tag,
            max_col: max,
            step_col: c.step.map(q),
            description_col: c.description.map(q),
            set_updated: updated,
            row_cols,
            has_step: c.step.is_some(),
            has_description: c.description.is_some(),
        }
    }
}

/// A SQLite store (feature `sqlite`): `sqlite:PATH` (created if missing) or `sqlite::memory:`.
/// Another name of [`SqlStore`], which takes every SQL URL.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use idmint_core::segment::{SegmentStore, SqliteStore, StoreOptions, TagSpec};
/// let store = SqliteStore::connect("sqlite::memory:", &StoreOptions::default()).await?;
/// store.create_tag(&TagSpec::new("orders")?.step(100)?).await?;
/// assert_eq!(store.allocate("orders", 100).await?.start, 1);
/// assert_eq!(store.allocate("orders", 100).await?.start, 101);
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[cfg(feature = "sqlite")]
pub type SqliteStore = SqlStore;

/// A PostgreSQL store (feature `postgres`): `postgres://user:pass@host:port/db`.
/// Another name of [`SqlStore`], which takes every SQL URL.
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::segment::{PostgresStore, SegmentStore, StoreOptions};
/// let store = PostgresStore::connect("postgres://app@127.0.0.1:5432/ids", &StoreOptions::default()).await?;
/// let range = store.allocate("orders", 1000).await?;
/// # Ok(()) }
/// ```
#[cfg(feature = "postgres")]
pub type PostgresStore = SqlStore;

/// A MySQL or MariaDB store (feature `mysql`): `mysql://user:pass@host:port/db`
/// (`mariadb://` is accepted as a synonym). Another name of [`SqlStore`], which takes every
/// SQL URL.
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::segment::{MySqlStore, SegmentStore, StoreOptions};
/// let store = MySqlStore::connect("mysql://app@127.0.0.1:3306/ids", &StoreOptions::default()).await?;
/// let range = store.allocate("orders", 1000).await?;
/// # Ok(()) }
/// ```
#[cfg(feature = "mysql")]
pub type MySqlStore = SqlStore;

impl SqlStore {
    /// Connects (a SQLite file is created if missing) and creates the table if missing; with
    /// [`StoreOptions::map_table`] (or the URL's `schema=leaf`, `tag_column=` …) it uses an
    /// existing table instead, and a missing table or column is an
    /// [`Error::InvalidArgument`] naming it.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{SqlStore, StoreOptions};
    /// let opts = StoreOptions::default().table("my_segments")?;
    /// let store = SqlStore::connect("postgres://app@127.0.0.1/ids", &opts).await?;
    /// let store = SqlStore::connect("sqlite:./ids.db", &StoreOptions::default()).await?;
    /// let leaf = StoreOptions::default().map_table(idmint_core::segment::TableMapping::leaf());
    /// let store = SqlStore::connect("mysql://app@127.0.0.1/leaf", &leaf).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<SqlStore> {
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for segments, as `open_store` does.
        let (opts, url) = opts.for_url(url, Use::Segments)?;
        let (opts, url) = (&opts, url.as_str());
        let pooling = Pooling {
            connections: opts.pool_or(POOL),
            acquire_timeout: std::time::Duration::from_secs(3),
        };
        if let Some(m) = &opts.mapping {
            return SqlStore::connect_mapped(url, m, pooling).await;
        }
        let table = SqlTable::connect(url, opts.table_or(DEFAULT_TABLE), pooling).await?;
        let (tag_charset, updated_at, options) = match table.dialect() {
            Dialect::Sqlite => (
                "",
                "TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                "",
            ),
            Dialect::Postgres => ("", "TIMESTAMPTZ NOT NULL DEFAULT now()", ""),
            Dialect::MySql => (
                " CHARACTER SET ascii COLLATE ascii_bin",
                "TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)",
                " ENGINE = InnoDB DEFAULT CHARSET = utf8mb4",
            ),
        };
        table
            .create(&format!(
                "CREATE TABLE IF NOT EXISTS {{t}} (
                    tag VARCHAR(128){tag_charset} NOT NULL PRIMARY KEY,
                    max_id BIGINT NOT NULL,
                    step BIGINT NOT NULL,
                    description VARCHAR(256) NOT NULL DEFAULT '',
                    updated_at {updated_at}
                ){options}"
            ))
            .await?;
        let updated = match table.dialect() {
            Dialect::Sqlite => Some(("updated_at", "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")),
            Dialect::Postgres => Some(("updated_at", "now()")),
            // The column's ON UPDATE sets it.
            Dialect::MySql => None,
        };
        let sql = Statements::new(
            &table,
            &Columns {
                tag: "tag",
                max_id: "max_id",
                step: Some("step"),
                description: Some("description"),
                updated,
            },
        );
        Ok(SqlStore {
            table,
            sql,
            max_id_is: MaxIdMeaning::LastIssued,
            mapped: false,
            tag_column: "tag".into(),
        })
    }

    /// Connects to a table another allocator uses, after checking that it has every mapped
    /// column; never creates or alters it.
    async fn connect_mapped(url: &str, m: &TableMapping, pooling: Pooling) -> Result<SqlStore> {
        let table = SqlTable::connect(url, &m.table, pooling).await?;
        let have = table.columns().await?;
        if have.is_empty() {
            return Err(Error::InvalidArgument {
                name: "table".into(),
                value: m.table.clone(),
                expected: format!(
                    "an existing table at {}: idmint never creates a mapped table \
                     (create it, or drop the mapping options to use idmint's own table)",
                    table.describe()
                ),
            });
        }
        // PostgreSQL keeps quoted names as written; MySQL and SQLite match columns in any case.
        let exact = table.dialect() == Dialect::Postgres;
        let found = |col: &str| {
            have.iter().any(|h| {
                if exact {
                    h == col
                } else {
                    h.eq_ignore_ascii_case(col)
                }
            })
        };
        let columns = [
            ("tag_column", Some(&m.tag_column)),
            ("max_id_column", Some(&m.max_id_column)),
            ("step_column", m.step_column.as_ref()),
            ("description_column", m.description_column.as_ref()),
            ("updated_column", m.updated_column.as_ref()),
        ];
        for (option, col) in columns {
            if let Some(col) = col.filter(|c| !found(c)) {
                return Err(Error::InvalidArgument {
                    name: option.into(),
                    value: col.clone(),
                    expected: format!(
                        "a column of table `{}` at {}, which has: {}",
                        m.table,
                        table.describe(),
                        have.join(", ")
                    ),
                });
            }
        }
        let sql = Statements::new(
            &table,
            &Columns {
                tag: &m.tag_column,
                max_id: &m.max_id_column,
                step: m.step_column.as_deref(),
                description: m.description_column.as_deref(),
                updated: m
                    .updated_column
                    .as_deref()
                    .map(|c| (c, "CURRENT_TIMESTAMP")),
            },
        );
        Ok(SqlStore {
            table,
            sql,
            max_id_is: m.max_id_is,
            mapped: true,
            tag_column: m.tag_column.clone(),
        })
    }

    /// The tag's raw `max_id`, `step` (0: no step column) and `description`.
    async fn row(&self, tag: &str) -> Result<Option<(i64, i64, String)>> {
        const WHAT: &str = "reading a tag";
        let rows = self
            .table
            .rows(WHAT, &self.sql.row, &[Bind::S(tag)])
            .await?;
        let t = &self.table;
        rows.first()
            .map(|r| Ok((t.get(WHAT, r, 0)?, t.get(WHAT, r, 1)?, t.get(WHAT, r, 2)?)))
            .transpose()
    }

    /// An allocation that moved more than one row: the tag column of a mapped table is not
    /// unique, so one tag has several counters and IDs would repeat.
    fn not_unique(&self, tag: &str, rows: u64) -> Error {
        self.not_unique_while("allocating", tag, rows)
    }

    fn not_unique_while(&self, what: &str, tag: &str, rows: u64) -> Error {
        self.table.err(
            what,
            format_args!(
                "{rows} rows of `{}` have {} = `{tag}`: the tag column must be unique (a primary key or unique index)",
                self.table.name(),
                self.tag_column
            ),
        )
    }

    /// Adds `count` to the tag's `max_id` unless that passes `limit`, and returns the new
    /// raw `max_id`; `None` when no row was updated.
    async fn add(&self, tag: &str, count: u64, limit: i64) -> Result<Option<i64>> {
        const WHAT: &str = "allocating";
        let binds = [Bind::I(count as i64), Bind::S(tag), Bind::I(limit)];
        if self.table.dialect() == Dialect::MySql {
            let done = self.table.exec(WHAT, &self.sql.add, &binds).await?;
            return match done.rows_affected() {
                0 => Ok(None),
                1 => match done.last_insert_id() {
                    Some(new_max) if new_max >= 0 => Ok(Some(new_max)),
                    other => Err(self.table.err(
                        WHAT,
                        format_args!(
                            "LAST_INSERT_ID() returned {}, above 2^63-1",
                            other.unwrap_or(-1) as u64
                        ),
                    )),
                },
                n => Err(self.not_unique(tag, n)),
            };
        }
        let new_max = self.table.values(WHAT, &self.sql.add, &binds).await?;
        match new_max.len() {
            0 | 1 => Ok(new_max.first().copied()),
            n => Err(self.not_unique(tag, n as u64)),
        }
    }

    /// A row as `row` and `list` read it (`max_id`, `step`, `description` from column
    /// `first`), as a [`TagInfo`].
    fn info(&self, what: &str, tag: &str, r: &sqlx::any::AnyRow, first: usize) -> Result<TagInfo> {
        let t = &self.table;
        let max_id: i64 = t.get(what, r, first)?;
        let step: i64 = t.get(what, r, first + 1)?;
        Ok(TagInfo {
            tag: tag.to_string(),
            max_id: self.last_issued(max_id),
            // No step column (read as 0), or a nonsense step: 0, the client's default.
            step: u64::try_from(step).unwrap_or(0),
            description: t.get(what, r, first + 2)?,
        })
    }

    /// The `UPDATE` of [`SegmentStore::update_tag`] and its binds, or `None` for an update
    /// that changes nothing. A field the (mapped) table has no column for is an error
    /// naming the option that would map one, before anything is written.
    fn update_statement<'u>(
        &self,
        tag: &'u str,
        u: &'u TagUpdate,
    ) -> Result<Option<(String, Vec<Bind<'u>>)>> {
        let missing = |option: &str, field: &str| {
            Error::InvalidArgument {
            name: option.into(),
            value: "(none)".into(),
            expected: format!(
                "a column for the tag's {field} in table `{}` at {}: map one with {option}= to change it",
                self.table.name(),
                self.table.describe()
            ),
        }
        };
        let sql = &self.sql;
        let mut sets = Vec::new();
        let mut binds = Vec::new();
        if let Some(step) = u.step_value() {
            let col = sql
                .step_col
                .as_ref()
                .ok_or_else(|| missing("step_column", "step"))?;
            sets.push(format!("{col} = ?"));
            // step is 1..=2^40.
            binds.push(Bind::I(step as i64));
        }
        if let Some(d) = u.description_value() {
            let col = sql
                .description_col
                .as_ref()
                .ok_or_else(|| missing("description_column", "description"))?;
            sets.push(format!("{col} = ?"));
            binds.push(Bind::S(d));
        }
        if let Some(next) = u.next_at_least_value() {
            // The raw value whose meaning is "the next ID is `next`": next is 1..=2^63-1, so
            // both fit a BIGINT.
            let floor = match self.max_id_is {
                MaxIdMeaning::LastIssued => next - 1,
                MaxIdMeaning::NextFree => next,
            } as i64;
            let max = &sql.max_col;
            // CASE rather than GREATEST (PostgreSQL, MySQL) or max() (SQLite): one text for
            // all three. Only ever raises the counter.
            sets.push(format!("{max} = CASE WHEN {max} < ? THEN ? ELSE {max} END"));
            binds.extend([Bind::I(floor), Bind::I(floor)]);
        }
        if sets.is_empty() {
            return Ok(None);
        }
        let returning = match self.table.dialect() {
            Dialect::MySql => String::new(),
            _ => format!(" RETURNING {}", sql.row_cols),
        };
        binds.push(Bind::S(tag));
        Ok(Some((
            format!(
                "UPDATE {{t}} SET {}{} WHERE {} = ?{returning}",
                sets.join(", "),
                sql.set_updated,
                sql.tag_col
            ),
            binds,
        )))
    }

    /// A raw `max_id` as idmint's meaning: the last ID handed out.
    fn last_issued(&self, raw: i64) -> i64 {
        match self.max_id_is {
            MaxIdMeaning::LastIssued => raw,
            MaxIdMeaning::NextFree => raw.saturating_sub(1),
        }
    }
}

impl SegmentStore for SqlStore {
    fn describe(&self) -> String {
        self.table.describe().to_string()
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.table.close().await;
            Ok(())
        })
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            // A mapped table gets a row, never a change of its shape: that is how both legacy
            // allocators add a name themselves (Leaf's operators INSERT into leaf_alloc, which
            // Leaf picks up within a minute; seed 004 inserts a missing name), so the row is
            // one they read as theirs.
            if self.mapped && !self.table.is_unique_key(&self.tag_column).await? {
                return Err(Error::InvalidArgument {
                    name: "tag_column".into(),
                    value: self.tag_column.clone(),
                    expected: format!(
                        "a column that is alone a primary key or unique index of `{}`: \
                         without one a new tag could get two rows, two counters",
                        self.table.name()
                    ),
                });
            }
            let first = match self.max_id_is {
                MaxIdMeaning::LastIssued => spec.first_max_id(),
                // start <= 2^63-1, so first_max_id() + 1 cannot overflow.
                MaxIdMeaning::NextFree => spec.first_max_id() + 1,
            };
            let mut binds = vec![Bind::S(spec.tag()), Bind::I(first)];
            if self.sql.has_step {
                binds.push(Bind::I(spec.step_value() as i64));
            }
            if self.sql.has_description {
                binds.push(Bind::S(spec.description_value()));
            }
            let done = self
                .table
                .exec("creating a tag", &self.sql.insert, &binds)
                .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>> {
        Box::pin(async move {
            validate_tag(tag)?;
            const WHAT: &str = "reading a tag";
            let rows = self
                .table
                .rows(WHAT, &self.sql.row, &[Bind::S(tag)])
                .await?;
            rows.first().map(|r| self.info(WHAT, tag, r, 0)).transpose()
        })
    }

    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>> {
        Box::pin(async move {
            const WHAT: &str = "listing tags";
            let rows = self.table.rows(WHAT, &self.sql.list, &[]).await?;
            let mut tags = rows
                .iter()
                .map(|r| {
                    let tag: String = self.table.get(WHAT, r, 0)?;
                    self.info(WHAT, &tag, r, 1)
                })
                .collect::<Result<Vec<_>>>()?;
            // ORDER BY follows the database's collation (PostgreSQL's may ignore case): the
            // promise is byte order.
            tags.sort_by(|a, b| a.tag.cmp(&b.tag));
            Ok(tags)
        })
    }

    fn update_tag<'a>(&'a self, tag: &'a str, update: &'a TagUpdate) -> StoreFuture<'a, TagInfo> {
        Box::pin(async move {
            const WHAT: &str = "updating a tag";
            validate_tag(tag)?;
            let unknown = || Error::UnknownTag {
                tag: tag.to_string(),
            };
            let Some((sql, binds)) = self.update_statement(tag, update)? else {
                return self.tag_info(tag).await?.ok_or_else(unknown);
            };
            if self.table.dialect() == Dialect::MySql {
                // No RETURNING: the one UPDATE changes the row atomically, then it is read.
                // (Rows matched, not changed: sqlx asks MySQL for CLIENT_FOUND_ROWS.)
                let done = self.table.exec(WHAT, &sql, &binds).await?;
                if done.rows_affected() > 1 {
                    return Err(self.not_unique_while(WHAT, tag, done.rows_affected()));
                }
                return self.tag_info(tag).await?.ok_or_else(unknown);
            }
            let rows = self.table.rows(WHAT, &sql, &binds).await?;
            match rows.len() {
                0 => Err(unknown()),
                1 => self.info(WHAT, tag, &rows[0], 0),
                n => Err(self.not_unique_while(WHAT, tag, n as u64)),
            }
        })
    }

    fn give_back<'a>(&'a self, tag: &'a str, range: IdRange, next: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            const WHAT: &str = "giving back a range's tail";
            validate_tag(tag)?;
            let Some((end, back_to)) = give_back_to(range, next)? else {
                return Ok(false);
            };
            // The raw values in the table's meaning: a "next free" counter is one above.
            let raw = |v: i64| match self.max_id_is {
                MaxIdMeaning::LastIssued => v,
                MaxIdMeaning::NextFree => v.saturating_add(1),
            };
            let binds = [Bind::I(raw(back_to)), Bind::S(tag), Bind::I(raw(end))];
            let done = self.table.exec(WHAT, &self.sql.back, &binds).await?;
            match done.rows_affected() {
                0 => Ok(false),
                1 => Ok(true),
                n => Err(self.not_unique_while(WHAT, tag, n)),
            }
        })
    }

    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange> {
        Box::pin(async move {
            validate_tag(tag)?;
            let limit = check_count(count)?;
            match self.add(tag, count, limit).await? {
                Some(new_max) => IdRange::from_new_max(self.last_issued(new_max), count),
                // No row touched: an unknown tag, or one too close to 2^63-1.
                None => match self.row(tag).await? {
                    None => Err(Error::UnknownTag {
                        tag: tag.to_string(),
                    }),
                    Some((max_id, _, _)) => Err(exhausted(tag, max_id, count)),
                },
            }
        })
    }
}

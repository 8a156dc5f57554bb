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

use super::store::{exhausted, IdRange, SegmentStore, StoreFuture, TagInfo};
use super::tag::{check_count, validate_tag, TagSpec};
use super::StoreOptions;
use crate::sql::{Bind, Dialect, Pooling, SqlTable};
use crate::{Error, Result};

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
    /// Connects (a SQLite file is created if missing) and creates the table if missing.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{SqlStore, StoreOptions};
    /// let opts = StoreOptions::default().table("my_segments")?;
    /// let store = SqlStore::connect("postgres://app@127.0.0.1/ids", &opts).await?;
    /// let store = SqlStore::connect("sqlite:./ids.db", &StoreOptions::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<SqlStore> {
        let pooling = Pooling {
            connections: opts.pool_size,
            acquire_timeout: std::time::Duration::from_secs(3),
        };
        let table = SqlTable::connect(url, &opts.table, pooling).await?;
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
        Ok(SqlStore { table })
    }

    /// The tag's `max_id`, `step` and `description`.
    async fn row(&self, tag: &str) -> Result<Option<(i64, i64, String)>> {
        const WHAT: &str = "reading a tag";
        let rows = self
            .table
            .rows(
                WHAT,
                "SELECT max_id, step, description FROM {t} WHERE tag = ?",
                &[Bind::S(tag)],
            )
            .await?;
        let t = &self.table;
        rows.first()
            .map(|r| Ok((t.get(WHAT, r, 0)?, t.get(WHAT, r, 1)?, t.get(WHAT, r, 2)?)))
            .transpose()
    }

    /// Adds `count` to the tag's `max_id` unless that passes `limit`, and returns the new
    /// `max_id`; `None` when no row was updated.
    async fn add(&self, tag: &str, count: u64, limit: i64) -> Result<Option<i64>> {
        const WHAT: &str = "allocating";
        let binds = [Bind::I(count as i64), Bind::S(tag), Bind::I(limit)];
        let returning = match self.table.dialect() {
            Dialect::MySql => {
                let done = self
                    .table
                    .exec(
                        WHAT,
                        "UPDATE {t} SET max_id = LAST_INSERT_ID(max_id + ?) \
                         WHERE tag = ? AND max_id <= ?",
                        &binds,
                    )
                    .await?;
                if done.rows_affected() != 1 {
                    return Ok(None);
                }
                return match done.last_insert_id() {
                    Some(new_max) if new_max >= 0 => Ok(Some(new_max)),
                    other => Err(self.table.err(
                        WHAT,
                        format_args!(
                            "LAST_INSERT_ID() returned {}, above 2^63-1",
                            other.unwrap_or(-1) as u64
                        ),
                    )),
                };
            }
            Dialect::Sqlite => {
                "UPDATE {t} SET max_id = max_id + ?, \
                 updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') \
                 WHERE tag = ? AND max_id <= ? RETURNING max_id"
            }
            Dialect::Postgres => {
                "UPDATE {t} SET max_id = max_id + ?, updated_at = now() \
                 WHERE tag = ? AND max_id <= ? RETURNING max_id"
            }
        };
        let new_max = self.table.values(WHAT, returning, &binds).await?;
        Ok(new_max.first().copied())
    }
}

impl SegmentStore for SqlStore {
    fn describe(&self) -> String {
        self.table.describe().to_string()
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let insert = self.table.dialect().insert_if_missing(
                "tag, max_id, step, description",
                "?, ?, ?, ?",
                "tag",
            );
            let done = self
                .table
                .exec(
                    "creating a tag",
                    &insert,
                    &[
                        Bind::S(spec.tag()),
                        Bind::I(spec.first_max_id()),
                        Bind::I(spec.step_value() as i64),
                        Bind::S(spec.description_value()),
                    ],
                )
                .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>> {
        Box::pin(async move {
            validate_tag(tag)?;
            Ok(self
                .row(tag)
                .await?
                .map(|(max_id, step, description)| TagInfo {
                    tag: tag.to_string(),
                    max_id,
                    step: u64::try_from(step).unwrap_or(1).max(1),
                    description,
                }))
        })
    }

    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange> {
        Box::pin(async move {
            validate_tag(tag)?;
            let limit = check_count(count)?;
            match self.add(tag, count, limit).await? {
                Some(new_max) => IdRange::from_new_max(new_max, count),
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

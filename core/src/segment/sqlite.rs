//! SQLite: the embedded default, one file shared by every process on the machine.
//!
//! Allocation is a single `UPDATE … SET max_id = max_id + ? … RETURNING max_id`. SQLite runs
//! one write transaction at a time per database file (across processes, by file locks), and a
//! single statement is its own transaction, so the read-modify-write cannot interleave with
//! another; no compare-and-set loop is needed. The file uses WAL with `synchronous = FULL`
//! (a commit is on disk before its range is used: a lost commit after power loss could
//! reissue IDs) and a 10 s busy timeout, so writers from other processes queue, not fail.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use super::sql::{db_err, info, no_row, quoted, range};
use super::store::{IdRange, SegmentStore, StoreFuture, TagInfo};
use super::tag::{check_count, validate_tag, TagSpec};
use super::{describe_url, StoreOptions};
use crate::Result;

/// A SQLite store (feature `sqlite`): `sqlite:PATH` (created if missing) or `sqlite::memory:`.
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
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    describe: String,
    allocate_sql: String,
    select_sql: String,
    insert_sql: String,
}

impl SqliteStore {
    /// Opens (creating if missing) the database file and the table.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{SqliteStore, StoreOptions};
    /// let store = SqliteStore::connect("sqlite:./ids.db", &StoreOptions::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<SqliteStore> {
        let describe = describe_url(url);
        let table = quoted(&opts.table, '"')?;
        let connect = SqliteConnectOptions::from_str(url)
            .map_err(|e| db_err(&describe, "parsing the URL", e))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10));
        // One connection: SQLite serializes writers anyway, and `:memory:` is per connection.
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(connect)
            .await
            .map_err(|e| db_err(&describe, "connecting", e))?;
        let ddl = format!(
            "CREATE TABLE IF NOT EXISTS {table} (
                tag VARCHAR(128) NOT NULL PRIMARY KEY,
                max_id BIGINT NOT NULL,
                step BIGINT NOT NULL,
                description VARCHAR(256) NOT NULL DEFAULT '',
                updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
            )"
        );
        sqlx::query(&ddl)
            .execute(&pool)
            .await
            .map_err(|e| db_err(&describe, "creating the table", e))?;
        Ok(SqliteStore {
            pool,
            describe,
            allocate_sql: format!(
                "UPDATE {table} SET max_id = max_id + ?1, \
                 updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') \
                 WHERE tag = ?2 AND max_id <= ?3 RETURNING max_id"
            ),
            select_sql: format!("SELECT max_id, step, description FROM {table} WHERE tag = ?1"),
            insert_sql: format!(
                "INSERT INTO {table} (tag, max_id, step, description) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (tag) DO NOTHING"
            ),
        })
    }

    async fn row(&self, tag: &str) -> Result<Option<(i64, i64, String)>> {
        sqlx::query_as(&self.select_sql)
            .bind(tag)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| db_err(&self.describe, "reading a tag", e))
    }
}

impl SegmentStore for SqliteStore {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = sqlx::query(&self.insert_sql)
                .bind(spec.tag())
                .bind(spec.first_max_id())
                .bind(spec.step_value() as i64)
                .bind(spec.description_value())
                .execute(&self.pool)
                .await
                .map_err(|e| db_err(&self.describe, "creating a tag", e))?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>> {
        Box::pin(async move {
            validate_tag(tag)?;
            Ok(info(tag, self.row(tag).await?))
        })
    }

    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange> {
        Box::pin(async move {
            validate_tag(tag)?;
            let limit = check_count(count)?;
            let new_max: Option<i64> = sqlx::query_scalar(&self.allocate_sql)
                .bind(count as i64)
                .bind(tag)
                .bind(limit)
                .fetch_optional(&self.pool)
                .await
                .map_err(|e| db_err(&self.describe, "allocating", e))?;
            match new_max {
                Some(m) => range(m, count),
                None => Err(no_row(tag, count, self.row(tag).await?.map(|r| r.0))),
            }
        })
    }
}

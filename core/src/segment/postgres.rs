//! PostgreSQL.
//!
//! Allocation is a single `UPDATE … SET max_id = max_id + $1 … RETURNING max_id`. The UPDATE
//! takes the row's lock; a concurrent UPDATE of the same row waits for it and then, under
//! READ COMMITTED, re-evaluates its WHERE clause against the *committed new* row and adds to
//! that value (PostgreSQL's re-check of updated rows), so two allocations always see
//! different `max_id`s. One round trip, no retries; the seeds' compare-and-set
//! (`WHERE max_id = ?`, retried) would give the same guarantee with two round trips and
//! failed attempts under contention.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::sql::{create_table, db_err, info, no_row, quoted, range};
use super::store::{IdRange, SegmentStore, StoreFuture, TagInfo};
use super::tag::{check_count, validate_tag, TagSpec};
use super::{describe_url, StoreOptions};
use crate::Result;

/// A PostgreSQL store (feature `postgres`): `postgres://user:pass@host:port/db`.
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::segment::{PostgresStore, SegmentStore, StoreOptions};
/// let store = PostgresStore::connect("postgres://app@127.0.0.1:5432/ids", &StoreOptions::default()).await?;
/// let range = store.allocate("orders", 1000).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: PgPool,
    describe: String,
    allocate_sql: String,
    select_sql: String,
    insert_sql: String,
}

impl PostgresStore {
    /// Connects and creates the table if missing.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{PostgresStore, StoreOptions};
    /// let opts = StoreOptions::default().table("my_segments")?;
    /// let store = PostgresStore::connect("postgres://app@127.0.0.1/ids", &opts).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<PostgresStore> {
        let describe = describe_url(url);
        let table = quoted(&opts.table, '"')?;
        let connect =
            PgConnectOptions::from_str(url).map_err(|e| db_err(&describe, "parsing the URL", e))?;
        let pool = PgPoolOptions::new()
            .max_connections(opts.pool_size)
            .acquire_timeout(Duration::from_secs(3))
            .connect_with(connect)
            .await
            .map_err(|e| db_err(&describe, "connecting", e))?;
        let ddl = format!(
            "CREATE TABLE IF NOT EXISTS {table} (
                tag VARCHAR(128) NOT NULL PRIMARY KEY,
                max_id BIGINT NOT NULL,
                step BIGINT NOT NULL,
                description VARCHAR(256) NOT NULL DEFAULT '',
                updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )"
        );
        create_table(&pool, &ddl, &describe).await?;
        Ok(PostgresStore {
            pool,
            describe,
            allocate_sql: format!(
                "UPDATE {table} SET max_id = max_id + $1, updated_at = now() \
                 WHERE tag = $2 AND max_id <= $3 RETURNING max_id"
            ),
            select_sql: format!("SELECT max_id, step, description FROM {table} WHERE tag = $1"),
            insert_sql: format!(
                "INSERT INTO {table} (tag, max_id, step, description) VALUES ($1, $2, $3, $4) \
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

impl SegmentStore for PostgresStore {
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

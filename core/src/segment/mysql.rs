//! MySQL and MariaDB.
//!
//! Neither has `UPDATE … RETURNING`, so allocation uses the Flickr ticket-server form:
//! `UPDATE t SET max_id = LAST_INSERT_ID(max_id + ?) WHERE tag = ? AND max_id <= ?`. InnoDB's
//! row lock makes the increment atomic, and `LAST_INSERT_ID(expr)` stores the new value in
//! the connection's OK packet, so the statement itself returns it: one round trip, no
//! transaction, nothing another connection can change in between. (Leaf's form, `UPDATE` then
//! `SELECT` in one transaction, is equally safe with four round trips; the seeds'
//! compare-and-set needs retries under contention.)
//!
//! The tag column is `ascii_bin`: MySQL's default collations are case-insensitive, which
//! would make `Orders` and `orders` one counter.

use std::str::FromStr;
use std::time::Duration;

use sqlx::mysql::{MySqlConnectOptions, MySqlPool, MySqlPoolOptions};

use super::sql::{db_err, info, no_row, quoted, range};
use super::store::{IdRange, SegmentStore, StoreFuture, TagInfo};
use super::tag::{check_count, validate_tag, TagSpec};
use super::{describe_url, StoreOptions};
use crate::{Error, Result};

/// A MySQL or MariaDB store (feature `mysql`): `mysql://user:pass@host:port/db`
/// (`mariadb://` is accepted as a synonym).
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::segment::{MySqlStore, SegmentStore, StoreOptions};
/// let store = MySqlStore::connect("mysql://app@127.0.0.1:3306/ids", &StoreOptions::default()).await?;
/// let range = store.allocate("orders", 1000).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct MySqlStore {
    pool: MySqlPool,
    describe: String,
    allocate_sql: String,
    select_sql: String,
    insert_sql: String,
}

impl MySqlStore {
    /// Connects and creates the table (InnoDB) if missing.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{MySqlStore, StoreOptions};
    /// let store = MySqlStore::connect("mysql://root@127.0.0.1:3306/test", &StoreOptions::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<MySqlStore> {
        let describe = describe_url(url);
        let table = quoted(&opts.table, '`')?;
        let url = match url.strip_prefix("mariadb:") {
            Some(rest) => format!("mysql:{rest}"),
            None => url.to_string(),
        };
        let connect = MySqlConnectOptions::from_str(&url)
            .map_err(|e| db_err(&describe, "parsing the URL", e))?;
        let pool = MySqlPoolOptions::new()
            .max_connections(opts.pool_size)
            .acquire_timeout(Duration::from_secs(3))
            .connect_with(connect)
            .await
            .map_err(|e| db_err(&describe, "connecting", e))?;
        let ddl = format!(
            "CREATE TABLE IF NOT EXISTS {table} (
                tag VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
                max_id BIGINT NOT NULL,
                step BIGINT NOT NULL,
                description VARCHAR(256) NOT NULL DEFAULT '',
                updated_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
                    ON UPDATE CURRENT_TIMESTAMP(3)
            ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4"
        );
        sqlx::query(&ddl)
            .execute(&pool)
            .await
            .map_err(|e| db_err(&describe, "creating the table", e))?;
        Ok(MySqlStore {
            pool,
            describe,
            allocate_sql: format!(
                "UPDATE {table} SET max_id = LAST_INSERT_ID(max_id + ?) \
                 WHERE tag = ? AND max_id <= ?"
            ),
            select_sql: format!("SELECT max_id, step, description FROM {table} WHERE tag = ?"),
            // INSERT IGNORE reports 0 rows for an existing tag (sqlx sets CLIENT_FOUND_ROWS, so
            // ON DUPLICATE KEY UPDATE would report 1). IGNORE also turns truncation into a
            // warning, but every value is validated to fit its column first.
            insert_sql: format!(
                "INSERT IGNORE INTO {table} (tag, max_id, step, description) VALUES (?, ?, ?, ?)"
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

impl SegmentStore for MySqlStore {
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
            let done = sqlx::query(&self.allocate_sql)
                .bind(count as i64)
                .bind(tag)
                .bind(limit)
                .execute(&self.pool)
                .await
                .map_err(|e| db_err(&self.describe, "allocating", e))?;
            if done.rows_affected() != 1 {
                return Err(no_row(tag, count, self.row(tag).await?.map(|r| r.0)));
            }
            let new_max =
                i64::try_from(done.last_insert_id()).map_err(|_| Error::StoreUnavailable {
                    store: self.describe.clone(),
                    reason: format!(
                        "LAST_INSERT_ID() returned {}, above 2^63-1",
                        done.last_insert_id()
                    ),
                })?;
            range(new_max, count)
        })
    }
}

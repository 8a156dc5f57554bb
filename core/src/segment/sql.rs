//! What the SQL stores share: the table's columns, error mapping, and the one rule of
//! allocation every engine follows.
//!
//! The table (name configurable, default `idmint_segments`) holds what Leaf's `leaf_alloc`
//! does: `tag` (primary key), `max_id` (the last ID handed out, `BIGINT`), `step`,
//! `description`, `updated_at`. Allocating `count` IDs is one statement that adds `count` to
//! `max_id` and reads the new value, guarded by `max_id <= 2^63-1 - count` so a counter never
//! overflows (SQLite would silently turn it into a float). Tags are always bound parameters;
//! the table name, which cannot be one, is checked by [`validate_table`] and quoted.

use super::store::{exhausted, IdRange, TagInfo};
use super::tag::validate_table;
use crate::{Error, Result};

/// Maps a driver error to [`Error::StoreUnavailable`], naming the store.
pub(crate) fn db_err(store: &str, what: &str, e: sqlx::Error) -> Error {
    Error::StoreUnavailable {
        store: store.to_string(),
        reason: format!("{what}: {e}"),
    }
}

/// The table name quoted for the engine, after strict validation.
pub(crate) fn quoted(table: &str, quote: char) -> Result<String> {
    validate_table(table)?;
    Ok(format!("{quote}{table}{quote}"))
}

pub(crate) fn info(tag: &str, row: Option<(i64, i64, String)>) -> Option<TagInfo> {
    row.map(|(max_id, step, description)| TagInfo {
        tag: tag.to_string(),
        max_id,
        step: u64::try_from(step).unwrap_or(1).max(1),
        description,
    })
}

/// After an allocating statement touched no row: an unknown tag, or one too close to 2^63-1.
pub(crate) fn no_row(tag: &str, count: u64, max_id: Option<i64>) -> Error {
    match max_id {
        None => Error::UnknownTag {
            tag: tag.to_string(),
        },
        Some(max_id) => exhausted(tag, max_id, count),
    }
}

pub(crate) fn range(new_max: i64, count: u64) -> Result<IdRange> {
    IdRange::from_new_max(new_max, count)
}

/// `CREATE TABLE IF NOT EXISTS`, retried: concurrent ones can still collide in PostgreSQL's
/// catalog (a unique violation on pg_type) when several processes start at once, and the loser
/// then finds the table on a retry.
pub(crate) async fn create_table<DB: sqlx::Database>(
    pool: &sqlx::Pool<DB>,
    ddl: &str,
    store: &str,
) -> Result<()>
where
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
{
    let mut attempt = 0;
    loop {
        match sqlx::raw_sql(ddl).execute(pool).await {
            Ok(_) => return Ok(()),
            Err(_) if attempt < 3 => {
                attempt += 1;
                tokio::time::sleep(std::time::Duration::from_millis(50 * attempt)).await;
            }
            Err(e) => return Err(db_err(store, "creating the table", e)),
        }
    }
}

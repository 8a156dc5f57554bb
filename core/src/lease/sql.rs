//! Leases in a SQL table, one row per value: SQLite, PostgreSQL, MySQL/MariaDB.
//!
//! ```sql
//! CREATE TABLE idmint_workers (
//!     value        BIGINT       NOT NULL PRIMARY KEY,
//!     holder       VARCHAR(255) NOT NULL DEFAULT '',  -- host:pid, '' when released
//!     token        VARCHAR(128) NOT NULL DEFAULT '',  -- the holder's secret
//!     expires_at   BIGINT       NOT NULL DEFAULT 0,   -- unix ms, the server's clock
//!     freeze_ms    BIGINT       NOT NULL DEFAULT 0,   -- frozen this long after expires_at
//!     last_time_ms BIGINT       NOT NULL DEFAULT 0    -- the fence
//! )
//! ```
//!
//! Each step is one conditional statement, so two holders racing for a value cannot both win:
//! taking a free row is `UPDATE … WHERE value = ? AND (token = '' OR expires_at + freeze_ms <=
//! now)`, a value never used is `INSERT` that ignores a conflict, and renewing or releasing is
//! `UPDATE … WHERE value = ? AND token = ?`. "Now" is the database server's clock (SQLite: the
//! machine's), so holders on machines with skewed clocks agree on expiry. The table is a
//! [`SqlTable`], as the segment stores': one implementation serves the three engines.
//!
//! The token column is as wide as the longest token a client may choose
//! ([`MAX_TOKEN_LEN`]); a table made by an earlier version (`VARCHAR(64)`) is widened when a
//! store connects, or refused (`invalid_argument`, naming the column and its width) when the
//! store's user may not alter it. SQLite does not enforce a `VARCHAR`'s length.

use std::time::Duration;

use super::client::MAX_TOKEN_LEN;
use super::store::{Grant, LeaseInfo, LeaseRequest, LeaseStore, DEFAULT_LEASE_TABLE};
use crate::store::{Bind, Dialect, Pooling, SqlTable, StoreFuture, StoreOptions, Use};
use crate::{Error, Result};

/// Connections in a lease store's pool unless the options or `?pool=` say otherwise: a keeper
/// renews one lease at a time, so two leave room for a listing beside it.
const POOL: u32 = 2;

/// A lease store in a SQL table (features `sqlite`, `postgres`, `mysql`): table
/// [`DEFAULT_LEASE_TABLE`] (`idmint_workers`) unless the options or the URL (`?table=…`)
/// name another.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use std::time::Duration;
/// use idmint_core::lease::{LeaseRequest, LeaseStore, SqlLeaseStore, StoreOptions};
/// let store = SqlLeaseStore::connect("sqlite::memory:", &StoreOptions::default()).await?;
/// assert_eq!(store.table_name(), "idmint_workers");
/// let req = LeaseRequest::new(0, 3, "a:1", Duration::from_secs(10), Duration::from_secs(10))?;
/// assert_eq!(store.acquire(&req).await?.unwrap().value, 0);
/// assert_eq!(store.list().await?[0].state(), "held");
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct SqlLeaseStore {
    table: SqlTable,
}

impl SqlLeaseStore {
    /// Connects and creates the table if missing: the options' table, or
    /// [`DEFAULT_LEASE_TABLE`] when they name none (as `Default::default()` does).
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::SqlLeaseStore;
    /// let store = SqlLeaseStore::connect("postgres://app@127.0.0.1/ids", &Default::default()).await?;
    /// assert_eq!(store.table_name(), "idmint_workers");
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<SqlLeaseStore> {
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for leases, as `open_lease_store` does.
        let (opts, url) = opts.for_url(url, Use::Leases)?;
        let (opts, url) = (&opts, url.as_str());
        let pooling = Pooling {
            connections: opts.pool_or(POOL),
            acquire_timeout: Duration::from_secs(10),
        };
        let table = SqlTable::connect(url, opts.table_or(DEFAULT_LEASE_TABLE), pooling).await?;
        table
            .create(&format!(
                "CREATE TABLE IF NOT EXISTS {{t}} (
                    value BIGINT NOT NULL PRIMARY KEY,
                    holder VARCHAR(255) NOT NULL DEFAULT '',
                    token VARCHAR({MAX_TOKEN_LEN}) NOT NULL DEFAULT '',
                    expires_at BIGINT NOT NULL DEFAULT 0,
                    freeze_ms BIGINT NOT NULL DEFAULT 0,
                    last_time_ms BIGINT NOT NULL DEFAULT 0
                )",
            ))
            .await?;
        let store = SqlLeaseStore { table };
        store.widen_token().await?;
        Ok(store)
    }

    /// Makes the token column of a table an earlier version made (`VARCHAR(64)`) hold every
    /// token a client may choose ([`MAX_TOKEN_LEN`] characters): a longer token would fail
    /// each lease as `store_unavailable`, which clients retry for ever. Refused with
    /// `invalid_argument`, naming the column and its width, when the store's user may not
    /// alter the table. SQLite does not enforce a `VARCHAR`'s length: nothing to do.
    async fn widen_token(&self) -> Result<()> {
        const WHAT: &str = "reading the token column's width";
        let (width_sql, name, alter) = match self.table.dialect() {
            Dialect::Sqlite => return Ok(()),
            // atttypmod is the width + 4 for VARCHAR(n), -1 for an unbounded one.
            Dialect::Postgres => (
                "SELECT CAST(atttypmod - 4 AS BIGINT) FROM pg_attribute \
                 WHERE attrelid = to_regclass(?) AND attname = 'token' AND NOT attisdropped",
                self.table.quoted_name(),
                format!("ALTER TABLE {{t}} ALTER COLUMN token TYPE VARCHAR({MAX_TOKEN_LEN})"),
            ),
            Dialect::MySql => (
                "SELECT CAST(character_maximum_length AS SIGNED) FROM information_schema.columns \
                 WHERE table_schema = DATABASE() AND table_name = ? AND column_name = 'token'",
                self.table.name().to_string(),
                format!(
                    "ALTER TABLE {{t}} MODIFY token VARCHAR({MAX_TOKEN_LEN}) NOT NULL DEFAULT ''"
                ),
            ),
        };
        let width = self
            .table
            .values(WHAT, width_sql, &[Bind::S(&name)])
            .await?;
        let Some(&width) = width
            .first()
            .filter(|&&w| (0..MAX_TOKEN_LEN as i64).contains(&w))
        else {
            return Ok(());
        };
        self.table
            .exec("widening the token column", &alter, &[])
            .await
            .map_err(|e| Error::InvalidArgument {
                name: format!("column `token` of table `{}`", self.table.name()),
                value: format!("VARCHAR({width})"),
                expected: format!(
                    "VARCHAR({MAX_TOKEN_LEN}) or wider, to hold lease tokens of up to \
                     {MAX_TOKEN_LEN} characters; widening it failed ({e}): run `{}` as the \
                     table's owner",
                    alter.replace("{t}", self.table.name())
                ),
            })?;
        Ok(())
    }

    /// The table holding the leases.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::lease::{SqlLeaseStore, StoreOptions};
    /// let opts = StoreOptions::default().table("workers_eu")?;
    /// let store = SqlLeaseStore::connect("sqlite::memory:", &opts).await?;
    /// assert_eq!(store.table_name(), "workers_eu");
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub fn table_name(&self) -> &str {
        self.table.name()
    }

    /// The most connections the store's pool opens: the options' or the URL's (`?pool=N`),
    /// else 2; SQLite always 1.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::lease::SqlLeaseStore;
    /// let store = SqlLeaseStore::connect("sqlite::memory:", &Default::default()).await?;
    /// assert_eq!(store.pool_size(), 1);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub fn pool_size(&self) -> u32 {
        self.table.pool_size()
    }

    async fn exec(&self, what: &str, sql: &str, binds: &[Bind<'_>]) -> Result<u64> {
        Ok(self.table.exec(what, sql, binds).await?.rows_affected())
    }

    /// The fence of `value` if it is held with `token`.
    async fn fence_if_held(&self, value: u64, token: &str) -> Result<Option<u64>> {
        let v = self
            .table
            .values(
                "reading a lease",
                "SELECT last_time_ms FROM {t} WHERE value = ? AND token = ?",
                &[Bind::I(value as i64), Bind::S(token)],
            )
            .await?;
        v.first().map(|&f| self.fence(value, f)).transpose()
    }

    /// The fence `last_time_ms` of `value` as stored. A negative one is damaged, and refused:
    /// read as 0 it would let IDs repeat.
    fn fence(&self, value: u64, stored: i64) -> Result<u64> {
        u64::try_from(stored).map_err(|_| {
            self.table.err(
                "reading a fence",
                format_args!(
                    "row {value} of `{}` does not hold what idmint writes: last_time_ms is {stored}",
                    self.table.name()
                ),
            )
        })
    }

    async fn claim(&self, req: &LeaseRequest, value: u64) -> Result<bool> {
        let n = self
            .exec(
                "taking a free value",
                "UPDATE {t} SET holder = ?, token = ?, expires_at = NOW_MS() + ?, freeze_ms = ? \
                 WHERE value = ? AND (token = '' OR expires_at + freeze_ms <= NOW_MS())",
                &[
                    Bind::S(&req.holder),
                    Bind::S(&req.token),
                    Bind::I(req.ttl_ms as i64),
                    Bind::I(req.freeze_ms as i64),
                    Bind::I(value as i64),
                ],
            )
            .await?;
        if n == 1 {
            return Ok(true);
        }
        let insert = self.table.dialect().insert_if_missing(
            "value, holder, token, expires_at, freeze_ms, last_time_ms",
            "?, ?, ?, NOW_MS() + ?, ?, 0",
            "value",
        );
        let n = self
            .exec(
                "taking a new value",
                &insert,
                &[
                    Bind::I(value as i64),
                    Bind::S(&req.holder),
                    Bind::S(&req.token),
                    Bind::I(req.ttl_ms as i64),
                    Bind::I(req.freeze_ms as i64),
                ],
            )
            .await?;
        Ok(n == 1)
    }
}

impl LeaseStore for SqlLeaseStore {
    fn describe(&self) -> String {
        self.table.describe().to_string()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            let range = [Bind::I(req.first as i64), Bind::I(req.last as i64)];
            let free = self
                .table
                .values(
                    "finding free values",
                    "SELECT value FROM {t} WHERE value >= ? AND value <= ? \
                     AND (token = '' OR expires_at + freeze_ms <= NOW_MS()) ORDER BY value LIMIT 64",
                    &range,
                )
                .await?;
            let known = self
                .table
                .values(
                    "finding used values",
                    "SELECT value FROM {t} WHERE value >= ? AND value <= ? ORDER BY value",
                    &range,
                )
                .await?;
            // Values never leased, lowest first: the gaps between the known rows.
            let mut unused = Vec::new();
            let mut next = req.first;
            for &k in known.iter().chain(std::iter::once(&(req.last as i64 + 1))) {
                let k = k as u64;
                while next < k && unused.len() < 64 {
                    unused.push(next);
                    next += 1;
                }
                next = next.max(k + 1);
                if unused.len() >= 64 || next > req.last {
                    break;
                }
            }
            let candidates = req
                .prefer
                .filter(|v| (req.first..=req.last).contains(v))
                .into_iter()
                .chain(free.iter().map(|&v| v as u64))
                .chain(unused);
            for value in candidates {
                if self.claim(req, value).await? {
                    let fence = match self.fence_if_held(value, &req.token).await {
                        Ok(fence) => fence.unwrap_or(0),
                        Err(e) => {
                            // A damaged fence: the value given up again, no grant on it.
                            self.exec(
                                "giving a damaged value up",
                                "UPDATE {t} SET holder = '', token = '', expires_at = 0 \
                                 WHERE value = ? AND token = ?",
                                &[Bind::I(value as i64), Bind::S(&req.token)],
                            )
                            .await?;
                            return Err(e);
                        }
                    };
                    return Ok(Some(Grant {
                        value,
                        fence_ms: fence,
                    }));
                }
            }
            Ok(None)
        })
    }

    fn renew<'a>(
        &'a self,
        value: u64,
        token: &'a str,
        ttl_ms: u64,
        freeze_ms: u64,
        fence_ms: u64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let n = self
                .exec(
                    "renewing",
                    "UPDATE {t} SET expires_at = NOW_MS() + ?, freeze_ms = ?, \
                     last_time_ms = GREATEST(last_time_ms, ?) WHERE value = ? AND token = ?",
                    &[
                        Bind::I(ttl_ms as i64),
                        Bind::I(freeze_ms as i64),
                        Bind::I(fence_ms.min(i64::MAX as u64) as i64),
                        Bind::I(value as i64),
                        Bind::S(token),
                    ],
                )
                .await?;
            // MySQL counts changed rows, not matched ones: an update that changed nothing
            // (same millisecond) still holds if the token matches.
            Ok(n == 1 || self.fence_if_held(value, token).await?.is_some())
        })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.table.close().await;
            Ok(())
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let n = self
                .exec(
                    "releasing",
                    "UPDATE {t} SET holder = '', token = '', expires_at = 0, last_time_ms = ? \
                     WHERE value = ? AND token = ?",
                    &[
                        Bind::I(fence_ms.min(i64::MAX as u64) as i64),
                        Bind::I(value as i64),
                        Bind::S(token),
                    ],
                )
                .await?;
            Ok(n == 1)
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(async move {
            const WHAT: &str = "listing";
            let rows = self
                .table
                .rows(
                    WHAT,
                    "SELECT value, holder, expires_at - NOW_MS(), expires_at + freeze_ms - NOW_MS(), \
                     last_time_ms FROM {t} ORDER BY value",
                    &[],
                )
                .await?;
            rows.iter()
                .map(|r| {
                    let get = |i: usize| self.table.get::<i64>(WHAT, r, i);
                    let holder: String = self.table.get(WHAT, r, 1)?;
                    Ok(LeaseInfo {
                        value: get(0)?.max(0) as u64,
                        expires_in_ms: if holder.is_empty() { 0 } else { get(2)? },
                        free_in_ms: if holder.is_empty() { 0 } else { get(3)?.max(0) },
                        holder,
                        last_time_ms: self.fence(get(0)?.max(0) as u64, get(4)?)?,
                    })
                })
                .collect()
        })
    }
}

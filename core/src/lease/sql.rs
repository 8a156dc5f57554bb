//! Leases in a SQL table, one row per value: SQLite, PostgreSQL, MySQL/MariaDB.
//!
//! ```sql
//! CREATE TABLE idmint_workers (
//!     value        BIGINT       NOT NULL PRIMARY KEY,
//!     holder       VARCHAR(255) NOT NULL DEFAULT '',  -- host:pid, '' when released
//!     token        VARCHAR(64)  NOT NULL DEFAULT '',  -- the holder's secret
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
//! machine's), so holders on machines with skewed clocks agree on expiry. One implementation
//! serves the three engines through sqlx's `Any` driver; only the SQL dialect differs.

use std::sync::Once;

use sqlx::any::AnyPoolOptions;
use sqlx::AnyPool;
use sqlx::Row;

use super::{Grant, LeaseInfo, LeaseRequest, LeaseStore};
use crate::segment::{describe_url, StoreFuture, StoreOptions};
use crate::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Sqlite,
    Postgres,
    MySql,
}

impl Dialect {
    fn now(self) -> &'static str {
        match self {
            Dialect::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
            Dialect::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
            Dialect::MySql => "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)",
        }
    }

    fn greatest(self) -> &'static str {
        match self {
            Dialect::Sqlite => "MAX",
            _ => "GREATEST",
        }
    }

    /// `?` placeholders as the engine wants them (PostgreSQL numbers them).
    fn sql(self, text: &str) -> String {
        let text = text
            .replace("NOW()", self.now())
            .replace("GREATEST", self.greatest());
        if self != Dialect::Postgres {
            return text;
        }
        let mut out = String::with_capacity(text.len() + 8);
        let mut n = 0;
        for c in text.chars() {
            if c == '?' {
                n += 1;
                out.push_str(&format!("${n}"));
            } else {
                out.push(c);
            }
        }
        out
    }

    fn quote(self) -> char {
        match self {
            Dialect::MySql => '`',
            _ => '"',
        }
    }
}

/// A lease store in a SQL table (features `sqlite`, `postgres`, `mysql`).
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use std::time::Duration;
/// use idmint_core::lease::{LeaseRequest, LeaseStore, SqlLeaseStore};
/// use idmint_core::segment::StoreOptions;
/// let store = SqlLeaseStore::connect("sqlite::memory:", &StoreOptions::default().table("idmint_workers")?).await?;
/// let req = LeaseRequest::new(0, 3, "a:1", Duration::from_secs(10), Duration::from_secs(10))?;
/// assert_eq!(store.acquire(&req).await?.unwrap().value, 0);
/// assert_eq!(store.list().await?[0].state(), "held");
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct SqlLeaseStore {
    pool: AnyPool,
    describe: String,
    dialect: Dialect,
    table: String,
}

impl SqlLeaseStore {
    /// Connects and creates the table if missing.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::SqlLeaseStore;
    /// use idmint_core::segment::StoreOptions;
    /// let store = SqlLeaseStore::connect("postgres://app@127.0.0.1/ids", &StoreOptions::default().table("idmint_workers")?).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<SqlLeaseStore> {
        static DRIVERS: Once = Once::new();
        DRIVERS.call_once(sqlx::any::install_default_drivers);
        let describe = describe_url(url);
        let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
        let (dialect, url) = match scheme.as_str() {
            "sqlite" => {
                // Create the file if missing, as the segment store does.
                let url = if url.contains("mode=") || url.contains(":memory:") {
                    url.to_string()
                } else if url.contains('?') {
                    format!("{url}&mode=rwc")
                } else {
                    format!("{url}?mode=rwc")
                };
                (Dialect::Sqlite, url)
            }
            "postgres" | "postgresql" => (Dialect::Postgres, url.to_string()),
            "mariadb" => (Dialect::MySql, format!("mysql{}", &url["mariadb".len()..])),
            _ => (Dialect::MySql, url.to_string()),
        };
        let db_err = |what: &str, e: sqlx::Error| Error::StoreUnavailable {
            store: describe.clone(),
            reason: format!("{what}: {e}"),
        };
        let pool = AnyPoolOptions::new()
            // SQLite `:memory:` is per connection; one is plenty for leases anyway.
            .max_connections(if dialect == Dialect::Sqlite { 1 } else { 2 })
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect(&url)
            .await
            .map_err(|e| db_err("connecting", e))?;
        let q = dialect.quote();
        crate::segment::validate_table(&opts.table)?;
        let table = format!("{q}{}{q}", opts.table);
        if dialect == Dialect::Sqlite {
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await
                .map_err(|e| db_err("setting WAL", e))?;
        }
        let ddl = format!(
            "CREATE TABLE IF NOT EXISTS {table} (
                value BIGINT NOT NULL PRIMARY KEY,
                holder VARCHAR(255) NOT NULL DEFAULT '',
                token VARCHAR(64) NOT NULL DEFAULT '',
                expires_at BIGINT NOT NULL DEFAULT 0,
                freeze_ms BIGINT NOT NULL DEFAULT 0,
                last_time_ms BIGINT NOT NULL DEFAULT 0
            )"
        );
        crate::segment::sql::create_table(&pool, &ddl, &describe).await?;
        Ok(SqlLeaseStore {
            pool,
            describe,
            dialect,
            table,
        })
    }

    fn err(&self, what: &str, e: sqlx::Error) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!("{what}: {e}"),
        }
    }

    fn sql(&self, text: &str) -> String {
        self.dialect.sql(&text.replace("{t}", &self.table))
    }

    async fn exec(&self, what: &str, sql: &str, binds: &[Bind<'_>]) -> Result<u64> {
        let sql = self.sql(sql);
        Ok(bound(&sql, binds)
            .execute(&self.pool)
            .await
            .map_err(|e| self.err(what, e))?
            .rows_affected())
    }

    async fn values(&self, what: &str, sql: &str, binds: &[Bind<'_>]) -> Result<Vec<i64>> {
        let sql = self.sql(sql);
        let q = bound(&sql, binds);
        let rows = q
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.err(what, e))?;
        rows.iter()
            .map(|r| r.try_get::<i64, _>(0).map_err(|e| self.err(what, e)))
            .collect()
    }

    /// The fence of `value` if it is held with `token`.
    async fn fence_if_held(&self, value: u64, token: &str) -> Result<Option<u64>> {
        let v = self
            .values(
                "reading a lease",
                "SELECT last_time_ms FROM {t} WHERE value = ? AND token = ?",
                &[Bind::I(value as i64), Bind::S(token)],
            )
            .await?;
        Ok(v.first().map(|&f| f.max(0) as u64))
    }

    async fn claim(&self, req: &LeaseRequest, value: u64) -> Result<bool> {
        let n = self
            .exec(
                "taking a free value",
                "UPDATE {t} SET holder = ?, token = ?, expires_at = NOW() + ?, freeze_ms = ? \
                 WHERE value = ? AND (token = '' OR expires_at + freeze_ms <= NOW())",
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
        let insert = match self.dialect {
            Dialect::MySql => "INSERT IGNORE INTO {t} (value, holder, token, expires_at, freeze_ms, last_time_ms) \
                               VALUES (?, ?, ?, NOW() + ?, ?, 0)",
            _ => "INSERT INTO {t} (value, holder, token, expires_at, freeze_ms, last_time_ms) \
                  VALUES (?, ?, ?, NOW() + ?, ?, 0) ON CONFLICT (value) DO NOTHING",
        };
        let n = self
            .exec(
                "taking a new value",
                insert,
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

enum Bind<'a> {
    I(i64),
    S(&'a str),
}

fn bound<'q>(
    sql: &'q str,
    binds: &[Bind<'_>],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    binds.iter().fold(sqlx::query(sql), |q, b| match *b {
        Bind::I(v) => q.bind(v),
        Bind::S(v) => q.bind(v.to_string()),
    })
}

impl LeaseStore for SqlLeaseStore {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            let range = [Bind::I(req.first as i64), Bind::I(req.last as i64)];
            let free = self
                .values(
                    "finding free values",
                    "SELECT value FROM {t} WHERE value >= ? AND value <= ? \
                     AND (token = '' OR expires_at + freeze_ms <= NOW()) ORDER BY value LIMIT 64",
                    &range,
                )
                .await?;
            let known = self
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
                    let fence = self.fence_if_held(value, &req.token).await?.unwrap_or(0);
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
                    "UPDATE {t} SET expires_at = NOW() + ?, freeze_ms = ?, \
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
            let sql = self.sql(
                "SELECT value, holder, expires_at - NOW(), expires_at + freeze_ms - NOW(), \
                 last_time_ms FROM {t} ORDER BY value",
            );
            let rows = sqlx::query(&sql)
                .fetch_all(&self.pool)
                .await
                .map_err(|e| self.err("listing", e))?;
            rows.iter()
                .map(|r| {
                    let get = |i: usize| r.try_get::<i64, _>(i).map_err(|e| self.err("listing", e));
                    let holder: String = r.try_get(1).map_err(|e| self.err("listing", e))?;
                    Ok(LeaseInfo {
                        value: get(0)?.max(0) as u64,
                        expires_in_ms: if holder.is_empty() { 0 } else { get(2)? },
                        free_in_ms: if holder.is_empty() { 0 } else { get(3)?.max(0) },
                        holder,
                        last_time_ms: get(4)?.max(0) as u64,
                    })
                })
                .collect()
        })
    }
}

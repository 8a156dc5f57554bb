//! One SQL table, for every store idmint keeps in SQL: segment tags
//! ([`SqlStore`](crate::segment::SqlStore), which shared daily counters use too) and worker
//! leases ([`SqlLeaseStore`](crate::lease::SqlLeaseStore)).
//!
//! SQLite, PostgreSQL and MySQL/MariaDB are reached through sqlx's `Any` driver, so a store is
//! written once; the few words in which the engines differ come from a [`Dialect`]. Statements
//! are written with `?` placeholders, `{t}` for the table, `NOW_MS()` for the database
//! server's clock in unix milliseconds (SQLite: the machine's) and `GREATEST(a, b)`;
//! [`Dialect::sql`] turns them into the engine's SQL. Values are always bound parameters; the
//! table name, which cannot be one, is checked by [`validate_table`] and quoted.
//!
//! SQLite files are opened as the segment stores always did: created if missing, WAL with
//! `synchronous = FULL` and a 10 s busy timeout (see [`SqlTable::connect`]).

use std::sync::Once;
use std::time::Duration;

use sqlx::any::{AnyArguments, AnyPoolOptions, AnyQueryResult, AnyRow};
use sqlx::{Any, AnyPool, Row};

use super::names::validate_table;
use super::url::{describe_url, Engine};
use crate::{Error, Result};

/// The SQL engine a URL names, and what its SQL says differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
    MySql,
}

impl Dialect {
    /// The dialect of a SQL store URL, and the URL as the driver takes it: SQLite files are
    /// created if missing, and `mariadb://` is MySQL's driver.
    fn of(url: &str) -> Result<(Dialect, String)> {
        match Engine::of(url, "store")? {
            Engine::Sqlite => Ok((Dialect::Sqlite, sqlite_url(url))),
            Engine::Postgres => Ok((Dialect::Postgres, url.to_string())),
            Engine::MySql => {
                let url = match url.get(..8) {
                    Some(s) if s.eq_ignore_ascii_case("mariadb:") => format!("mysql:{}", &url[8..]),
                    _ => url.to_string(),
                };
                Ok((Dialect::MySql, url))
            }
            _ => Err(Error::InvalidArgument {
                name: "store".into(),
                value: describe_url(url),
                expected: "a SQL store URL: sqlite:, postgres:// or mysql://".into(),
            }),
        }
    }

    /// The engine's SQL for a statement written with `?`, `{t}`, `NOW_MS()` and `GREATEST`.
    fn sql(self, text: &str, table: &str) -> String {
        let now_ms = match self {
            Dialect::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
            Dialect::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
            Dialect::MySql => "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)",
        };
        let text = text.replace("{t}", table).replace("NOW_MS()", now_ms);
        match self {
            Dialect::Sqlite => return text.replace("GREATEST(", "MAX("),
            Dialect::MySql => return text,
            Dialect::Postgres => {}
        }
        // PostgreSQL numbers its placeholders.
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

    /// An `INSERT` of one row into `{t}` that does nothing, and reports 0 rows, when a row
    /// with the same `key` exists.
    pub(crate) fn insert_if_missing(self, columns: &str, values: &str, key: &str) -> String {
        match self {
            // INSERT IGNORE reports 0 rows for an existing key (sqlx sets CLIENT_FOUND_ROWS, so
            // ON DUPLICATE KEY UPDATE would report 1). IGNORE also turns truncation into a
            // warning, but every value is validated to fit its column first.
            Dialect::MySql => format!("INSERT IGNORE INTO {{t}} ({columns}) VALUES ({values})"),
            _ => format!(
                "INSERT INTO {{t}} ({columns}) VALUES ({values}) ON CONFLICT ({key}) DO NOTHING"
            ),
        }
    }
}

/// A SQLite URL as the `Any` driver takes it: `sqlite:PATH?PARAMS`, the file created if
/// missing (`mode=rwc`) unless the URL says otherwise.
///
/// The driver parses the URL as a URL first (SQLite's own parser, which the segment store
/// used, only strips `sqlite://` or `sqlite:`), so a path with a space or `#`, or written
/// `sqlite://PATH`, would be refused or cut short: such characters are percent-encoded, which
/// SQLite's parser decodes again, and `sqlite://PATH` is written `sqlite:PATH`.
fn sqlite_url(url: &str) -> String {
    let rest = &url["sqlite:".len()..];
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (path, params) = rest.split_once('?').unwrap_or((rest, ""));
    let mut out = String::from("sqlite:");
    for c in path.chars() {
        if c.is_control() || " #\"<>`{}|^[]\\".contains(c) {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    let mode = if params.contains("mode=") || path == ":memory:" {
        ""
    } else if params.is_empty() {
        "mode=rwc"
    } else {
        "&mode=rwc"
    };
    if !params.is_empty() || !mode.is_empty() {
        out.push('?');
    }
    out + params + mode
}

/// A value bound to a `?` of a statement.
pub(crate) enum Bind<'a> {
    I(i64),
    S(&'a str),
}

/// How many connections a store's pool opens (SQLite: always one) and how long a call waits
/// for one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pooling {
    pub(crate) connections: u32,
    pub(crate) acquire_timeout: Duration,
}

/// A table in a SQL database, with the pool that reaches it.
#[derive(Debug, Clone)]
pub(crate) struct SqlTable {
    pool: AnyPool,
    describe: String,
    dialect: Dialect,
    /// The table name, quoted for the engine.
    table: String,
    /// The table name as given.
    name: String,
}

impl SqlTable {
    /// Connects to the database of `url`; the table `table` is created by [`SqlTable::create`].
    ///
    /// SQLite gets one connection: it runs one writer at a time per file anyway, and
    /// `:memory:` is per connection. Its file uses WAL with `synchronous = FULL` (a commit is
    /// on disk before its IDs are used: a lost commit after power loss could reissue IDs) and
    /// a 10 s busy timeout, so writers from other processes queue, not fail.
    pub(crate) async fn connect(url: &str, table: &str, pooling: Pooling) -> Result<SqlTable> {
        static DRIVERS: Once = Once::new();
        DRIVERS.call_once(sqlx::any::install_default_drivers);
        let describe = describe_url(url);
        let (dialect, url) = Dialect::of(url)?;
        validate_table(table)?;
        let quote = if dialect == Dialect::MySql { '`' } else { '"' };
        let pooling = match dialect {
            Dialect::Sqlite => Pooling {
                connections: 1,
                acquire_timeout: Duration::from_secs(10),
            },
            _ => pooling,
        };
        let pool = AnyPoolOptions::new()
            .max_connections(pooling.connections)
            .acquire_timeout(pooling.acquire_timeout)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if dialect == Dialect::Sqlite {
                        for pragma in [
                            "PRAGMA busy_timeout = 10000",
                            "PRAGMA journal_mode = WAL",
                            "PRAGMA synchronous = FULL",
                        ] {
                            sqlx::Executor::execute(&mut *conn, pragma).await?;
                        }
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await
            .map_err(|e| Error::StoreUnavailable {
                store: describe.clone(),
                reason: format!("connecting: {e}"),
            })?;
        Ok(SqlTable {
            pool,
            describe,
            dialect,
            table: format!("{quote}{table}{quote}"),
            name: table.to_string(),
        })
    }

    /// `CREATE TABLE IF NOT EXISTS {t} …`, retried: concurrent ones can still collide in
    /// PostgreSQL's catalog (a unique violation on pg_type) when several processes start at
    /// once, and the loser then finds the table on a retry.
    pub(crate) async fn create(&self, ddl: &str) -> Result<()> {
        let ddl = self.dialect.sql(ddl, &self.table);
        let mut attempt = 0;
        loop {
            match sqlx::raw_sql(&ddl).execute(&self.pool).await {
                Ok(_) => return Ok(()),
                Err(_) if attempt < 3 => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50 * attempt)).await;
                }
                Err(e) => return Err(self.err("creating the table", e)),
            }
        }
    }

    /// A column name (checked by [`validate_table`]'s grammar) quoted for the engine.
    pub(crate) fn quote(&self, column: &str) -> String {
        match self.dialect {
            Dialect::MySql => format!("`{column}`"),
            _ => format!("\"{column}\""),
        }
    }

    /// The table's column names, as the catalog spells them; empty if there is no such table
    /// (PostgreSQL: in the schemas of the search path, as unqualified statements find it).
    pub(crate) async fn columns(&self) -> Result<Vec<String>> {
        const WHAT: &str = "reading the table's columns";
        let (sql, name) = match self.dialect {
            Dialect::Sqlite => ("SELECT name FROM pragma_table_info(?)", self.name.clone()),
            Dialect::Postgres => (
                "SELECT attname::text FROM pg_attribute \
                 WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped",
                self.table.clone(),
            ),
            Dialect::MySql => (
                "SELECT CAST(column_name AS CHAR) FROM information_schema.columns \
                 WHERE table_schema = DATABASE() AND table_name = ?",
                self.name.clone(),
            ),
        };
        let rows = self.rows(WHAT, sql, &[Bind::S(&name)]).await?;
        rows.iter().map(|r| self.get(WHAT, r, 0)).collect()
    }

    /// Whether `column` alone is the key of a unique index (or the primary key) of the table:
    /// without one, two processes inserting the same tag could make two rows, two counters.
    /// PostgreSQL and SQLite check this themselves in `ON CONFLICT (column)`; MySQL's
    /// `INSERT IGNORE` does not, so it asks the catalog.
    pub(crate) async fn is_unique_key(&self, column: &str) -> Result<bool> {
        if self.dialect != Dialect::MySql {
            return Ok(true);
        }
        let n = self
            .values(
                "reading the table's indexes",
                "SELECT COUNT(*) FROM information_schema.statistics s \
                 WHERE s.table_schema = DATABASE() AND s.table_name = ? AND s.non_unique = 0 \
                 AND s.column_name = ? AND (SELECT COUNT(*) FROM information_schema.statistics o \
                 WHERE o.table_schema = s.table_schema AND o.table_name = s.table_name \
                 AND o.index_name = s.index_name) = 1",
                &[Bind::S(&self.name), Bind::S(column)],
            )
            .await?;
        Ok(n.first().is_some_and(|&n| n > 0))
    }

    /// The most connections the pool opens.
    pub(crate) fn pool_size(&self) -> u32 {
        self.pool.options().get_max_connections()
    }

    /// The table's name as given.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The table's name quoted for the engine, as statements name it (PostgreSQL's
    /// `to_regclass` takes it so).
    pub(crate) fn quoted_name(&self) -> String {
        self.table.clone()
    }

    /// The engine.
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The store's URL for messages ([`describe_url`]).
    pub(crate) fn describe(&self) -> &str {
        &self.describe
    }

    /// Closes the pool: waits for connections in use to come back, then closes every one (a
    /// SQLite file is then no longer open in this process); later acquires fail.
    pub(crate) async fn close(&self) {
        self.pool.close().await;
    }

    /// A driver error as [`Error::StoreUnavailable`], saying what was being done.
    pub(crate) fn err(&self, what: &str, e: impl std::fmt::Display) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!("{what}: {e}"),
        }
    }

    /// Runs a statement.
    pub(crate) async fn exec(
        &self,
        what: &str,
        sql: &str,
        binds: &[Bind<'_>],
    ) -> Result<AnyQueryResult> {
        let sql = self.dialect.sql(sql, &self.table);
        bound(&sql, binds)
            .execute(&self.pool)
            .await
            .map_err(|e| self.err(what, e))
    }

    /// The rows a statement returns.
    pub(crate) async fn rows(
        &self,
        what: &str,
        sql: &str,
        binds: &[Bind<'_>],
    ) -> Result<Vec<AnyRow>> {
        let sql = self.dialect.sql(sql, &self.table);
        bound(&sql, binds)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.err(what, e))
    }

    /// The first column of every row a statement returns, as integers.
    pub(crate) async fn values(
        &self,
        what: &str,
        sql: &str,
        binds: &[Bind<'_>],
    ) -> Result<Vec<i64>> {
        let rows = self.rows(what, sql, binds).await?;
        rows.iter().map(|r| self.get(what, r, 0)).collect()
    }

    /// Column `i` of a row.
    pub(crate) fn get<T>(&self, what: &str, row: &AnyRow, i: usize) -> Result<T>
    where
        T: for<'r> sqlx::Decode<'r, Any> + sqlx::Type<Any>,
    {
        row.try_get(i).map_err(|e| self.err(what, e))
    }
}

fn bound<'q>(sql: &'q str, binds: &[Bind<'_>]) -> sqlx::query::Query<'q, Any, AnyArguments<'q>> {
    binds.iter().fold(sqlx::query(sql), |q, b| match *b {
        Bind::I(v) => q.bind(v),
        Bind::S(v) => q.bind(v.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::{sqlite_url, Pooling, SqlTable};

    #[test]
    fn sqlite_urls() {
        assert_eq!(sqlite_url("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(sqlite_url("sqlite://:memory:"), "sqlite::memory:");
        assert_eq!(sqlite_url("sqlite://?mode=memory"), "sqlite:?mode=memory");
        assert_eq!(sqlite_url("sqlite:./ids.db"), "sqlite:./ids.db?mode=rwc");
        assert_eq!(
            sqlite_url("sqlite:///tmp/a b#1.db"),
            "sqlite:/tmp/a%20b%231.db?mode=rwc"
        );
        assert_eq!(
            sqlite_url("SQLite:x.db?cache=private"),
            "sqlite:x.db?cache=private&mode=rwc"
        );
        assert_eq!(sqlite_url("sqlite:x.db?mode=ro"), "sqlite:x.db?mode=ro");
    }

    /// A SQLite file is opened with WAL, `synchronous = FULL` and a 10 s busy timeout.
    #[cfg(feature = "sqlite")]
    #[test]
    fn sqlite_pragmas() {
        let dir = std::env::temp_dir().join(format!("idmint-sql-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite:{}", dir.join("pragmas.db").display());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let got = rt.block_on(async {
            let pooling = Pooling {
                connections: 4,
                acquire_timeout: std::time::Duration::from_secs(1),
            };
            let t = SqlTable::connect(&url, "t", pooling).await.unwrap();
            let mut got = Vec::new();
            for pragma in ["busy_timeout", "synchronous"] {
                got.extend(
                    t.values("reading", &format!("PRAGMA {pragma}"), &[])
                        .await
                        .unwrap(),
                );
            }
            let rows = t.rows("reading", "PRAGMA journal_mode", &[]).await.unwrap();
            let mode: String = t.get("reading", &rows[0], 0).unwrap();
            (got, mode)
        });
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(got, (vec![10_000, 2], "wal".to_string()));
    }
}

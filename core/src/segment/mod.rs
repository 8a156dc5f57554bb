//! Segment IDs: numeric IDs from a shared store, one store round trip per thousands of IDs.
//!
//! The scheme of Meituan Leaf's "segment" mode and Didi Tinyid: a store keeps, per *tag*, the
//! last ID handed out (`max_id`); a client moves it up by a *step* in one atomic operation and
//! owns the IDs in between, serving them from memory. Each client holds a current and a next
//! range and fetches the next one in the background once a share of the current one is used
//! (20% by default), so callers wait on the store only when both are empty.
//!
//! - [`SegmentStore`]: the trait; [`MemoryStore`] in memory; `SqlStore` for SQLite, PostgreSQL,
//!   MySQL/MariaDB (features `sqlite`, `postgres`, `mysql`, with sqlx) and Redis (feature `redis`);
//!   [`open_store`] opens one by URL.
//! - Order numbers ([`Template`](crate::Template)) from shared stores: daily counters
//!   ([`SegmentDailyCounter`], a tag per day; [`RedisDailyCounter`], `INCR` per day;
//!   [`open_daily_counter`] by URL) and [`TagOrderNumbers`], a tag as the sequence.
//! - [`SegmentClient`]: the client, blocking (its own one-thread runtime) or async (the
//!   caller's tokio runtime); [`TagHandle`] is a cached tag whose
//!   [`next_id`](TagHandle::next_id) is one atomic `fetch_add`; [`TagCursor`] is one thread's
//!   cursor over blocks of it, one atomic step per block.
//!
//! Guarantees: IDs of a tag are unique across every client of the store, and each client's
//! IDs for a tag only grow. They are not globally ordered across clients (client A may hold
//! 1..1000 while B holds 1001..2000), and there are gaps: IDs left in memory at exit are
//! skipped, never reissued.
//!
//! ```
//! use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
//!
//! let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
//! client.create_tag(&TagSpec::new("orders")?.start(1_000_001)?.step(5000)?)?;
//! let orders = client.tag("orders")?;
//! assert_eq!(orders.next_id()?, 1_000_001);
//! assert_eq!(orders.next_id()?, 1_000_002);
//! # Ok::<(), idmint_core::Error>(())
//! ```

mod client;
#[cfg(feature = "http")]
pub(crate) mod http;
mod mapping;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
pub(crate) mod redis_link;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
mod sql;
mod store;
mod tag;
mod tinyid;

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "redis")]
pub use crate::orders::shared::RedisDailyCounter;
pub use crate::orders::shared::{
    open_daily_counter, CounterArgs, DailyCounterOptions, SegmentDailyCounter, TagOrderNumbers,
    DEFAULT_COUNTER_NAME, DEFAULT_DAY_STEP,
};
pub use client::{SegmentClient, SegmentClientBuilder, TagCursor, TagHandle, TagMetrics};
#[cfg(feature = "http")]
pub use http::{HttpStore, TOKEN_VAR};
pub use mapping::{MaxIdMeaning, TableMapping};
#[cfg(feature = "redis")]
pub use redis::{redis_client, RedisMode, RedisStore};
#[cfg(feature = "redis")]
pub(crate) use redis_link::RedisConn;
#[cfg(feature = "mysql")]
pub use sql::MySqlStore;
#[cfg(feature = "postgres")]
pub use sql::PostgresStore;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub use sql::SqlStore;
#[cfg(feature = "sqlite")]
pub use sql::SqliteStore;
pub use store::{IdRange, MemoryStore, SegmentStore, StoreFuture, TagInfo};
pub(crate) use tag::check_step;
pub use tag::check_step_wide;
pub use tag::{
    validate_table, validate_tag, TagSpec, TagUpdate, DEFAULT_STEP, DEFAULT_TABLE,
    MAX_DESCRIPTION_LEN, MAX_ID, MAX_STEP, MAX_TABLE_LEN, MAX_TAG_LEN,
};
pub use tinyid::{
    TinyidRule, TinyidSegment, TINYID_DEFAULT_STEP, TINYID_LOADING_PERCENT, TINYID_MAX_DELTA,
};

use crate::{Error, Result};

/// The store URL the CLI uses when none is given: a SQLite file in the working directory.
pub const DEFAULT_STORE_URL: &str = "sqlite:./idmint-segments.db";

/// How to open a store by URL. URL query parameters `table`, `pool`, `prefix`, `shards` and
/// `shard_refill` override these (and are removed before the URL reaches the driver), and so
/// do the parameters that map an existing table ([`TableMapping`]): `schema=leaf`, or
/// `table`, `tag_column`, `max_id_column` with optional `step_column`, `description_column`,
/// `updated_column` and `max_id_is=last|next`.
///
/// ```
/// use idmint_core::segment::StoreOptions;
/// let opts = StoreOptions::default().table("my_segments")?.pool_size(8)?;
/// assert!(StoreOptions::default().table("bad name").is_err());
/// # let _ = opts;
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    pub(crate) table: String,
    pub(crate) pool_size: u32,
    pub(crate) redis_prefix: String,
    pub(crate) redis_shards: u32,
    pub(crate) redis_shard_refill: u64,
    pub(crate) mapping: Option<TableMapping>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            table: DEFAULT_TABLE.to_string(),
            pool_size: 4,
            redis_prefix: "idmint:seg".to_string(),
            redis_shards: 0,
            redis_shard_refill: 1000,
            mapping: None,
        }
    }
}

impl StoreOptions {
    /// The SQL table (default `idmint_segments`), checked by [`validate_table`].
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().table("ids").is_ok());
    /// ```
    pub fn table(mut self, table: &str) -> Result<Self> {
        validate_table(table)?;
        self.table = table.to_string();
        Ok(self)
    }

    /// Connections in a SQL pool, 1..=64 (default 4; SQLite uses one).
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().pool_size(0).is_err());
    /// ```
    pub fn pool_size(mut self, n: u32) -> Result<Self> {
        if !(1..=64).contains(&n) {
            return Err(Error::InvalidArgument {
                name: "pool".into(),
                value: n.to_string(),
                expected: "1..=64".into(),
            });
        }
        self.pool_size = n;
        Ok(self)
    }

    /// The prefix of Redis keys (default `idmint:seg`): 1 to 64 characters as in tags.
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().redis_prefix("app:ids").is_ok());
    /// ```
    pub fn redis_prefix(mut self, prefix: &str) -> Result<Self> {
        validate_tag(prefix)?;
        if prefix.len() > 64 {
            return Err(Error::InvalidArgument {
                name: "prefix".into(),
                value: prefix.into(),
                expected: "at most 64 characters".into(),
            });
        }
        self.redis_prefix = prefix.to_string();
        Ok(self)
    }

    /// Redis sharded mode: `shards` keys (1..=1024) holding `min`/`max` pairs, refilled from
    /// one global counter by `count + refill` IDs. 0 shards (the default) is the plain mode,
    /// one `INCRBY` key per tag.
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().redis_sharded(3, 1000).is_ok());
    /// ```
    pub fn redis_sharded(mut self, shards: u32, refill: u64) -> Result<Self> {
        if shards > 1024 {
            return Err(Error::InvalidArgument {
                name: "shards".into(),
                value: shards.to_string(),
                expected: "0 (plain mode) or 1..=1024".into(),
            });
        }
        tag::check_step("shard_refill", refill)?;
        self.redis_shards = shards;
        self.redis_shard_refill = refill;
        Ok(self)
    }

    /// SQL stores: use an existing table another allocator shares (Leaf's `leaf_alloc`, a
    /// `sequence_value` table) instead of idmint's own, which is then neither created nor
    /// used.
    ///
    /// ```
    /// use idmint_core::segment::{StoreOptions, TableMapping};
    /// let opts = StoreOptions::default().map_table(TableMapping::leaf());
    /// # let _ = opts;
    /// ```
    pub fn map_table(mut self, mapping: TableMapping) -> Self {
        self.mapping = Some(mapping);
        self
    }

    /// Applies and removes this crate's query parameters from a URL.
    pub(crate) fn apply_url(mut self, url: &str) -> Result<(Self, String)> {
        let Some((base, query)) = url.split_once('?') else {
            return Ok((self, url.to_string()));
        };
        let mut keep = Vec::new();
        let mut shards = (self.redis_shards, self.redis_shard_refill);
        let mut mapping = mapping::MappingParams::default();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let num = |name: &str| {
                v.parse::<u64>().map_err(|_| Error::InvalidArgument {
                    name: name.into(),
                    value: v.into(),
                    expected: "a whole number".into(),
                })
            };
            match k {
                "table" => {
                    self = self.table(v)?;
                    mapping.table = Some(v.to_string());
                }
                "pool" => self = self.pool_size(num("pool")?.min(u32::MAX as u64) as u32)?,
                "prefix" => self = self.redis_prefix(v)?,
                "shards" => shards.0 = num("shards")?.min(u32::MAX as u64) as u32,
                "shard_refill" => shards.1 = num("shard_refill")?,
                _ if mapping.take(k, v) => {}
                _ => keep.push(pair),
            }
        }
        self = self.redis_sharded(shards.0, shards.1)?;
        if let Some(m) = mapping.resolve()? {
            self.mapping = Some(m);
        }
        let rest = if keep.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", keep.join("&"))
        };
        Ok((self, rest))
    }
}

/// A store URL as kind and address, without credentials or parameters, for messages.
///
/// ```
/// use idmint_core::segment::describe_url;
/// assert_eq!(describe_url("postgres://app:secret@db:5432/ids?sslmode=disable"), "postgres://db:5432/ids");
/// assert_eq!(describe_url("sqlite:./ids.db"), "sqlite:./ids.db");
/// assert_eq!(describe_url("https://ids:8443?token=s3cret&ca=/ca.pem"), "https://ids:8443");
/// ```
pub fn describe_url(url: &str) -> String {
    let url = url.split('?').next().unwrap_or("");
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
            format!("{scheme}://{rest}")
        }
        None => url.to_string(),
    }
}

/// Opens a store by URL:
///
/// | URL | store | feature |
/// | --- | --- | --- |
/// | `memory:` | [`MemoryStore`] (this process only) | `segment` |
/// | `sqlite:PATH`, `sqlite://PATH`, `sqlite::memory:` | SQLite file, created if missing | `sqlite` |
/// | `postgres://user:pass@host:port/db`, `postgresql://…` | PostgreSQL | `postgres` |
/// | `mysql://user:pass@host:port/db`, `mariadb://…` | MySQL / MariaDB | `mysql` |
/// | `redis://[:pass@]host:port[/db]`, `rediss://…` (TLS: [`redis_client`]) | Redis | `redis` |
/// | `http://host:port[/prefix]`, `https://…` (`?token=`, `?ca=`) | an `idmint serve` ([`HttpStore`]) | `http` |
///
/// Query parameters of [`StoreOptions`] (`table`, `pool`, `prefix`, `shards`, `shard_refill`)
/// are read and removed; the rest go to the driver (TLS: PostgreSQL `sslmode=…&sslrootcert=…`,
/// MySQL `ssl-mode=…&ssl-ca=…`, docs/segments.md). SQL stores create their table if missing.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use idmint_core::segment::{open_store, StoreOptions};
/// let store = open_store("memory:", &StoreOptions::default()).await?;
/// assert_eq!(store.describe(), "memory:");
/// let err = open_store("ftp://x", &StoreOptions::default()).await.unwrap_err();
/// assert_eq!(err.kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
pub async fn open_store(url: &str, opts: &StoreOptions) -> Result<Arc<dyn SegmentStore>> {
    let (engine, opts, url) = plan_store(url, opts)?;
    // A build with no SQL or Redis store still checks the options (above), but has no use for them.
    #[cfg(not(any(
        feature = "sqlite",
        feature = "postgres",
        feature = "mysql",
        feature = "redis"
    )))]
    let _ = opts;
    match engine {
        Engine::Memory => Ok(MemoryStore::new()),
        #[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
        Engine::Sqlite | Engine::Postgres | Engine::MySql => {
            Ok(Arc::new(SqlStore::connect(&url, &opts).await?))
        }
        #[cfg(feature = "redis")]
        Engine::Redis => Ok(Arc::new(RedisStore::connect(&url, &opts).await?)),
        #[cfg(feature = "http")]
        Engine::Http => Ok(Arc::new(HttpStore::open(&url)?)),
        #[allow(unreachable_patterns)]
        other => Err(other.missing(&url, "store")),
    }
}

/// What [`open_store`] makes of a URL before it connects: the engine, the options with the
/// URL's parameters applied, and the URL the driver gets. Pure, so it is fuzzed on its own.
pub(crate) fn plan_store(url: &str, opts: &StoreOptions) -> Result<(Engine, StoreOptions, String)> {
    let (opts, url) = opts.clone().apply_url(url)?;
    let engine = Engine::of(&url, "store")?;
    if opts.mapping.is_some() && matches!(engine, Engine::Memory | Engine::Redis | Engine::Http) {
        return Err(Error::InvalidArgument {
            name: "schema".into(),
            value: describe_url(&url),
            expected: "a SQL store URL: only SQL stores map an existing table".into(),
        });
    }
    Ok((engine, opts, url))
}

/// The kind of store a URL names. [`Engine::of`] refuses a kind this build has no feature
/// for, so openers match only the kinds they were built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    Memory,
    Sqlite,
    Postgres,
    MySql,
    Redis,
    Http,
}

impl Engine {
    /// The engine of `url`; errors name the argument `what` (`store`, `counter`).
    pub(crate) fn of(url: &str, what: &str) -> Result<Engine> {
        let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
        let engine = match scheme.as_str() {
            "memory" => Engine::Memory,
            "sqlite" => Engine::Sqlite,
            "postgres" | "postgresql" => Engine::Postgres,
            "mysql" | "mariadb" => Engine::MySql,
            "redis" | "rediss" | "redis+sentinel" | "rediss+sentinel" | "redis+cluster"
            | "rediss+cluster" => Engine::Redis,
            "http" | "https" => Engine::Http,
            _ => return Err(Error::InvalidArgument {
                name: what.into(),
                value: describe_url(url),
                expected:
                    "a URL starting sqlite:, postgres://, mysql://, redis://, rediss://, redis+sentinel://, redis+cluster://, http://, https:// or memory:"
                        .into(),
            }),
        };
        let built = match engine {
            Engine::Memory => true,
            Engine::Sqlite => cfg!(feature = "sqlite"),
            Engine::Postgres => cfg!(feature = "postgres"),
            Engine::MySql => cfg!(feature = "mysql"),
            Engine::Redis => cfg!(feature = "redis"),
            Engine::Http => cfg!(feature = "http"),
        };
        if built {
            Ok(engine)
        } else {
            Err(engine.missing(url, what))
        }
    }

    pub(crate) fn missing(self, url: &str, what: &str) -> Error {
        let feature = match self {
            Engine::Memory => "segment",
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
            Engine::MySql => "mysql",
            Engine::Redis => "redis",
            Engine::Http => "http",
        };
        Error::InvalidArgument {
            name: what.into(),
            value: describe_url(url),
            expected: format!(
                "a store this build supports: build idmint-core with feature `{feature}`"
            ),
        }
    }
}

/// The one-worker runtime a blocking client runs its store calls and background tasks on.
pub(crate) fn background_runtime(thread_name: &str) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(thread_name)
        .enable_all()
        .build()
        .map_err(|e| Error::InvalidArgument {
            name: "runtime".into(),
            value: "1 worker thread".into(),
            expected: format!("a runtime the OS can start ({e})"),
        })
}

pub(crate) async fn open_store_timeout(
    url: &str,
    opts: &StoreOptions,
    timeout: Duration,
) -> Result<Arc<dyn SegmentStore>> {
    tokio::time::timeout(timeout, open_store(url, opts))
        .await
        .unwrap_or_else(|_| {
            Err(Error::StoreUnavailable {
                store: describe_url(url),
                reason: format!("no connection within {} ms", timeout.as_millis()),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_params() {
        let (o, rest) = StoreOptions::default()
            .apply_url("postgres://h/db?table=ids&sslmode=disable&pool=2")
            .unwrap();
        assert_eq!((o.table.as_str(), o.pool_size), ("ids", 2));
        assert_eq!(rest, "postgres://h/db?sslmode=disable");
        let (o, rest) = StoreOptions::default()
            .apply_url("redis://h:1?shards=3&shard_refill=50")
            .unwrap();
        assert_eq!((o.redis_shards, o.redis_shard_refill), (3, 50));
        assert_eq!(rest, "redis://h:1");
        assert!(StoreOptions::default()
            .apply_url("sqlite:x?table=a;drop")
            .is_err());
    }

    #[test]
    fn mapping_params() {
        let (o, rest) = StoreOptions::default()
            .apply_url("mysql://h/db?schema=leaf&ssl-mode=disabled")
            .unwrap();
        assert_eq!(o.mapping, Some(TableMapping::leaf()));
        assert_eq!(rest, "mysql://h/db?ssl-mode=disabled");
        // Order does not matter, and table= names the mapped table.
        let (o, _) = StoreOptions::default()
            .apply_url("postgres://h/db?max_id_column=id&tag_column=name&table=sequence_value")
            .unwrap();
        let m = o.mapping.unwrap();
        assert_eq!(
            (
                m.table_name(),
                m.tag_column.as_str(),
                m.max_id_column.as_str()
            ),
            ("sequence_value", "name", "id")
        );
        assert_eq!(m.max_id_is(), MaxIdMeaning::LastIssued);
        let (o, _) = StoreOptions::default()
            .apply_url("sqlite:x?schema=leaf&table=alloc2&max_id_is=last&step_column=block")
            .unwrap();
        let m = o.mapping.unwrap();
        assert_eq!(
            (m.table_name(), m.step_column.as_deref(), m.max_id_is()),
            ("alloc2", Some("block"), MaxIdMeaning::LastIssued)
        );
        // table= alone is idmint's own table, as before.
        let (o, _) = StoreOptions::default()
            .apply_url("sqlite:x?table=ids")
            .unwrap();
        assert_eq!(o.mapping, None);
        for (url, name) in [
            ("sqlite:x?tag_column=name&max_id_column=id", "table"),
            ("sqlite:x?table=s&max_id_column=id", "tag_column"),
            ("sqlite:x?table=s&tag_column=name", "max_id_column"),
            ("sqlite:x?schema=tinyid", "schema"),
            ("sqlite:x?schema=idmint&tag_column=name", "schema"),
            ("sqlite:x?schema=leaf&max_id_is=first", "max_id_is"),
            ("sqlite:x?schema=leaf&tag_column=a-b", "tag_column"),
        ] {
            match StoreOptions::default().apply_url(url) {
                Err(Error::InvalidArgument { name: got, .. }) => assert_eq!(got, name, "{url}"),
                other => panic!("{url}: {other:?}"),
            }
        }
    }
}

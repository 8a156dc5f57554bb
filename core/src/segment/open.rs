//! Opening a segment store by URL ([`open_store`]), and the URL the CLI uses without one.

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "etcd")]
use super::etcd::EtcdStore;
#[cfg(feature = "http")]
use super::http::HttpStore;
#[cfg(feature = "redis")]
use super::redis::RedisStore;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
use super::sql::SqlStore;
use super::store::{MemoryStore, SegmentStore};
#[cfg(feature = "zookeeper")]
use super::zookeeper::ZkStore;
use crate::store::{describe_url, Engine, StoreOptions, Use};
use crate::{Error, Result};

/// The store URL the CLI uses when none is given: a SQLite file in the working directory.
pub const DEFAULT_STORE_URL: &str = "sqlite:./idmint-segments.db";

/// Opens a store by URL:
///
/// | URL | store | feature |
/// | --- | --- | --- |
/// | `memory:` | [`MemoryStore`] (this process only) | `segment` |
/// | `sqlite:PATH`, `sqlite://PATH`, `sqlite::memory:` | SQLite file, created if missing | `sqlite` |
/// | `postgres://user:pass@host:port/db`, `postgresql://…` | PostgreSQL | `postgres` |
/// | `mysql://user:pass@host:port/db`, `mariadb://…` | MySQL / MariaDB | `mysql` |
/// | `redis://[:pass@]host:port[/db]`, `rediss://…` (TLS: [`redis_client`](super::redis_client)) | Redis | `redis` |
/// | `etcd://[user:pass@]h1:2379,h2:2379[/root]`, `etcds://…?ca=…&cert=…&key=…` | etcd ([`EtcdStore`]) | `etcd` |
/// | `zk://h1:2181,h2:2181[/chroot]` | ZooKeeper ([`ZkStore`]) | `zookeeper` |
/// | `http://host:port[/prefix]`, `https://…` (`?token=`, `?ca=`) | an `idmint serve` ([`HttpStore`]) | `http` |
///
/// Query parameters of [`StoreOptions`] (`table`, `pool`, `prefix`, `shards`, `shard_refill`)
/// are read and removed; the store's own (`replicas`, `ca`, `token`, …) and the driver's (TLS:
/// PostgreSQL `sslmode=…&sslrootcert=…`, MySQL `ssl-mode=…&ssl-ca=…`) go on to it. Each is
/// checked first against what this kind of segment store takes (the table in
/// docs/segments.md): `?pool=` on Redis or `?shards=` on PostgreSQL is refused by name. SQL
/// stores create their table if missing.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use idmint_core::segment::{open_store, StoreOptions};
/// let store = open_store("memory:", &StoreOptions::default()).await?;
/// assert_eq!(store.describe(), "memory:");
/// let err = open_store("ftp://x", &StoreOptions::default()).await.unwrap_err();
/// assert_eq!(err.kind(), "invalid_argument");
/// let err = open_store("memory:?pool=5", &StoreOptions::default()).await.unwrap_err();
/// assert!(err.to_string().contains("`pool`"), "{err}");
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
pub async fn open_store(url: &str, opts: &StoreOptions) -> Result<Arc<dyn SegmentStore>> {
    let (engine, opts, url) = plan_store(url, opts)?;
    // A build with no SQL or Redis store still checks the options (above), but has no use for them.
    #[cfg(not(any(
        feature = "sqlite",
        feature = "postgres",
        feature = "mysql",
        feature = "redis",
        feature = "etcd",
        feature = "zookeeper"
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
        #[cfg(feature = "etcd")]
        Engine::Etcd => Ok(Arc::new(EtcdStore::connect(&url, &opts).await?)),
        #[cfg(feature = "zookeeper")]
        Engine::ZooKeeper => Ok(Arc::new(ZkStore::connect(&url, &opts).await?)),
        #[cfg(feature = "http")]
        Engine::Http => Ok(Arc::new(HttpStore::open(&url)?)),
        #[allow(unreachable_patterns)]
        other => Err(other.missing(&url, "store")),
    }
}

/// What [`open_store`] makes of a URL before it connects: the engine, the options with the
/// URL's parameters applied, and the URL the driver gets. Pure, so it is fuzzed on its own.
/// Every option is checked against what the engine's segment store takes (only SQL stores map
/// an existing table, only Redis has shards): one it does not take is refused by name.
pub(crate) fn plan_store(url: &str, opts: &StoreOptions) -> Result<(Engine, StoreOptions, String)> {
    opts.clone().apply_url(url, Use::Segments)
}

/// [`open_store`] within `timeout`: a store that does not answer is `store_unavailable`.
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

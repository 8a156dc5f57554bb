//! Opening a lease store by URL ([`open_lease_store`]), and listing one's leases for callers
//! without a runtime ([`list_leases`]).

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "etcd")]
use super::etcd::EtcdLeaseStore;
#[cfg(feature = "http")]
use super::http::HttpLeaseStore;
use super::memory::MemoryLeaseStore;
#[cfg(feature = "redis")]
use super::redis::RedisLeaseStore;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
use super::sql::SqlLeaseStore;
use super::store::{LeaseInfo, LeaseStore};
#[cfg(feature = "zookeeper")]
use super::zookeeper::ZkLeaseStore;
use crate::store::{describe_url, Engine, StoreOptions, Use};
use crate::{Error, Result};

/// Opens a lease store by URL: `memory:` (a fresh store for this process), `sqlite:PATH`,
/// `postgres://…`, `mysql://…` (table `idmint_workers`, or `?table=…`, created if missing) or
/// `redis://…` (keys under `idmint:lease`, or `?prefix=…`), `etcd://h1:2379,h2:2379[/root]` or
/// `etcds://…?ca=…&cert=…&key=…` ([`EtcdLeaseStore`], feature `etcd`: keys under
/// `{root}/idmint:lease`, or `?prefix=…`), `zk://h1:2181,h2:2181[/chroot]` ([`ZkLeaseStore`],
/// feature `zookeeper`: nodes under `{chroot}/idmint:lease`, or `?prefix=…`;
/// `?schema=leaf&leaf_name=NAME` shares Leaf's snowflake workers), or an `idmint serve` at
/// `http(s)://host:port?token=…` ([`HttpLeaseStore`], feature `http`). The same URLs as the
/// segment stores, and the same features; an option a lease store does not take (`?shards=`,
/// `?pool=` on Redis, a mapped table's columns) is refused by name (the table in
/// docs/leases.md).
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let store = idmint_core::lease::open_lease_store("memory:").await?;
/// assert_eq!(store.describe(), "memory:");
/// let err = idmint_core::lease::open_lease_store("ftp://x").await.unwrap_err();
/// assert_eq!(err.kind(), "invalid_argument");
/// let err = idmint_core::lease::open_lease_store("memory:?pool=5").await.unwrap_err();
/// assert!(err.to_string().contains("`pool`"), "{err}");
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
pub async fn open_lease_store(url: &str) -> Result<Arc<dyn LeaseStore>> {
    let (engine, opts, url) = plan_lease_store(url)?;
    let _ = &opts;
    match engine {
        Engine::Memory => Ok(MemoryLeaseStore::new()),
        #[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
        Engine::Sqlite | Engine::Postgres | Engine::MySql => {
            Ok(Arc::new(SqlLeaseStore::connect(&url, &opts).await?))
        }
        #[cfg(feature = "redis")]
        Engine::Redis => Ok(Arc::new(RedisLeaseStore::connect(&url, &opts).await?)),
        #[cfg(feature = "etcd")]
        Engine::Etcd => Ok(Arc::new(EtcdLeaseStore::connect(&url, &opts).await?)),
        #[cfg(feature = "zookeeper")]
        Engine::ZooKeeper => Ok(Arc::new(ZkLeaseStore::connect(&url, &opts).await?)),
        #[cfg(feature = "http")]
        Engine::Http => Ok(Arc::new(HttpLeaseStore::open(&url)?)),
        #[allow(unreachable_patterns)]
        other => Err(other.missing(&url, "store")),
    }
}

/// What [`open_lease_store`] makes of a URL before it connects: the engine, the options with
/// the URL's parameters applied, and the URL the driver gets. A table or prefix the URL does
/// not name stays unset: the lease store fills in its own ([`DEFAULT_LEASE_TABLE`],
/// [`DEFAULT_LEASE_PREFIX`]), as it does for options given in code.
///
/// [`DEFAULT_LEASE_TABLE`]: super::DEFAULT_LEASE_TABLE
/// [`DEFAULT_LEASE_PREFIX`]: super::DEFAULT_LEASE_PREFIX
///
/// Every option is checked against what the engine's lease store takes: `?shards=`, `?pool=`
/// on Redis, the column options of a mapped table are refused by name.
pub(crate) fn plan_lease_store(url: &str) -> Result<(Engine, StoreOptions, String)> {
    StoreOptions::default().apply_url(url, Use::Leases)
}

/// The URL of the lease store kept in the same store as the segment store at `url`, as
/// `idmint serve` keeps both in the store it is given: `url` without the options that only
/// segment stores take (`?shards=` on Redis, a mapped table's `?schema=`, `?tag_column=`, …),
/// which the segment store reads. Options neither takes stay, for
/// [`open_lease_store`] to refuse by name.
///
/// ```
/// use idmint_core::lease::lease_url_beside;
/// assert_eq!(lease_url_beside("redis://h:6379?shards=4&replicas=1")?, "redis://h:6379?replicas=1");
/// assert_eq!(lease_url_beside("mysql://h/ids?schema=leaf&pool=8")?, "mysql://h/ids?pool=8");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn lease_url_beside(url: &str) -> Result<String> {
    let engine = Engine::of(url, "store")?;
    let Some((base, query)) = url.split_once('?') else {
        return Ok(url.to_string());
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let key = pair.split_once('=').map_or(*pair, |(k, _)| k);
            let segments_only =
                taken(key, engine, Use::Segments) && !taken(key, engine, Use::Leases);
            !pair.is_empty() && !segments_only
        })
        .collect();
    Ok(if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    })
}

fn taken(key: &str, engine: Engine, what: Use) -> bool {
    crate::store::option_reader(key, "", engine, what).is_ok()
}

/// How long [`list_leases`] may take when the caller gives no bound (the bindings' `lease_list`
/// default): opening the store and one query.
pub const DEFAULT_LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// The leases of the store at `url` (see [`open_lease_store`]), for callers without a tokio
/// runtime (the Python, Node and JVM packages, the CLI): opens the store on a runtime of its
/// own, lists, and closes it, within `timeout` in all.
///
/// ```
/// let leases = idmint_core::lease::list_leases("memory:", std::time::Duration::from_secs(5))?;
/// assert!(leases.is_empty());
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn list_leases(url: &str, timeout: Duration) -> Result<Vec<LeaseInfo>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::InvalidArgument {
            name: "runtime".into(),
            value: "a current-thread runtime".into(),
            expected: format!("a runtime the OS can start ({e})"),
        })?;
    let listed = rt.block_on(async {
        tokio::time::timeout(timeout, async {
            let store = open_lease_store(url).await?;
            let listed = store.list().await;
            // Closed before returning, not when dropped: a dropped SQLite pool closes its
            // connections (and SQLite deletes the -wal) in the background, after the caller
            // may already be removing the file's directory.
            let closed = store.close().await;
            listed.and_then(|leases| closed.map(|()| leases))
        })
        .await
    });
    listed.unwrap_or_else(|_| {
        Err(Error::StoreUnavailable {
            store: describe_url(url),
            reason: format!("listing leases took over {} ms", timeout.as_millis()),
        })
    })
}

//! Worker-ID leases: node values that two live processes never share, reused safely.
//!
//! A snowflake node value (datacenter and worker, machine, shard) must belong to one process at
//! a time, and a process that takes over a value must never mint an ID its previous holder
//! could have minted. Hand-set values collide when containers come and go; Baidu's scheme
//! burns a new value on every start; Leaf never recycles. Here a store hands out values:
//!
//! - **Lease**: a free value of a range is taken for a TTL and renewed in the background every
//!   TTL/3. A value whose lease expired is *frozen* for a further period before anyone may take
//!   it (a stalled holder that wakes up late finds it still unusable for others).
//! - **Fence**: the holder records, ahead of time, the last time its IDs may carry (the value's
//!   `last_time_ms`). A later holder of the value issues only IDs with a later time: it waits,
//!   continues ahead or fails, by its [`OnRollback`](crate::OnRollback) policy, so reuse after a
//!   crash is safe even when the new process's clock is behind.
//! - **Lost lease**: when renewals fail, the generator stops issuing ([`Error::LeaseLost`]) a
//!   safety margin before the TTL ends, and carries on once a renewal (or a new lease)
//!   succeeds.
//!
//! Stores: [`MemoryLeaseStore`] (this process), and by URL ([`open_lease_store`]) SQLite,
//! PostgreSQL, MySQL/MariaDB (table `idmint_workers`) and Redis (a key per value), behind the
//! same cargo features as the segment stores.
//!
//! ```
//! use std::time::Duration;
//! use idmint_core::lease::{LeaseOptions, MemoryLeaseStore};
//! use idmint_core::{Layout, Snowflake};
//!
//! let store = MemoryLeaseStore::new();
//! let lease = LeaseOptions::store(store.clone()).range(0, 1).ttl(Duration::from_secs(5));
//! let a = Snowflake::builder(Layout::preset("twitter")?).lease(lease.clone()).build()?;
//! let b = Snowflake::builder(Layout::preset("twitter")?).lease(lease.clone()).build()?;
//! assert_ne!(a.nodes(), b.nodes());
//! let err = Snowflake::builder(Layout::preset("twitter")?).lease(lease).build().unwrap_err();
//! assert_eq!(err.kind(), "no_free_lease");
//! assert!(a.next_id()? != b.next_id()?);
//! # Ok::<(), idmint_core::Error>(())
//! ```

mod client;
#[cfg(feature = "http")]
mod http;
mod keeper;
mod memory;
#[cfg(feature = "redis")]
mod redis;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
mod sql;

use std::sync::Arc;
use std::time::Duration;

pub use client::{check_token, ClientLease, ClientLeases, MAX_TOKEN_LEN, MIN_TOKEN_LEN};
#[cfg(feature = "http")]
pub use http::HttpLeaseStore;
pub use keeper::{LeaseOptions, DEFAULT_TTL};
pub use memory::MemoryLeaseStore;
#[cfg(feature = "redis")]
pub use redis::RedisLeaseStore;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub use sql::SqlLeaseStore;

use crate::clock::whole_ms;
use crate::layout::Layout;
use crate::segment::{Engine, StoreFuture, StoreOptions};
use crate::{Error, Result};

/// The SQL table of leases unless the URL says `?table=…`.
pub const DEFAULT_LEASE_TABLE: &str = "idmint_workers";

/// The Redis key prefix of leases unless the URL says `?prefix=…`.
pub const DEFAULT_LEASE_PREFIX: &str = "idmint:lease";

/// What a holder asks for when it leases a value.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::lease::LeaseRequest;
/// let req = LeaseRequest::new(0, 31, "web-1:4242", Duration::from_secs(10), Duration::from_secs(10))?;
/// assert_eq!(req.token.len(), 32);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRequest {
    /// First value of the range.
    pub first: u64,
    /// Last value of the range (included).
    pub last: u64,
    /// A value to try before the others (the one held before a lost lease).
    pub prefer: Option<u64>,
    /// Who asks, for people reading the store (`host:pid`).
    pub holder: String,
    /// A random secret that proves holding: renewals and releases compare it.
    pub token: String,
    /// How long the lease lasts unless renewed.
    pub ttl_ms: u64,
    /// How long an expired lease keeps the value from others.
    pub freeze_ms: u64,
}

impl LeaseRequest {
    /// A request for a value in `first..=last` with a fresh random token.
    pub fn new(
        first: u64,
        last: u64,
        holder: &str,
        ttl: Duration,
        freeze: Duration,
    ) -> Result<LeaseRequest> {
        if first > last || last > MAX_VALUE {
            return Err(Error::InvalidArgument {
                name: "range".into(),
                value: format!("{first}..={last}"),
                expected: format!("first <= last <= {MAX_VALUE}"),
            });
        }
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| Error::InvalidArgument {
            name: "token".into(),
            value: "16 random bytes".into(),
            expected: format!("an OS random source ({e})"),
        })?;
        Ok(LeaseRequest {
            first,
            last,
            prefer: None,
            holder: holder.chars().take(200).collect(),
            token: hex::encode(bytes),
            ttl_ms: whole_ms(ttl),
            freeze_ms: whole_ms(freeze),
        })
    }
}

/// The largest value a lease store keeps (node values use at most 63 bits; stores use BIGINT).
pub const MAX_VALUE: u64 = (1 << 62) - 1;

/// A value just leased.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// The value.
    pub value: u64,
    /// The fence its previous holders left: IDs of this value must carry later times.
    pub fence_ms: u64,
}

/// One value as a store holds it, for `idmint lease list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseInfo {
    /// The value.
    pub value: u64,
    /// The holder's name, empty when released.
    pub holder: String,
    /// Milliseconds until the holder's lease ends (negative: ended that long ago).
    pub expires_in_ms: i64,
    /// Milliseconds until others may take the value (0 when they may now).
    pub free_in_ms: i64,
    /// The fence: IDs of this value so far carry times up to this.
    pub last_time_ms: u64,
}

impl LeaseInfo {
    /// `held`, `frozen` (expired, not yet free) or `free`.
    ///
    /// ```
    /// let i = idmint_core::lease::LeaseInfo { value: 3, holder: "a:1".into(), expires_in_ms: -5, free_in_ms: 995, last_time_ms: 0 };
    /// assert_eq!(i.state(), "frozen");
    /// ```
    pub fn state(&self) -> &'static str {
        if self.holder.is_empty() || self.free_in_ms <= 0 {
            "free"
        } else if self.expires_in_ms > 0 {
            "held"
        } else {
            "frozen"
        }
    }
}

/// Where leases live. Every method is one atomic step in the store; times (expiry, freeze) are
/// the store's own clock where it has one (SQL servers, Redis), so holders with skewed clocks
/// agree on when a lease ends.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use std::time::Duration;
/// use idmint_core::lease::{LeaseRequest, LeaseStore, MemoryLeaseStore};
/// let store = MemoryLeaseStore::new();
/// let req = LeaseRequest::new(0, 0, "a:1", Duration::from_secs(10), Duration::from_secs(10))?;
/// let grant = store.acquire(&req).await?.expect("free");
/// assert!(store.renew(grant.value, &req.token, 10_000, 10_000, 1_700_000_000_000).await?);
/// let other = LeaseRequest::new(0, 0, "b:2", Duration::from_secs(10), Duration::from_secs(10))?;
/// assert_eq!(store.acquire(&other).await?, None);
/// assert!(store.release(grant.value, &req.token, 1_700_000_000_000).await?);
/// assert_eq!(store.acquire(&other).await?.unwrap().fence_ms, 1_700_000_000_000);
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
pub trait LeaseStore: Send + Sync + 'static {
    /// The store, for messages: kind and address, never credentials.
    fn describe(&self) -> String;

    /// Takes a free value of the request's range (its `prefer` first, then the lowest free),
    /// or `None` when all are held or frozen.
    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>>;

    /// Extends the lease of `value` held with `token` to `ttl_ms` from now (frozen for
    /// `freeze_ms` after that) and raises its fence to at least `fence_ms`. False when the
    /// value is no longer held with `token`.
    fn renew<'a>(
        &'a self,
        value: u64,
        token: &'a str,
        ttl_ms: u64,
        freeze_ms: u64,
        fence_ms: u64,
    ) -> StoreFuture<'a, bool>;

    /// Gives the value up at once, setting its fence to `fence_ms` (the last time really
    /// issued). False when it was not held with `token`.
    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool>;

    /// Every value the store has a record of, in order.
    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>>;
}

impl std::fmt::Debug for dyn LeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LeaseStore({})", self.describe())
    }
}

/// Opens a lease store by URL: `memory:` (a fresh store for this process), `sqlite:PATH`,
/// `postgres://…`, `mysql://…` (table `idmint_workers`, or `?table=…`, created if missing) or
/// `redis://…` (keys under `idmint:lease`, or `?prefix=…`), or an `idmint serve` at
/// `http(s)://host:port?token=…` ([`HttpLeaseStore`], feature `http`). The same URLs as the
/// segment stores, and the same features.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let store = idmint_core::lease::open_lease_store("memory:").await?;
/// assert_eq!(store.describe(), "memory:");
/// let err = idmint_core::lease::open_lease_store("ftp://x").await.unwrap_err();
/// assert_eq!(err.kind(), "invalid_argument");
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
        #[cfg(feature = "http")]
        Engine::Http => Ok(Arc::new(HttpLeaseStore::open(&url)?)),
        #[allow(unreachable_patterns)]
        other => Err(other.missing(&url, "store")),
    }
}

/// What [`open_lease_store`] makes of a URL before it connects: the engine, the options with
/// the lease defaults and the URL's parameters applied, and the URL the driver gets.
pub(crate) fn plan_lease_store(url: &str) -> Result<(Engine, StoreOptions, String)> {
    let defaults = StoreOptions::default()
        .table(DEFAULT_LEASE_TABLE)?
        .redis_prefix(DEFAULT_LEASE_PREFIX)?;
    let (opts, url) = defaults.apply_url(url)?;
    let engine = Engine::of(&url, "store")?;
    Ok((engine, opts, url))
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
        tokio::time::timeout(timeout, async { open_lease_store(url).await?.list().await }).await
    });
    listed.unwrap_or_else(|_| {
        Err(Error::StoreUnavailable {
            store: crate::segment::describe_url(url),
            reason: format!("listing leases took over {} ms", timeout.as_millis()),
        })
    })
}

/// The values a lease for `layout` may take: `range` (checked against the layout) or, without
/// one, every value its node fields can hold. The leased value fills the node fields, most
/// significant first ([`node_values`]).
///
/// ```
/// use idmint_core::{lease::layout_range, Layout};
/// let twitter = Layout::preset("twitter")?;
/// assert_eq!(layout_range(&twitter, None)?, (0, 1023));
/// assert_eq!(layout_range(&twitter, Some((8, 15)))?, (8, 15));
/// assert_eq!(layout_range(&twitter, Some((0, 1024))).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn layout_range(layout: &Layout, range: Option<(u64, u64)>) -> Result<(u64, u64)> {
    let node_bits: u32 = layout.node_fields().map(|f| f.bits()).sum();
    if node_bits == 0 {
        return Err(Error::InvalidArgument {
            name: "lease".into(),
            value: layout.spec(),
            expected: "a layout with node fields for the leased value to fill".into(),
        });
    }
    let top = if node_bits >= 62 {
        MAX_VALUE
    } else {
        (1u64 << node_bits) - 1
    };
    let (first, last) = range.unwrap_or((0, top));
    if first > last || last > top {
        return Err(Error::InvalidArgument {
            name: "lease range".into(),
            value: format!("{first}..={last}"),
            expected: format!(
                "first <= last <= {top}, the largest value of the layout's {node_bits} node bits"
            ),
        });
    }
    Ok((first, last))
}

/// The node field values a leased `value` fills, in layout order: for `twitter` (datacenter 5
/// bits, worker 5 bits) value `v` is datacenter `v >> 5`, worker `v & 31`.
///
/// ```
/// use idmint_core::{lease::node_values, Layout};
/// let twitter = Layout::preset("twitter")?;
/// let v = node_values(&twitter, 37);
/// assert_eq!(v, [("datacenter", 1), ("worker", 5)]);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn node_values(layout: &Layout, value: u64) -> Vec<(&str, u64)> {
    let mut rest = value;
    let mut out: Vec<(&str, u64)> = layout
        .node_fields()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|f| {
            let v = rest & f.max();
            rest >>= f.bits();
            (f.name(), v)
        })
        .collect();
    out.reverse();
    out
}

/// A range of lease values written `FIRST..LAST` (both included; `FIRST..=LAST` too), as the
/// CLI's `--lease-range` and the server's `snowflake.lease_range` take it.
///
/// ```
/// use idmint_core::lease::parse_range;
/// assert_eq!(parse_range("0..7")?, (0, 7));
/// assert_eq!(parse_range("8..=15")?, (8, 15));
/// assert_eq!(parse_range("7").unwrap_err().kind(), "invalid_argument");
/// assert_eq!(parse_range("7..3").unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn parse_range(text: &str) -> Result<(u64, u64)> {
    let bad = || Error::InvalidArgument {
        name: "lease range".into(),
        value: text.chars().take(64).collect(),
        expected: "FIRST..LAST, two whole numbers with FIRST <= LAST, e.g. 0..7".into(),
    };
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let num = |s: &str| {
        s.trim()
            .trim_start_matches('=')
            .parse::<u64>()
            .map_err(|_| bad())
    };
    let (first, last) = (num(a)?, num(b)?);
    if first > last {
        return Err(bad());
    }
    Ok((first, last))
}

//! Where leases live: the [`LeaseStore`] trait every store implements, what a holder asks of
//! it ([`LeaseRequest`]), what it answers ([`Grant`], [`LeaseInfo`]), and the lease stores'
//! own table and key prefix.

use std::time::Duration;

use crate::clock::whole_ms;
use crate::store::StoreFuture;
use crate::{Error, Result};

/// The SQL table of leases unless the options or the URL say `?table=…`: what
/// `SqlLeaseStore::connect` uses with `StoreOptions::default()`, as
/// [`open_lease_store`](crate::lease::open_lease_store) does.
///
/// ```
/// assert_eq!(idmint_core::lease::DEFAULT_LEASE_TABLE, "idmint_workers");
/// ```
pub const DEFAULT_LEASE_TABLE: &str = "idmint_workers";

/// The Redis key prefix of leases unless the options or the URL say `?prefix=…`: what
/// `RedisLeaseStore::connect` uses with `StoreOptions::default()`, as
/// [`open_lease_store`](crate::lease::open_lease_store) does.
///
/// ```
/// assert_eq!(idmint_core::lease::DEFAULT_LEASE_PREFIX, "idmint:lease");
/// ```
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

    /// Lets go of what the store holds open: a SQL store closes its pool's connections, and
    /// with them a SQLite file (which Windows will not let anyone delete while it is open, and
    /// whose `-wal` file SQLite removes when the last connection closes). A leased generator
    /// calls it when it releases its value, on a store it opened from a URL (one given in
    /// [`LeaseOptions::store`](super::LeaseOptions::store) may serve others and stays open).
    /// Later calls on the store fail. The default does nothing.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::lease::{LeaseStore, MemoryLeaseStore};
    /// MemoryLeaseStore::new().close().await?;
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }
}

impl std::fmt::Debug for dyn LeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LeaseStore({})", self.describe())
    }
}

//! Leases handed to other processes: what `idmint serve` gives a browser page or a short-lived
//! job that mints snowflake IDs itself. The rules are the ones a [`LeaseOptions`] generator
//! follows (range from the layout, TTL bounds, freeze = TTL, fenced release); only the holding
//! is the caller's, over the network.
//!
//! [`LeaseOptions`]: super::LeaseOptions

use std::sync::Arc;
use std::time::Duration;

use super::store::{LeaseInfo, LeaseRequest, LeaseStore, MAX_VALUE};
use super::values::{layout_range, node_values};
use crate::clock::whole_ms;
use crate::layout::Layout;
use crate::{Error, Result};

use crate::rules::{LEASE_MAX_TTL_MS, LEASE_MIN_TTL_MS as MIN_TTL_MS};

/// A lease just taken or renewed for a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientLease {
    /// The value: fills the layout's node fields ([`nodes`](ClientLease::nodes)).
    pub value: u64,
    /// The secret that renews and releases it.
    pub token: String,
    /// On a lease: IDs of this value must carry times above this (unix ms), the fence its
    /// previous holders left. On a renewal: the fence as now recorded.
    pub fence_ms: u64,
    /// How long the lease lasts from now unless renewed, ms.
    pub ttl_ms: u64,
    /// The node field values it fills, in layout order.
    pub nodes: Vec<(String, u64)>,
}

/// Leases of one store for clients that hold them themselves.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use std::time::Duration;
/// use idmint_core::lease::{ClientLeases, MemoryLeaseStore};
/// use idmint_core::Layout;
/// let leases = ClientLeases::new(MemoryLeaseStore::new(), Layout::preset("twitter")?,
///     Duration::from_secs(30), Duration::from_secs(300))?;
/// let a = leases.acquire(Some((0, 1)), None, "page-1").await?;
/// let b = leases.acquire(Some((0, 1)), None, "page-2").await?;
/// assert_ne!(a.value, b.value);
/// assert_eq!(leases.acquire(Some((0, 1)), None, "page-3").await.unwrap_err().kind(), "no_free_lease");
/// leases.renew(a.value, &a.token, None, 1_700_000_000_000).await?;
/// assert_eq!(leases.renew(a.value, "wrong", None, 0).await.unwrap_err().kind(), "lease_lost");
/// leases.release(a.value, &a.token, 1_700_000_000_000).await?;
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[derive(Clone)]
pub struct ClientLeases {
    store: Arc<dyn LeaseStore>,
    layout: Layout,
    default_ttl_ms: u64,
    max_ttl_ms: u64,
}

impl std::fmt::Debug for ClientLeases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientLeases")
            .field("store", &self.store.describe())
            .field("layout", &self.layout.spec())
            .finish_non_exhaustive()
    }
}

impl ClientLeases {
    /// Leases of `store` for IDs of `layout`, lasting `default_ttl` unless a client asks for
    /// another TTL, at most `max_ttl`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::lease::{ClientLeases, MemoryLeaseStore};
    /// let err = ClientLeases::new(MemoryLeaseStore::new(), idmint_core::Layout::preset("twitter")?,
    ///     Duration::from_secs(60), Duration::from_secs(30)).unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn new(
        store: Arc<dyn LeaseStore>,
        layout: Layout,
        default_ttl: Duration,
        max_ttl: Duration,
    ) -> Result<ClientLeases> {
        layout_range(&layout, None)?;
        let max_ttl_ms = whole_ms(max_ttl);
        if !(MIN_TTL_MS..=LEASE_MAX_TTL_MS).contains(&max_ttl_ms) {
            return Err(ttl_error("max_ttl_ms", max_ttl_ms, LEASE_MAX_TTL_MS));
        }
        let default_ttl_ms = whole_ms(default_ttl);
        if !(MIN_TTL_MS..=max_ttl_ms).contains(&default_ttl_ms) {
            return Err(ttl_error("default_ttl_ms", default_ttl_ms, max_ttl_ms));
        }
        Ok(ClientLeases {
            store,
            layout,
            default_ttl_ms,
            max_ttl_ms,
        })
    }

    /// The layout whose node fields the values fill.
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::lease::{ClientLeases, MemoryLeaseStore};
    /// let l = ClientLeases::new(MemoryLeaseStore::new(), idmint_core::Layout::preset("sonyflake")?,
    ///     Duration::from_secs(30), Duration::from_secs(60))?;
    /// assert_eq!(l.layout().preset_name(), Some("sonyflake"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The store, for messages (no credentials).
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::lease::{ClientLeases, MemoryLeaseStore};
    /// let l = ClientLeases::new(MemoryLeaseStore::new(), idmint_core::Layout::preset("twitter")?,
    ///     Duration::from_secs(30), Duration::from_secs(60))?;
    /// assert_eq!(l.describe(), "memory:");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn describe(&self) -> String {
        self.store.describe()
    }

    fn ttl(&self, ttl_ms: Option<u64>) -> Result<u64> {
        let ttl = ttl_ms.unwrap_or(self.default_ttl_ms);
        if !(MIN_TTL_MS..=self.max_ttl_ms).contains(&ttl) {
            return Err(ttl_error("ttl_ms", ttl, self.max_ttl_ms));
        }
        Ok(ttl)
    }

    fn nodes(&self, value: u64) -> Vec<(String, u64)> {
        node_values(&self.layout, value)
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect()
    }

    /// Leases a free value of `range` (default: every value of the layout) for `ttl_ms`
    /// (default: the configured TTL). The value stays frozen for one TTL after the lease
    /// expires unreleased. Errors: [`Error::NoFreeLease`], `invalid_argument` for a range or
    /// TTL out of bounds, [`Error::StoreUnavailable`].
    pub async fn acquire(
        &self,
        range: Option<(u64, u64)>,
        ttl_ms: Option<u64>,
        holder: &str,
    ) -> Result<ClientLease> {
        self.acquire_with(range, ttl_ms, holder, None, None).await
    }

    /// [`acquire`](ClientLeases::acquire) with the client's own `token` (checked by
    /// [`check_token`]; `None`: a fresh random one) and a value to try first (`prefer`, the one
    /// it held before a lost lease; ignored outside the range): what an `http(s)://` lease store sends, so it holds the
    /// token before the server answers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use std::time::Duration;
    /// use idmint_core::lease::{ClientLeases, MemoryLeaseStore};
    /// let leases = ClientLeases::new(MemoryLeaseStore::new(), idmint_core::Layout::preset("twitter")?,
    ///     Duration::from_secs(30), Duration::from_secs(300))?;
    /// let token = "0123456789abcdef0123456789abcdef";
    /// let a = leases.acquire_with(None, None, "job", Some(token), Some(9)).await?;
    /// assert_eq!((a.value, a.token.as_str()), (9, token));
    /// let err = leases.acquire_with(None, None, "job", Some("short"), None).await.unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// assert!(!err.to_string().contains("short"));
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn acquire_with(
        &self,
        range: Option<(u64, u64)>,
        ttl_ms: Option<u64>,
        holder: &str,
        token: Option<&str>,
        prefer: Option<u64>,
    ) -> Result<ClientLease> {
        let (first, last) = layout_range(&self.layout, range)?;
        let ttl = self.ttl(ttl_ms)?;
        let ttl_d = Duration::from_millis(ttl);
        let mut req = LeaseRequest::new(first, last, holder, ttl_d, ttl_d)?;
        if let Some(token) = token {
            check_token(token)?;
            req.token = token.to_string();
        }
        if let Some(p) = prefer {
            check_value(p)?;
            // Outside the range it is no candidate (as in every store's own choice).
            req.prefer = Some(p).filter(|v| (first..=last).contains(v));
        }
        match self.store.acquire(&req).await? {
            Some(grant) => Ok(ClientLease {
                value: grant.value,
                token: req.token,
                fence_ms: grant.fence_ms,
                ttl_ms: ttl,
                nodes: self.nodes(grant.value),
            }),
            None => Err(Error::NoFreeLease {
                store: self.store.describe(),
                first,
                last,
                reason: format!(
                    "all {} are held, or frozen for {ttl} ms after their lease expired",
                    last - first + 1
                ),
            }),
        }
    }

    /// Extends the lease of `value` held with `token` by `ttl_ms` (default: the configured
    /// TTL) from now, and raises its fence to `fence_ms` (the last time the holder's IDs may
    /// carry). [`Error::LeaseLost`] when the value is no longer held with `token`.
    pub async fn renew(
        &self,
        value: u64,
        token: &str,
        ttl_ms: Option<u64>,
        fence_ms: u64,
    ) -> Result<ClientLease> {
        check_value(value)?;
        let ttl = self.ttl(ttl_ms)?;
        if self.store.renew(value, token, ttl, ttl, fence_ms).await? {
            Ok(ClientLease {
                value,
                token: token.to_string(),
                fence_ms,
                ttl_ms: ttl,
                nodes: self.nodes(value),
            })
        } else {
            Err(self.lost(value))
        }
    }

    /// Gives `value` up at once, its fence set to `fence_ms` (the last time really issued).
    /// [`Error::LeaseLost`] when it was not held with `token`.
    pub async fn release(&self, value: u64, token: &str, fence_ms: u64) -> Result<()> {
        check_value(value)?;
        if self.store.release(value, token, fence_ms).await? {
            Ok(())
        } else {
            Err(self.lost(value))
        }
    }

    /// Every value the store has a record of.
    pub async fn list(&self) -> Result<Vec<LeaseInfo>> {
        self.store.list().await
    }

    fn lost(&self, value: u64) -> Error {
        Error::LeaseLost {
            value,
            store: self.store.describe(),
            reason: "it is not held with this token: expired, released or taken by another holder"
                .into(),
        }
    }
}

/// The shortest lease token a client may choose: 32 characters (128 bits as hex, what
/// [`LeaseRequest::new`] draws).
pub const MIN_TOKEN_LEN: usize = 32;
/// The longest lease token a client may choose.
pub const MAX_TOKEN_LEN: usize = 128;

/// Checks a lease token a client chose: [`MIN_TOKEN_LEN`]..=[`MAX_TOKEN_LEN`] characters of
/// `0-9 A-Z a-z _ -` (a guessable short one would let others renew or release the lease). The
/// error tells the length, never the token.
///
/// ```
/// use idmint_core::lease::check_token;
/// assert!(check_token("0123456789abcdef0123456789abcdef").is_ok());
/// let err = check_token("0123456789abcdef0123456789abcde!").unwrap_err();
/// assert!(err.to_string().contains("32 characters") && !err.to_string().contains("abcde!"));
/// ```
pub fn check_token(token: &str) -> Result<()> {
    let ok = (MIN_TOKEN_LEN..=MAX_TOKEN_LEN).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        name: "token".into(),
        value: format!(
            "a token of {} characters (not shown)",
            token.chars().count()
        ),
        expected: format!("{MIN_TOKEN_LEN} to {MAX_TOKEN_LEN} characters of 0-9 A-Z a-z _ -"),
    })
}

fn check_value(value: u64) -> Result<()> {
    if value > MAX_VALUE {
        return Err(Error::InvalidArgument {
            name: "value".into(),
            value: value.to_string(),
            expected: format!("0..={MAX_VALUE}"),
        });
    }
    Ok(())
}

fn ttl_error(name: &str, ttl_ms: u64, max_ms: u64) -> Error {
    Error::InvalidArgument {
        name: name.into(),
        value: format!("{ttl_ms} ms"),
        expected: format!("{MIN_TTL_MS}..={max_ms} ms"),
    }
}

//! Holding a lease for a generator: acquire, renew in the background, move the fence, release.

use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime};

use super::open::open_lease_store;
use super::store::{Grant, LeaseRequest, LeaseStore};
use super::values::{layout_range, node_values};
use crate::clock::{whole_ms, Clock, WallClock};
#[cfg(unix)]
use crate::guard::GuardCells;
use crate::guard::{Fresh, Guard, Keeper};
use crate::layout::Layout;
use crate::rules;
use crate::snowflake::{GuardSource, LeaseSource};
use crate::store::{background_runtime, describe_url};
use crate::{Error, Result};

#[derive(Clone)]
enum StoreRef {
    Url(String),
    Store(Arc<dyn LeaseStore>),
}

/// How a generator leases its node value: the store, the range of values, and the timings.
///
/// The leased value fills every node field of the layout: for `twitter` (datacenter 5 bits,
/// worker 5 bits) value `v` is datacenter `v >> 5`, worker `v & 31`. The range defaults to
/// every value the node fields can hold.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::lease::LeaseOptions;
/// let opts = LeaseOptions::url("sqlite:./idmint-leases.db")
///     .range(0, 7)
///     .ttl(Duration::from_secs(10))
///     .freeze(Duration::from_secs(20))
///     .holder("web-1");
/// # let _ = opts;
/// ```
#[derive(Clone)]
pub struct LeaseOptions {
    store: StoreRef,
    range: Option<(u64, u64)>,
    ttl: Duration,
    freeze: Option<Duration>,
    margin: Option<Duration>,
    holder: Option<String>,
    op_timeout: Option<Duration>,
    acquire_within: Option<Duration>,
}

impl std::fmt::Debug for LeaseOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let store = match &self.store {
            StoreRef::Url(u) => describe_url(u),
            StoreRef::Store(s) => s.describe(),
        };
        f.debug_struct("LeaseOptions")
            .field("store", &store)
            .field("range", &self.range)
            .field("ttl", &self.ttl)
            .field("freeze", &self.freeze_time())
            .finish_non_exhaustive()
    }
}

/// The TTL of a lease unless set: renewed every 3⅓ s, lost 2 s before it ends.
pub const DEFAULT_TTL: Duration = Duration::from_millis(rules::LEASE_DEFAULT_TTL_MS);

impl LeaseOptions {
    /// Lease from the store at `url` (see [`open_lease_store`]), opened when the generator is
    /// built.
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::url("redis://127.0.0.1:6379");
    /// # let _ = opts;
    /// ```
    pub fn url(url: &str) -> LeaseOptions {
        LeaseOptions::with(StoreRef::Url(url.to_string()))
    }

    /// Lease from an open store.
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::store(idmint_core::lease::MemoryLeaseStore::new());
    /// # let _ = opts;
    /// ```
    pub fn store(store: Arc<dyn LeaseStore>) -> LeaseOptions {
        LeaseOptions::with(StoreRef::Store(store))
    }

    fn with(store: StoreRef) -> LeaseOptions {
        LeaseOptions {
            store,
            range: None,
            ttl: DEFAULT_TTL,
            freeze: None,
            margin: None,
            holder: None,
            op_timeout: None,
            acquire_within: None,
        }
    }

    /// Lease a value in `first..=last` (default: all the layout's node values).
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::url("memory:").range(8, 15);
    /// # let _ = opts;
    /// ```
    pub fn range(mut self, first: u64, last: u64) -> LeaseOptions {
        self.range = Some((first, last));
        self
    }

    /// How long a lease lasts without renewal (default 10 s, at least 300 ms). Renewals run
    /// every TTL/3.
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::url("memory:").ttl(std::time::Duration::from_secs(30));
    /// # let _ = opts;
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> LeaseOptions {
        self.ttl = ttl;
        self
    }

    /// How long a value stays frozen after its lease expired before anyone may take it
    /// (default: the TTL).
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::url("memory:").freeze(std::time::Duration::from_secs(60));
    /// # let _ = opts;
    /// ```
    pub fn freeze(mut self, freeze: Duration) -> LeaseOptions {
        self.freeze = Some(freeze);
        self
    }

    /// How long before the TTL ends an unrenewed lease counts as lost (default TTL/5): room
    /// for a stalled thread or a slow clock between the check and the ID reaching anyone.
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::url("memory:").margin(std::time::Duration::from_secs(1));
    /// # let _ = opts;
    /// ```
    pub fn margin(mut self, margin: Duration) -> LeaseOptions {
        self.margin = Some(margin);
        self
    }

    /// The holder's name shown in the store (default `host:pid`).
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::url("memory:").holder("orders-api-7");
    /// # let _ = opts;
    /// ```
    pub fn holder(mut self, holder: &str) -> LeaseOptions {
        self.holder = Some(holder.to_string());
        self
    }

    /// The longest one store call may take (default TTL/4).
    ///
    /// ```
    /// let opts = idmint_core::lease::LeaseOptions::url("memory:").op_timeout(std::time::Duration::from_millis(500));
    /// # let _ = opts;
    /// ```
    pub fn op_timeout(mut self, timeout: Duration) -> LeaseOptions {
        self.op_timeout = Some(timeout);
        self
    }

    /// The longest building the generator may wait for its lease, opening the store and the
    /// first grant together (default: their own timeouts, about the TTL/4 and 5 s). A caller's
    /// deadline (Go's `context.Context`, a request's budget) shortens the wait; it never
    /// lengthens a store call past `op_timeout`, and renewals are not bounded by it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::lease::LeaseOptions;
    /// let opts = LeaseOptions::url("memory:").acquire_within(Duration::from_millis(800));
    /// # let _ = opts;
    /// ```
    pub fn acquire_within(mut self, limit: Duration) -> LeaseOptions {
        self.acquire_within = Some(limit);
        self
    }

    fn freeze_time(&self) -> Duration {
        self.freeze.unwrap_or(self.ttl)
    }

    fn margin_time(&self) -> Duration {
        self.margin
            .unwrap_or(share(self.ttl, rules::LEASE_MARGIN_DIVISOR))
    }

    fn op_time(&self) -> Duration {
        self.op_timeout
            .unwrap_or(share(self.ttl, rules::LEASE_OP_TIMEOUT_DIVISOR))
    }

    fn check(&self) -> Result<()> {
        let bad = |name: &str, value: Duration, expected: &str| Error::InvalidArgument {
            name: name.into(),
            value: format!("{} ms", value.as_millis()),
            expected: expected.into(),
        };
        if self.ttl < Duration::from_millis(300) || self.ttl > Duration::from_secs(86_400) {
            return Err(bad("ttl", self.ttl, "300 ms ..= 1 day"));
        }
        if self.margin_time() >= self.ttl / 2 {
            return Err(bad("margin", self.margin_time(), "less than half the TTL"));
        }
        if let Some(limit) = self.acquire_within.filter(|l| l.is_zero()) {
            return Err(bad("acquire_within", limit, "more than 0"));
        }
        if self.op_time().is_zero() || self.op_time() > self.ttl / 2 {
            return Err(bad(
                "op_timeout",
                self.op_time(),
                "more than 0, at most half the TTL",
            ));
        }
        Ok(())
    }
}

fn default_holder() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".into());
    format!("{host}:{}", std::process::id())
}

/// Runs `fut` on the lease runtime from a plain thread, giving up after `timeout`.
fn run<T: Send + 'static>(
    handle: &Handle,
    timeout: Duration,
    fut: impl Future<Output = Result<T>> + Send + 'static,
) -> Option<Result<T>> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    handle.spawn(async move {
        let _ = tx.send(tokio::time::timeout(timeout, fut).await);
    });
    match rx.recv_timeout(timeout + Duration::from_secs(1)) {
        Ok(Ok(r)) => Some(r),
        _ => None,
    }
}

fn node_bits_of(layout: &Layout, value: u64) -> Result<u64> {
    layout.node_bits(
        node_values(layout, value)
            .into_iter()
            .map(|(name, v)| (name, v as i128)),
    )
}

/// What the keeper and the renewer both see: the value held and the last renewal error.
struct Shared {
    value: Mutex<u64>,
    /// The renewal task, stopped before a release so it cannot lease the value again.
    renewer: Mutex<Option<tokio::task::JoinHandle<()>>>,
    token: String,
    last_error: Mutex<String>,
    /// Renewals that failed (each noted error), for metrics.
    failures: std::sync::atomic::AtomicU64,
}

impl Shared {
    fn value(&self) -> u64 {
        *self.value.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn note(&self, error: String) {
        if !error.is_empty() {
            self.failures
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = error;
    }
}

/// What a guard keeps for a leased generator: the store, the held value, the runtime its
/// renewals run on.
struct LeaseKeeper {
    /// How the lease was taken: a forked child takes its own the same way.
    options: LeaseOptions,
    store: Arc<dyn LeaseStore>,
    /// Whether `store` was opened here from a URL (closed on release) or given (the caller's).
    owned: bool,
    describe: String,
    shared: Arc<Shared>,
    runtime: Mutex<Option<Runtime>>,
    handle: Handle,
    ttl_ms: u64,
    freeze_ms: u64,
    op_timeout: Duration,
}

impl LeaseKeeper {
    fn held(&self) -> (u64, String) {
        (self.shared.value(), self.shared.token.clone())
    }
}

impl Keeper for LeaseKeeper {
    fn renew_failures(&self) -> u64 {
        self.shared
            .failures
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn extend(&self, to_ms: u64) -> Result<u64> {
        let (value, token) = self.held();
        let store = self.store.clone();
        let (ttl, freeze) = (self.ttl_ms, self.freeze_ms);
        let lost = |reason: String| Error::LeaseLost {
            value,
            store: self.describe.clone(),
            reason,
        };
        match run(&self.handle, self.op_timeout, async move {
            store.renew(value, &token, ttl, freeze, to_ms).await
        }) {
            Some(Ok(true)) => Ok(to_ms),
            Some(Ok(false)) => Err(lost("another holder has the value".into())),
            Some(Err(e)) => Err(lost(format!("moving the fence failed: {e}"))),
            None => Err(lost(format!(
                "moving the fence took over {} ms",
                self.op_timeout.as_millis()
            ))),
        }
    }

    fn lost(&self) -> Error {
        let (value, _) = self.held();
        let last = self
            .shared
            .last_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Error::LeaseLost {
            value,
            store: self.describe.clone(),
            reason: if last.is_empty() {
                rules::LOST_NOT_RENEWED.into()
            } else {
                last
            },
        }
    }

    fn release(&self, last_ms: Option<u64>) {
        let Some(rt) = self
            .runtime
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        else {
            return;
        };
        let (value, token) = self.held();
        let store = self.store.clone();
        let owned = self.owned;
        let renewer = self
            .shared
            .renewer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let _ = run(rt.handle(), self.op_timeout, async move {
            // A renewal in flight would find the value released and lease it again.
            if let Some(task) = renewer {
                task.abort();
                let _ = task.await;
            }
            if let Some(fence) = last_ms {
                let _ = store.release(value, &token, fence).await;
            }
            // The store this generator opened closes now, not whenever the last reference
            // goes: a SQLite file (and its -wal, which SQLite deletes on the last close) must
            // be gone from this process once the generator is released.
            if owned {
                let _ = store.close().await;
            }
            Ok(())
        });
        rt.shutdown_background();
    }

    fn after_fork(&self, layout: &Layout) -> Result<Fresh> {
        // The runtime's threads did not cross the fork, and its tasks hold the parent's
        // connections: leave all of it untouched (a retry after a failed lease finds it gone).
        if let Some(rt) = self
            .runtime
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            crate::fork::abandon(rt);
        }
        let taken = self.options.take(layout)?;
        Ok(Fresh {
            keeper: Box::new(taken.keeper),
            node_bits: taken.node_bits,
            fence_ms: taken.fence_ms,
            until: taken.until,
            start: taken.start,
        })
    }
}

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        // Not released (the generator was never built): the lease runs out by itself. The
        // runtime must not be dropped in place, which panics inside an async caller.
        if let Some(rt) = self
            .runtime
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            rt.shutdown_background();
        }
    }
}

/// A value just leased: the keeper to hold it and how to start renewing it.
struct Taken {
    keeper: LeaseKeeper,
    node_bits: u64,
    fence_ms: u64,
    until: Instant,
    start: Box<dyn FnOnce(Weak<Guard>) + Send>,
}

impl GuardSource for LeaseOptions {
    fn start(&self, layout: &Layout, ahead: Duration) -> Result<Arc<Guard>> {
        let taken = self.take(layout)?;
        let guard = Arc::new(Guard::new(
            Box::new(taken.keeper),
            taken.node_bits,
            taken.fence_ms,
            taken.fence_ms,
            ahead,
            true,
        ));
        guard.hold_until(taken.until);
        (taken.start)(Arc::downgrade(&guard));
        Ok(guard)
    }
}

impl LeaseOptions {
    /// Leases a value for `layout` and publishes it in `cells`, shared memory other processes
    /// mint under ([`super::SharedLease`]); renewals run until the guard is dropped.
    #[cfg(unix)]
    pub(crate) fn start_shared(
        &self,
        layout: &Layout,
        ahead: Duration,
        cells: &'static GuardCells,
    ) -> Result<Arc<Guard>> {
        let taken = self.take(layout)?;
        let guard = Arc::new(Guard::on_shared(
            cells,
            Box::new(taken.keeper),
            Some((taken.node_bits, taken.fence_ms)),
            ahead,
        ));
        // Not held for the minting processes until the first renewal (at once) has moved the
        // fence ahead of the clock: they cannot move it themselves.
        (taken.start)(Arc::downgrade(&guard));
        Ok(guard)
    }

    /// How long to wait before trying to lease again after a failure.
    pub(crate) fn retry_time(&self) -> Duration {
        share(self.ttl, rules::LEASE_RETRY_DIVISOR)
    }

    /// How often a holder checks whether it should stop.
    pub(crate) fn renew_time(&self) -> Duration {
        share(self.ttl, rules::LEASE_RENEW_DIVISOR)
    }

    /// Opens the store (on a runtime of its own) and leases a value of the range for `layout`.
    fn take(&self, layout: &Layout) -> Result<Taken> {
        self.check()?;
        let (first, last) = layout_range(layout, self.range)?;
        let deadline = self.acquire_within.map(|d| Instant::now() + d);
        // A store call's own limit, shortened to what is left of the caller's deadline.
        let within = |limit: Duration| match deadline {
            Some(end) => limit.min(end.saturating_duration_since(Instant::now())),
            None => limit,
        };
        // Why a call gave up, when it was the caller's limit that ended it.
        let late = |what: &str| match (self.acquire_within, deadline) {
            (Some(limit), Some(end)) if Instant::now() >= end => Some(format!(
                "{what} did not finish within the caller's limit of {} ms",
                limit.as_millis()
            )),
            _ => None,
        };
        let rt = background_runtime("idmint-lease")?;
        let handle = rt.handle().clone();
        let op_timeout = self.op_time();
        let store = match &self.store {
            StoreRef::Store(s) => s.clone(),
            StoreRef::Url(url) => {
                let u = url.clone();
                match run(
                    &handle,
                    within(op_timeout.max(Duration::from_secs(5))),
                    async move { open_lease_store(&u).await },
                ) {
                    Some(r) => r?,
                    None => {
                        rt.shutdown_background();
                        return Err(Error::StoreUnavailable {
                            store: describe_url(url),
                            reason: late("opening the lease store")
                                .unwrap_or_else(|| "opening the lease store did not finish".into()),
                        });
                    }
                }
            }
        };
        let describe = store.describe();
        let holder = self.holder.clone().unwrap_or_else(default_holder);
        let req = LeaseRequest::new(first, last, &holder, self.ttl, self.freeze_time())?;
        let sent = Instant::now();
        let s = store.clone();
        let r = req.clone();
        let grant = match run(
            &handle,
            within(op_timeout),
            async move { s.acquire(&r).await },
        ) {
            Some(Ok(Some(g))) => g,
            Some(Ok(None)) => {
                return Err(Error::NoFreeLease {
                    store: describe,
                    first,
                    last,
                    reason: format!(
                        "all {} are held, or frozen for {} ms after their lease expired",
                        last - first + 1,
                        whole_ms(self.freeze_time())
                    ),
                })
            }
            Some(Err(e)) => return Err(e),
            None => {
                return Err(Error::StoreUnavailable {
                    store: describe,
                    reason: late("leasing").unwrap_or_else(|| {
                        format!("leasing took over {} ms", op_timeout.as_millis())
                    }),
                })
            }
        };
        let shared = Arc::new(Shared {
            value: Mutex::new(grant.value),
            token: req.token.clone(),
            renewer: Mutex::new(None),
            last_error: Mutex::new(String::new()),
            failures: Default::default(),
        });
        let keeper = LeaseKeeper {
            options: self.clone(),
            store: store.clone(),
            owned: matches!(self.store, StoreRef::Url(_)),
            describe,
            shared: shared.clone(),
            runtime: Mutex::new(Some(rt)),
            handle: handle.clone(),
            ttl_ms: req.ttl_ms,
            freeze_ms: req.freeze_ms,
            op_timeout,
        };
        let ttl = self.ttl;
        let margin = self.margin_time();
        let node_bits = node_bits_of(layout, grant.value)?;
        let layout = layout.clone();
        let value = grant.value;
        let start = move |guard: Weak<Guard>| {
            let renewer = Renewer {
                guard,
                shared: shared.clone(),
                store,
                layout,
                req,
                value,
                ttl,
                margin,
                op_timeout,
            };
            *shared.renewer.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(handle.spawn(renewer.run()));
        };
        Ok(Taken {
            keeper,
            node_bits,
            fence_ms: grant.fence_ms,
            until: sent + ttl - margin,
            start: Box::new(start),
        })
    }
}

/// The background task: renew every TTL/3, move the fence ahead, re-lease after a loss.
struct Renewer {
    guard: Weak<Guard>,
    shared: Arc<Shared>,
    store: Arc<dyn LeaseStore>,
    layout: Layout,
    req: LeaseRequest,
    value: u64,
    ttl: Duration,
    margin: Duration,
    op_timeout: Duration,
}

impl Renewer {
    async fn run(mut self) {
        // The first renewal moves the fence ahead of the wall clock at once, so the first IDs
        // need no store round trip.
        let mut wait = Duration::ZERO;
        loop {
            tokio::time::sleep(wait).await;
            let Some(guard) = self.guard.upgrade() else {
                return;
            };
            let sent = Instant::now();
            let fence = guard
                .recorded_ms()
                .max(WallClock.now_ms() + whole_ms(self.ttl));
            let renewed = tokio::time::timeout(
                self.op_timeout,
                self.store.renew(
                    self.value,
                    &self.req.token,
                    self.req.ttl_ms,
                    self.req.freeze_ms,
                    fence,
                ),
            )
            .await;
            wait = match renewed {
                Ok(Ok(true)) => {
                    guard.recorded(fence);
                    guard.hold_until(sent + self.ttl - self.margin);
                    self.shared.note(String::new());
                    share(self.ttl, rules::LEASE_RENEW_DIVISOR)
                }
                Ok(Ok(false)) => {
                    guard.drop_lease();
                    self.shared.note(rules::LOST_TAKEN.into());
                    match self.relet(&guard).await {
                        Some(wait) => wait,
                        None => return,
                    }
                }
                Ok(Err(e @ Error::NotAuthorized { .. })) => {
                    // Retrying cannot help until the token changes: stop renewing, so the
                    // lease ends at its deadline and next_id says why (LeaseLost).
                    self.shared
                        .note(format!("renewal refused, not retried: {e}"));
                    return;
                }
                Ok(Err(e)) => {
                    self.shared.note(format!("renewal failed: {e}"));
                    share(self.ttl, rules::LEASE_RETRY_DIVISOR)
                }
                Err(_) => {
                    self.shared.note(format!(
                        "renewal took over {} ms",
                        self.op_timeout.as_millis()
                    ));
                    share(self.ttl, rules::LEASE_RETRY_DIVISOR)
                }
            };
        }
    }

    /// Lease again (the same value first) after the store lost or gave away ours: how long
    /// until the next renewal, or `None` when the store refused the credentials (then the
    /// renewer stops, as retrying cannot help).
    async fn relet(&mut self, guard: &Guard) -> Option<Duration> {
        let mut req = self.req.clone();
        req.prefer = Some(self.value);
        let sent = Instant::now();
        let grant: Grant =
            match tokio::time::timeout(self.op_timeout, self.store.acquire(&req)).await {
                Ok(Ok(Some(g))) => g,
                Ok(Ok(None)) => {
                    self.shared
                        .note("lost, and no value of the range is free".into());
                    return Some(share(self.ttl, rules::LEASE_RENEW_DIVISOR));
                }
                Ok(Err(e @ Error::NotAuthorized { .. })) => {
                    self.shared
                        .note(format!("leasing again refused, not retried: {e}"));
                    return None;
                }
                _ => return Some(share(self.ttl, rules::LEASE_RETRY_DIVISOR)),
            };
        let recorded = guard.recorded_ms();
        let fence = recorded
            .max(grant.fence_ms)
            .max(WallClock.now_ms() + whole_ms(self.ttl));
        if grant.value == self.value {
            // A fence above ours means someone else held the value meanwhile.
            if grant.fence_ms > recorded {
                guard.raise_floor(grant.fence_ms);
            }
        } else {
            let Ok(bits) = node_bits_of(&self.layout, grant.value) else {
                return Some(share(self.ttl, rules::LEASE_RENEW_DIVISOR));
            };
            guard.switch(bits, grant.fence_ms, grant.fence_ms);
            *self.shared.value.lock().unwrap_or_else(|p| p.into_inner()) = grant.value;
            self.value = grant.value;
        }
        let renewed = tokio::time::timeout(
            self.op_timeout,
            self.store
                .renew(grant.value, &req.token, req.ttl_ms, req.freeze_ms, fence),
        )
        .await;
        if let Ok(Ok(true)) = renewed {
            guard.recorded(fence);
            guard.hold_until(sent + self.ttl - self.margin);
            self.shared.note(String::new());
            Some(share(self.ttl, rules::LEASE_RENEW_DIVISOR))
        } else {
            Some(share(self.ttl, rules::LEASE_RETRY_DIVISOR))
        }
    }
}

/// What [`SnowflakeBuilder::lease`](crate::SnowflakeBuilder::lease) takes: the builder lives in
/// `snowflake.rs`, beneath this module, and knows leases only as a [`LeaseSource`].
impl From<LeaseOptions> for LeaseSource {
    fn from(options: LeaseOptions) -> LeaseSource {
        LeaseSource(Arc::new(options))
    }
}

/// `ttl / divisor`: the timings a holder derives from its TTL (the divisors are
/// in [`crate::rules`], which the browser's client reads too).
fn share(ttl: Duration, divisor: u64) -> Duration {
    ttl / u32::try_from(divisor).unwrap_or(u32::MAX)
}

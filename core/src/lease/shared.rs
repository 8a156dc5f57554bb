//! A worker lease held by one process for several that mint as one generator, through memory
//! they all map: idmint's PostgreSQL extension (`pg/`), where a background worker holds the
//! lease and every backend mints under it.
//!
//! The holder ([`SharedLease::hold`]) leases and renews as a leased [`Snowflake`] does
//! (the same store, table, fence and renewer), and publishes in the shared memory the node
//! value, the fence and until when the lease is held. A minting process
//! ([`SnowflakeBuilder::shared_lease`]) only reads them: it cannot move the fence itself, so
//! the holder records it a whole TTL ahead of the clock at each renewal (as every lease
//! holder does), and an ID past it, or minted once the published deadline has passed, is
//! refused with [`Error::LeaseLost`] rather than issued.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::keeper::LeaseOptions;
use crate::clock::{Clock, WallClock};
use crate::guard::{Guard, GuardCells, Keeper};
use crate::layout::Layout;
use crate::rules;
use crate::snowflake::{last_issued_ms, GuardSource, SnowflakeBuilder, DEFAULT_FENCE_AHEAD};
use crate::{Error, Result};

#[cfg(doc)]
use crate::Snowflake;

/// The shared memory of a lease held by one process for others: the lease's state and the
/// generator's slot ([`SnowflakeBuilder::shared_state`]). Put it where every process maps it
/// (PostgreSQL's shared memory), starting from [`SharedLease::new`].
///
/// ```
/// use std::sync::mpsc::RecvTimeoutError;
/// use idmint_core::lease::{LeaseOptions, MemoryLeaseStore, SharedLease};
/// use idmint_core::{Layout, Snowflake};
///
/// static LEASE: SharedLease = SharedLease::new();
/// let layout = Layout::preset("twitter")?;
/// let minting = Snowflake::builder(layout.clone()).shared_lease(&LEASE, "memory:").build()?;
/// // Nobody holds the lease yet: refused, not minted.
/// assert_eq!(minting.next_id().unwrap_err().kind(), "lease_lost");
///
/// let options = LeaseOptions::store(MemoryLeaseStore::new()).range(9, 9);
/// let (tx, rx) = std::sync::mpsc::channel::<()>();
/// let holder = std::thread::spawn(move || {
///     // Holds the lease until the channel closes.
///     let running = |d| matches!(rx.recv_timeout(d), Err(RecvTimeoutError::Timeout));
///     LEASE.hold(&layout, &options, running, |_| {})
/// });
/// let mut tries = 0;
/// while minting.next_id().is_err() {
///     tries += 1;
///     assert!(tries < 10_000, "the holder never published its lease");
///     std::thread::sleep(std::time::Duration::from_millis(5));
/// }
/// assert_eq!(minting.decompose(minting.next_id()?)?.node("worker"), Some(9));
/// drop(tx);
/// holder.join().unwrap()?;
/// assert_eq!(minting.next_id().unwrap_err().kind(), "lease_lost");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[repr(C)]
#[derive(Debug)]
pub struct SharedLease {
    cells: GuardCells,
    slot: AtomicU64,
}

impl Default for SharedLease {
    fn default() -> Self {
        SharedLease::new()
    }
}

impl SharedLease {
    /// A lease not held yet, and a generator that has issued nothing.
    ///
    /// ```
    /// static LEASE: idmint_core::lease::SharedLease = idmint_core::lease::SharedLease::new();
    /// # let _ = &LEASE;
    /// ```
    pub const fn new() -> SharedLease {
        SharedLease {
            cells: GuardCells::new(),
            slot: AtomicU64::new(0),
        }
    }

    /// Hold a lease for `layout` from `options`' store and publish it here, until `wait`
    /// returns `false`: it is called with how long to wait (the renewal period, or the pause
    /// before trying again after a failed lease) and returns `false` when the holder must stop
    /// (PostgreSQL: the background worker's latch wait, ended by SIGTERM). Each failure to
    /// lease, which is retried, is passed to `report`. On stopping, the lease is no longer held
    /// for the minting processes and the value is released with the fence at the last ID
    /// issued. Returns an error only for options or a layout that can never lease.
    ///
    /// ```
    /// use idmint_core::lease::{LeaseOptions, SharedLease};
    /// use idmint_core::Layout;
    /// static LEASE: SharedLease = SharedLease::new();
    /// let options = LeaseOptions::url("memory:").ttl(std::time::Duration::from_millis(1));
    /// let err = LEASE.hold(&Layout::preset("twitter")?, &options, |_| false, |_| {}).unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument"); // a TTL below 300 ms
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn hold(
        &'static self,
        layout: &Layout,
        options: &LeaseOptions,
        mut wait: impl FnMut(Duration) -> bool,
        mut report: impl FnMut(&Error),
    ) -> Result<()> {
        let guard = loop {
            match options.start_shared(layout, DEFAULT_FENCE_AHEAD, &self.cells) {
                Ok(guard) => break guard,
                // Options or a layout that can never lease: trying again cannot help.
                Err(e) if e.is_permanent() => return Err(e),
                Err(e) => {
                    report(&e);
                    if !wait(options.retry_time()) {
                        return Ok(());
                    }
                }
            }
        };
        while wait(options.renew_time()) {}
        self.stop(layout, &guard);
        Ok(())
    }

    /// Stop holding: refuse further IDs, then release with the fence at the last time any
    /// minting process may have used.
    fn stop(&self, layout: &Layout, guard: &Arc<Guard>) {
        guard.close();
        // A minting process reserves its slot before it checks the deadline; this one cleared
        // the deadline before it reads the slot. Either it saw the deadline cleared, or its
        // slot (and the clock it read) is seen here.
        std::sync::atomic::fence(Ordering::SeqCst);
        let last_ms = last_issued_ms(
            self.slot.load(Ordering::SeqCst),
            layout.sequence_field().bits(),
            layout.epoch_ms(),
            layout.tick_ms(),
        )
        .unwrap_or(0);
        guard.release(Some(last_ms.max(WallClock.now_ms())));
    }
}

/// The keeper of a process minting under a lease another process holds: it can neither move
/// the fence nor release the value, only say the lease is not held.
struct Follower {
    lease: &'static SharedLease,
    layout: Layout,
    store: String,
}

impl Keeper for Follower {
    fn extend(&self, _to_ms: u64) -> Result<u64> {
        // The holder moves the fence a TTL ahead at each renewal; past it, the renewals have
        // stopped.
        Err(self.lost())
    }

    fn lost(&self) -> Error {
        let bits = self.lease.cells.node_bits();
        let value = self.layout.node_fields().fold(0u64, |v, f| {
            (v << f.bits()) | ((bits >> f.shift()) & f.max())
        });
        Error::LeaseLost {
            value,
            store: self.store.clone(),
            reason: rules::LOST_NOT_HELD_SHARED.into(),
        }
    }

    fn release(&self, _last_ms: Option<u64>) {}
}

/// The [`GuardSource`] of a minting process.
struct Minting {
    lease: &'static SharedLease,
    store: String,
}

impl std::fmt::Debug for Minting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedLease")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl GuardSource for Minting {
    fn start(&self, layout: &Layout, ahead: Duration) -> Result<Arc<Guard>> {
        let keeper = Follower {
            lease: self.lease,
            layout: layout.clone(),
            store: self.store.clone(),
        };
        Ok(Arc::new(Guard::on_shared(
            &self.lease.cells,
            Box::new(keeper),
            None,
            ahead,
        )))
    }
}

impl<C: Clock> SnowflakeBuilder<C> {
    /// Mint under a lease another process holds in `lease` ([`SharedLease::hold`]), on the
    /// slot in it: every process building its generator this way mints as one generator with
    /// the leased node value, and refuses ([`Error::LeaseLost`]) while the lease is not held.
    /// `store` is the lease store's URL, named in errors without its credentials. Takes no
    /// node value.
    ///
    /// ```
    /// use idmint_core::lease::SharedLease;
    /// use idmint_core::{Layout, Snowflake};
    /// static LEASE: SharedLease = SharedLease::new();
    /// let g = Snowflake::builder(Layout::preset("twitter")?).shared_lease(&LEASE, "postgres://db/ids").build()?;
    /// assert_eq!(g.next_id().unwrap_err().kind(), "lease_lost");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn shared_lease(self, lease: &'static SharedLease, store: &str) -> Self {
        let mut b = self.shared_state(&lease.slot);
        b.lease = Some(Arc::new(Minting {
            lease,
            store: crate::store::describe_url(store),
        }));
        b
    }
}

//! Leases in process memory, on an injectable clock: for tests and single-process use.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::store::{Grant, LeaseInfo, LeaseRequest, LeaseStore};
use crate::clock::{Clock, WallClock};
use crate::store::StoreFuture;
use crate::{Error, Result};

#[derive(Debug, Clone, Default)]
struct Row {
    holder: String,
    token: String,
    expires_at: u64,
    free_at: u64,
    fence_ms: u64,
}

/// A lease store in memory. Its clock decides expiry, so tests can step time; it can be
/// switched "down" to exercise lost leases without a server.
///
/// ```
/// use std::sync::Arc;
/// use idmint_core::ManualClock;
/// use idmint_core::lease::MemoryLeaseStore;
/// let clock = Arc::new(ManualClock::new(1_000));
/// let store = MemoryLeaseStore::with_clock(clock.clone());
/// store.set_down(true);
/// ```
pub struct MemoryLeaseStore {
    rows: Mutex<BTreeMap<u64, Row>>,
    clock: Arc<dyn Clock>,
    down: AtomicBool,
}

impl std::fmt::Debug for MemoryLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryLeaseStore").finish_non_exhaustive()
    }
}

impl MemoryLeaseStore {
    /// A store on the wall clock.
    ///
    /// ```
    /// let store = idmint_core::lease::MemoryLeaseStore::new();
    /// ```
    pub fn new() -> Arc<MemoryLeaseStore> {
        MemoryLeaseStore::with_clock(Arc::new(WallClock))
    }

    /// A store on `clock`.
    ///
    /// ```
    /// let store = idmint_core::lease::MemoryLeaseStore::with_clock(std::sync::Arc::new(idmint_core::WallClock));
    /// ```
    pub fn with_clock(clock: Arc<dyn Clock>) -> Arc<MemoryLeaseStore> {
        Arc::new(MemoryLeaseStore {
            rows: Mutex::new(BTreeMap::new()),
            clock,
            down: AtomicBool::new(false),
        })
    }

    /// While down, every call fails with [`Error::StoreUnavailable`].
    ///
    /// ```
    /// idmint_core::lease::MemoryLeaseStore::new().set_down(false);
    /// ```
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    fn rows(&self) -> Result<std::sync::MutexGuard<'_, BTreeMap<u64, Row>>> {
        if self.down.load(Ordering::SeqCst) {
            return Err(Error::StoreUnavailable {
                store: "memory:".into(),
                reason: "switched down".into(),
            });
        }
        Ok(self.rows.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn held_by<'r>(
        rows: &'r mut BTreeMap<u64, Row>,
        value: u64,
        token: &str,
    ) -> Option<&'r mut Row> {
        rows.get_mut(&value)
            .filter(|r| !r.token.is_empty() && r.token == token)
    }
}

impl LeaseStore for MemoryLeaseStore {
    fn describe(&self) -> String {
        "memory:".into()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            let mut rows = self.rows()?;
            let now = self.clock.now_ms();
            let free = |rows: &BTreeMap<u64, Row>, v: u64| {
                rows.get(&v)
                    .map_or(true, |r| r.token.is_empty() || r.free_at <= now)
            };
            let pick = req
                .prefer
                .filter(|&v| (req.first..=req.last).contains(&v) && free(&rows, v))
                .or_else(|| (req.first..=req.last).find(|&v| free(&rows, v)));
            Ok(pick.map(|value| {
                let row = rows.entry(value).or_default();
                row.holder = req.holder.clone();
                row.token = req.token.clone();
                row.expires_at = now + req.ttl_ms;
                row.free_at = now + req.ttl_ms + req.freeze_ms;
                Grant {
                    value,
                    fence_ms: row.fence_ms,
                }
            }))
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
            let mut rows = self.rows()?;
            let now = self.clock.now_ms();
            Ok(match Self::held_by(&mut rows, value, token) {
                Some(row) => {
                    row.expires_at = now + ttl_ms;
                    row.free_at = now + ttl_ms + freeze_ms;
                    row.fence_ms = row.fence_ms.max(fence_ms);
                    true
                }
                None => false,
            })
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut rows = self.rows()?;
            Ok(match Self::held_by(&mut rows, value, token) {
                Some(row) => {
                    *row = Row {
                        fence_ms,
                        ..Row::default()
                    };
                    true
                }
                None => false,
            })
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(async move {
            let rows = self.rows()?;
            let now = self.clock.now_ms() as i64;
            Ok(rows
                .iter()
                .map(|(&value, r)| LeaseInfo {
                    value,
                    holder: r.holder.clone(),
                    expires_in_ms: r.expires_at as i64 - now,
                    free_in_ms: (r.free_at as i64 - now).max(0),
                    last_time_ms: r.fence_ms,
                })
                .collect())
        })
    }
}

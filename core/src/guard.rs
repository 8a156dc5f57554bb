//! What a snowflake generator checks before it hands out an ID that must stay unique across
//! restarts and machines: a *fence* (a time recorded outside the process that its IDs may not
//! pass until the record is moved ahead) and, with a worker lease, a *deadline* after which the
//! node value may no longer be ours.
//!
//! The generator's hot path pays two atomic loads (and a monotonic clock read under a lease);
//! everything else happens on the rare slow path, under a lock: moving the fence ahead (a file
//! write or a store round trip), reporting a lost lease, or noticing that the node value changed.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use crate::error::quoted;
use crate::layout::Layout;
use crate::{Error, Result};

/// Where a guard records its fence, and how it learns it may go on.
pub(crate) trait Keeper: Send + Sync {
    /// Record durably that IDs up to `to_ms` may be issued; returns the time recorded (≥ `to_ms`).
    fn extend(&self, to_ms: u64) -> Result<u64>;

    /// The error for a lease past its deadline.
    fn lost(&self) -> Error;

    /// The generator is going away; `last_ms` is the time of the last ID it issued, if any.
    fn release(&self, last_ms: Option<u64>);

    /// Renewals that failed so far (a lease's; 0 for keepers that do not renew).
    #[cfg_attr(not(feature = "segment"), allow(dead_code))]
    fn renew_failures(&self) -> u64 {
        0
    }

    /// This process is the child of a fork: hold a node value of its own (the parent keeps
    /// this keeper's), or refuse. Called once per fork, from the generator's slow path.
    fn after_fork(&self, _layout: &Layout) -> Result<Fresh> {
        Err(Error::Forked {
            what: "guarded snowflake generator".into(),
            remedy: "its node value and fence are the parent's: build a new one in the child"
                .into(),
        })
    }
}

/// What a keeper gives a guard in a forked child: a value leased for this process.
pub(crate) struct Fresh {
    pub(crate) keeper: Box<dyn Keeper>,
    pub(crate) node_bits: u64,
    /// The value's fence: its IDs carry later times.
    pub(crate) fence_ms: u64,
    /// Until when the new lease is known to be held.
    pub(crate) until: Instant,
    /// Starts keeping the lease (the background renewals) for the guard.
    pub(crate) start: Box<dyn FnOnce(Weak<Guard>) + Send>,
}

/// The outcome of [`Guard::admit`] other than an error.
pub(crate) enum Admit {
    /// The ID may be handed out.
    Ok,
    /// The node value or the floor changed since the ID was composed: drop it, move the
    /// generator's state above `floor_ms` and compose again.
    Retry { floor_ms: u64 },
}

/// The state a guard checks on the hot path. Usually the guard's own; with a lease one
/// process holds for others that map the same memory ([`crate::lease::SharedLease`]), the
/// holder's guard writes it and every minting process's guard reads it.
#[repr(C)]
#[derive(Debug, Default)]
pub(crate) struct GuardCells {
    /// IDs may carry times up to this (unix ms); above it the fence must be moved first.
    recorded_ms: AtomicU64,
    /// IDs must carry times above this: the fence a previous holder of the node value left.
    floor_ms: AtomicU64,
    /// Changes whenever the node value does; an ID composed under another generation is dropped.
    generation: AtomicU64,
    node_bits: AtomicU64,
    /// Until when the lease is ours, in [`Guard::now_ns`]'s time; `u64::MAX` without a lease.
    deadline_ns: AtomicU64,
}

#[cfg(all(unix, feature = "segment"))]
impl GuardCells {
    pub(crate) const fn new() -> GuardCells {
        GuardCells {
            recorded_ms: AtomicU64::new(0),
            floor_ms: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            node_bits: AtomicU64::new(0),
            deadline_ns: AtomicU64::new(0),
        }
    }

    /// The node value's bits as last published.
    pub(crate) fn node_bits(&self) -> u64 {
        self.node_bits.load(Ordering::Acquire)
    }
}

enum Cells {
    Own(GuardCells),
    /// In memory other processes map: deadlines are then on the machine's monotonic clock,
    /// which every process reads alike, not on an `Instant` of this process.
    #[cfg(all(unix, feature = "segment"))]
    Shared(&'static GuardCells),
}

impl std::ops::Deref for Cells {
    type Target = GuardCells;
    fn deref(&self) -> &GuardCells {
        match self {
            Cells::Own(c) => c,
            #[cfg(all(unix, feature = "segment"))]
            Cells::Shared(c) => c,
        }
    }
}

pub(crate) struct Guard {
    cells: Cells,
    leased: bool,
    /// Set once a shared lease's holder stops: no renewal may make the lease held again.
    #[cfg_attr(not(feature = "segment"), allow(dead_code))]
    closed: Mutex<bool>,
    base: Instant,
    /// How far ahead of an ID's time the fence is moved, so it is moved once per this long.
    ahead_ms: u64,
    slow: Mutex<()>,
    /// Replaced only in a forked child (a lease of its own).
    keeper: Mutex<Box<dyn Keeper>>,
}

/// Nanoseconds on the machine's monotonic clock (`CLOCK_MONOTONIC`, the one `Instant` reads
/// on Linux), the same in every process: shared deadlines are kept in it.
#[cfg(all(unix, feature = "segment"))]
pub(crate) fn machine_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; CLOCK_MONOTONIC exists on every unix.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Guard {
    pub(crate) fn new(
        keeper: Box<dyn Keeper>,
        node_bits: u64,
        floor_ms: u64,
        recorded_ms: u64,
        ahead: Duration,
        leased: bool,
    ) -> Guard {
        Guard::with_cells(
            Cells::Own(GuardCells {
                recorded_ms: AtomicU64::new(recorded_ms),
                floor_ms: AtomicU64::new(floor_ms),
                generation: AtomicU64::new(0),
                node_bits: AtomicU64::new(node_bits),
                deadline_ns: AtomicU64::new(if leased { 0 } else { u64::MAX }),
            }),
            keeper,
            ahead,
            leased,
        )
    }

    /// The guard on `cells`, its own or shared, every other part fresh.
    fn with_cells(cells: Cells, keeper: Box<dyn Keeper>, ahead: Duration, leased: bool) -> Guard {
        Guard {
            cells,
            leased,
            closed: Default::default(),
            base: Instant::now(),
            ahead_ms: crate::clock::whole_ms(ahead),
            slow: Mutex::new(()),
            keeper: Mutex::new(keeper),
        }
    }

    /// A leased guard on `cells` in shared memory. As the holder (`node_bits` and the fence
    /// given), it publishes the value as a new generation, not yet held: the caller then sets
    /// the deadline. As a minting process (`None`), it reads whatever the holder publishes.
    #[cfg(all(unix, feature = "segment"))]
    pub(crate) fn on_shared(
        cells: &'static GuardCells,
        keeper: Box<dyn Keeper>,
        held: Option<(u64, u64)>,
        ahead: Duration,
    ) -> Guard {
        let guard = Guard::with_cells(Cells::Shared(cells), keeper, ahead, true);
        if let Some((node_bits, fence_ms)) = held {
            guard.drop_lease();
            guard.switch(node_bits, fence_ms, fence_ms);
        }
        guard
    }

    #[inline]
    pub(crate) fn generation(&self) -> u64 {
        self.cells.generation.load(Ordering::Acquire)
    }

    #[inline]
    pub(crate) fn node_bits(&self) -> u64 {
        self.cells.node_bits.load(Ordering::Acquire)
    }

    pub(crate) fn floor_ms(&self) -> u64 {
        self.cells.floor_ms.load(Ordering::Acquire)
    }

    fn now_ns(&self) -> u64 {
        match self.cells {
            #[cfg(all(unix, feature = "segment"))]
            Cells::Shared(_) => machine_ns(),
            _ => self.base.elapsed().as_nanos().min(u64::MAX as u128) as u64,
        }
    }

    /// May an ID composed under generation `generation` with time `time_ms` be handed out?
    #[inline]
    pub(crate) fn admit(&self, generation: u64, time_ms: u64) -> Result<Admit> {
        if time_ms <= self.cells.recorded_ms.load(Ordering::Acquire)
            && self.cells.generation.load(Ordering::Acquire) == generation
            && time_ms > self.cells.floor_ms.load(Ordering::Relaxed)
            && (!self.leased || self.now_ns() < self.cells.deadline_ns.load(Ordering::Acquire))
        {
            return Ok(Admit::Ok);
        }
        self.admit_slow(generation, time_ms)
    }

    #[cold]
    fn admit_slow(&self, generation: u64, time_ms: u64) -> Result<Admit> {
        let _one = lock(&self.slow);
        if self.leased && self.now_ns() >= self.cells.deadline_ns.load(Ordering::Acquire) {
            return Err(lock(&self.keeper).lost());
        }
        let floor_ms = self.cells.floor_ms.load(Ordering::Acquire);
        if self.cells.generation.load(Ordering::Acquire) != generation || time_ms <= floor_ms {
            return Ok(Admit::Retry { floor_ms });
        }
        if time_ms > self.cells.recorded_ms.load(Ordering::Acquire) {
            let recorded = lock(&self.keeper).extend(time_ms.saturating_add(self.ahead_ms))?;
            self.cells.recorded_ms.fetch_max(recorded, Ordering::AcqRel);
            if time_ms > recorded {
                return Err(lock(&self.keeper).lost());
            }
        }
        Ok(Admit::Ok)
    }

    /// In a forked child: take a node value of this process's own from the keeper (which
    /// refuses for a high-water-mark file) and switch to it. The parent's keeper is abandoned,
    /// not dropped: its runtime's threads are not in this process and its connections are the
    /// parent's.
    pub(crate) fn after_fork(self: &Arc<Self>, layout: &Layout) -> Result<()> {
        let fresh = lock(&self.keeper).after_fork(layout)?;
        {
            let _one = lock(&self.slow);
            self.cells
                .node_bits
                .store(fresh.node_bits, Ordering::Release);
            self.cells
                .floor_ms
                .fetch_max(fresh.fence_ms, Ordering::AcqRel);
            self.cells
                .recorded_ms
                .store(fresh.fence_ms, Ordering::Release);
            self.cells
                .deadline_ns
                .store(self.ns_at(fresh.until), Ordering::Release);
            self.cells.generation.fetch_add(1, Ordering::AcqRel);
        }
        let parents = std::mem::replace(&mut *lock(&self.keeper), fresh.keeper);
        crate::fork::abandon(parents);
        (fresh.start)(Arc::downgrade(self));
        Ok(())
    }

    fn ns_at(&self, at: Instant) -> u64 {
        match self.cells {
            // An instant in the past is now: already over, as `admit` wants now < deadline.
            #[cfg(all(unix, feature = "segment"))]
            Cells::Shared(_) => self.now_ns().saturating_add(
                at.saturating_duration_since(Instant::now())
                    .as_nanos()
                    .min(u64::MAX as u128 - 1) as u64,
            ),
            Cells::Own(_) => at
                .saturating_duration_since(self.base)
                .as_nanos()
                .min(u64::MAX as u128 - 1) as u64,
        }
    }

    /// The generator is going away after issuing IDs up to `last_ms`. Never reports less than
    /// the floor: the fence left by an earlier holder stands even if this one issued nothing.
    pub(crate) fn release(&self, last_ms: Option<u64>) {
        let floor = self.floor_ms();
        let last = last_ms.map_or(floor, |ms| ms.max(floor));
        lock(&self.keeper).release(Some(last));
    }
}

/// What the worker-lease renewer changes while a generator runs.
#[cfg(feature = "segment")]
impl Guard {
    /// The fence now stands at `recorded_ms` (a renewal moved it).
    pub(crate) fn recorded(&self, recorded_ms: u64) {
        self.cells
            .recorded_ms
            .fetch_max(recorded_ms, Ordering::AcqRel);
    }

    pub(crate) fn recorded_ms(&self) -> u64 {
        self.cells.recorded_ms.load(Ordering::Acquire)
    }

    /// Renewals of the lease that failed so far.
    pub(crate) fn renew_failures(&self) -> u64 {
        lock(&self.keeper).renew_failures()
    }

    /// `None` without a lease; else whether the lease is ours now.
    pub(crate) fn lease_held(&self) -> Option<bool> {
        self.leased
            .then(|| self.now_ns() < self.cells.deadline_ns.load(Ordering::Acquire))
    }

    /// The lease is ours until `until` (a monotonic instant).
    pub(crate) fn hold_until(&self, until: Instant) {
        let closed = lock(&self.closed);
        if !*closed {
            self.cells
                .deadline_ns
                .store(self.ns_at(until), Ordering::Release);
        }
    }

    /// A shared lease's holder is stopping: the lease is no longer held for the processes
    /// minting under it, and no renewal still under way may make it held again.
    pub(crate) fn close(&self) {
        let mut closed = lock(&self.closed);
        *closed = true;
        self.cells.deadline_ns.store(0, Ordering::SeqCst);
    }

    /// The lease is gone: no ID passes until [`Guard::hold_until`] is called again.
    pub(crate) fn drop_lease(&self) {
        self.cells.deadline_ns.store(0, Ordering::Release);
    }

    /// A new node value (a lease of another value), whose IDs must carry times above `floor_ms`.
    /// Call while the lease is dropped.
    pub(crate) fn switch(&self, node_bits: u64, floor_ms: u64, recorded_ms: u64) {
        let _one = lock(&self.slow);
        self.cells.node_bits.store(node_bits, Ordering::Release);
        self.cells.floor_ms.fetch_max(floor_ms, Ordering::AcqRel);
        self.cells.recorded_ms.store(recorded_ms, Ordering::Release);
        self.cells.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Raise the floor for the same node value (a re-lease found a higher fence).
    pub(crate) fn raise_floor(&self, floor_ms: u64) {
        let _one = lock(&self.slow);
        if floor_ms > self.cells.floor_ms.load(Ordering::Acquire) {
            self.cells.floor_ms.store(floor_ms, Ordering::Release);
            self.cells.generation.fetch_add(1, Ordering::AcqRel);
        }
    }
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field(
                "recorded_ms",
                &self.cells.recorded_ms.load(Ordering::Relaxed),
            )
            .field("floor_ms", &self.cells.floor_ms.load(Ordering::Relaxed))
            .field("leased", &self.leased)
            .finish_non_exhaustive()
    }
}

/// A high-water-mark file: the last time a generator may have issued, written ahead.
pub(crate) struct HighWaterMark {
    path: PathBuf,
}

impl HighWaterMark {
    /// Opens `path` and reads the mark in it (0 when the file does not exist yet).
    pub(crate) fn open(path: &Path) -> Result<(HighWaterMark, u64)> {
        let mark = match fs::read_to_string(path) {
            Ok(text) => text
                .trim()
                .parse::<u64>()
                .map_err(|_| Error::InvalidArgument {
                    name: "high-water-mark file".into(),
                    value: path.display().to_string(),
                    expected: format!(
                        "a file holding one unix time in ms written by idmint, found {}",
                        quoted(&text.chars().take(40).collect::<String>())
                    ),
                })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(file_error(path, "reading", e)),
        };
        Ok((
            HighWaterMark {
                path: path.to_path_buf(),
            },
            mark,
        ))
    }

    /// Replaces the mark: a temp file, fsync, rename, so a crash leaves the old mark or the new.
    fn write(&self, mark: u64) -> Result<()> {
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut f = fs::File::create(&tmp).map_err(|e| file_error(&tmp, "creating", e))?;
        writeln!(f, "{mark}").map_err(|e| file_error(&tmp, "writing", e))?;
        f.sync_all().map_err(|e| file_error(&tmp, "syncing", e))?;
        fs::rename(&tmp, &self.path).map_err(|e| file_error(&self.path, "replacing", e))?;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // The rename is durable only once the directory entry is.
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

fn file_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::StoreUnavailable {
        store: format!("file:{}", path.display()),
        reason: format!("{what} the high-water-mark file: {e}"),
    }
}

impl Keeper for HighWaterMark {
    fn extend(&self, to_ms: u64) -> Result<u64> {
        self.write(to_ms)?;
        Ok(to_ms)
    }

    fn lost(&self) -> Error {
        // A file has no deadline; `admit` never asks.
        Error::StoreUnavailable {
            store: format!("file:{}", self.path.display()),
            reason: "the high-water mark could not be moved".into(),
        }
    }

    fn release(&self, last_ms: Option<u64>) {
        // Lower the mark to what was really issued, so a restart right after a clean exit does
        // not wait for (or trip over) the written-ahead part.
        if let Some(ms) = last_ms {
            let _ = self.write(ms);
        }
    }
}

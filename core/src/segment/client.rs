//! The segment client: per tag, a current and a next range in memory, refilled in the
//! background, so callers wait on the store only when both are empty.
//!
//! # The hot path
//!
//! Each tag keeps two range *slots* and one `AtomicU64` word, `gen << 44 | offset`: the
//! generation of the current range and the next offset in it. Taking an ID is one `fetch_add`
//! on that word, then reading the slot of that generation (`start`, `len`) and checking it
//! still belongs to that generation (a seqlock: the slot is rewritten only for generation
//! `gen + 2`, and a reader that raced with the rewrite sees the generation change and retries).
//! No lock, no allocation, no channel. Every `(gen, offset)` pair is handed to exactly one
//! caller, and distinct pairs map to distinct IDs because the ranges of distinct generations
//! are disjoint: uniqueness rests on that one atomic, plus the store's contract.
//!
//! When a range is used up, a caller that finds the next slot filled moves the word to
//! `(gen + 1, 0)` with a compare-and-swap (the others retry); the caller whose offset crosses
//! the refill share (20% by default) starts the background refill of the slot after it.
//!
//! # Threads
//!
//! Store I/O runs on a tokio runtime: the client's own single worker thread when built with
//! [`SegmentClientBuilder::connect_blocking`] (for callers without a runtime: Python, the JVM),
//! or the caller's runtime when built with [`SegmentClientBuilder::connect`] (Node). Blocking
//! callers wait on a condition variable, async callers on a `Notify`, both with a deadline.

use std::collections::HashMap;
use std::pin::pin;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime};
use tokio::sync::Notify;

use super::store::{IdRange, SegmentStore};
use super::tag::{check_step, validate_tag, TagSpec, DEFAULT_STEP, MAX_STEP};
use super::StoreOptions;
use crate::{Error, Result};

const OFF_BITS: u32 = 44;
const OFF_MASK: u64 = (1 << OFF_BITS) - 1;
const GEN_MASK: u64 = (1 << (64 - OFF_BITS)) - 1;
/// Marks a slot being rewritten; no real generation has it (generations are 20-bit).
const GEN_WRITING: u64 = u64::MAX;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every value behind these locks is replaced whole, so a poisoned one is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Counters of one tag in a client, readable at any time.
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient};
/// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
/// client.next_id("orders")?;
/// let m = client.tag("orders")?.metrics();
/// assert_eq!((m.refills, m.store_errors), (1, 0));
/// assert_eq!(m.remaining, 999);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagMetrics {
    /// The tag as stored (the default tag's name when this tag falls back to it).
    pub tag: String,
    /// IDs left in memory: the rest of the current range plus the next one, if fetched.
    pub remaining: u64,
    /// The step of the last range fetched (grows and shrinks with the rate of use).
    pub step: u64,
    /// Ranges fetched from the store.
    pub refills: u64,
    /// Time of the last successful refill, from request to answer.
    pub last_refill_latency: Duration,
    /// The slowest successful refill.
    pub max_refill_latency: Duration,
    /// Mean time of successful refills.
    pub mean_refill_latency: Duration,
    /// Failed store calls (each retry counts).
    pub store_errors: u64,
    /// The last store error, if any.
    pub last_error: Option<String>,
}

struct Slot {
    gen: AtomicU64,
    start: AtomicU64,
    len: AtomicU64,
    /// The offset whose taker starts the refill of the next slot.
    trigger: AtomicU64,
}

impl Slot {
    fn empty(gen: u64) -> Slot {
        Slot {
            gen: AtomicU64::new(gen),
            start: AtomicU64::new(0),
            len: AtomicU64::new(0),
            trigger: AtomicU64::new(u64::MAX),
        }
    }

    /// `(start, len, trigger)` if the slot holds generation `gen`.
    #[inline(always)]
    fn read(&self, gen: u64) -> Option<(u64, u64, u64)> {
        if self.gen.load(Ordering::Acquire) != gen {
            return None;
        }
        let start = self.start.load(Ordering::Relaxed);
        let len = self.len.load(Ordering::Relaxed);
        let trigger = self.trigger.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        (self.gen.load(Ordering::Relaxed) == gen).then_some((start, len, trigger))
    }

    fn write(&self, gen: u64, range: IdRange, trigger: u64) {
        self.gen.store(GEN_WRITING, Ordering::Relaxed);
        fence(Ordering::Release);
        self.start.store(range.start, Ordering::Relaxed);
        self.len.store(range.len(), Ordering::Relaxed);
        self.trigger.store(trigger, Ordering::Relaxed);
        self.gen.store(gen, Ordering::Release);
    }
}

#[repr(align(64))]
struct Padded<T>(T);

struct TagState {
    /// The tag as stored.
    name: String,
    /// `gen << 44 | offset`.
    word: Padded<AtomicU64>,
    slots: [Slot; 2],
    refilling: AtomicBool,
    base_step: u64,
    step: AtomicU64,
    /// The last ID of every range received so far (0: none): the guard against a store that
    /// lost its state.
    high_water: AtomicU64,
    last_fetch: Mutex<Option<Instant>>,
    /// Bumped after every refill attempt; blocking waiters watch it.
    events: Mutex<u64>,
    cv: Condvar,
    notify: Notify,
    /// A refill outcome no retry fixes (unknown tag, exhausted): handed to the waiters.
    fatal: Mutex<Option<Error>>,
    /// A store that went backwards: sticky, the tag serves what it holds and then only errors.
    poison: Mutex<Option<Error>>,
    last_error: Mutex<Option<String>>,
    refills: AtomicU64,
    store_errors: AtomicU64,
    refill_ns_total: AtomicU64,
    refill_ns_last: AtomicU64,
    refill_ns_max: AtomicU64,
}

enum Take {
    /// The first ID of `n`, and whether this taker crossed the refill share.
    Got(u64, bool),
    Empty,
}

impl TagState {
    fn new(name: &str, base_step: u64) -> TagState {
        TagState {
            name: name.to_string(),
            word: Padded(AtomicU64::new(0)),
            // Generation 0 is an empty range in slot 0, so the first call goes to the slow path.
            slots: [Slot::empty(0), Slot::empty(GEN_WRITING)],
            refilling: AtomicBool::new(false),
            base_step,
            step: AtomicU64::new(base_step),
            high_water: AtomicU64::new(0),
            last_fetch: Mutex::new(None),
            events: Mutex::new(0),
            cv: Condvar::new(),
            notify: Notify::new(),
            fatal: Mutex::new(None),
            poison: Mutex::new(None),
            last_error: Mutex::new(None),
            refills: AtomicU64::new(0),
            store_errors: AtomicU64::new(0),
            refill_ns_total: AtomicU64::new(0),
            refill_ns_last: AtomicU64::new(0),
            refill_ns_max: AtomicU64::new(0),
        }
    }

    /// The hot path: one `fetch_add`, then a validated read of the slot.
    #[inline(always)]
    fn try_take(&self, n: u64) -> Take {
        loop {
            let w = self.word.0.fetch_add(n, Ordering::AcqRel);
            let (gen, off) = (w >> OFF_BITS, w & OFF_MASK);
            let Some((start, len, trigger)) = self.slots[(gen & 1) as usize].read(gen) else {
                // The slot moved on to a later generation while we read: our offset belonged
                // to a finished range; it is skipped (a gap) and we take again.
                if self.word.0.load(Ordering::Acquire) >> OFF_BITS == gen {
                    return Take::Empty;
                }
                continue;
            };
            return if off + n <= len {
                Take::Got(start + off, off <= trigger && trigger < off + n)
            } else {
                Take::Empty
            };
        }
    }

    /// The next slot holds the generation after the current one.
    fn next_ready(&self) -> bool {
        let gen = self.word.0.load(Ordering::Acquire) >> OFF_BITS;
        let next = (gen + 1) & GEN_MASK;
        self.slots[(next & 1) as usize].gen.load(Ordering::Acquire) == next
    }

    /// Takes `n` IDs, moving to the next range when the current one cannot supply them.
    /// Looks before it adds, so callers waiting on an empty tag do not push the offset on.
    fn take_or_swap(&self, n: u64) -> Take {
        loop {
            let w = self.word.0.load(Ordering::Acquire);
            let (gen, off) = (w >> OFF_BITS, w & OFF_MASK);
            let Some((_, len, _)) = self.slots[(gen & 1) as usize].read(gen) else {
                continue;
            };
            if off + n <= len {
                match self.try_take(n) {
                    got @ Take::Got(..) => return got,
                    Take::Empty => continue,
                }
            }
            let next = (gen + 1) & GEN_MASK;
            if self.slots[(next & 1) as usize].gen.load(Ordering::Acquire) != next {
                return Take::Empty;
            }
            // Only one swapper wins; everyone else sees the new generation and goes again.
            let _ = self.word.0.compare_exchange(
                w,
                next << OFF_BITS,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
    }

    /// Puts a fetched range in the slot after the current one. Only the refill task calls
    /// this, and only one refill runs per tag, so the current generation cannot move meanwhile
    /// (moving needs this very slot).
    fn install(&self, range: IdRange, refill_at: u8) {
        let gen = self.word.0.load(Ordering::Acquire) >> OFF_BITS;
        let next = (gen + 1) & GEN_MASK;
        let trigger = range.len() * refill_at as u64 / 100;
        self.slots[(next & 1) as usize].write(next, range, trigger);
    }

    fn remaining(&self) -> u64 {
        let w = self.word.0.load(Ordering::Acquire);
        let (gen, off) = (w >> OFF_BITS, w & OFF_MASK);
        let cur = self.slots[(gen & 1) as usize]
            .read(gen)
            .map_or(0, |(_, len, _)| len.saturating_sub(off));
        let next = (gen + 1) & GEN_MASK;
        let nxt = self.slots[(next & 1) as usize]
            .read(next)
            .map_or(0, |(_, len, _)| len);
        cur + nxt
    }

    /// Leaf's dynamic step: double when the last range lasted under `grow_below`, halve when
    /// over `shrink_above`, within `base_step..=max_step`.
    fn plan_step(&self, opts: &Options, now: Instant) -> u64 {
        let cur = self.step.load(Ordering::Relaxed);
        let top = opts.max_step.max(self.base_step);
        match *lock(&self.last_fetch) {
            None => cur,
            Some(prev) => {
                let lasted = now.saturating_duration_since(prev);
                if lasted < opts.grow_below {
                    cur.saturating_mul(2).min(top)
                } else if lasted > opts.shrink_above {
                    (cur / 2).max(self.base_step)
                } else {
                    cur
                }
            }
        }
    }

    fn signal(&self) {
        *lock(&self.events) += 1;
        self.cv.notify_all();
        self.notify.notify_waiters();
    }

    fn record_refill(&self, started: Instant) {
        let ns = started.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.refills.fetch_add(1, Ordering::Relaxed);
        self.refill_ns_total.fetch_add(ns, Ordering::Relaxed);
        self.refill_ns_last.store(ns, Ordering::Relaxed);
        self.refill_ns_max.fetch_max(ns, Ordering::Relaxed);
    }

    /// Checks a range from the store against what this client already received.
    fn guard(&self, range: IdRange, issued_before: u64) -> Result<()> {
        if range.start <= issued_before {
            let err = Error::RangeBelowIssued {
                tag: self.name.clone(),
                start: range.start,
                end: range.last(),
                issued: issued_before,
            };
            *lock(&self.poison) = Some(err.clone());
            return Err(err);
        }
        self.high_water.fetch_max(range.last(), Ordering::AcqRel);
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Options {
    refill_at: u8,
    max_step: u64,
    default_step: u64,
    auto_create: bool,
    default_tag: Option<String>,
    max_wait: Duration,
    op_timeout: Duration,
    retry_min: Duration,
    retry_max: Duration,
    grow_below: Duration,
    shrink_above: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            refill_at: 20,
            max_step: 1_000_000,
            default_step: DEFAULT_STEP,
            auto_create: true,
            default_tag: None,
            max_wait: Duration::from_secs(3),
            op_timeout: Duration::from_secs(3),
            retry_min: Duration::from_millis(50),
            retry_max: Duration::from_secs(2),
            grow_below: Duration::from_secs(15 * 60),
            shrink_above: Duration::from_secs(30 * 60),
        }
    }
}

struct Shared {
    store: Arc<dyn SegmentStore>,
    describe: String,
    opts: Options,
    handle: Handle,
    tags: RwLock<HashMap<String, Arc<TagState>>>,
    closed: AtomicBool,
}

/// Owns what must end with the last client or handle: the runtime of a blocking client.
struct Life {
    shared: Arc<Shared>,
    runtime: Mutex<Option<Runtime>>,
}

impl Drop for Life {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        if let Some(rt) = lock(&self.runtime).take() {
            // Never blocks, and is allowed inside another runtime (a plain drop is not).
            rt.shutdown_background();
        }
    }
}

impl Shared {
    fn unavailable(&self, tag: &TagState, waited: Duration) -> Error {
        let last = lock(&tag.last_error).clone();
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!(
                "tag `{}` has no buffered IDs left and no range arrived within {} ms (max_wait); last store error: {}",
                tag.name,
                waited.as_millis(),
                last.as_deref().unwrap_or("none (the store did not answer)")
            ),
        }
    }

    fn timed_out(&self, what: &str) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!(
                "{what}: no answer within {} ms (op_timeout)",
                self.opts.op_timeout.as_millis()
            ),
        }
    }

    /// Starts a background refill unless one runs or the next range is already there.
    fn kick(self: &Arc<Self>, st: &Arc<TagState>) {
        if self.closed.load(Ordering::Relaxed) || st.next_ready() {
            return;
        }
        if lock(&st.poison).is_some() {
            return;
        }
        if st
            .refilling
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        // A refill that just finished installed its range before clearing the flag: look again.
        if st.next_ready() {
            st.refilling.store(false, Ordering::Release);
            return;
        }
        *lock(&st.fatal) = None;
        self.handle
            .spawn(refill_task(Arc::clone(self), Arc::clone(st)));
    }

    async fn allocate(&self, tag: &str, count: u64) -> Result<IdRange> {
        let call = async {
            match self.store.allocate(tag, count).await {
                Err(Error::UnknownTag { .. }) if self.opts.auto_create => {
                    self.store.create_tag(&self.spec(tag)?).await?;
                    self.store.allocate(tag, count).await
                }
                other => other,
            }
        };
        tokio::time::timeout(self.opts.op_timeout, call)
            .await
            .unwrap_or_else(|_| Err(self.timed_out(&format!("allocating for tag `{tag}`"))))
    }

    fn spec(&self, tag: &str) -> Result<TagSpec> {
        TagSpec::new(tag)?.step(self.opts.default_step)
    }

    /// Finds or loads a tag: one store round trip per tag name and client, which also learns
    /// the tag's step. Unknown tags are created, fall back to the default tag, or fail.
    async fn resolve(self: &Arc<Self>, tag: &str) -> Result<Arc<TagState>> {
        validate_tag(tag)?;
        if let Some(st) = self.lookup(tag) {
            return Ok(st);
        }
        let load = async {
            let mut info = self.store.tag_info(tag).await?;
            if info.is_none() && self.opts.auto_create {
                self.store.create_tag(&self.spec(tag)?).await?;
                info = self.store.tag_info(tag).await?;
            }
            match (info, &self.opts.default_tag) {
                (Some(info), _) => Ok(Arc::new(TagState::new(tag, info.step.clamp(1, MAX_STEP)))),
                (None, Some(default)) if default != tag => {
                    if let Some(st) = self.lookup(default) {
                        return Ok(st);
                    }
                    match self.store.tag_info(default).await? {
                        Some(info) => Ok(Arc::new(TagState::new(
                            default,
                            info.step.clamp(1, MAX_STEP),
                        ))),
                        None => Err(Error::UnknownTag {
                            tag: default.clone(),
                        }),
                    }
                }
                (None, _) => Err(Error::UnknownTag {
                    tag: tag.to_string(),
                }),
            }
        };
        let st = tokio::time::timeout(self.opts.op_timeout, load)
            .await
            .unwrap_or_else(|_| Err(self.timed_out(&format!("loading tag `{tag}`"))))?;
        let mut tags = self.tags.write().unwrap_or_else(|p| p.into_inner());
        // Another caller may have loaded the same tag (or the default) meanwhile: keep theirs.
        let st = Arc::clone(tags.entry(st.name.clone()).or_insert(st));
        Ok(Arc::clone(tags.entry(tag.to_string()).or_insert(st)))
    }

    fn lookup(&self, tag: &str) -> Option<Arc<TagState>> {
        self.tags
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(tag)
            .cloned()
    }

    /// Runs a future on the client's runtime and waits for it from a plain thread, bounded.
    fn run_blocking<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = Result<T>> + Send + 'static,
        what: &str,
    ) -> Result<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(fut.await);
        });
        // The future has its own op_timeout; this bound only guards against a runtime that
        // cannot run it (e.g. called from the only worker thread of a current-thread runtime).
        rx.recv_timeout(self.opts.op_timeout * 2 + Duration::from_secs(1))
            .unwrap_or_else(|_| Err(self.timed_out(what)))
    }
}

async fn refill_task(shared: Arc<Shared>, st: Arc<TagState>) {
    let mut backoff = shared.opts.retry_min;
    while !shared.closed.load(Ordering::Relaxed) {
        let count = st.plan_step(&shared.opts, Instant::now());
        let issued_before = st.high_water.load(Ordering::Acquire);
        let started = Instant::now();
        match shared.allocate(&st.name, count).await {
            Ok(range) => {
                if st.guard(range, issued_before).is_ok() {
                    st.install(range, shared.opts.refill_at);
                    st.record_refill(started);
                    st.step.store(count, Ordering::Relaxed);
                    *lock(&st.last_fetch) = Some(started);
                }
                break;
            }
            Err(e @ (Error::StoreUnavailable { .. } | Error::InvalidArgument { .. })) => {
                st.store_errors.fetch_add(1, Ordering::Relaxed);
                *lock(&st.last_error) = Some(e.to_string());
                st.signal();
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(shared.opts.retry_max);
            }
            Err(e) => {
                st.store_errors.fetch_add(1, Ordering::Relaxed);
                *lock(&st.last_error) = Some(e.to_string());
                *lock(&st.fatal) = Some(e);
                break;
            }
        }
    }
    st.refilling.store(false, Ordering::Release);
    st.signal();
}

/// A client handing out segment IDs for any number of tags from one store.
///
/// Cloning is cheap and shares everything. IDs left in memory when the last clone (and the
/// last [`TagHandle`]) is dropped are never handed out by anyone: a gap, never a repeat.
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient};
/// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
/// let a = client.next_id("orders")?;
/// let b = client.next_id("orders")?;
/// assert!(b > a);
/// let run = client.next_ids("orders", 100)?; // 100 contiguous IDs
/// assert_eq!(run.len(), 100);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone)]
pub struct SegmentClient {
    life: Arc<Life>,
}

/// A cached tag: [`TagHandle::next_id`] is the hot path (one atomic `fetch_add`).
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient};
/// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
/// let orders = client.tag("orders")?;
/// let ids: Vec<u64> = (0..5).map(|_| orders.next_id()).collect::<Result<_, _>>()?;
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone)]
pub struct TagHandle {
    st: Arc<TagState>,
    life: Arc<Life>,
}

impl std::fmt::Debug for SegmentClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentClient")
            .field("store", &self.life.shared.describe)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for TagHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TagHandle")
            .field("tag", &self.st.name)
            .finish_non_exhaustive()
    }
}

/// Options of a [`SegmentClient`]; every one has a default.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::segment::SegmentClient;
/// let client = SegmentClient::builder()
///     .store_url("sqlite::memory:")
///     .refill_at(10)
///     .max_wait(Duration::from_millis(500))
///     .connect_blocking();
/// # let _ = client;
/// ```
#[must_use]
pub struct SegmentClientBuilder {
    store: Option<Arc<dyn SegmentStore>>,
    url: Option<String>,
    store_opts: StoreOptions,
    opts: Options,
    error: Option<Error>,
}

impl SegmentClient {
    /// A builder with the defaults: refill at 20% used, steps up to 1,000,000, unknown tags
    /// created with step 1000, a 3 s bound on waits and on each store call.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder();
    /// ```
    pub fn builder() -> SegmentClientBuilder {
        SegmentClientBuilder {
            store: None,
            url: None,
            store_opts: StoreOptions::default(),
            opts: Options::default(),
            error: None,
        }
    }

    fn shared(&self) -> &Arc<Shared> {
        &self.life.shared
    }

    /// The handle of a tag, loading it from the store on first use (one round trip, bounded
    /// by the op timeout). Blocking: do not call it from async code, use
    /// [`tag_async`](SegmentClient::tag_async) there.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).auto_create(false).connect_blocking()?;
    /// assert_eq!(client.tag("nope").unwrap_err().kind(), "unknown_tag");
    /// assert_eq!(client.tag("no pe").unwrap_err().kind(), "invalid_tag");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn tag(&self, tag: &str) -> Result<TagHandle> {
        let st = match self.shared().lookup(tag) {
            Some(st) => st,
            None => {
                validate_tag(tag)?;
                let shared = Arc::clone(self.shared());
                let name = tag.to_string();
                self.shared().run_blocking(
                    async move { shared.resolve(&name).await },
                    &format!("loading tag `{tag}`"),
                )?
            }
        };
        Ok(TagHandle {
            st,
            life: Arc::clone(&self.life),
        })
    }

    /// [`tag`](SegmentClient::tag) for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// let orders = client.tag_async("orders").await?;
    /// assert_eq!(orders.next_id_async().await?, 1);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn tag_async(&self, tag: &str) -> Result<TagHandle> {
        let st = self.shared().resolve(tag).await?;
        Ok(TagHandle {
            st,
            life: Arc::clone(&self.life),
        })
    }

    /// The next ID of a tag (blocking). A map lookup, then the tag's hot path; keep a
    /// [`TagHandle`] for the fastest path.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// assert_eq!(client.next_id("a")?, 1);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_id(&self, tag: &str) -> Result<u64> {
        self.tag(tag)?.next_id()
    }

    /// `n` contiguous IDs of a tag (blocking).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// assert_eq!(client.next_ids("a", 3)?.into_iter().collect::<Vec<_>>(), vec![1, 2, 3]);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_ids(&self, tag: &str, n: u64) -> Result<IdRange> {
        self.tag(tag)?.next_ids(n)
    }

    /// The next ID of a tag, for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// assert_eq!(client.next_id_async("a").await?, 1);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn next_id_async(&self, tag: &str) -> Result<u64> {
        self.tag_async(tag).await?.next_id_async().await
    }

    /// `n` contiguous IDs of a tag, for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// assert_eq!(client.next_ids_async("a", 10).await?.len(), 10);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn next_ids_async(&self, tag: &str, n: u64) -> Result<IdRange> {
        self.tag_async(tag).await?.next_ids_async(n).await
    }

    /// Creates a tag with a start value, step and description (blocking); true if created,
    /// false if it existed (then nothing changes).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// assert!(client.create_tag(&TagSpec::new("legacy")?.start(5_000_001)?)?);
    /// assert_eq!(client.next_id("legacy")?, 5_000_001);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn create_tag(&self, spec: &TagSpec) -> Result<bool> {
        let shared = Arc::clone(self.shared());
        let spec = spec.clone();
        let what = format!("creating tag `{}`", spec.tag());
        self.shared()
            .run_blocking(async move { shared.create_tag(&spec).await }, &what)
    }

    /// [`create_tag`](SegmentClient::create_tag) for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// assert!(client.create_tag_async(&TagSpec::new("t")?).await?);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn create_tag_async(&self, spec: &TagSpec) -> Result<bool> {
        self.shared().create_tag(spec).await
    }

    /// Metrics of every tag this client has loaded, sorted by tag.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// client.next_id("b")?;
    /// client.next_id("a")?;
    /// let tags: Vec<_> = client.metrics().into_iter().map(|m| m.tag).collect();
    /// assert_eq!(tags, ["a", "b"]);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn metrics(&self) -> Vec<TagMetrics> {
        let tags = self.shared().tags.read().unwrap_or_else(|p| p.into_inner());
        let mut seen: Vec<&Arc<TagState>> = Vec::new();
        for st in tags.values() {
            if !seen.iter().any(|s| Arc::ptr_eq(s, st)) {
                seen.push(st);
            }
        }
        let mut out: Vec<TagMetrics> = seen.into_iter().map(|st| metrics(st)).collect();
        out.sort_by(|a, b| a.tag.cmp(&b.tag));
        out
    }

    /// Drops a tag from this client's cache, so a client that moves through many tags (one a
    /// day) holds only the ones in use; handles already given out keep working.
    pub(crate) fn forget(&self, tag: &str) {
        self.shared()
            .tags
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(tag);
    }

    /// The store, as kind and address (no credentials).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// assert_eq!(client.store(), "memory:");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn store(&self) -> &str {
        &self.shared().describe
    }
}

impl Shared {
    async fn create_tag(&self, spec: &TagSpec) -> Result<bool> {
        tokio::time::timeout(self.opts.op_timeout, self.store.create_tag(spec))
            .await
            .unwrap_or_else(|_| Err(self.timed_out(&format!("creating tag `{}`", spec.tag()))))
    }
}

fn metrics(st: &TagState) -> TagMetrics {
    let refills = st.refills.load(Ordering::Relaxed);
    let total = st.refill_ns_total.load(Ordering::Relaxed);
    TagMetrics {
        tag: st.name.clone(),
        remaining: st.remaining(),
        step: st.step.load(Ordering::Relaxed),
        refills,
        last_refill_latency: Duration::from_nanos(st.refill_ns_last.load(Ordering::Relaxed)),
        max_refill_latency: Duration::from_nanos(st.refill_ns_max.load(Ordering::Relaxed)),
        mean_refill_latency: Duration::from_nanos(total.checked_div(refills).unwrap_or(0)),
        store_errors: st.store_errors.load(Ordering::Relaxed),
        last_error: lock(&st.last_error).clone(),
    }
}

impl TagHandle {
    fn shared(&self) -> &Arc<Shared> {
        &self.life.shared
    }

    /// The next ID. The hot path is one atomic `fetch_add`; the caller waits on the store only
    /// when both buffered ranges are used up, for at most `max_wait`, then gets
    /// [`Error::StoreUnavailable`]. Blocking: async code uses
    /// [`next_id_async`](TagHandle::next_id_async).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// assert_eq!(h.next_id()?, 1);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[inline]
    pub fn next_id(&self) -> Result<u64> {
        match self.st.try_take(1) {
            Take::Got(id, crossed) => {
                if crossed {
                    self.shared().kick(&self.st);
                }
                Ok(id)
            }
            Take::Empty => self.slow_blocking(1).map(|r| r.start),
        }
    }

    /// `n` contiguous IDs (1..=2^40). Up to the tag's step they come from the buffered ranges
    /// (IDs left at the end of a range too short for `n` are skipped); above it, straight
    /// from the store in one round trip.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// let big = h.next_ids(5000)?; // above the step of 1000: one store round trip
    /// assert_eq!(big.len(), 5000);
    /// assert_eq!(h.next_ids(0).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_ids(&self, n: u64) -> Result<IdRange> {
        check_step("n", n)?;
        if n > self.st.base_step {
            let this = self.clone();
            return self.shared().run_blocking(
                async move { this.direct(n).await },
                &format!("allocating {n} IDs for tag `{}`", self.st.name),
            );
        }
        match self.st.try_take(n) {
            Take::Got(id, crossed) => {
                if crossed {
                    self.shared().kick(&self.st);
                }
                Ok(IdRange {
                    start: id,
                    end: id + n,
                })
            }
            Take::Empty => self.slow_blocking(n),
        }
    }

    /// [`next_id`](TagHandle::next_id) for async callers: waits on the caller's runtime.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// let h = client.tag_async("t").await?;
    /// assert_eq!(h.next_id_async().await?, 1);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn next_id_async(&self) -> Result<u64> {
        match self.st.try_take(1) {
            Take::Got(id, crossed) => {
                if crossed {
                    self.shared().kick(&self.st);
                }
                Ok(id)
            }
            Take::Empty => self.slow_async(1).await.map(|r| r.start),
        }
    }

    /// [`next_ids`](TagHandle::next_ids) for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// let h = client.tag_async("t").await?;
    /// assert_eq!(h.next_ids_async(7).await?.len(), 7);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn next_ids_async(&self, n: u64) -> Result<IdRange> {
        check_step("n", n)?;
        if n > self.st.base_step {
            return self.direct(n).await;
        }
        match self.st.try_take(n) {
            Take::Got(id, crossed) => {
                if crossed {
                    self.shared().kick(&self.st);
                }
                Ok(IdRange {
                    start: id,
                    end: id + n,
                })
            }
            Take::Empty => self.slow_async(n).await,
        }
    }

    /// The tag as stored (the default tag's name when this tag falls back to it).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// assert_eq!(h.tag(), "t");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn tag(&self) -> &str {
        &self.st.name
    }

    /// The tag's counters.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// assert_eq!(h.metrics().refills, 0);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn metrics(&self) -> TagMetrics {
        metrics(&self.st)
    }

    async fn direct(&self, n: u64) -> Result<IdRange> {
        let issued_before = self.st.high_water.load(Ordering::Acquire);
        let range = self.shared().allocate(&self.st.name, n).await?;
        self.st.guard(range, issued_before)?;
        Ok(range)
    }

    /// What to return when the tag cannot be refilled any more, if so.
    fn stuck(&self) -> Option<Error> {
        lock(&self.st.poison)
            .clone()
            .or_else(|| lock(&self.st.fatal).clone())
    }

    fn taken(&self, first: u64, n: u64, crossed: bool) -> IdRange {
        if crossed {
            self.shared().kick(&self.st);
        }
        IdRange {
            start: first,
            end: first + n,
        }
    }

    #[cold]
    fn slow_blocking(&self, n: u64) -> Result<IdRange> {
        let max_wait = self.shared().opts.max_wait;
        let deadline = Instant::now() + max_wait;
        loop {
            let seen = *lock(&self.st.events);
            if let Take::Got(id, crossed) = self.st.take_or_swap(n) {
                return Ok(self.taken(id, n, crossed));
            }
            if let Some(e) = lock(&self.st.poison).clone() {
                return Err(e);
            }
            self.shared().kick(&self.st);
            let mut events = lock(&self.st.events);
            while *events == seen {
                let now = Instant::now();
                if now >= deadline {
                    return Err(self.shared().unavailable(&self.st, max_wait));
                }
                events = self
                    .st
                    .cv
                    .wait_timeout(events, deadline - now)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|p| p.into_inner().0);
            }
            drop(events);
            if let Take::Got(id, crossed) = self.st.take_or_swap(n) {
                return Ok(self.taken(id, n, crossed));
            }
            if let Some(e) = self.stuck() {
                return Err(e);
            }
        }
    }

    async fn slow_async(&self, n: u64) -> Result<IdRange> {
        let max_wait = self.shared().opts.max_wait;
        let deadline = tokio::time::Instant::now() + max_wait;
        loop {
            let mut notified = pin!(self.st.notify.notified());
            notified.as_mut().enable();
            if let Take::Got(id, crossed) = self.st.take_or_swap(n) {
                return Ok(self.taken(id, n, crossed));
            }
            if let Some(e) = lock(&self.st.poison).clone() {
                return Err(e);
            }
            self.shared().kick(&self.st);
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(self.shared().unavailable(&self.st, max_wait));
            }
            if let Take::Got(id, crossed) = self.st.take_or_swap(n) {
                return Ok(self.taken(id, n, crossed));
            }
            if let Some(e) = self.stuck() {
                return Err(e);
            }
        }
    }
}

impl SegmentClientBuilder {
    fn fail(mut self, err: Error) -> Self {
        self.error.get_or_insert(err);
        self
    }

    /// The store, by URL: `sqlite:PATH`, `postgres://…`, `mysql://…`, `redis://…`, `memory:`
    /// (see [`open_store`](super::open_store)); each needs its cargo feature.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().store_url("sqlite:./ids.db");
    /// ```
    pub fn store_url(mut self, url: &str) -> Self {
        self.url = Some(url.to_string());
        self
    }

    /// A store already opened (it must be usable from the runtime the client runs on).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let _b = SegmentClient::builder().store(MemoryStore::new());
    /// ```
    pub fn store(mut self, store: Arc<dyn SegmentStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Options for opening the store by URL (table name, pool size, Redis mode).
    ///
    /// ```
    /// use idmint_core::segment::{SegmentClient, StoreOptions};
    /// let _b = SegmentClient::builder().store_options(StoreOptions::default().table("ids")?);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn store_options(mut self, opts: StoreOptions) -> Self {
        self.store_opts = opts;
        self
    }

    /// The share of a range, in percent (0..=99), used when the next range is fetched in the
    /// background (default 20, as Tinyid; Leaf uses 10).
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().refill_at(10);
    /// ```
    pub fn refill_at(mut self, percent: u8) -> Self {
        if percent > 99 {
            return self.fail(Error::InvalidArgument {
                name: "refill_at".into(),
                value: percent.to_string(),
                expected: "a share in percent, 0..=99".into(),
            });
        }
        self.opts.refill_at = percent;
        self
    }

    /// The largest step the dynamic step may grow to (default 1,000,000; 1..=2^40). A tag
    /// whose own step is larger keeps its own.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().max_step(100_000);
    /// ```
    pub fn max_step(mut self, max_step: u64) -> Self {
        if let Err(e) = check_step("max_step", max_step) {
            return self.fail(e);
        }
        self.opts.max_step = max_step;
        self
    }

    /// The step of tags this client creates (default 1000; 1..=2^40).
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().default_step(5000);
    /// ```
    pub fn default_step(mut self, step: u64) -> Self {
        if let Err(e) = check_step("default_step", step) {
            return self.fail(e);
        }
        self.opts.default_step = step;
        self
    }

    /// Whether unknown tags are created on first use (default true) or are
    /// [`Error::UnknownTag`].
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().auto_create(false);
    /// ```
    pub fn auto_create(mut self, on: bool) -> Self {
        self.opts.auto_create = on;
        self
    }

    /// A tag that tags unknown to the store draw from (the seeds' `SequenceUtil`): with
    /// auto-creation off, `next_id("rare_table")` then hands out IDs of this tag.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
    /// let client = SegmentClient::builder().store(MemoryStore::new())
    ///     .auto_create(false).default_tag("shared").connect_blocking()?;
    /// client.create_tag(&TagSpec::new("shared")?)?;
    /// assert_eq!(client.tag("rare_table")?.tag(), "shared");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn default_tag(mut self, tag: &str) -> Self {
        if let Err(e) = validate_tag(tag) {
            return self.fail(e);
        }
        self.opts.default_tag = Some(tag.to_string());
        self
    }

    /// The longest a caller waits when both ranges are empty, before
    /// [`Error::StoreUnavailable`] (default 3 s).
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().max_wait(std::time::Duration::from_millis(200));
    /// ```
    pub fn max_wait(mut self, wait: Duration) -> Self {
        self.opts.max_wait = wait;
        self
    }

    /// The longest one store call may take before it counts as failed (default 3 s). A call
    /// cut short may still have moved the counter: its range is skipped, never reused.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().op_timeout(std::time::Duration::from_secs(1));
    /// ```
    pub fn op_timeout(mut self, timeout: Duration) -> Self {
        if timeout.is_zero() {
            return self.fail(Error::InvalidArgument {
                name: "op_timeout".into(),
                value: "0 ms".into(),
                expected: "a positive duration".into(),
            });
        }
        self.opts.op_timeout = timeout;
        self
    }

    /// Backoff between failed refills: starts at `min`, doubles up to `max`
    /// (default 50 ms to 2 s). Refills go on until the store answers.
    ///
    /// ```
    /// use std::time::Duration;
    /// let _b = idmint_core::segment::SegmentClient::builder()
    ///     .retry_backoff(Duration::from_millis(10), Duration::from_millis(500));
    /// ```
    pub fn retry_backoff(mut self, min: Duration, max: Duration) -> Self {
        if min.is_zero() || max < min {
            return self.fail(Error::InvalidArgument {
                name: "retry_backoff".into(),
                value: format!("{} ms..{} ms", min.as_millis(), max.as_millis()),
                expected: "0 < min <= max".into(),
            });
        }
        self.opts.retry_min = min;
        self.opts.retry_max = max;
        self
    }

    /// The dynamic step's thresholds: a range that lasted under `grow_below` doubles the next
    /// step, one that lasted over `shrink_above` halves it (default 15 and 30 minutes, Leaf's).
    ///
    /// ```
    /// use std::time::Duration;
    /// let _b = idmint_core::segment::SegmentClient::builder()
    ///     .step_timing(Duration::from_secs(60), Duration::from_secs(600));
    /// ```
    pub fn step_timing(mut self, grow_below: Duration, shrink_above: Duration) -> Self {
        if shrink_above < grow_below {
            return self.fail(Error::InvalidArgument {
                name: "step_timing".into(),
                value: format!("{grow_below:?}, {shrink_above:?}"),
                expected: "grow_below <= shrink_above".into(),
            });
        }
        self.opts.grow_below = grow_below;
        self.opts.shrink_above = shrink_above;
        self
    }

    fn check(&mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.store.is_none() && self.url.is_none() {
            return Err(Error::InvalidArgument {
                name: "store".into(),
                value: "none".into(),
                expected: "a store or a store URL (sqlite:PATH, postgres://…, mysql://…, redis://…, memory:)".into(),
            });
        }
        Ok(())
    }

    fn finish(
        self,
        store: Arc<dyn SegmentStore>,
        handle: Handle,
        rt: Option<Runtime>,
    ) -> SegmentClient {
        let shared = Arc::new(Shared {
            describe: store.describe(),
            store,
            opts: self.opts,
            handle,
            tags: RwLock::new(HashMap::new()),
            closed: AtomicBool::new(false),
        });
        SegmentClient {
            life: Arc::new(Life {
                shared,
                runtime: Mutex::new(rt),
            }),
        }
    }

    /// Builds a client with its own runtime (one worker thread) for store I/O and background
    /// refills: for callers without tokio. Do not call it from async code.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn connect_blocking(mut self) -> Result<SegmentClient> {
        self.check()?;
        let rt = super::background_runtime("idmint-segment")?;
        let store = match self.store.take() {
            Some(store) => store,
            None => {
                let url = self.url.clone().unwrap_or_default();
                let opts = self.store_opts.clone();
                let timeout = self.opts.op_timeout;
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                rt.spawn(async move {
                    let _ = tx.send(super::open_store_timeout(&url, &opts, timeout).await);
                });
                match rx.recv_timeout(timeout * 2 + Duration::from_secs(1)) {
                    Ok(r) => r?,
                    Err(_) => {
                        rt.shutdown_background();
                        return Err(Error::StoreUnavailable {
                            store: super::describe_url(self.url.as_deref().unwrap_or("")),
                            reason: "opening the store did not finish".into(),
                        });
                    }
                }
            }
        };
        let handle = rt.handle().clone();
        Ok(self.finish(store, handle, Some(rt)))
    }

    /// Builds a client on the caller's tokio runtime (multi-threaded, time and I/O enabled),
    /// for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn connect(mut self) -> Result<SegmentClient> {
        self.check()?;
        let store = match self.store.take() {
            Some(store) => store,
            None => {
                let url = self.url.clone().unwrap_or_default();
                super::open_store_timeout(&url, &self.store_opts, self.opts.op_timeout).await?
            }
        };
        Ok(self.finish(store, Handle::current(), None))
    }
}

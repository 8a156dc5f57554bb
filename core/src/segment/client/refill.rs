//! The refill: the state a client shares with its tags and background tasks, and the task
//! that fetches a tag's next range from the store, with retries and the dynamic step (how
//! many IDs to fetch, decided here from the tag's buffer, which knows nothing of it).
//!
//! Store I/O runs on a tokio runtime: the client's own single worker thread when built with
//! [`SegmentClientBuilder::connect_blocking`](super::SegmentClientBuilder::connect_blocking)
//! (for callers without a runtime: Python, the JVM), or the caller's runtime when built with
//! [`SegmentClientBuilder::connect`](super::SegmentClientBuilder::connect) (Node). Blocking
//! callers wait on a condition variable, async callers on a `Notify`, both with a deadline.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime};

use super::buffer::{lock, TagState};
use crate::segment::store::{IdRange, SegmentStore, TagInfo};
use crate::segment::tag::{TagSpec, TagUpdate, DEFAULT_STEP, MAX_STEP};
use crate::store::validate_tag;
use crate::{rules, Error, Result};

/// What the builder sets; the defaults are those [`SegmentClient::builder`] documents.
///
/// [`SegmentClient::builder`]: super::SegmentClient::builder
#[derive(Debug, Clone)]
pub(super) struct Options {
    pub(super) refill_at: u8,
    pub(super) max_step: u64,
    pub(super) default_step: u64,
    pub(super) auto_create: bool,
    pub(super) default_tag: Option<String>,
    pub(super) max_wait: Duration,
    pub(super) op_timeout: Duration,
    pub(super) retry_min: Duration,
    pub(super) retry_max: Duration,
    pub(super) grow_below: Duration,
    pub(super) shrink_above: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            // The numbers the browser's client reads too (crate::rules).
            refill_at: rules::SEGMENT_REFILL_AT as u8,
            max_step: 1_000_000,
            default_step: DEFAULT_STEP,
            auto_create: true,
            default_tag: None,
            max_wait: Duration::from_millis(rules::SEGMENT_MAX_WAIT_MS),
            op_timeout: Duration::from_millis(rules::SEGMENT_OP_TIMEOUT_MS),
            retry_min: Duration::from_millis(rules::SEGMENT_RETRY_MIN_MS),
            retry_max: Duration::from_millis(rules::SEGMENT_RETRY_MAX_MS),
            grow_below: Duration::from_secs(15 * 60),
            shrink_above: Duration::from_secs(30 * 60),
        }
    }
}

/// What a client, its tag handles and its refill tasks share.
pub(super) struct Shared {
    pub(super) store: Arc<dyn SegmentStore>,
    pub(super) describe: String,
    pub(super) opts: Options,
    pub(super) handle: Handle,
    pub(super) tags: RwLock<HashMap<String, Arc<TagState>>>,
    /// The fork generation the client was made in, or [`CLOSED`] once it is closed: the hot
    /// path checks both, "not closed" and "not in a forked child", with one load and one
    /// compare against [`crate::fork::current`].
    pub(super) alive: AtomicU64,
    /// The fork generation the client was made in: in a forked child it differs, and the
    /// client refuses (its buffered ranges are the parent's too).
    pub(super) born: u64,
    /// Whether the client opened the store (from a URL), so closing the client closes it: a
    /// store given to the builder may serve others.
    pub(super) owns_store: bool,
}

/// `Shared::alive` of a closed client: no fork generation reaches it (one per fork).
pub(super) const CLOSED: u64 = u64::MAX;

/// Owns what must end with the last client or handle: the runtime of a blocking client.
pub(super) struct Life {
    pub(super) shared: Arc<Shared>,
    pub(super) runtime: Mutex<Option<Runtime>>,
    /// An async client's give-back and store close, started by the first `close`:
    /// [`close_async`](Life::close_async) waits for it (a plain `close` cannot).
    pub(super) closing: Mutex<Option<tokio::task::JoinHandle<u64>>>,
}

impl Life {
    /// Stops background refills, gives the unused tails of the buffered ranges back to the
    /// store ([`Shared::give_back_all`]), closes a store the client opened
    /// ([`Shared::close_store`]) and lets go of the runtime; later calls get `closed`.
    ///
    /// A blocking client waits for the give-back on its own runtime, for at most
    /// `op_timeout` (plus a second): a store that is down costs that wait once, and the tails
    /// stay gaps. An async client (the caller's runtime) cannot wait here, in a plain function
    /// that may run on that runtime's only thread: it starts the give-back on the runtime and
    /// returns (the client refuses from here on); [`close_async`](Life::close_async) waits
    /// for it.
    pub(super) fn close(&self) {
        let first = self.shared.alive.swap(CLOSED, Ordering::SeqCst) != CLOSED;
        let rt = lock(&self.runtime).take();
        if crate::fork::since(self.shared.born) {
            // The runtime's threads and the store's connections are the parent's: dropping
            // them here would close sockets the parent still uses. The buffered ranges are the
            // parent's too: never given back from here.
            crate::fork::abandon((rt, Arc::clone(&self.shared)));
            return;
        }
        if first {
            let shared = Arc::clone(&self.shared);
            let give_back = async move {
                let given = shared.give_back_bounded().await;
                shared.close_store().await;
                given
            };
            match &rt {
                Some(rt) => {
                    let (tx, rx) = std::sync::mpsc::sync_channel(1);
                    rt.spawn(async move {
                        let _ = tx.send(give_back.await);
                    });
                    // The give-back and the store's close, each bounded by op_timeout.
                    let _ =
                        rx.recv_timeout(self.shared.opts.op_timeout * 2 + Duration::from_secs(1));
                }
                None => {
                    *lock(&self.closing) = Some(self.shared.handle.spawn(give_back));
                }
            }
        }
        if let Some(rt) = rt {
            // Never blocks, and is allowed inside another runtime (a plain drop is not).
            rt.shutdown_background();
        }
    }

    /// [`close`](Life::close) for async callers: waits for the give-back and the store's
    /// close (each bounded by `op_timeout`), also when a plain `close` of an async client
    /// started them; the IDs given back.
    pub(super) async fn close_async(&self) -> u64 {
        if lock(&self.runtime).is_none() {
            // An async client (or one closed already): `close` starts the work on the
            // caller's runtime, or an earlier `close` did; wait for it here.
            self.close();
            let task = lock(&self.closing).take();
            return match task {
                Some(task) => task.await.unwrap_or(0),
                None => 0,
            };
        }
        // A blocking client: the work runs here, on the caller's runtime, not its own.
        let mut given = 0;
        if !crate::fork::since(self.shared.born)
            && self.shared.alive.swap(CLOSED, Ordering::SeqCst) != CLOSED
        {
            given = self.shared.give_back_bounded().await;
            self.shared.close_store().await;
        }
        self.close();
        given
    }
}

impl Drop for Life {
    fn drop(&mut self) {
        self.close();
    }
}

impl Shared {
    /// Fails unless the client may hand out IDs: not closed, and in the process that made it.
    #[inline]
    pub(super) fn live(&self) -> Result<()> {
        if !crate::fork::since(self.alive.load(Ordering::Relaxed)) {
            return Ok(());
        }
        Err(self.refusal())
    }

    /// Why [`live`](Shared::live) refused: kept out of line so the hot path stays small.
    #[cold]
    #[inline(never)]
    fn refusal(&self) -> Error {
        if self.is_closed() {
            return Error::Closed {
                what: "segment client".into(),
            };
        }
        Error::Forked {
            what: "segment client".into(),
            remedy: "its buffered ranges are the parent's too; open a new client in the child (e.g. in a post-fork hook)".into(),
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        self.alive.load(Ordering::Relaxed) == CLOSED
    }

    pub(super) fn unavailable(&self, tag: &TagState, waited: Duration) -> Error {
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

    pub(super) fn timed_out(&self, what: &str) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!(
                "{what}: no answer within {} ms (op_timeout)",
                self.opts.op_timeout.as_millis()
            ),
        }
    }

    /// Starts a background refill unless one runs or the next range is already there.
    pub(super) fn kick(self: &Arc<Self>, st: &Arc<TagState>) {
        if self.is_closed() || st.next_ready() {
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

    pub(super) async fn allocate(&self, tag: &str, count: u64) -> Result<IdRange> {
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

    pub(super) fn spec(&self, tag: &str) -> Result<TagSpec> {
        TagSpec::new(tag)?.step(self.opts.default_step)
    }

    /// Finds or loads a tag: one store round trip per tag name and client, which also learns
    /// the tag's step. Unknown tags are created, fall back to the default tag, or fail.
    pub(super) async fn resolve(self: &Arc<Self>, tag: &str) -> Result<Arc<TagState>> {
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
                (Some(info), _) => Ok(Arc::new(TagState::new(tag, self.step_of(&info)))),
                (None, Some(default)) if default != tag => {
                    if let Some(st) = self.lookup(default) {
                        return Ok(st);
                    }
                    match self.store.tag_info(default).await? {
                        Some(info) => Ok(Arc::new(TagState::new(default, self.step_of(&info)))),
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

    /// The step a client starts a tag with: the store's, or the client's default where the
    /// store keeps none (0).
    fn step_of(&self, info: &TagInfo) -> u64 {
        match info.step {
            0 => self.opts.default_step,
            s => s.clamp(1, MAX_STEP),
        }
    }

    pub(super) fn lookup(&self, tag: &str) -> Option<Arc<TagState>> {
        self.tags
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(tag)
            .cloned()
    }

    /// Runs a future on the client's runtime and waits for it from a plain thread, bounded.
    pub(super) fn run_blocking<T: Send + 'static>(
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

impl Shared {
    /// [`give_back_all`](Shared::give_back_all) within `op_timeout`: what is not given back
    /// by then stays a gap. The IDs given back.
    pub(super) async fn give_back_bounded(&self) -> u64 {
        tokio::time::timeout(self.opts.op_timeout, self.give_back_all())
            .await
            .unwrap_or(0)
    }

    /// After the give-back: closes the store if the client opened it, so its connections (and
    /// a SQLite file) are not left open until the last handle is dropped. Bounded by
    /// `op_timeout`: a refill still holding a connection past it keeps the store open until
    /// the client is dropped.
    pub(super) async fn close_store(&self) {
        if self.owns_store {
            let _ = tokio::time::timeout(self.opts.op_timeout, self.store.close()).await;
        }
    }

    /// Gives the unused tails of every loaded tag's buffered ranges back to the store, after
    /// the client is marked closed. Per tag: waits for a refill under way (its range lands in
    /// the buffer, or it would sit above ours in the store and make every give-back fail),
    /// seals the buffer ([`TagState::seal`]), then gives back the later range first, and the
    /// earlier one only if the later one went back (the store's counter then ends at the
    /// earlier one's end exactly when nobody allocated between them). The store's
    /// compare-and-set is the guarantee: a range someone allocated after is never given back.
    /// The IDs given back.
    pub(super) async fn give_back_all(&self) -> u64 {
        let states: Vec<Arc<TagState>> = {
            let tags = self.tags.read().unwrap_or_else(|p| p.into_inner());
            let mut seen: Vec<Arc<TagState>> = Vec::new();
            for st in tags.values() {
                if !seen.iter().any(|s| Arc::ptr_eq(s, st)) {
                    seen.push(Arc::clone(st));
                }
            }
            seen
        };
        let mut given = 0;
        for st in states {
            // A refill started before the close checked `is_closed` already; it ends with
            // its one store call (bounded by op_timeout, as this whole give-back is).
            while st.refilling.load(Ordering::Acquire) {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            for (range, next) in st.seal().into_iter().rev() {
                let call = self.store.give_back(&st.name, range, next);
                match tokio::time::timeout(self.opts.op_timeout, call).await {
                    Ok(Ok(true)) => given += range.end - next,
                    Ok(Ok(false)) => break,
                    Ok(Err(e)) => {
                        st.store_errors.fetch_add(1, Ordering::Relaxed);
                        *lock(&st.last_error) = Some(e.to_string());
                        break;
                    }
                    Err(_) => break,
                }
            }
        }
        given
    }

    pub(super) async fn create_tag(&self, spec: &TagSpec) -> Result<bool> {
        tokio::time::timeout(self.opts.op_timeout, self.store.create_tag(spec))
            .await
            .unwrap_or_else(|_| Err(self.timed_out(&format!("creating tag `{}`", spec.tag()))))
    }

    pub(super) async fn list_tags(&self) -> Result<Vec<TagInfo>> {
        tokio::time::timeout(self.opts.op_timeout, self.store.list_tags())
            .await
            .unwrap_or_else(|_| Err(self.timed_out("listing tags")))
    }

    /// Updates a tag in the store; when its step changed, the tag's state in this client (if
    /// loaded, under its own name or as another name's fallback) takes the stored step, as
    /// loading the tag anew would.
    pub(super) async fn update_tag(&self, tag: &str, update: &TagUpdate) -> Result<TagInfo> {
        let info = tokio::time::timeout(self.opts.op_timeout, self.store.update_tag(tag, update))
            .await
            .unwrap_or_else(|_| Err(self.timed_out(&format!("updating tag `{tag}`"))))?;
        if update.step_value().is_some() {
            let step = self.step_of(&info);
            let tags = self.tags.read().unwrap_or_else(|p| p.into_inner());
            for st in tags.values().filter(|st| st.name == info.tag) {
                st.set_base_step(step);
            }
        }
        Ok(info)
    }
}

async fn refill_task(shared: Arc<Shared>, st: Arc<TagState>) {
    let mut backoff = shared.opts.retry_min;
    while !shared.is_closed() {
        // Within the store's largest request (an `http(s)://` store's server `max_count`).
        let count = plan_step(&st, &shared.opts, Instant::now()).min(shared.store.max_count());
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

/// Leaf's dynamic step: double when the last range lasted under `grow_below`, halve when
/// over `shrink_above`, within `base_step..=max_step`.
fn plan_step(st: &TagState, opts: &Options, now: Instant) -> u64 {
    let base = st.base_step();
    let cur = st.step.load(Ordering::Relaxed).max(base);
    let top = opts.max_step.max(base);
    match *lock(&st.last_fetch) {
        None => cur,
        Some(prev) => {
            let lasted = now.saturating_duration_since(prev);
            if lasted < opts.grow_below {
                cur.saturating_mul(2).min(top)
            } else if lasted > opts.shrink_above {
                (cur / 2).max(base)
            } else {
                cur
            }
        }
    }
}

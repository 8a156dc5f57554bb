//! What callers hold: the [`SegmentClient`], the [`TagHandle`] of a cached tag (whose
//! `next_id` is the hot path) and a tag's [`TagMetrics`].

use std::pin::pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::buffer::{lock, TagState, Take};
use super::refill::{Life, Shared};
use crate::rules::check_step;
use crate::segment::store::{IdRange, TagInfo};
use crate::segment::tag::{TagSpec, TagUpdate};
use crate::store::validate_tag;
use crate::{Error, Result};

/// Counters of one tag in a client, readable at any time.
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient};
/// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
/// client.next_id("orders")?;
/// let m = client.tag("orders")?.metrics();
/// assert_eq!((m.refills, m.store_errors), (1, 0));
/// assert_eq!(m.waits, 1); // the first call waits for the first range
/// assert_eq!(m.remaining, 999);
/// assert_eq!(m.issued, 1);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagMetrics {
    /// The tag as stored (the default tag's name when this tag falls back to it).
    pub tag: String,
    /// IDs left in memory: the rest of the current range plus the next one, if fetched.
    pub remaining: u64,
    /// IDs handed out so far (every range fetched, less what is still in memory).
    pub issued: u64,
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
    /// Time of every successful refill added up (with `refills`, a rate's mean).
    pub total_refill_latency: Duration,
    /// Failed store calls (each retry counts).
    pub store_errors: u64,
    /// The last store error, if any.
    pub last_error: Option<String>,
    /// Calls that found both buffered ranges used up and waited for a refill: what the double
    /// buffer failed to hide (0 while refills keep up).
    pub waits: u64,
}

/// A client handing out segment IDs for any number of tags from one store.
///
/// Cloning is cheap and shares everything. When the last clone (and the last [`TagHandle`])
/// is dropped, or at [`close`](SegmentClient::close), the unused tails of the buffered ranges
/// go back to the store where nobody allocated after them; IDs left in memory otherwise are
/// never handed out by anyone: a gap, never a repeat.
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
    pub(super) life: Arc<Life>,
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
    pub(super) st: Arc<TagState>,
    /// `life.shared`, held directly so the hot path's liveness check is one pointer away.
    pub(super) shared: Arc<Shared>,
    /// Keeps the client (its runtime) alive while the handle is; never read.
    _life: Arc<Life>,
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

impl SegmentClient {
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
        self.shared().live()?;
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
            shared: Arc::clone(self.shared()),
            _life: Arc::clone(&self.life),
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
        self.shared().live()?;
        let st = self.shared().resolve(tag).await?;
        Ok(TagHandle {
            st,
            shared: Arc::clone(self.shared()),
            _life: Arc::clone(&self.life),
        })
    }

    /// [`tag_async`](SegmentClient::tag_async) for a tag the store already holds: it never
    /// creates the tag, whatever `auto_create` says, and never falls back to the default tag,
    /// but fails with [`Error::UnknownTag`]. For a caller that must serve only tags someone
    /// created (a server's Tinyid endpoints, where a mistyped bizType is an error): one store
    /// round trip the first time a tag is asked for, none once it is loaded.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?; // auto_create on
    /// let e = client.existing_tag_async("ordres").await.unwrap_err();
    /// assert_eq!(e.kind(), "unknown_tag");
    /// assert!(client.list_tags_async().await?.is_empty()); // nothing was created
    /// client.create_tag_async(&TagSpec::new("orders")?).await?;
    /// assert_eq!(client.existing_tag_async("orders").await?.next_id_async().await?, 1);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn existing_tag_async(&self, tag: &str) -> Result<TagHandle> {
        self.shared().live()?;
        validate_tag(tag)?;
        let shared = self.shared();
        // Loaded under its own name (not as a fallback to the default tag): the store holds it.
        let loaded = shared.lookup(tag).is_some_and(|st| st.name == tag);
        if !loaded {
            let info = tokio::time::timeout(shared.opts.op_timeout, shared.store.tag_info(tag))
                .await
                .unwrap_or_else(|_| Err(shared.timed_out(&format!("loading tag `{tag}`"))))?;
            if info.is_none() {
                return Err(Error::UnknownTag {
                    tag: tag.to_string(),
                });
            }
        }
        self.tag_async(tag).await
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
        self.shared().live()?;
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
        self.shared().live()?;
        self.shared().create_tag(spec).await
    }

    /// Every tag the client's store holds, ordered by tag (blocking; see
    /// [`SegmentStore::list_tags`](crate::segment::SegmentStore::list_tags)).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// client.create_tag(&TagSpec::new("users")?)?;
    /// client.create_tag(&TagSpec::new("orders")?.description("order numbers")?)?;
    /// let tags = client.list_tags()?;
    /// assert_eq!(tags.iter().map(|t| t.tag.as_str()).collect::<Vec<_>>(), ["orders", "users"]);
    /// assert_eq!(tags[0].description, "order numbers");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn list_tags(&self) -> Result<Vec<TagInfo>> {
        self.shared().live()?;
        let shared = Arc::clone(self.shared());
        self.shared()
            .run_blocking(async move { shared.list_tags().await }, "listing tags")
    }

    /// [`list_tags`](SegmentClient::list_tags) for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// client.next_id_async("orders").await?; // creates the tag (auto_create)
    /// assert_eq!(client.list_tags_async().await?[0].tag, "orders");
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn list_tags_async(&self) -> Result<Vec<TagInfo>> {
        self.shared().live()?;
        self.shared().list_tags().await
    }

    /// Tunes a tag in the client's store (blocking; see
    /// [`SegmentStore::update_tag`](crate::segment::SegmentStore::update_tag)) and returns its row after
    /// the change.
    ///
    /// A new step reaches this client's state of the tag at once: its next refill fetches
    /// the new step (the dynamic step grows from there), and runs of
    /// [`next_ids`](TagHandle::next_ids) above it go to the store. Other clients keep the
    /// step they loaded until they load the tag again (a new client). IDs already buffered,
    /// here or in other clients, are still handed out after a raised
    /// [`next_at_least`](TagUpdate::next_at_least): they were issued before it, so they are
    /// unique, just below the new floor.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec, TagUpdate};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// let orders = client.tag("orders")?;
    /// assert_eq!(orders.next_id()?, 1); // a range of 1000 buffered
    /// let info = client.update_tag("orders", &TagUpdate::new().step(10)?.next_at_least(5_001)?)?;
    /// assert_eq!((info.max_id, info.step), (5_000, 10));
    /// assert!(orders.cursor(11).is_err()); // the new step bounds blocks
    /// assert_eq!(client.update_tag("nope", &TagUpdate::new()).unwrap_err().kind(), "unknown_tag");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn update_tag(&self, tag: &str, update: &TagUpdate) -> Result<TagInfo> {
        self.shared().live()?;
        let shared = Arc::clone(self.shared());
        let (name, update) = (tag.to_string(), update.clone());
        self.shared().run_blocking(
            async move { shared.update_tag(&name, &update).await },
            &format!("updating tag `{tag}`"),
        )
    }

    /// [`update_tag`](SegmentClient::update_tag) for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec, TagUpdate};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// client.create_tag_async(&TagSpec::new("t")?).await?;
    /// let info = client.update_tag_async("t", &TagUpdate::new().description("tickets")?).await?;
    /// assert_eq!(info.description, "tickets");
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn update_tag_async(&self, tag: &str, update: &TagUpdate) -> Result<TagInfo> {
        self.shared().live()?;
        self.shared().update_tag(tag, update).await
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

    /// Stops the background refills, gives the unused tails of the buffered ranges back to
    /// the store, and releases the client's runtime and, for a store it opened from a URL, the
    /// store's connections (a SQLite file is closed on return; a store given to the builder
    /// may serve others and stays open), for every clone and tag handle; every later call
    /// fails with [`Error::Closed`]. Dropping the last clone and handle does the same.
    ///
    /// The give-back ([`SegmentStore::give_back`](crate::segment::SegmentStore::give_back)),
    /// per loaded tag: the next range whole and the rest of the current one, each only if
    /// nobody allocated after it (one compare-and-set in the store), so the next client
    /// carries on where this one stopped instead of a step later. Otherwise (someone
    /// allocated after, the store is down, or it does not answer within `op_timeout`) the
    /// tail stays a gap, never handed out by anyone. A blocking client waits for it, at most
    /// `op_timeout`; an async client starts it on its runtime and returns (await
    /// [`close_async`](SegmentClient::close_async) to wait for it). A forked child never
    /// gives back (the ranges are its parent's).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let store = MemoryStore::new();
    /// let client = SegmentClient::builder().store(store.clone()).connect_blocking()?;
    /// let orders = client.tag("orders")?;
    /// assert_eq!(orders.next_id()?, 1);
    /// client.close();
    /// assert_eq!(orders.next_id().unwrap_err().kind(), "closed");
    /// // The next client carries on at 2: the rest of the range went back.
    /// let client = SegmentClient::builder().store(store).connect_blocking()?;
    /// assert_eq!(client.next_id("orders")?, 2);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn close(&self) {
        self.life.close();
    }

    /// [`close`](SegmentClient::close) for async callers: waits for the give-back and the
    /// close of a store the client opened (each at most `op_timeout`) on the caller's runtime,
    /// also when a plain `close` of an async client started them (a binding calls `close` at
    /// once, so the client refuses from then on, and awaits this), and returns how many IDs
    /// went back to the store (0 when an earlier `close_async` took them).
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let store = MemoryStore::new();
    /// let client = SegmentClient::builder().store(store.clone()).connect().await?;
    /// assert_eq!(client.next_id_async("orders").await?, 1);
    /// assert_eq!(client.close_async().await, 999);
    /// assert_eq!(client.close_async().await, 0); // closed already
    /// let client = SegmentClient::builder().store(store).connect().await?;
    /// assert_eq!(client.next_id_async("orders").await?, 2);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn close_async(&self) -> u64 {
        self.life.close_async().await
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

fn metrics(st: &TagState) -> TagMetrics {
    let refills = st.refills.load(Ordering::Relaxed);
    let total = st.refill_ns_total.load(Ordering::Relaxed);
    let remaining = st.remaining();
    TagMetrics {
        tag: st.name.clone(),
        remaining,
        issued: st.fetched.load(Ordering::Relaxed).saturating_sub(remaining),
        step: st.step.load(Ordering::Relaxed),
        refills,
        last_refill_latency: Duration::from_nanos(st.refill_ns_last.load(Ordering::Relaxed)),
        max_refill_latency: Duration::from_nanos(st.refill_ns_max.load(Ordering::Relaxed)),
        mean_refill_latency: Duration::from_nanos(total.checked_div(refills).unwrap_or(0)),
        total_refill_latency: Duration::from_nanos(total),
        store_errors: st.store_errors.load(Ordering::Relaxed),
        last_error: lock(&st.last_error).clone(),
        waits: st.waits.load(Ordering::Relaxed),
    }
}

impl TagHandle {
    #[inline(always)]
    fn shared(&self) -> &Arc<Shared> {
        &self.shared
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
        self.shared().live()?;
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
        self.shared().live()?;
        check_step("n", n)?;
        if n > self.st.base_step() {
            return self.direct_blocking(n);
        }
        match self.st.try_take(n) {
            Take::Got(id, crossed) => Ok(self.taken(id, n, crossed)),
            Take::Empty => self.slow_blocking(n),
        }
    }

    /// The next ID if one is in memory, never waiting: with both buffered ranges used up it
    /// starts the refill and fails with [`Error::WouldBlock`] (then await
    /// [`next_id_async`](TagHandle::next_id_async), which waits for it). For callers that
    /// must never block (a JavaScript event loop).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// assert_eq!(h.try_next_id().unwrap_err().kind(), "would_block"); // nothing fetched yet
    /// assert_eq!(h.next_id()?, 1);
    /// assert_eq!(h.try_next_id()?, 2);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<u64> {
        self.try_next_ids(1).map(|r| r.start)
    }

    /// `n` contiguous IDs (1..=the tag's step) if they are in memory, never waiting; otherwise
    /// as [`try_next_id`](TagHandle::try_next_id). Runs longer than the step always go to the
    /// store: use [`next_ids_async`](TagHandle::next_ids_async).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let h = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?.tag("t")?;
    /// h.next_id()?;
    /// assert_eq!(h.try_next_ids(10)?.len(), 10);
    /// assert_eq!(h.try_next_ids(5000).unwrap_err().kind(), "would_block");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn try_next_ids(&self, n: u64) -> Result<IdRange> {
        self.shared().live()?;
        check_step("n", n)?;
        let would_block = || Error::WouldBlock {
            tag: self.st.name.clone(),
            store: self.shared().describe.clone(),
        };
        if n > self.st.base_step() {
            return Err(would_block());
        }
        match self.st.try_take(n) {
            Take::Got(id, crossed) => Ok(self.taken(id, n, crossed)),
            Take::Empty => {
                if let Take::Got(id, crossed) = self.st.take_or_swap(n) {
                    return Ok(self.taken(id, n, crossed));
                }
                // A refill that failed for good (unknown tag …) is reported once; the next call
                // tries again.
                let failed = lock(&self.st.poison).clone();
                if let Some(e) = failed.or_else(|| lock(&self.st.fatal).take()) {
                    return Err(e);
                }
                self.shared().kick(&self.st);
                Err(would_block())
            }
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
        self.shared().live()?;
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
        self.shared().live()?;
        check_step("n", n)?;
        if n > self.st.base_step() {
            return self.direct(n).await;
        }
        match self.st.try_take(n) {
            Take::Got(id, crossed) => Ok(self.taken(id, n, crossed)),
            Take::Empty => self.slow_async(n).await,
        }
    }

    /// The step this handle refills with: the tag's stored step, or the client's default step
    /// for a tag stored without one (dynamic growth aside: [`TagMetrics::step`] tells the last
    /// range's). At least 1. A server handing a caller a whole segment (Tinyid's
    /// `nextSegmentId`) hands one of this size.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// client.create_tag(&TagSpec::new("t")?.step(500)?)?;
    /// assert_eq!(client.tag("t")?.step(), 500);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn step(&self) -> u64 {
        self.st.base_step()
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

    fn direct_blocking(&self, n: u64) -> Result<IdRange> {
        let this = self.clone();
        self.shared().run_blocking(
            async move { this.direct(n).await },
            &format!("allocating {n} IDs for tag `{}`", self.st.name),
        )
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

    #[inline]
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
        let mut waited = false;
        loop {
            // The tag's step was lowered below `n` (update_tag): refills now bring ranges too
            // short for it, so it comes from the store as every run above the step does.
            if n > self.st.base_step() {
                return self.direct_blocking(n);
            }
            let seen = *lock(&self.st.events);
            if let Take::Got(id, crossed) = self.st.take_or_swap(n) {
                return Ok(self.taken(id, n, crossed));
            }
            if let Some(e) = lock(&self.st.poison).clone() {
                return Err(e);
            }
            self.shared().kick(&self.st);
            if !waited {
                waited = true;
                self.st.waits.fetch_add(1, Ordering::Relaxed);
            }
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
        let mut waited = false;
        loop {
            if n > self.st.base_step() {
                return self.direct(n).await;
            }
            let mut notified = pin!(self.st.notify.notified());
            notified.as_mut().enable();
            if let Take::Got(id, crossed) = self.st.take_or_swap(n) {
                return Ok(self.taken(id, n, crossed));
            }
            if let Some(e) = lock(&self.st.poison).clone() {
                return Err(e);
            }
            self.shared().kick(&self.st);
            if !waited {
                waited = true;
                self.st.waits.fetch_add(1, Ordering::Relaxed);
            }
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

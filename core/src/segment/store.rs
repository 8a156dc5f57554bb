//! The store trait every backend implements, the range it hands out, and an in-memory store.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::tag::{check_count, TagSpec, TagUpdate};
use crate::store::{validate_tag, StoreFuture};
use crate::{Error, Result};

/// A run of IDs `start..end` (end excluded), never empty.
///
/// ```
/// use idmint_core::segment::IdRange;
/// let r = IdRange::new(1001, 2001)?;
/// assert_eq!((r.len(), r.last()), (1000, 2000));
/// assert_eq!(r.into_iter().take(2).collect::<Vec<_>>(), vec![1001, 1002]);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IdRange {
    /// The first ID.
    pub start: u64,
    /// One past the last ID.
    pub end: u64,
}

impl IdRange {
    /// `start..end`; an empty or reversed range is an error.
    ///
    /// ```
    /// assert!(idmint_core::segment::IdRange::new(5, 5).is_err());
    /// ```
    pub fn new(start: u64, end: u64) -> Result<IdRange> {
        if start >= end {
            return Err(Error::InvalidArgument {
                name: "range".into(),
                value: format!("{start}..{end}"),
                expected: "a non-empty range, start < end".into(),
            });
        }
        Ok(IdRange { start, end })
    }

    /// The range that ends a counter moved from `new_max - count` to `new_max`:
    /// `new_max - count + 1 ..= new_max`. Stores call this with what they read back.
    ///
    /// ```
    /// let r = idmint_core::segment::IdRange::from_new_max(2000, 1000)?;
    /// assert_eq!((r.start, r.end), (1001, 2001));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn from_new_max(new_max: i64, count: u64) -> Result<IdRange> {
        let bad = || Error::InvalidArgument {
            name: "max_id".into(),
            value: new_max.to_string(),
            expected: format!("a counter of at least {count} after growing by {count}"),
        };
        let new_max = u64::try_from(new_max).map_err(|_| bad())?;
        if new_max < count {
            return Err(bad());
        }
        IdRange::new(new_max - count + 1, new_max + 1)
    }

    /// How many IDs the range holds.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::IdRange::new(1, 11)?.len(), 10);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Always false: ranges are never empty (here for clippy's `len_without_is_empty`).
    ///
    /// ```
    /// assert!(!idmint_core::segment::IdRange::new(1, 2)?.is_empty());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.start >= self.end
    }

    /// The last ID of the range.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::IdRange::new(1, 11)?.last(), 10);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn last(&self) -> u64 {
        self.end - 1
    }
}

impl IntoIterator for IdRange {
    type Item = u64;
    type IntoIter = std::ops::Range<u64>;
    fn into_iter(self) -> Self::IntoIter {
        self.start..self.end
    }
}

impl fmt::Display for IdRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.start, self.last())
    }
}

/// What a store holds for a tag.
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentStore, TagSpec};
/// let store = MemoryStore::new();
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// store.create_tag(&TagSpec::new("t")?.step(50)?).await?;
/// let info = store.tag_info("t").await?.unwrap();
/// assert_eq!((info.max_id, info.step), (0, 50));
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagInfo {
    /// The tag.
    pub tag: String,
    /// The last ID handed out to any client (IDs above it were never issued).
    pub max_id: i64,
    /// The tag's step; 0 when the store keeps none (a mapped table without a step column),
    /// and clients then use their default step.
    pub step: u64,
    /// The description.
    pub description: String,
}

/// A shared store of per-tag counters: hands out disjoint ID ranges in one atomic step.
///
/// The contract, which every implementation is tested against with concurrent processes:
/// two calls of [`allocate`](SegmentStore::allocate), from any client anywhere, never return
/// overlapping ranges, and a tag's ranges only go up. Gaps are allowed (a range fetched and
/// never used is simply skipped).
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentStore, TagSpec};
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let store = MemoryStore::new();
/// assert!(store.create_tag(&TagSpec::new("t")?.start(101)?).await?);
/// let a = store.allocate("t", 10).await?;
/// let b = store.allocate("t", 10).await?;
/// assert_eq!((a.start, b.start), (101, 111));
/// assert_eq!(store.allocate("nope", 1).await.unwrap_err().kind(), "unknown_tag");
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
pub trait SegmentStore: Send + Sync + 'static {
    /// The store, for messages and metrics: kind and address, never credentials
    /// (`postgres://127.0.0.1:5432/ids`).
    fn describe(&self) -> String;

    /// Creates a tag if missing; true if this call created it. An existing tag is left as is.
    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool>;

    /// The tag's row, or `None` if the store does not hold it.
    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>>;

    /// Moves the tag's counter up by `count` (1..=2^40) in one atomic step and returns the
    /// `count` IDs above the old value. Errors: [`Error::UnknownTag`], [`Error::TagExhausted`],
    /// [`Error::StoreUnavailable`].
    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange>;

    /// Every tag the store holds, ordered by tag (byte order, whatever the database's
    /// collation). An admin operation: it reads every row (SQL) or scans the prefix's keys
    /// (Redis), so it is not for a hot path.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentStore, TagSpec};
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let store = MemoryStore::new();
    /// store.create_tag(&TagSpec::new("users")?).await?;
    /// store.create_tag(&TagSpec::new("orders")?.step(50)?).await?;
    /// let tags = store.list_tags().await?;
    /// assert_eq!(tags.iter().map(|t| t.tag.as_str()).collect::<Vec<_>>(), ["orders", "users"]);
    /// assert_eq!(tags[0].step, 50);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>>;

    /// Tunes a tag: its step and description, and raises its counter so the next ID handed
    /// out is at least [`next_at_least`](TagUpdate::next_at_least) (never lowers it: that
    /// would reissue IDs). One atomic statement or script where the store allows. Returns the
    /// tag's row after the change.
    ///
    /// Errors: [`Error::UnknownTag`] for a missing tag; [`Error::InvalidArgument`] naming the
    /// column option (`step_column`, `description_column`) when a mapped table has no column
    /// for a field that was asked to change (then nothing changes); [`Error::StoreUnavailable`].
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentStore, TagSpec, TagUpdate};
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let store = MemoryStore::new();
    /// store.create_tag(&TagSpec::new("orders")?).await?;
    /// let up = TagUpdate::new().step(500)?.next_at_least(1_000_001)?;
    /// let info = store.update_tag("orders", &up).await?;
    /// assert_eq!((info.max_id, info.step), (1_000_000, 500));
    /// assert_eq!(store.allocate("orders", 500).await?.start, 1_000_001);
    /// // Lowering is a no-op: the counter stays above everything issued.
    /// let info = store.update_tag("orders", &TagUpdate::new().next_at_least(5)?).await?;
    /// assert_eq!(info.max_id, 1_000_500);
    /// let err = store.update_tag("nope", &up).await.unwrap_err();
    /// assert_eq!(err.kind(), "unknown_tag");
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    fn update_tag<'a>(&'a self, tag: &'a str, update: &'a TagUpdate) -> StoreFuture<'a, TagInfo>;

    /// Gives back the unused tail of `range`, a range this store handed out for `tag`, whose
    /// first unused ID is `next`: sets the tag's counter back to `next - 1` **only if** it still
    /// ends exactly at `range.last()`, that is nobody allocated after this range (one
    /// conditional update, a compare-and-set, atomic in every store). True if the counter was
    /// set back; false if someone allocated meanwhile (or an operator moved the counter), and
    /// then nothing changes and the tail stays a gap. Clients call it as they close
    /// ([`SegmentClient::close`](super::SegmentClient::close)), the later of their two
    /// buffered ranges first.
    ///
    /// `next` is `range.start..=range.end`; `next == range.end` gives nothing back (false,
    /// without a store call). Errors: [`Error::InvalidArgument`] for a `next` outside the
    /// range, [`Error::StoreUnavailable`].
    ///
    /// A store that cannot give back (the default, for stores outside idmint) answers false:
    /// a gap, never a repeat.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentStore, TagSpec};
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let store = MemoryStore::new();
    /// store.create_tag(&TagSpec::new("t")?).await?;
    /// let a = store.allocate("t", 1000).await?; // 1..=1000, of which 1..=10 were used
    /// assert!(store.give_back("t", a, 11).await?);
    /// assert_eq!(store.allocate("t", 1000).await?.start, 11);
    /// // Someone allocated after `b`: its tail is not ours to give back.
    /// let b = store.allocate("t", 1000).await?;
    /// store.allocate("t", 1000).await?;
    /// assert!(!store.give_back("t", b, b.start).await?);
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    fn give_back<'a>(&'a self, tag: &'a str, range: IdRange, next: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            validate_tag(tag)?;
            give_back_to(range, next)?;
            Ok(false)
        })
    }

    /// The largest `count` one [`allocate`](SegmentStore::allocate) takes: 2^40 for a store
    /// that counts itself; an `http(s)://` store answers with its server's `max_count` once it
    /// knows it, and clients keep their ranges within it.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentStore, MAX_STEP};
    /// assert_eq!(MemoryStore::new().max_count(), MAX_STEP);
    /// ```
    fn max_count(&self) -> u64 {
        super::tag::MAX_STEP
    }

    /// Lets go of what the store holds open: a SQL store closes its pool's connections, and
    /// with them a SQLite file, which Windows will not let anyone delete, move or replace while
    /// a process has it open. A client calls it when it closes, on a store it opened from a URL
    /// (one given to the builder may serve others and stays open). Later calls on the store
    /// fail. The default, for a store whose resources go when it is dropped, does nothing.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentStore};
    /// let store = MemoryStore::new();
    /// store.close().await?;
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }
}

/// A tag's state as the stores that keep it whole hold it (in memory; etcd and ZooKeeper encode
/// it, `segment/cas.rs`).
#[derive(Debug, Clone)]
pub(crate) struct TagRow {
    pub(crate) max_id: i64,
    pub(crate) step: u64,
    pub(crate) description: String,
}

/// A store in process memory: for tests, benchmarks and single-process use. It can be switched
/// "down" to exercise the client's fault handling without a server.
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentStore};
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let store = MemoryStore::new();
/// store.set_down(true);
/// assert_eq!(store.tag_info("t").await.unwrap_err().kind(), "store_unavailable");
/// # });
/// ```
#[derive(Debug, Default)]
pub struct MemoryStore {
    rows: Mutex<HashMap<String, TagRow>>,
    down: AtomicBool,
    calls: AtomicU64,
}

impl MemoryStore {
    /// An empty store.
    ///
    /// ```
    /// let _store = idmint_core::segment::MemoryStore::new();
    /// ```
    pub fn new() -> Arc<MemoryStore> {
        Arc::new(MemoryStore::default())
    }

    /// Makes every call fail with [`Error::StoreUnavailable`] (true) or work again (false).
    ///
    /// ```
    /// idmint_core::segment::MemoryStore::new().set_down(false);
    /// ```
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    /// How many `allocate` calls the store has answered (round trips, for benchmarks).
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::MemoryStore::new().allocations(), 0);
    /// ```
    pub fn allocations(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Sets a tag's counter, as an operator (or a store that lost its state) would.
    ///
    /// ```
    /// let s = idmint_core::segment::MemoryStore::new();
    /// s.set_max_id("t", 5); // no such tag: nothing happens
    /// ```
    pub fn set_max_id(&self, tag: &str, max_id: i64) {
        if let Some(row) = self.lock().get_mut(tag) {
            row.max_id = max_id;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TagRow>> {
        // A panic while holding this lock cannot leave a row half-written (each update is one
        // assignment), so a poisoned lock is still consistent.
        self.rows.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn check_up(&self) -> Result<()> {
        if self.down.load(Ordering::SeqCst) {
            Err(Error::StoreUnavailable {
                store: self.describe(),
                reason: "the store is switched down".into(),
            })
        } else {
            Ok(())
        }
    }
}

impl SegmentStore for MemoryStore {
    fn describe(&self) -> String {
        "memory:".into()
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            self.check_up()?;
            let mut rows = self.lock();
            if rows.contains_key(spec.tag()) {
                return Ok(false);
            }
            rows.insert(spec.tag().to_string(), TagRow::new(spec));
            Ok(true)
        })
    }

    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>> {
        Box::pin(async move {
            self.check_up()?;
            validate_tag(tag)?;
            Ok(self.lock().get(tag).map(|r| r.info(tag)))
        })
    }

    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange> {
        Box::pin(async move {
            self.check_up()?;
            validate_tag(tag)?;
            let limit = check_count(count)?;
            self.calls.fetch_add(1, Ordering::Relaxed);
            let mut rows = self.lock();
            let row = rows.get_mut(tag).ok_or_else(|| Error::UnknownTag {
                tag: tag.to_string(),
            })?;
            if row.max_id > limit {
                return Err(exhausted(tag, row.max_id, count));
            }
            row.max_id += count as i64;
            IdRange::from_new_max(row.max_id, count)
        })
    }

    fn give_back<'a>(&'a self, tag: &'a str, range: IdRange, next: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            self.check_up()?;
            validate_tag(tag)?;
            let Some((end, back_to)) = give_back_to(range, next)? else {
                return Ok(false);
            };
            let mut rows = self.lock();
            match rows.get_mut(tag) {
                Some(row) if row.max_id == end => {
                    row.max_id = back_to;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>> {
        Box::pin(async move {
            self.check_up()?;
            let mut tags: Vec<TagInfo> = self.lock().iter().map(|(tag, r)| r.info(tag)).collect();
            tags.sort_by(|a, b| a.tag.cmp(&b.tag));
            Ok(tags)
        })
    }

    fn update_tag<'a>(&'a self, tag: &'a str, update: &'a TagUpdate) -> StoreFuture<'a, TagInfo> {
        Box::pin(async move {
            self.check_up()?;
            validate_tag(tag)?;
            let mut rows = self.lock();
            let row = rows.get_mut(tag).ok_or_else(|| Error::UnknownTag {
                tag: tag.to_string(),
            })?;
            row.apply(update);
            Ok(row.info(tag))
        })
    }
}

impl TagRow {
    /// A new tag's row.
    pub(crate) fn new(spec: &TagSpec) -> TagRow {
        TagRow {
            max_id: spec.first_max_id(),
            step: spec.step_value(),
            description: spec.description_value().to_string(),
        }
    }

    /// `update` applied: a new step or description, the counter raised to `next_at_least - 1`
    /// (never lowered).
    pub(crate) fn apply(&mut self, update: &TagUpdate) {
        if let Some(step) = update.step_value() {
            self.step = step;
        }
        if let Some(d) = update.description_value() {
            self.description = d.to_string();
        }
        if let Some(next) = update.next_at_least_value() {
            // next is 1..=2^63-1, so next - 1 fits.
            self.max_id = self.max_id.max((next - 1) as i64);
        }
    }

    pub(crate) fn info(&self, tag: &str) -> TagInfo {
        TagInfo {
            tag: tag.to_string(),
            max_id: self.max_id,
            step: self.step,
            description: self.description.clone(),
        }
    }
}

/// What giving back `range`'s tail from `next` asks of a counter: `Some((last, next - 1))`, set
/// it to `next - 1` if it is still `last` (the range's last ID); `None` when nothing is left to
/// give back (`next == range.end`). A `next` outside `range.start..=range.end` is refused: it
/// would set the counter below the range (reissuing IDs someone used) or above it.
pub(crate) fn give_back_to(range: IdRange, next: u64) -> Result<Option<(i64, i64)>> {
    if next == 0 || next < range.start || next > range.end || range.end > i64::MAX as u64 + 1 {
        return Err(Error::InvalidArgument {
            name: "next".into(),
            value: next.to_string(),
            expected: format!(
                "the first unused ID of range {range}: {}..={}",
                range.start, range.end
            ),
        });
    }
    if next == range.end {
        return Ok(None);
    }
    // Both fit: range.end <= 2^63, and next >= 1 (stores hand out IDs from 1).
    Ok(Some((range.last() as i64, next as i64 - 1)))
}

pub(crate) fn exhausted(tag: &str, max_id: i64, count: u64) -> Error {
    Error::TagExhausted {
        tag: tag.to_string(),
        max_id,
        count,
        limit: i64::MAX,
    }
}

impl fmt::Debug for dyn SegmentStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SegmentStore")
            .field(&self.describe())
            .finish()
    }
}

//! Segments in etcd (feature `etcd`): one key per tag, advanced by compare-and-swap on its mod
//! revision.
//!
//! # Keys (`B` is `{root}/{prefix}`, by default `/idmint:seg`)
//! - `B/tag/TAG`: `MAX_ID STEP DESCRIPTION` (the description last, so it may hold spaces).
//!
//! Every change reads the key and writes it back in a transaction that holds only if the key's
//! mod revision is still the one read; a client that lost the race reads again. So two clients
//! never get the same range, and etcd's Raft log keeps every `max_id` it acknowledged across a
//! member's crash. Daily counters for order numbers are tags of this store, one per day
//! ([`SegmentDailyCounter`](super::SegmentDailyCounter), by [`open_daily_counter`](super::open_daily_counter)).

use etcd_client::{Compare, CompareOp, KeyValue, Txn, TxnOp};

use super::store::{exhausted, give_back_to, IdRange, SegmentStore, TagInfo};
use super::tag::{check_count, TagSpec, TagUpdate, DEFAULT_PREFIX};
use crate::store::{validate_tag, EtcdLink, StoreFuture, StoreOptions};
use crate::{Error, Result};

/// How many times one call reads again after losing a compare-and-swap before it reports the
/// store as too busy: each loss means another client advanced the tag, so this many in a row
/// takes more clients than a tag ever has.
const TRIES: usize = 1000;

/// A segment store in etcd (feature `etcd`): `etcd://h1:2379,h2:2379[/root]`,
/// `etcds://…?ca=…&cert=…&key=…`, keys under `{root}/{prefix}`, the prefix being the options'
/// or the URL's `?prefix=…`, by default [`DEFAULT_PREFIX`] (`idmint:seg`).
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::segment::{EtcdStore, SegmentStore, TagSpec};
/// let store = EtcdStore::connect("etcd://127.0.0.1:2379/shop", &Default::default()).await?;
/// assert_eq!(store.tag_key("orders"), "/shop/idmint:seg/tag/orders");
/// store.create_tag(&TagSpec::new("orders")?).await?;
/// let range = store.allocate("orders", 1000).await?;
/// assert_eq!(range.len(), 1000);
/// # Ok(()) }
/// ```
pub struct EtcdStore {
    link: EtcdLink,
    base: String,
}

impl std::fmt::Debug for EtcdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStore")
            .field("store", &self.link.describe())
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// What `B/tag/TAG` holds.
struct Row {
    max_id: i64,
    step: u64,
    description: String,
}

impl Row {
    fn encode(&self) -> String {
        format!("{} {} {}", self.max_id, self.step, self.description)
    }

    fn decode(bytes: &[u8]) -> Option<Row> {
        let mut parts = std::str::from_utf8(bytes).ok()?.splitn(3, ' ');
        Some(Row {
            max_id: parts.next()?.parse().ok()?,
            step: parts.next()?.parse().ok()?,
            description: parts.next()?.to_string(),
        })
    }

    fn info(self, tag: &str) -> TagInfo {
        TagInfo {
            tag: tag.to_string(),
            max_id: self.max_id,
            step: self.step,
            description: self.description,
        }
    }
}

impl EtcdStore {
    /// Connects (one client balanced over the URL's members, and one read, so a cluster that
    /// cannot be reached fails here); keys under the options' prefix or [`DEFAULT_PREFIX`].
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{EtcdStore, StoreOptions};
    /// let opts = StoreOptions::default().redis_prefix("app:ids")?;
    /// let store = EtcdStore::connect("etcd://10.0.0.1:2379,10.0.0.2:2379", &opts).await?;
    /// assert_eq!(store.tag_key("t"), "/app:ids/tag/t");
    /// # Ok(()) }
    /// ```
    ///
    /// A URL it cannot use is refused before any connection, without its password:
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::EtcdStore;
    /// let err = EtcdStore::connect("etcd://me:s3cret@db", &Default::default()).await.unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// assert!(!err.to_string().contains("s3cret"), "{err}");
    /// # });
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<EtcdStore> {
        let link = EtcdLink::connect(url).await?;
        let base = link.base(opts.redis_prefix_or(DEFAULT_PREFIX));
        Ok(EtcdStore { link, base })
    }

    /// The key holding `tag`'s row.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::EtcdStore;
    /// let store = EtcdStore::connect("etcd://127.0.0.1:2379", &Default::default()).await?;
    /// assert_eq!(store.tag_key("orders"), "/idmint:seg/tag/orders");
    /// # Ok(()) }
    /// ```
    pub fn tag_key(&self, tag: &str) -> String {
        format!("{}/tag/{tag}", self.base)
    }

    /// The tag's row and its key as read, or `None` when there is no such tag.
    async fn read(&self, tag: &str, what: &str) -> Result<Option<(KeyValue, Row)>> {
        let key = self.tag_key(tag);
        let Some(kv) = self.link.get(&key, what).await? else {
            return Ok(None);
        };
        let row = Row::decode(kv.value()).ok_or_else(|| self.link.garbled(&key))?;
        Ok(Some((kv, row)))
    }

    /// Writes `row` if the key is still at the revision read. False: another client got there
    /// first (read again).
    async fn swap(&self, tag: &str, read: &KeyValue, row: &Row, what: &str) -> Result<bool> {
        let key = self.tag_key(tag);
        let txn = Txn::new()
            .when([Compare::mod_revision(
                key.clone(),
                CompareOp::Equal,
                read.mod_revision(),
            )])
            .and_then([TxnOp::put(key, row.encode(), None)]);
        let resp = self
            .link
            .client()
            .txn(txn)
            .await
            .map_err(|e| self.link.err(what, e))?;
        Ok(resp.succeeded())
    }

    fn too_busy(&self, tag: &str, what: &str) -> Error {
        Error::StoreUnavailable {
            store: self.link.describe().to_string(),
            reason: format!(
                "{what}: tag `{tag}` changed under each of {TRIES} compare-and-swaps in a row"
            ),
        }
    }
}

impl SegmentStore for EtcdStore {
    fn describe(&self) -> String {
        self.link.describe().to_string()
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let key = self.tag_key(spec.tag());
            let row = Row {
                max_id: spec.first_max_id(),
                step: spec.step_value(),
                description: spec.description_value().to_string(),
            };
            let txn = Txn::new()
                .when([Compare::version(key.clone(), CompareOp::Equal, 0)])
                .and_then([TxnOp::put(key, row.encode(), None)]);
            let resp = self
                .link
                .client()
                .txn(txn)
                .await
                .map_err(|e| self.link.err("creating a tag", e))?;
            Ok(resp.succeeded())
        })
    }

    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>> {
        Box::pin(async move {
            validate_tag(tag)?;
            Ok(self
                .read(tag, "reading a tag")
                .await?
                .map(|(_, row)| row.info(tag)))
        })
    }

    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange> {
        Box::pin(async move {
            const WHAT: &str = "allocating";
            validate_tag(tag)?;
            let limit = check_count(count)?;
            for _ in 0..TRIES {
                let (kv, mut row) =
                    self.read(tag, WHAT)
                        .await?
                        .ok_or_else(|| Error::UnknownTag {
                            tag: tag.to_string(),
                        })?;
                if row.max_id > limit {
                    return Err(exhausted(tag, row.max_id, count));
                }
                row.max_id += count as i64;
                if self.swap(tag, &kv, &row, WHAT).await? {
                    return IdRange::from_new_max(row.max_id, count);
                }
            }
            Err(self.too_busy(tag, WHAT))
        })
    }

    fn give_back<'a>(&'a self, tag: &'a str, range: IdRange, next: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            const WHAT: &str = "giving back a range";
            validate_tag(tag)?;
            let Some((end, back_to)) = give_back_to(range, next)? else {
                return Ok(false);
            };
            for _ in 0..TRIES {
                // Only while nobody allocated after the range: its end is still the tag's max.
                let Some((kv, mut row)) = self.read(tag, WHAT).await? else {
                    return Ok(false);
                };
                if row.max_id != end {
                    return Ok(false);
                }
                row.max_id = back_to;
                if self.swap(tag, &kv, &row, WHAT).await? {
                    return Ok(true);
                }
            }
            Err(self.too_busy(tag, WHAT))
        })
    }

    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>> {
        Box::pin(async move {
            const WHAT: &str = "listing tags";
            let prefix = format!("{}/tag/", self.base);
            let mut tags = Vec::new();
            for kv in self.link.scan(&prefix, WHAT).await? {
                let key = String::from_utf8_lossy(kv.key()).into_owned();
                let tag = &key[prefix.len()..];
                let row = Row::decode(kv.value()).ok_or_else(|| self.link.garbled(&key))?;
                tags.push(row.info(tag));
            }
            tags.sort_by(|a, b| a.tag.cmp(&b.tag));
            Ok(tags)
        })
    }

    fn update_tag<'a>(&'a self, tag: &'a str, update: &'a TagUpdate) -> StoreFuture<'a, TagInfo> {
        Box::pin(async move {
            const WHAT: &str = "updating a tag";
            validate_tag(tag)?;
            for _ in 0..TRIES {
                let (kv, mut row) =
                    self.read(tag, WHAT)
                        .await?
                        .ok_or_else(|| Error::UnknownTag {
                            tag: tag.to_string(),
                        })?;
                if let Some(step) = update.step_value() {
                    row.step = step;
                }
                if let Some(d) = update.description_value() {
                    row.description = d.to_string();
                }
                if let Some(next) = update.next_at_least_value() {
                    // next is 1..=2^63-1, so next - 1 fits.
                    row.max_id = row.max_id.max((next - 1) as i64);
                }
                if self.swap(tag, &kv, &row, WHAT).await? {
                    return Ok(row.info(tag));
                }
            }
            Err(self.too_busy(tag, WHAT))
        })
    }
}

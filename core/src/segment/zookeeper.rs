//! Segments in ZooKeeper (feature `zookeeper`): one PERSISTENT node per tag, advanced by
//! `setData` on the node's version.
//!
//! # Nodes (`B` is `{chroot}/{prefix}`, by default `/idmint:seg`)
//! - `B/tag/TAG`: `MAX_ID STEP DESCRIPTION` (the description last, so it may hold spaces).
//!
//! Every change reads the node and writes it back with `setData` expecting the version read;
//! a client that lost the race (`bad version`) reads again. So two clients never get the same
//! range, and ZooKeeper's quorum log keeps every `max_id` it acknowledged across a server's
//! crash. Daily counters for order numbers are tags of this store, one per day
//! ([`SegmentDailyCounter`](super::SegmentDailyCounter), by [`open_daily_counter`](super::open_daily_counter)).

use zookeeper_client::{Acls, CreateMode, Error as ZkError, Stat};

use super::store::{exhausted, give_back_to, IdRange, SegmentStore, TagInfo};
use super::tag::{check_count, TagSpec, TagUpdate, DEFAULT_PREFIX};
use crate::store::{timed_raw, validate_tag, StoreFuture, StoreOptions, ZkLink};
use crate::{Error, Result};

/// How many times one call reads again after losing a compare-and-set before it reports the
/// store as too busy: each loss means another client advanced the tag, so this many in a row
/// takes more clients than a tag ever has.
const TRIES: usize = 1000;

/// A segment store in ZooKeeper (feature `zookeeper`): `zk://h1:2181,h2:2181[/chroot]`, nodes
/// under `{chroot}/{prefix}`, the prefix being the options' or the URL's `?prefix=…`, by
/// default [`DEFAULT_PREFIX`] (`idmint:seg`).
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::segment::{ZkStore, SegmentStore, TagSpec};
/// let store = ZkStore::connect("zk://127.0.0.1:2181/shop", &Default::default()).await?;
/// assert_eq!(store.tag_path("orders"), "/shop/idmint:seg/tag/orders");
/// store.create_tag(&TagSpec::new("orders")?).await?;
/// let range = store.allocate("orders", 1000).await?;
/// assert_eq!(range.len(), 1000);
/// # Ok(()) }
/// ```
pub struct ZkStore {
    link: ZkLink,
    base: String,
}

impl std::fmt::Debug for ZkStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkStore")
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

impl ZkStore {
    /// Connects (a session on the URL's servers, so an ensemble that cannot be reached fails
    /// here); nodes under the options' prefix or [`DEFAULT_PREFIX`].
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{ZkStore, StoreOptions};
    /// let opts = StoreOptions::default().redis_prefix("app:ids")?;
    /// let store = ZkStore::connect("zk://10.0.0.1:2181,10.0.0.2:2181", &opts).await?;
    /// assert_eq!(store.tag_path("t"), "/app:ids/tag/t");
    /// # Ok(()) }
    /// ```
    ///
    /// A URL it cannot use is refused before any connection:
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::ZkStore;
    /// let err = ZkStore::connect("zk://db", &Default::default()).await.unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// # });
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<ZkStore> {
        let link = ZkLink::connect(url).await?;
        if link.target().leaf_name.is_some() {
            return Err(Error::InvalidArgument {
                name: "leaf_name".into(),
                value: link.describe().to_string(),
                expected: "a lease store URL: leaf_name= shares Leaf's snowflake workers, \
                           segments have no Leaf schema in ZooKeeper"
                    .into(),
            });
        }
        let base = link.base(opts.redis_prefix_or(DEFAULT_PREFIX));
        link.mkdir(&format!("{base}/tag"), "creating the tag node")
            .await?;
        Ok(ZkStore { link, base })
    }

    /// The node holding `tag`'s row.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::ZkStore;
    /// let store = ZkStore::connect("zk://127.0.0.1:2181", &Default::default()).await?;
    /// assert_eq!(store.tag_path("orders"), "/idmint:seg/tag/orders");
    /// # Ok(()) }
    /// ```
    pub fn tag_path(&self, tag: &str) -> String {
        format!("{}/tag/{tag}", self.base)
    }

    /// The tag's row and its node's stat as read, or `None` when there is no such tag.
    async fn read(&self, tag: &str, what: &str) -> Result<Option<(Stat, Row)>> {
        let path = self.tag_path(tag);
        let Some((data, stat)) = self.link.get(&path, what).await? else {
            return Ok(None);
        };
        let row = Row::decode(&data).ok_or_else(|| self.link.garbled(&path))?;
        Ok(Some((stat, row)))
    }

    /// Writes `row` if the node is still at the version read. False: another client got there
    /// first (read again).
    async fn swap(&self, tag: &str, read: &Stat, row: &Row, what: &str) -> Result<bool> {
        let client = self.link.client().await?;
        let path = self.tag_path(tag);
        match timed_raw(client.set_data(&path, row.encode().as_bytes(), Some(read.version))).await {
            Ok(_) => Ok(true),
            Err(ZkError::BadVersion) => Ok(false),
            Err(e) => Err(self.link.err(what, e)),
        }
    }

    fn too_busy(&self, tag: &str, what: &str) -> Error {
        Error::StoreUnavailable {
            store: self.link.describe().to_string(),
            reason: format!(
                "{what}: tag `{tag}` changed under each of {TRIES} compare-and-sets in a row"
            ),
        }
    }
}

impl SegmentStore for ZkStore {
    fn describe(&self) -> String {
        self.link.describe().to_string()
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let row = Row {
                max_id: spec.first_max_id(),
                step: spec.step_value(),
                description: spec.description_value().to_string(),
            };
            let client = self.link.client().await?;
            let opts = CreateMode::Persistent.with_acls(Acls::anyone_all());
            let path = self.tag_path(spec.tag());
            match timed_raw(client.create(&path, row.encode().as_bytes(), &opts)).await {
                Ok(_) => Ok(true),
                Err(ZkError::NodeExists) => Ok(false),
                Err(e) => Err(self.link.err("creating a tag", e)),
            }
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
                let (stat, mut row) =
                    self.read(tag, WHAT)
                        .await?
                        .ok_or_else(|| Error::UnknownTag {
                            tag: tag.to_string(),
                        })?;
                if row.max_id > limit {
                    return Err(exhausted(tag, row.max_id, count));
                }
                row.max_id += count as i64;
                if self.swap(tag, &stat, &row, WHAT).await? {
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
                let Some((stat, mut row)) = self.read(tag, WHAT).await? else {
                    return Ok(false);
                };
                if row.max_id != end {
                    return Ok(false);
                }
                row.max_id = back_to;
                if self.swap(tag, &stat, &row, WHAT).await? {
                    return Ok(true);
                }
            }
            Err(self.too_busy(tag, WHAT))
        })
    }

    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>> {
        Box::pin(async move {
            const WHAT: &str = "listing tags";
            let (names, _) = self
                .link
                .children(&format!("{}/tag", self.base), WHAT)
                .await?;
            let mut tags = Vec::new();
            for tag in names {
                // Gone since the listing: deleted by hand.
                if let Some((_, row)) = self.read(&tag, WHAT).await? {
                    tags.push(row.info(&tag));
                }
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
                let (stat, mut row) =
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
                if self.swap(tag, &stat, &row, WHAT).await? {
                    return Ok(row.info(tag));
                }
            }
            Err(self.too_busy(tag, WHAT))
        })
    }
}

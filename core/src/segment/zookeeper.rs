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

use zookeeper_client::{CreateMode, Error as ZkError, Stat};

use super::cas::{self, VersionedRows};
use super::store::{SegmentStore, TagInfo, TagRow};
use super::tag::{TagSpec, DEFAULT_PREFIX};
use crate::store::{timed_raw, StoreFuture, StoreOptions, Use, ZkLink};
use crate::{Error, Result};

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

impl ZkStore {
    /// Connects (a session on the URL's servers, so an ensemble that cannot be reached fails
    /// here); nodes under the options' prefix or [`DEFAULT_PREFIX`].
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{ZkStore, StoreOptions};
    /// let opts = StoreOptions::default().key_prefix("app:ids")?;
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
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for segments, as `open_store` does.
        let (opts, url) = opts.for_url(url, Use::Segments)?;
        let (opts, url) = (&opts, url.as_str());
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
        let base = link.base(opts.key_prefix_or(DEFAULT_PREFIX));
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
}

impl VersionedRows for ZkStore {
    type Version = Stat;

    fn store(&self) -> String {
        self.link.describe().to_string()
    }

    /// The tag's row and its node's stat as read (its version is what a swap compares).
    fn read<'a>(&'a self, tag: &'a str, what: &'a str) -> StoreFuture<'a, Option<(Stat, TagRow)>> {
        Box::pin(async move {
            let path = self.tag_path(tag);
            let Some((data, stat)) = self.link.get(&path, what).await? else {
                return Ok(None);
            };
            let row = TagRow::decode(&data).ok_or_else(|| self.link.garbled(&path))?;
            Ok(Some((stat, row)))
        })
    }

    /// Writes `row` with `setData` expecting the version read; `bad version` is a lost race.
    fn swap<'a>(
        &'a self,
        tag: &'a str,
        read: &'a Stat,
        row: &'a TagRow,
        what: &'a str,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let client = self.link.client().await?;
            let path = self.tag_path(tag);
            match timed_raw(client.set_data(&path, row.encode().as_bytes(), Some(read.version)))
                .await
            {
                Ok(_) => Ok(true),
                Err(ZkError::BadVersion) => Ok(false),
                Err(e) => Err(self.link.err(what, e)),
            }
        })
    }
}

impl SegmentStore for ZkStore {
    cas::versioned_segment_methods!();

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let row = TagRow::new(spec);
            let client = self.link.client().await?;
            let opts = CreateMode::Persistent.with_acls(self.link.acls());
            let path = self.tag_path(spec.tag());
            match timed_raw(client.create(&path, row.encode().as_bytes(), &opts)).await {
                Ok(_) => Ok(true),
                Err(ZkError::NodeExists) => Ok(false),
                Err(e) => Err(self.link.err("creating a tag", e)),
            }
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
}

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

use super::cas::{self, VersionedRows};
use super::store::{SegmentStore, TagInfo, TagRow};
use super::tag::{TagSpec, DEFAULT_PREFIX};
use crate::store::{EtcdLink, StoreFuture, StoreOptions, Use};
use crate::Result;

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

impl EtcdStore {
    /// Connects (one client balanced over the URL's members, and one read, so a cluster that
    /// cannot be reached fails here); keys under the options' prefix or [`DEFAULT_PREFIX`].
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{EtcdStore, StoreOptions};
    /// let opts = StoreOptions::default().key_prefix("app:ids")?;
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
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for segments, as `open_store` does.
        let (opts, url) = opts.for_url(url, Use::Segments)?;
        let (opts, url) = (&opts, url.as_str());
        let link = EtcdLink::connect(url).await?;
        let base = link.base(opts.key_prefix_or(DEFAULT_PREFIX));
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
}

impl VersionedRows for EtcdStore {
    type Version = KeyValue;

    fn store(&self) -> String {
        self.link.describe().to_string()
    }

    /// The tag's row and the key as read (its mod revision is what a swap compares).
    fn read<'a>(
        &'a self,
        tag: &'a str,
        what: &'a str,
    ) -> StoreFuture<'a, Option<(KeyValue, TagRow)>> {
        Box::pin(async move {
            let key = self.tag_key(tag);
            let Some(kv) = self.link.get(&key, what).await? else {
                return Ok(None);
            };
            let row = TagRow::decode(kv.value()).ok_or_else(|| self.link.garbled(&key))?;
            Ok(Some((kv, row)))
        })
    }

    /// Writes `row` if the key is still at the mod revision read.
    fn swap<'a>(
        &'a self,
        tag: &'a str,
        read: &'a KeyValue,
        row: &'a TagRow,
        what: &'a str,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
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
        })
    }
}

impl SegmentStore for EtcdStore {
    cas::versioned_segment_methods!();

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let key = self.tag_key(spec.tag());
            let row = TagRow::new(spec);
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

    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>> {
        Box::pin(async move {
            const WHAT: &str = "listing tags";
            let prefix = format!("{}/tag/", self.base);
            let mut tags = Vec::new();
            for kv in self.link.scan(&prefix, WHAT).await? {
                let key = String::from_utf8_lossy(kv.key()).into_owned();
                let tag = &key[prefix.len()..];
                let row = TagRow::decode(kv.value()).ok_or_else(|| self.link.garbled(&key))?;
                tags.push(row.info(tag));
            }
            tags.sort_by(|a, b| a.tag.cmp(&b.tag));
            Ok(tags)
        })
    }
}

//! `http://` and `https://` segment stores: a running `idmint serve` as the store of segment
//! clients, over the HTTP link ([`crate::store`]'s) and the bodies of [`crate::wire`].
//!
//! One request per store call: `allocate` is one `POST /v1/segment/{tag}/range?count=N`, whose
//! range the server draws from its own store; nothing is kept here between calls but the
//! connection pool, so any number of clients and servers share a store as with any other.

use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::{Method, StatusCode};

use super::store::{IdRange, SegmentStore, TagInfo};
use super::tag::{check_count, TagSpec, TagUpdate, MAX_STEP};
use crate::store::{validate_tag, HttpLink, StoreFuture};
use crate::wire::{CreateTag, RangeOut, TagOut, UpdateTag};
use crate::{Error, Result};

/// A tag path segment: tags are `A-Z a-z 0-9 _ . : -`, all safe in a path, so no escaping.
fn tag_path(tag: &str) -> Result<&str> {
    validate_tag(tag)?;
    Ok(tag)
}

/// An `idmint serve` as a segment store (feature `http`): `allocate` is one
/// `POST /v1/segment/{tag}/range?count=N`; `tag_info` is `GET /v1/segment/{tag}` (scope
/// `mint:segment:TAG`, so a client with only a mint token for its tag works: the server creates
/// an unknown tag if its `segment.auto_create` allows); `create_tag`, `list_tags` and
/// `update_tag` are the admin routes (scope `admin`). Opened by [`open_store`](super::open_store)
/// from an `http(s)://` URL.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use idmint_core::segment::{open_store, StoreOptions};
/// // Nothing connects until the first call; the token is never shown.
/// let store = open_store("http://127.0.0.1:1/?token=s3cret", &StoreOptions::default()).await?;
/// assert_eq!(store.describe(), "http://127.0.0.1:1/");
/// assert!(!format!("{store:?}").contains("s3cret"));
/// let err = store.allocate("orders", 10).await.unwrap_err();
/// assert_eq!(err.kind(), "store_unavailable");
/// assert!(!err.to_string().contains("s3cret"));
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug)]
pub struct HttpStore {
    link: HttpLink,
    /// The server's `max_count`, learned from `GET /v1/segment/{tag}` (until then: no bound).
    max_count: AtomicU64,
}

impl HttpStore {
    /// A store over the server at `url` (`http[s]://host:port[/prefix]`, `?token=`, `?ca=`).
    /// Nothing is sent until the first call.
    ///
    /// ```
    /// let err = idmint_core::segment::HttpStore::open("http://h:1?table=x").unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// ```
    pub fn open(url: &str) -> Result<HttpStore> {
        Ok(HttpStore {
            link: HttpLink::open(url)?,
            max_count: AtomicU64::new(MAX_STEP),
        })
    }
}

impl SegmentStore for HttpStore {
    fn describe(&self) -> String {
        self.link.describe().to_string()
    }

    fn max_count(&self) -> u64 {
        self.max_count.load(Ordering::Relaxed)
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let body = CreateTag::of(spec);
            match self
                .link
                .call::<TagOut>(Method::POST, "/v1/admin/tags", Some(&body))
                .await?
            {
                Ok((status, _)) => Ok(status == StatusCode::CREATED),
                Err(r) => Err(self.link.refused(r, Some(spec.tag()))),
            }
        })
    }

    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>> {
        Box::pin(async move {
            let path = format!("/v1/segment/{}", tag_path(tag)?);
            match self.link.call::<TagOut>(Method::GET, &path, None).await? {
                Ok((_, out)) => {
                    if let Some(n) = out.max_count.filter(|n| *n >= 1) {
                        self.max_count.store(n.min(MAX_STEP), Ordering::Relaxed);
                    }
                    out.info().map(Some)
                }
                Err(r) if r.kind == "unknown_tag" => Ok(None),
                Err(r) => Err(self.link.refused(r, Some(tag))),
            }
        })
    }

    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange> {
        Box::pin(async move {
            check_count(count)?;
            let path = format!("/v1/segment/{}/range?count={count}", tag_path(tag)?);
            match self
                .link
                .call::<RangeOut>(Method::POST, &path, None)
                .await?
            {
                Ok((_, out)) => {
                    let range = out.ids()?;
                    if range.len() != count || out.tag != tag {
                        return Err(Error::StoreUnavailable {
                            store: self.describe(),
                            reason: format!(
                                "asked {count} IDs of tag `{tag}`, got {} of `{}`",
                                range.len(),
                                crate::error::escaped(&out.tag)
                            ),
                        });
                    }
                    Ok(range)
                }
                Err(r) => Err(self.link.refused(r, Some(tag))),
            }
        })
    }

    /// Gives nothing back (false, without a request): the ranges an `http(s)://` store
    /// receives are runs of the server's own buffered range, so the store's counter never ends
    /// at them, and the server cannot tell that a caller received the run it names (a mint
    /// token holder could name another client's run and have it reissued). The server gives
    /// back its own ranges' tails when it stops (SIGTERM); a client's unused run is a gap.
    fn give_back<'a>(&'a self, tag: &'a str, range: IdRange, next: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            validate_tag(tag)?;
            super::store::give_back_to(range, next)?;
            Ok(false)
        })
    }

    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>> {
        Box::pin(async move {
            match self
                .link
                .call::<Vec<TagOut>>(Method::GET, "/v1/admin/tags", None)
                .await?
            {
                Ok((_, tags)) => tags.iter().map(TagOut::info).collect(),
                Err(r) => Err(self.link.refused(r, None)),
            }
        })
    }

    fn update_tag<'a>(&'a self, tag: &'a str, update: &'a TagUpdate) -> StoreFuture<'a, TagInfo> {
        Box::pin(async move {
            let path = format!("/v1/admin/tags/{}", tag_path(tag)?);
            let body = UpdateTag::of(update);
            match self
                .link
                .call::<TagOut>(Method::PATCH, &path, Some(&body))
                .await?
            {
                Ok((_, out)) => out.info(),
                Err(r) => Err(self.link.refused(r, Some(tag))),
            }
        })
    }
}

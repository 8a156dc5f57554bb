//! Leases from an `idmint serve` (`http(s)://` URLs): the server's `/v1/leases` routes, which
//! hold the values in the server's own store with [`ClientLeases`](super::ClientLeases)' rules.

use reqwest::Method;

use super::store::{Grant, LeaseInfo, LeaseRequest, LeaseStore};
use crate::store::{HttpLink, StoreFuture};
use crate::wire::{AcquireBody, LeaseOut, LeaseRow, ReleaseBody, Released, RenewBody};
use crate::{Error, Result};

/// An `idmint serve` as a lease store (feature `http`), for generators built with
/// [`LeaseOptions::url`](super::LeaseOptions::url) on an `http(s)://` URL. Stateless: each
/// method is one request, and the request's own random token is sent with the lease (the
/// server checks it, [`check_token`](super::check_token)), so only this holder can renew or
/// release it. The server's rules apply: the range must fit the server's layout, the TTL its
/// `[leases]` bounds, and the freeze period is the TTL. The fence the server returns is the
/// value's, as from any store. Scope `lease`; [`list`](LeaseStore::list) needs `admin`.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// use std::time::Duration;
/// use idmint_core::lease::{open_lease_store, LeaseRequest};
/// let store = open_lease_store("http://127.0.0.1:1?token=s3cret").await?;
/// assert_eq!(store.describe(), "http://127.0.0.1:1");
/// let req = LeaseRequest::new(0, 7, "job", Duration::from_secs(10), Duration::from_secs(10))?;
/// let err = store.acquire(&req).await.unwrap_err();
/// assert_eq!(err.kind(), "store_unavailable");
/// assert!(!err.to_string().contains("s3cret"));
/// # Ok::<(), idmint_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug)]
pub struct HttpLeaseStore {
    link: HttpLink,
}

impl HttpLeaseStore {
    /// A lease store over the server at `url` (`http[s]://host:port[/prefix]`, `?token=`,
    /// `?ca=`). Nothing is sent until the first call.
    ///
    /// ```
    /// let err = idmint_core::lease::HttpLeaseStore::open("https://h:1?prefix=x").unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// ```
    pub fn open(url: &str) -> Result<HttpLeaseStore> {
        Ok(HttpLeaseStore {
            link: HttpLink::open(url)?,
        })
    }

    fn lost(&self, value: u64, message: String) -> Error {
        Error::LeaseLost {
            value,
            store: self.link.describe().to_string(),
            reason: message,
        }
    }
}

impl LeaseStore for HttpLeaseStore {
    fn describe(&self) -> String {
        self.link.describe().to_string()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            let body = AcquireBody {
                first: Some(req.first),
                last: Some(req.last),
                ttl_ms: Some(req.ttl_ms),
                holder: Some(req.holder.clone()),
                token: Some(req.token.clone()),
                prefer: req.prefer,
            };
            match self
                .link
                .call::<LeaseOut>(Method::POST, "/v1/leases", Some(&body))
                .await?
            {
                Ok((_, out)) if out.token == req.token => Ok(Some(Grant {
                    value: out.value,
                    fence_ms: out.fence_ms,
                })),
                Ok(_) => Err(Error::StoreUnavailable {
                    store: self.describe(),
                    reason: "the server leased a value under another token than the one sent"
                        .into(),
                }),
                Err(r) if r.kind == "no_free_lease" => Ok(None),
                Err(r) => Err(self.link.refused(r, None)),
            }
        })
    }

    fn renew<'a>(
        &'a self,
        value: u64,
        token: &'a str,
        ttl_ms: u64,
        _freeze_ms: u64,
        fence_ms: u64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let body = RenewBody {
                token: token.to_string(),
                fence_ms,
                ttl_ms: Some(ttl_ms),
            };
            let path = format!("/v1/leases/{value}/renew");
            match self
                .link
                .call::<LeaseOut>(Method::POST, &path, Some(&body))
                .await?
            {
                Ok(_) => Ok(true),
                Err(r) if r.kind == "lease_lost" => Ok(false),
                Err(r) => Err(self.link.refused(r, None)),
            }
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let body = ReleaseBody {
                token: token.to_string(),
                fence_ms,
            };
            let path = format!("/v1/leases/{value}/release");
            match self
                .link
                .call::<Released>(Method::POST, &path, Some(&body))
                .await?
            {
                Ok((_, r)) if r.released => Ok(true),
                Ok(_) => Err(self.lost(value, "the server did not release it".into())),
                Err(r) if r.kind == "lease_lost" => Ok(false),
                Err(r) => Err(self.link.refused(r, None)),
            }
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(async move {
            match self
                .link
                .call::<Vec<LeaseRow>>(Method::GET, "/v1/admin/leases", None)
                .await?
            {
                Ok((_, rows)) => Ok(rows.iter().map(LeaseRow::info).collect()),
                Err(r) => Err(self.link.refused(r, None)),
            }
        })
    }
}

//! `http://` and `https://` stores: a running `idmint serve` as the store of segment clients
//! ([`HttpStore`]) and of leased generators ([`HttpLeaseStore`](crate::lease::HttpLeaseStore)),
//! over its `/v1` JSON API and the bodies of [`crate::wire`], so a service that must not hold
//! database credentials (or has no driver) still gets the double-buffered client and a fenced
//! node value.
//!
//! One request per store call: `allocate` is one `POST /v1/segment/{tag}/range?count=N`, whose
//! range the server draws from its own store; nothing is kept here between calls but the
//! connection pool, so any number of clients and servers share a store as with any other.
//!
//! URL: `http[s]://host:port[/prefix]?token=TOKEN&ca=CA.pem`. The bearer token comes from
//! `?token=` or, without one, the variable [`TOKEN_VAR`]; it is sent as
//! `Authorization: Bearer`, and never shown: not by [`describe`](SegmentStore::describe), not in
//! `Debug` output or error messages. `ca=` (https only) is a PEM file of the CA to trust instead
//! of the system's roots.
//!
//! Errors: no answer, a 5xx or a 429 is [`Error::StoreUnavailable`] (clients serve what they
//! buffered, retry with backoff and recover once the server answers); 401 and 403 are
//! [`Error::NotAuthorized`], which no client retries in a loop; any other refusal is the core
//! error the server named in its body (`unknown_tag`, `tag_exhausted`, …).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;

use super::describe_url;
use super::store::{IdRange, SegmentStore, StoreFuture, TagInfo};
use super::tag::{check_count, validate_tag, TagSpec, TagUpdate, MAX_STEP};
use crate::wire::{CreateTag, ErrorBody, RangeOut, TagOut, UpdateTag};
use crate::{Error, Result};

/// The environment variable an `http(s)://` store URL without `?token=` takes its bearer token
/// from (unset: no token, for a server without `[[tokens]]`).
pub const TOKEN_VAR: &str = "IDMINT_STORE_TOKEN";

/// The longest a store call may take in all; the clients bound each call tighter (their
/// `op_timeout`), this only keeps a request of a caller without a bound from hanging.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest a connection may take to open (TCP and TLS).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// What an `http(s)://` URL says, before anything connects: pure, so it is fuzzed.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct HttpTarget {
    /// `scheme://host:port[/prefix]`, no trailing slash, no query.
    pub(crate) base: String,
    pub(crate) token: Option<String>,
    pub(crate) ca: Option<String>,
}

impl std::fmt::Debug for HttpTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTarget")
            .field("base", &self.base)
            .field("token", &self.token.as_ref().map(|_| "<hidden>"))
            .field("ca", &self.ca)
            .finish()
    }
}

impl HttpTarget {
    /// Reads `url` (`?token=` beats [`TOKEN_VAR`], which `env_token` stands for).
    pub(crate) fn parse(url: &str, env_token: Option<String>) -> Result<HttpTarget> {
        let shown = describe_url(url);
        let bad = |expected: &str| Error::InvalidArgument {
            name: "store".into(),
            value: shown.clone(),
            expected: expected.into(),
        };
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let (scheme, rest) = base
            .split_once("://")
            .ok_or_else(|| bad("an http:// or https:// URL"))?;
        let https = match scheme.to_ascii_lowercase().as_str() {
            "http" => false,
            "https" => true,
            _ => return Err(bad("an http:// or https:// URL")),
        };
        if rest.contains('@') {
            return Err(bad(
                "no user or password in the URL: give the bearer token as ?token= or IDMINT_STORE_TOKEN",
            ));
        }
        let host = rest.split('/').next().unwrap_or("");
        if host.is_empty() || rest.contains('#') {
            return Err(bad("http[s]://HOST[:PORT][/PREFIX], without a #fragment"));
        }
        let mut token = None;
        let mut ca = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "token" => token = Some(v.to_string()),
                "ca" if https => ca = Some(v.to_string()),
                "ca" => return Err(bad("ca= only with https://")),
                _ => {
                    return Err(Error::InvalidArgument {
                        name: "store".into(),
                        value: format!("{shown} with parameter `{}`", crate::error::escaped(k)),
                        expected: "an http(s):// store takes token= and ca= (https) only".into(),
                    })
                }
            }
        }
        let token = token.or(env_token).filter(|t| !t.is_empty());
        if let Some(t) = &token {
            // A header value: visible ASCII only. The message tells the length, never the token.
            if !t.bytes().all(|b| b.is_ascii_graphic()) || t.len() > 4096 {
                return Err(Error::InvalidArgument {
                    name: "token".into(),
                    value: format!("a token of {} bytes (not shown)", t.len()),
                    expected: "1 to 4096 visible ASCII characters".into(),
                });
            }
        }
        if ca.as_deref() == Some("") {
            return Err(bad("ca=PATH, a PEM file"));
        }
        Ok(HttpTarget {
            base: format!(
                "{}://{}",
                scheme.to_ascii_lowercase(),
                rest.trim_end_matches('/')
            ),
            token,
            ca,
        })
    }
}

/// A connection pool to one `idmint serve` and the bearer token: what the segment and lease
/// stores over HTTP share.
#[derive(Clone)]
pub(crate) struct HttpLink {
    base: String,
    describe: String,
    auth: Option<reqwest::header::HeaderValue>,
    client: reqwest::Client,
}

impl std::fmt::Debug for HttpLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpLink")
            .field("store", &self.describe)
            .finish_non_exhaustive()
    }
}

/// A refusal the server explained: its status, kind and message.
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    pub(crate) kind: String,
    pub(crate) message: String,
}

impl HttpLink {
    /// Reads the URL and builds the client (no request yet: a server that is down now is
    /// `store_unavailable` at the first call, which clients retry).
    pub(crate) fn open(url: &str) -> Result<HttpLink> {
        let target = HttpTarget::parse(url, std::env::var(TOKEN_VAR).ok())?;
        let describe = describe_url(url);
        let unusable = |what: String| Error::InvalidArgument {
            name: "store".into(),
            value: describe.clone(),
            expected: what,
        };
        let mut builder = reqwest::Client::builder()
            .use_rustls_tls()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .pool_idle_timeout(Duration::from_secs(30));
        if let Some(ca) = &target.ca {
            let pem = std::fs::read(ca)
                .map_err(|e| unusable(format!("ca={ca}: a readable PEM file ({e})")))?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem)
                .map_err(|e| unusable(format!("ca={ca}: PEM certificates ({e})")))?;
            if certs.is_empty() {
                return Err(unusable(format!("ca={ca}: at least one PEM certificate")));
            }
            builder = builder.tls_built_in_root_certs(false);
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        let client = builder
            .build()
            .map_err(|e| unusable(format!("a client this system can build ({e})")))?;
        let auth = match &target.token {
            Some(t) => {
                let mut v = reqwest::header::HeaderValue::from_str(&format!("Bearer {t}"))
                    .map_err(|_| unusable("a token of visible ASCII characters".into()))?;
                v.set_sensitive(true);
                Some(v)
            }
            None => None,
        };
        Ok(HttpLink {
            base: target.base,
            describe,
            auth,
            client,
        })
    }

    /// The store as messages show it: `http://host:port`, no token.
    pub(crate) fn describe(&self) -> &str {
        &self.describe
    }

    /// One request: the answer's body on a 2xx, the server's refusal on a 4xx it explained;
    /// `store_unavailable` when nothing (or a 5xx, 429, or an unreadable body) came back and
    /// `not_authorized` on 401 and 403.
    pub(crate) async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&(dyn erased::Body + Sync)>,
    ) -> Result<std::result::Result<(StatusCode, T), Refusal>> {
        let mut req = self
            .client
            .request(method, format!("{}{path}", self.base))
            .header(reqwest::header::ACCEPT, "application/json");
        if let Some(auth) = &self.auth {
            req = req.header(reqwest::header::AUTHORIZATION, auth.clone());
        }
        if let Some(b) = body {
            req = req
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(b.json());
        }
        let resp = req.send().await.map_err(|e| self.down(&e))?;
        let status = resp.status();
        let bytes = resp.bytes().await.map_err(|e| self.down(&e))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes)
                .map(|v| Ok((status, v)))
                .map_err(|e| {
                    self.unavailable(format!(
                        "HTTP {status} with a body that is not the API's ({e})"
                    ))
                });
        }
        let (kind, message) = match serde_json::from_slice::<ErrorBody>(&bytes) {
            Ok(b) => (b.error.kind, b.error.message),
            Err(_) => (
                String::new(),
                format!("HTTP {status} without the API's error body: is this an idmint serve?"),
            ),
        };
        match status.as_u16() {
            401 | 403 => Err(Error::NotAuthorized {
                store: self.describe.clone(),
                status: status.as_u16().into(),
                reason: message,
            }),
            429 | 500..=599 => Err(self.unavailable(format!("HTTP {status} {kind}: {message}"))),
            _ => Ok(Err(Refusal {
                status,
                kind,
                message,
            })),
        }
    }

    fn unavailable(&self, reason: String) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason,
        }
    }

    /// A request that got no answer: the error and its causes, without the URL (which holds
    /// no token, but the store is named already).
    fn down(&self, e: &reqwest::Error) -> Error {
        use std::error::Error as _;
        let mut reason = if e.is_timeout() {
            "no answer in time".to_string()
        } else if e.is_connect() {
            "cannot connect".to_string()
        } else {
            "the request failed".to_string()
        };
        let mut source = e.source();
        while let Some(s) = source {
            reason.push_str(": ");
            reason.push_str(&s.to_string());
            source = s.source();
        }
        self.unavailable(reason)
    }

    /// A refusal as the core error the server named; kinds that need context (`unknown_tag`,
    /// `lease_lost`, …) are turned back by the caller, which knows it.
    pub(crate) fn refused(&self, r: Refusal, tag: Option<&str>) -> Error {
        let tag = tag.unwrap_or_default().to_string();
        match r.kind.as_str() {
            "unknown_tag" => Error::UnknownTag { tag },
            "invalid_tag" => Error::InvalidTag {
                tag,
                reason: r.message,
            },
            "tag_exhausted" => Error::TagExhausted {
                tag,
                max_id: number_after(&r.message, "max_id ").unwrap_or(-1),
                count: number_after(&r.message, "+ ").unwrap_or(0) as u64,
                limit: i64::MAX,
            },
            _ => Error::InvalidArgument {
                name: "request".into(),
                value: format!(
                    "{} answered HTTP {} {}",
                    self.describe,
                    r.status.as_u16(),
                    r.kind
                ),
                expected: r.message,
            },
        }
    }
}

/// The number that follows `after` in `text` (core's messages name their numbers).
fn number_after(text: &str, after: &str) -> Option<i64> {
    let rest = &text[text.find(after)? + after.len()..];
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// JSON request bodies behind one object-safe trait, so `call` is not generic over them.
pub(crate) mod erased {
    /// A body `call` can send.
    pub(crate) trait Body {
        fn json(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Body for T {
        fn json(&self) -> Vec<u8> {
            // The wire types are plain structs of strings and numbers: they always serialize.
            serde_json::to_vec(self).unwrap_or_default()
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = HttpTarget::parse("https://ids:8443/api/?token=abc&ca=/x.pem", None).unwrap();
        assert_eq!(t.base, "https://ids:8443/api");
        assert_eq!(
            (t.token.as_deref(), t.ca.as_deref()),
            (Some("abc"), Some("/x.pem"))
        );
        assert!(!format!("{t:?}").contains("abc"));
        // The URL's token beats the variable's; the variable serves when the URL has none.
        let t = HttpTarget::parse("http://h:1?token=url", Some("env".into())).unwrap();
        assert_eq!(t.token.as_deref(), Some("url"));
        let t = HttpTarget::parse("http://h:1", Some("env".into())).unwrap();
        assert_eq!(t.token.as_deref(), Some("env"));
        for bad in [
            "http://h:1?ca=/x.pem",
            "http://u:secret@h:1",
            "http://h:1?table=x",
            "ftp://h:1",
            "http://",
            "http://h:1?token=a%20b c",
            "https://h:1?ca=",
        ] {
            let e = HttpTarget::parse(bad, None).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument", "{bad}");
            assert!(!e.to_string().contains("secret"), "{e}");
        }
        let e = HttpTarget::parse("http://h:1?token=bad\ttoken", None).unwrap_err();
        assert!(!e.to_string().contains("bad\ttoken") && !e.to_string().contains("bad\\ttoken"));
    }

    #[test]
    fn numbers_in_messages() {
        let m = "segment tag `t` is exhausted: max_id 9223372036854775000 + 1000 would pass 9223372036854775807";
        assert_eq!(number_after(m, "max_id "), Some(9223372036854775000));
        assert_eq!(number_after(m, "+ "), Some(1000));
        assert_eq!(number_after(m, "nope"), None);
    }
}

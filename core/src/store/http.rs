//! The HTTP link: how the `http://` and `https://` stores reach a running `idmint serve` (the
//! segment store [`HttpStore`](crate::segment::HttpStore) and the lease store
//! [`HttpLeaseStore`](crate::lease::HttpLeaseStore)), over its `/v1` JSON API and the bodies
//! of [`crate::wire`], so a service that must not hold database credentials (or has no driver)
//! still gets the double-buffered client and a fenced node value.
//!
//! URL: `http[s]://host:port[/prefix]?token=TOKEN&ca=CA.pem`. The bearer token comes from
//! `?token=` or, without one, the variable [`TOKEN_VAR`]; it is sent as
//! `Authorization: Bearer`, and never shown: not by a store's `describe`, not in `Debug`
//! output or error messages. `ca=` (https only) is a PEM file of the CA to trust instead of
//! the system's roots.
//!
//! Errors, decided by the kind of the server's error body and core's table of kinds
//! ([`ErrorKind::wire`]), never by its message: no answer, or a kind worth retrying
//! (`store_unavailable`, `rate_limited`, `shutting_down`, …; for an answer without the API's
//! body, a 5xx or a 429) is [`Error::StoreUnavailable`] (clients serve what they buffered,
//! retry with backoff and recover once the server answers); `unauthorized` and `forbidden`
//! (401, 403) are [`Error::NotAuthorized`], which no client retries in a loop; any other
//! refusal is the core error the server reported, rebuilt from the body's fields
//! (`unknown_tag`, `tag_exhausted` with its numbers, …).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;

use super::url::describe_url;
use crate::wire::ErrorBody;
use crate::{Error, ErrorKind, Result};

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

/// A refusal the server explained: its status, kind and message, and the core error it
/// carries (rebuilt from the body's fields; none from a server that sent none).
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    pub(crate) kind: String,
    pub(crate) message: String,
    // boxed: the refusal travels in the Err of every call's result, which clippy (and the
    // stack) want small
    pub(crate) error: Option<Box<Error>>,
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
        let body = serde_json::from_slice::<ErrorBody>(&bytes).ok();
        let (kind, message) = match &body {
            Some(b) => (b.error.kind.clone(), b.error.message.clone()),
            None => (
                String::new(),
                format!("HTTP {status} without the API's error body: is this an idmint serve?"),
            ),
        };
        // The kind's entry of core's table decides; only an answer without the API's body (a
        // proxy's page) is judged by its status alone.
        let (code, retryable) = match ErrorKind::wire(&kind) {
            Some(entry) => (entry.status, entry.retryable()),
            None => (status.as_u16(), matches!(status.as_u16(), 429 | 500..=599)),
        };
        match code {
            401 | 403 => Err(super::failure::of(
                &self.describe,
                Some(code.into()),
                message,
            )),
            _ if retryable => Err(self.unavailable(format!("HTTP {status} {kind}: {message}"))),
            _ => Ok(Err(Refusal {
                status,
                kind,
                message,
                error: body.and_then(|b| b.error()).map(Box::new),
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

    /// A refusal as the core error the server reported, rebuilt from its body's fields. From
    /// a server that sent no fields, the kinds whose fields the caller knows (`unknown_tag`,
    /// `invalid_tag` of `tag`) are rebuilt with them; any other refusal is `invalid_argument`
    /// naming the server's kind and message (never read for numbers).
    pub(crate) fn refused(&self, r: Refusal, tag: Option<&str>) -> Error {
        if let Some(err) = r.error {
            return *err;
        }
        let tag = tag.unwrap_or_default().to_string();
        match r.kind.as_str() {
            "unknown_tag" => Error::UnknownTag { tag },
            "invalid_tag" => Error::InvalidTag {
                tag,
                reason: r.message,
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
}

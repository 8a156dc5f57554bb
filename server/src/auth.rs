//! Bearer tokens: kept as SHA-256 hashes in the configuration, compared in constant time,
//! scoped by operation and kind/tag, rate-limited per token, replaced on SIGHUP.
//!
//! Scopes: `mint` (every kind), `mint:KIND` (`segment`, `snowflake`, `objectid`, `uuid7`,
//! `orders`), `mint:segment:TAG`, `mint:orders:NAME`, `lease` (lease, renew, release node
//! values), `admin` (tags). Any valid token may `parse`. With no token configured the API is
//! open (the configuration allows that only on loopback or with `allow_anonymous`).

use std::num::NonZeroU32;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

/// `[[tokens]]`: one bearer token, by its SHA-256.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    /// A name for logs and metrics (never the token).
    pub name: String,
    /// Hex SHA-256 of the token (`printf %s TOKEN | sha256sum`).
    pub sha256: String,
    /// What it may do: `mint`, `mint:KIND`, `mint:segment:TAG`, `mint:orders:NAME`, `lease`,
    /// `admin` (docs/server.md).
    pub scopes: Vec<String>,
    /// Requests per second this token may make (0: no limit).
    #[serde(default)]
    pub rate_per_sec: u32,
}

/// The kinds a `mint:KIND` scope may name.
pub const KINDS: &[&str] = &["segment", "snowflake", "objectid", "uuid7", "orders"];

/// What a request needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need<'a> {
    /// Mint IDs of `kind`; `name` is the tag or template (empty for kinds without one).
    Mint {
        /// `segment`, `snowflake`, …
        kind: &'a str,
        /// The tag or template name.
        name: &'a str,
    },
    /// Lease, renew or release node values.
    Lease,
    /// Create, list and tune tags; list leases.
    Admin,
    /// Parse IDs: any valid token.
    Read,
}

impl<'a> Need<'a> {
    /// [`Need::Mint`] of `kind`, for tag or template `name` (`""` for kinds without one).
    ///
    /// ```
    /// use idmint_server::auth::Need;
    /// assert_eq!(Need::mint("segment", "orders"), Need::Mint { kind: "segment", name: "orders" });
    /// ```
    pub const fn mint(kind: &'a str, name: &'a str) -> Need<'a> {
        Need::Mint { kind, name }
    }
}

impl std::fmt::Display for Need<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Need::Mint { kind, name: "" } => write!(f, "mint:{kind}"),
            Need::Mint { kind, name } => write!(f, "mint:{kind}:{name}"),
            Need::Lease => f.write_str("lease"),
            Need::Admin => f.write_str("admin"),
            Need::Read => f.write_str("any scope"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Scope {
    Mint {
        kind: Option<String>,
        name: Option<String>,
    },
    Lease,
    Admin,
}

impl Scope {
    fn parse(text: &str) -> Result<Scope, String> {
        let mut parts = text.splitn(3, ':');
        let scope = match (parts.next(), parts.next(), parts.next()) {
            (Some("mint"), None, _) => Scope::Mint {
                kind: None,
                name: None,
            },
            (Some("mint"), Some(kind), name) if KINDS.contains(&kind) => {
                if let Some(n) = name {
                    if !matches!(kind, "segment" | "orders") {
                        return Err(format!("scope `{text}`: only segment and orders scopes name a tag or template"));
                    }
                    idmint_core::segment::validate_tag(n).map_err(|e| format!("scope `{text}`: {e}"))?;
                }
                Scope::Mint {
                    kind: Some(kind.into()),
                    name: name.map(str::to_string),
                }
            }
            (Some("lease"), None, _) => Scope::Lease,
            (Some("admin"), None, _) => Scope::Admin,
            _ => {
                return Err(format!(
                    "scope `{text}`: valid scopes are mint, mint:KIND (KIND one of {}), mint:segment:TAG, mint:orders:NAME, lease, admin",
                    KINDS.join(", ")
                ))
            }
        };
        Ok(scope)
    }

    fn allows(&self, need: &Need<'_>) -> bool {
        match (self, need) {
            (_, Need::Read) => true,
            (Scope::Mint { kind, name }, Need::Mint { kind: k, name: n }) => {
                kind.as_deref().map_or(true, |x| x == *k)
                    && name.as_deref().map_or(true, |x| x == *n)
            }
            (Scope::Lease, Need::Lease) | (Scope::Admin, Need::Admin) => true,
            _ => false,
        }
    }
}

/// Checks one `[[tokens]]` entry (the configuration's check calls it).
///
/// ```
/// use idmint_server::config::TokenConfig;
/// let t = TokenConfig { name: "web".into(), sha256: "00".repeat(32), scopes: vec!["mint:segment:orders".into()], rate_per_sec: 0 };
/// assert!(idmint_server::auth::check_token_config(&t).is_ok());
/// let t = TokenConfig { scopes: vec!["mint:segments".into()], ..t };
/// assert!(idmint_server::auth::check_token_config(&t).unwrap_err().contains("valid scopes are"));
/// ```
pub fn check_token_config(t: &TokenConfig) -> Result<(), String> {
    digest_of(&t.sha256)?;
    if t.name.is_empty() || t.name.len() > 64 {
        return Err("name: 1 to 64 characters".into());
    }
    if t.scopes.is_empty() {
        return Err("scopes: at least one".into());
    }
    for s in &t.scopes {
        Scope::parse(s)?;
    }
    Ok(())
}

fn digest_of(hex_text: &str) -> Result<[u8; 32], String> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(hex_text.trim(), &mut out).map_err(|_| {
        "sha256: 64 hex digits, the SHA-256 of the token (printf %s TOKEN | sha256sum)".to_string()
    })?;
    Ok(out)
}

struct Token {
    name: Arc<str>,
    digest: [u8; 32],
    scopes: Vec<Scope>,
    limiter: Option<DefaultDirectRateLimiter>,
}

/// Who made a request: a token, or no one when the API is open. Shares the token's name, so
/// authorizing allocates nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller(Option<Arc<str>>);

impl Caller {
    /// The token's configured name, or `anonymous` when the API is open.
    ///
    /// ```
    /// let auth = idmint_server::auth::Auth::new(&[])?;
    /// let caller = auth.check_token(None, idmint_server::auth::Need::Lease)?;
    /// assert_eq!(caller.name(), "anonymous");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn name(&self) -> &str {
        self.0.as_deref().unwrap_or("anonymous")
    }
}

/// A request's `Authorization` header, as an extractor: the one header value (a reference to
/// the bytes hyper read, not a copy of the header map), read by [`Auth::check`].
#[derive(Debug, Clone, Default)]
pub struct Bearer(Option<HeaderValue>);

impl Bearer {
    /// The `Authorization` header of `headers`.
    ///
    /// ```
    /// use axum::http::{header, HeaderMap};
    /// let mut h = HeaderMap::new();
    /// h.insert(header::AUTHORIZATION, "bearer  s3cret ".parse()?);
    /// assert_eq!(idmint_server::auth::Bearer::of(&h).token(), Some("s3cret"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(headers: &HeaderMap) -> Bearer {
        Bearer(headers.get(header::AUTHORIZATION).cloned())
    }

    /// The token presented: the header's value after `Bearer ` (the scheme's name is
    /// case-insensitive, RFC 7235), trimmed; `None` without one.
    pub fn token(&self) -> Option<&str> {
        token_of(self.0.as_ref()?.to_str().ok()?)
    }
}

/// The token of an `Authorization` value (HTTP's header, gRPC's metadata): what follows a
/// `Bearer ` of any case, trimmed.
///
/// ```
/// assert_eq!(idmint_server::auth::token_of("BEARER abc"), Some("abc"));
/// assert_eq!(idmint_server::auth::token_of("Basic abc"), None);
/// ```
pub fn token_of(value: &str) -> Option<&str> {
    value
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("bearer "))
        .map(|_| value[7..].trim())
}

impl<S: Send + Sync> FromRequestParts<S> for Bearer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Bearer::of(&parts.headers))
    }
}

/// The tokens in force. Replaced whole on SIGHUP ([`crate::Server::reload`]).
pub struct Auth {
    tokens: Vec<Token>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: a digest is not a secret, but there is no reason to print it either.
        let names: Vec<_> = self.tokens.iter().map(|t| &*t.name).collect();
        f.debug_struct("Auth").field("tokens", &names).finish()
    }
}

impl Auth {
    /// The tokens of a checked configuration.
    ///
    /// ```
    /// use idmint_server::{auth::{Auth, Need}, config::TokenConfig};
    /// use sha2::{Digest, Sha256};
    /// let sha256 = hex::encode(Sha256::digest(b"s3cret"));
    /// let auth = Auth::new(&[TokenConfig { name: "jobs".into(), sha256, scopes: vec!["lease".into()], rate_per_sec: 0 }])?;
    /// assert_eq!(auth.check_token(Some("s3cret"), Need::Lease)?.name(), "jobs");
    /// assert_eq!(auth.check_token(Some("s3cret"), Need::Admin).unwrap_err().kind(), "forbidden");
    /// assert_eq!(auth.check_token(Some("nope"), Need::Lease).unwrap_err().kind(), "unauthorized");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(configs: &[TokenConfig]) -> Result<Auth, String> {
        let mut tokens = Vec::with_capacity(configs.len());
        for t in configs {
            check_token_config(t)?;
            tokens.push(Token {
                name: t.name.as_str().into(),
                digest: digest_of(&t.sha256)?,
                scopes: t
                    .scopes
                    .iter()
                    .map(|s| Scope::parse(s))
                    .collect::<Result<_, _>>()?,
                limiter: NonZeroU32::new(t.rate_per_sec)
                    .map(|rate| RateLimiter::direct(Quota::per_second(rate))),
            });
        }
        Ok(Auth { tokens })
    }

    /// True when no token is configured: every request passes as `anonymous`.
    pub fn is_open(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Authorizes a request by its `Authorization: Bearer …` header.
    pub fn check(&self, presented: &Bearer, need: Need<'_>) -> Result<Caller, ApiError> {
        self.check_token(presented.token(), need)
    }

    /// Authorizes a token given some other way (Tinyid's `token` parameter, gRPC metadata).
    pub fn check_token(&self, presented: Option<&str>, need: Need<'_>) -> Result<Caller, ApiError> {
        if self.is_open() {
            return Ok(Caller(None));
        }
        let Some(presented) = presented.filter(|p| !p.is_empty()) else {
            return Err(ApiError::Unauthorized(
                "a bearer token is required: send `Authorization: Bearer TOKEN`".into(),
            ));
        };
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        // Every token is compared, each in constant time, so the time taken does not say which
        // (or whether any) matched.
        let mut found: Option<&Token> = None;
        for t in &self.tokens {
            if bool::from(t.digest.ct_eq(&digest)) {
                found = Some(t);
            }
        }
        let Some(token) = found else {
            return Err(ApiError::Unauthorized(
                "the token matches no configured token".into(),
            ));
        };
        if !token.scopes.iter().any(|s| s.allows(&need)) {
            return Err(ApiError::Forbidden(format!(
                "token `{}` lacks the scope this request needs: {need}",
                token.name
            )));
        }
        if let Some(limiter) = &token.limiter {
            if let Err(not_until) = limiter.check() {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                return Err(ApiError::RateLimited {
                    token: token.name.to_string(),
                    retry_after_s: wait.as_secs() + 1,
                });
            }
        }
        Ok(Caller(Some(token.name.clone())))
    }
}

/// The tokens as they are now, swapped whole on reload.
pub type SharedAuth = Arc<arc_swap::ArcSwap<Auth>>;

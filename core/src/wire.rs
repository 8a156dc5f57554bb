//! The JSON bodies of `idmint serve`'s `/v1` API, one type each, used by both ends: the server's
//! handlers write and read them, and the `http(s)://` stores ([`HttpStore`], [`HttpLeaseStore`],
//! feature `http`) read and write them, so the two cannot drift apart. With feature `openapi`
//! each derives its `utoipa::ToSchema` for the server's OpenAPI document.
//!
//! IDs and counters above 2^53 travel as decimal strings (a JavaScript reader rounds larger JSON
//! numbers); node values, counts and times in ms are numbers.
//!
//! ```
//! use idmint_core::wire::{ErrorBody, RangeOut};
//! let r: RangeOut = serde_json::from_str(r#"{"tag":"orders","start":"4","last":"103","count":100}"#).unwrap();
//! assert_eq!(r.ids()?.len(), 100);
//! let e = ErrorBody::new("unknown_tag", "unknown segment tag `x`");
//! assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"error":{"kind":"unknown_tag","message":"unknown segment tag `x`"}}"#);
//! # Ok::<(), idmint_core::Error>(())
//! ```
//!
//! [`HttpStore`]: crate::segment::HttpStore
//! [`HttpLeaseStore`]: crate::lease::HttpLeaseStore

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The JSON body of every refusal: `{"error": {"kind", "message"}}`.
///
/// ```
/// let e = idmint_core::wire::ErrorBody::new("forbidden", "token `ci` lacks scope `admin`");
/// assert_eq!(e.error.kind, "forbidden");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

impl ErrorBody {
    /// A body of `kind` and `message`.
    ///
    /// ```
    /// assert_eq!(idmint_core::wire::ErrorBody::new("a", "b").error.message, "b");
    /// ```
    pub fn new(kind: &str, message: &str) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                kind: kind.to_string(),
                message: message.to_string(),
            },
        }
    }
}

/// `kind` is one of core's error kinds (`unknown_tag`, `store_unavailable`, …) or the server's
/// own: `unauthorized`, `forbidden`, `rate_limited`, `bad_request`, `not_found`,
/// `method_not_allowed`, `payload_too_large`, `timeout`, `shutting_down`.
///
/// ```
/// let d = idmint_core::wire::ErrorDetail { kind: "timeout".into(), message: "slow".into() };
/// assert_eq!(d.kind, "timeout");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    /// Stable machine-readable kind.
    pub kind: String,
    /// What went wrong, naming the bad value and the valid range.
    pub message: String,
}

/// A contiguous range of segment IDs (`POST /v1/segment/{tag}/range`).
///
/// ```
/// let r = idmint_core::wire::RangeOut { tag: "t".into(), start: "1".into(), last: "10".into(), count: 10 };
/// assert_eq!((r.ids()?.start, r.ids()?.end), (1, 11));
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RangeOut {
    /// The tag.
    pub tag: String,
    /// The first ID (decimal string).
    pub start: String,
    /// The last ID, included (decimal string).
    pub last: String,
    /// How many: last - start + 1.
    pub count: u64,
}

impl RangeOut {
    /// The range's IDs, checked: `start` and `last` decimal, `count` IDs between them.
    ///
    /// ```
    /// let r = idmint_core::wire::RangeOut { tag: "t".into(), start: "5".into(), last: "1".into(), count: 1 };
    /// assert_eq!(r.ids().unwrap_err().kind(), "invalid_argument");
    /// ```
    pub fn ids(&self) -> Result<crate::segment::IdRange> {
        let bad = || Error::InvalidArgument {
            name: "range".into(),
            value: format!("{}..={} ({} IDs)", self.start, self.last, self.count),
            expected: "decimal IDs, start <= last, count = last - start + 1".into(),
        };
        let start: u64 = self.start.parse().map_err(|_| bad())?;
        let last: u64 = self.last.parse().map_err(|_| bad())?;
        if start > last || last - start + 1 != self.count || last == u64::MAX {
            return Err(bad());
        }
        crate::segment::IdRange::new(start, last + 1)
    }

    /// The body for a tag's range.
    ///
    /// ```
    /// let r = idmint_core::segment::IdRange::new(1, 11)?;
    /// assert_eq!(idmint_core::wire::RangeOut::of("t", r).last, "10");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn of(tag: &str, range: crate::segment::IdRange) -> RangeOut {
        RangeOut {
            tag: tag.to_string(),
            start: range.start.to_string(),
            last: range.last().to_string(),
            count: range.len(),
        }
    }
}

/// A tag as the store holds it (`GET /v1/segment/{tag}`, the admin routes).
///
/// ```
/// use idmint_core::segment::TagInfo;
/// let info = TagInfo { tag: "t".into(), max_id: 99, step: 10, description: String::new() };
/// let out = idmint_core::wire::TagOut::from(info.clone());
/// assert_eq!(out.max_id, "99");
/// assert_eq!(out.info()?, info);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TagOut {
    /// The tag.
    pub tag: String,
    /// The last ID handed out to anyone (decimal string).
    pub max_id: String,
    /// Its step (0: clients use their default).
    pub step: u64,
    /// Its description.
    pub description: String,
    /// The largest `count` this server hands out in one request (`GET /v1/segment/{tag}`
    /// only): an `http(s)://` store's clients fetch ranges no longer than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false, minimum = 1))]
    pub max_count: Option<u64>,
}

impl From<crate::segment::TagInfo> for TagOut {
    fn from(t: crate::segment::TagInfo) -> Self {
        TagOut {
            tag: t.tag,
            max_id: t.max_id.to_string(),
            step: t.step,
            description: t.description,
            max_count: None,
        }
    }
}

impl TagOut {
    /// The store's row, checked (`max_id` a decimal `BIGINT`).
    ///
    /// ```
    /// let mut out = idmint_core::wire::TagOut::from(idmint_core::segment::TagInfo { tag: "t".into(), max_id: 0, step: 1, description: String::new() });
    /// out.max_id = "x".into();
    /// assert_eq!(out.info().unwrap_err().kind(), "invalid_argument");
    /// ```
    pub fn info(&self) -> Result<crate::segment::TagInfo> {
        let max_id = self.max_id.parse().map_err(|_| Error::InvalidArgument {
            name: "max_id".into(),
            value: crate::error::quoted(&self.max_id.chars().take(40).collect::<String>()),
            expected: "a decimal BIGINT".into(),
        })?;
        Ok(crate::segment::TagInfo {
            tag: self.tag.clone(),
            max_id,
            step: self.step,
            description: self.description.clone(),
        })
    }
}

/// A new tag (`POST /v1/admin/tags`).
///
/// ```
/// let spec = idmint_core::wire::CreateTag { tag: "t".into(), start: Some(5), step: None, description: None }.spec()?;
/// assert_eq!(spec.tag(), "t");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateTag {
    /// The tag: 1 to 128 of A-Z a-z 0-9 _ . : -, starting with a letter or digit.
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
    )]
    pub tag: String,
    /// The first ID, 1 ..= 2^63-1 (default 1).
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 1, maximum = 9223372036854775807_u64)
    )]
    pub start: Option<u64>,
    /// The step, 1 ..= 2^40 (default 1000).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1099511627776_u64))]
    pub step: Option<u64>,
    /// A description, at most 256 characters.
    #[cfg_attr(feature = "openapi", schema(max_length = 256))]
    pub description: Option<String>,
}

impl CreateTag {
    /// The body for a [`TagSpec`](crate::segment::TagSpec).
    ///
    /// ```
    /// let spec = idmint_core::segment::TagSpec::new("t")?.step(50)?;
    /// assert_eq!(idmint_core::wire::CreateTag::of(&spec).spec()?, spec);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn of(spec: &crate::segment::TagSpec) -> CreateTag {
        CreateTag {
            tag: spec.tag().to_string(),
            start: Some(spec.first_max_id() as u64 + 1),
            step: Some(spec.step_value()),
            description: Some(spec.description_value().to_string()),
        }
    }

    /// The tag spec, checked by core's rules.
    pub fn spec(&self) -> Result<crate::segment::TagSpec> {
        let mut spec = crate::segment::TagSpec::new(&self.tag)?;
        if let Some(v) = self.start {
            spec = spec.start(v)?;
        }
        if let Some(v) = self.step {
            spec = spec.step(v)?;
        }
        if let Some(v) = &self.description {
            spec = spec.description(v)?;
        }
        Ok(spec)
    }
}

/// A change to a tag (`PATCH /v1/admin/tags/{tag}`).
///
/// ```
/// let up = idmint_core::wire::UpdateTag { step: Some(500), description: None, next_at_least: None }.update()?;
/// assert_eq!(up.step_value(), Some(500));
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UpdateTag {
    /// New step, 1 ..= 2^40.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1099511627776_u64))]
    pub step: Option<u64>,
    /// New description, at most 256 characters.
    #[cfg_attr(feature = "openapi", schema(max_length = 256))]
    pub description: Option<String>,
    /// Raise the counter so the next ID is at least this (never lowers it), 1 ..= 2^63-1.
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 1, maximum = 9223372036854775807_u64)
    )]
    pub next_at_least: Option<u64>,
}

impl UpdateTag {
    /// The body for a [`TagUpdate`](crate::segment::TagUpdate).
    ///
    /// ```
    /// let up = idmint_core::segment::TagUpdate::new().next_at_least(7)?;
    /// assert_eq!(idmint_core::wire::UpdateTag::of(&up).update()?, up);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn of(update: &crate::segment::TagUpdate) -> UpdateTag {
        UpdateTag {
            step: update.step_value(),
            description: update.description_value().map(str::to_string),
            next_at_least: update.next_at_least_value(),
        }
    }

    /// The update, checked by core's rules.
    pub fn update(&self) -> Result<crate::segment::TagUpdate> {
        let mut update = crate::segment::TagUpdate::new();
        if let Some(v) = self.step {
            update = update.step(v)?;
        }
        if let Some(v) = &self.description {
            update = update.description(v)?;
        }
        if let Some(v) = self.next_at_least {
            update = update.next_at_least(v)?;
        }
        Ok(update)
    }
}

/// A lease request (`POST /v1/leases`).
///
/// ```
/// let b: idmint_core::wire::AcquireBody = serde_json::from_str(r#"{"first":0,"last":7}"#).unwrap();
/// assert_eq!(b.range().unwrap(), Some((0, 7)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AcquireBody {
    /// First value of the range (with `last`; default: every value of the server's layout).
    #[cfg_attr(feature = "openapi", schema(maximum = 4611686018427387903_u64))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<u64>,
    /// Last value of the range, included.
    #[cfg_attr(feature = "openapi", schema(maximum = 4611686018427387903_u64))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<u64>,
    /// TTL in ms, at least 300 (default and maximum: the server's `leases` settings).
    #[cfg_attr(feature = "openapi", schema(minimum = 300))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who holds it, shown in `/v1/admin/leases`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// The lease's secret, chosen by the client (32 to 128 of `0-9 A-Z a-z _ -`); default: one
    /// the server draws. A client that chose it can renew after an answer it never received.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9A-Za-z_-]{32,128}$"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// A value to try before the others (the one held before a lost lease).
    #[cfg_attr(feature = "openapi", schema(maximum = 4611686018427387903_u64))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefer: Option<u64>,
}

impl AcquireBody {
    /// `first` and `last` as a range: both or neither.
    ///
    /// ```
    /// let b = idmint_core::wire::AcquireBody { first: Some(1), ..Default::default() };
    /// assert_eq!(b.range().unwrap_err().kind(), "invalid_argument");
    /// ```
    pub fn range(&self) -> Result<Option<(u64, u64)>> {
        match (self.first, self.last) {
            (None, None) => Ok(None),
            (Some(a), Some(b)) => Ok(Some((a, b))),
            (a, b) => Err(Error::InvalidArgument {
                name: "first, last".into(),
                value: format!("{a:?}, {b:?}"),
                expected: "both `first` and `last`, or neither".into(),
            }),
        }
    }
}

/// A renewal (`POST /v1/leases/{value}/renew`).
///
/// ```
/// let b = idmint_core::wire::RenewBody { token: "t".into(), fence_ms: 5, ttl_ms: None };
/// assert_eq!(serde_json::to_string(&b).unwrap(), r#"{"token":"t","fence_ms":5}"#);
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RenewBody {
    /// The lease's token.
    pub token: String,
    /// The last time (unix ms) the holder's IDs may carry until the next renewal.
    pub fence_ms: u64,
    /// TTL in ms, at least 300 (default: the server's).
    #[cfg_attr(feature = "openapi", schema(minimum = 300))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
}

/// A release (`POST /v1/leases/{value}/release`).
///
/// ```
/// let b = idmint_core::wire::ReleaseBody { token: "t".into(), fence_ms: 5 };
/// assert_eq!(b.fence_ms, 5);
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReleaseBody {
    /// The lease's token.
    pub token: String,
    /// The last time (unix ms) the holder's IDs really carried.
    pub fence_ms: u64,
}

// The bodies carrying a lease token: Debug without it, so no log line or panic message shows it.
macro_rules! debug_without_token {
    ($($ty:ident { $($field:ident),* }),*) => {$(
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($field), &self.$field))*
                    .finish_non_exhaustive()
            }
        }
    )*};
}
debug_without_token!(
    RenewBody { fence_ms, ttl_ms },
    ReleaseBody { fence_ms },
    LeaseOut {
        value,
        fence_ms,
        ttl_ms,
        nodes,
        layout
    }
);

/// Whether a release happened (`POST /v1/leases/{value}/release`).
///
/// ```
/// assert!(idmint_core::wire::Released { released: true }.released);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Released {
    /// Always true (a lease not held is 409 `lease_lost`).
    pub released: bool,
}

/// A lease held by the caller (`POST /v1/leases`, `…/renew`).
///
/// ```
/// let l = idmint_core::wire::LeaseOut { value: 1, token: "secret".into(), fence_ms: 0, ttl_ms: 300,
///     nodes: Default::default(), layout: "twitter".into() };
/// assert!(!format!("{l:?}").contains("secret"));
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LeaseOut {
    /// The node value.
    pub value: u64,
    /// The secret that renews and releases it.
    pub token: String,
    /// IDs of this value must carry times above this (unix ms).
    pub fence_ms: u64,
    /// How long it lasts unless renewed, ms.
    pub ttl_ms: u64,
    /// The node fields it fills.
    pub nodes: BTreeMap<String, u64>,
    /// The layout's spec.
    pub layout: String,
}

/// A lease as the store holds it (`GET /v1/admin/leases`).
///
/// ```
/// let i = idmint_core::lease::LeaseInfo { value: 3, holder: "a".into(), expires_in_ms: 5, free_in_ms: 10, last_time_ms: 0 };
/// let row = idmint_core::wire::LeaseRow::from(i.clone());
/// assert_eq!((row.state.as_str(), row.info()), ("held", i));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LeaseRow {
    /// The value.
    pub value: u64,
    /// `held`, `frozen` or `free`.
    #[cfg_attr(feature = "openapi", schema(pattern = "^(held|frozen|free)$"))]
    pub state: String,
    /// The holder's name.
    pub holder: String,
    /// ms until the lease ends (negative: ended that long ago).
    pub expires_in_ms: i64,
    /// ms until others may take the value (0: they may now).
    #[serde(default)]
    pub free_in_ms: i64,
    /// The fence (unix ms).
    pub last_time_ms: u64,
}

impl From<crate::lease::LeaseInfo> for LeaseRow {
    fn from(i: crate::lease::LeaseInfo) -> Self {
        LeaseRow {
            state: i.state().to_string(),
            value: i.value,
            holder: i.holder,
            expires_in_ms: i.expires_in_ms,
            free_in_ms: i.free_in_ms.max(0),
            last_time_ms: i.last_time_ms,
        }
    }
}

impl LeaseRow {
    /// The row as a [`LeaseInfo`](crate::lease::LeaseInfo).
    pub fn info(&self) -> crate::lease::LeaseInfo {
        crate::lease::LeaseInfo {
            value: self.value,
            holder: self.holder.clone(),
            expires_in_ms: self.expires_in_ms,
            free_in_ms: self.free_in_ms,
            last_time_ms: self.last_time_ms,
        }
    }
}

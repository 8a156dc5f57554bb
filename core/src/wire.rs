//! The JSON bodies of `idmint serve`'s `/v1` API, one type each, used by both ends: the server's
//! handlers write and read them, and the `http(s)://` stores ([`HttpStore`], [`HttpLeaseStore`],
//! feature `http`) read and write them, so the two cannot drift apart. With feature `openapi`
//! each derives its `utoipa::ToSchema` for the server's OpenAPI document.
//!
//! IDs and counters above 2^53 travel as decimal strings (a JavaScript reader rounds larger JSON
//! numbers); node values, counts and times in ms are numbers.
//!
//! Data only: this module knows no segment or lease type. How those travel in these bodies
//! (`RangeOut::ids`, `TagOut::info`, `CreateTag::spec`, `UpdateTag::update`, `LeaseRow::info`
//! and their inverses) is written where the types are, in `segment` and `lease`, and shows on
//! each body's page here.
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

/// A contiguous range of segment IDs (`POST /v1/segment/{tag}/range`). Its checked reading as
/// an `IdRange`, `RangeOut::ids`, and `RangeOut::of` are written in `segment/bodies.rs`, beside
/// the segment types they take and give (this module sits beneath `segment`).
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

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
//! let e = ErrorBody::of(&idmint_core::Error::UnknownTag { tag: "x".into() });
//! assert_eq!(
//!     serde_json::to_string(&e).unwrap(),
//!     r#"{"error":{"kind":"unknown_tag","message":"unknown segment tag `x`: create it first, or turn on auto-creation","status":404,"retryable":false,"fields":{"tag":"x"}}}"#
//! );
//! # Ok::<(), idmint_core::Error>(())
//! ```
//!
//! [`HttpStore`]: crate::segment::HttpStore
//! [`HttpLeaseStore`]: crate::lease::HttpLeaseStore

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Error, ErrorKind, Result};

/// The JSON body of every refusal: `{"error": {"kind", "message", "status", "retryable",
/// "fields"}}`. A program reads `kind`, `retryable` and `fields`, never `message` (which is for
/// people, and may change).
///
/// ```
/// use idmint_core::{wire::ErrorBody, Error};
///
/// let e = ErrorBody::new("forbidden", "token `ci` lacks scope `admin`");
/// assert_eq!((e.error.kind.as_str(), e.error.status, e.error.retryable), ("forbidden", Some(403), Some(false)));
///
/// let full = Error::TagExhausted { tag: "t".into(), max_id: 7, count: 5, limit: i64::MAX };
/// let body = ErrorBody::of(&full);
/// assert_eq!(body.error.fields["max_id"], "7");
/// assert_eq!(body.error(), Some(full));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

impl ErrorBody {
    /// A body of `kind` and `message`, its status and retryability from the kind's entry in
    /// core's table ([`ErrorKind::wire`]; none for a kind it lacks), without fields.
    ///
    /// ```
    /// let b = idmint_core::wire::ErrorBody::new("timeout", "slow");
    /// assert_eq!((b.error.message.as_str(), b.error.status, b.error.retryable), ("slow", Some(503), Some(true)));
    /// ```
    pub fn new(kind: &str, message: &str) -> ErrorBody {
        let entry = ErrorKind::wire(kind);
        ErrorBody {
            error: ErrorDetail {
                kind: kind.to_string(),
                message: message.to_string(),
                status: entry.map(|k| k.status),
                retryable: entry.map(ErrorKind::retryable),
                fields: BTreeMap::new(),
            },
        }
    }

    /// The body of a core error: its kind, message, status, retryability and every field.
    ///
    /// ```
    /// let b = idmint_core::wire::ErrorBody::of(&idmint_core::Error::UnknownTag { tag: "t".into() });
    /// assert_eq!((b.error.status, b.error.fields["tag"].as_str()), (Some(404), "t"));
    /// ```
    pub fn of(err: &Error) -> ErrorBody {
        let mut body = ErrorBody::new(err.kind(), &err.to_string());
        body.error.fields = err
            .fields()
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect();
        body
    }

    /// The core error this body carries, rebuilt from its kind and fields (never from its
    /// message): `None` for a kind of the server's own (`forbidden`, …), or a body from a
    /// server that sent no fields.
    ///
    /// ```
    /// use idmint_core::wire::ErrorBody;
    /// let err = idmint_core::Error::UnknownTag { tag: "t".into() };
    /// assert_eq!(ErrorBody::of(&err).error(), Some(err));
    /// assert_eq!(ErrorBody::new("unknown_tag", "unknown segment tag `t`").error(), None);
    /// ```
    pub fn error(&self) -> Option<Error> {
        let fields = &self.error.fields;
        Error::from_fields(&self.error.kind, |name| {
            fields.get(name).map(String::as_str)
        })
    }
}

/// `kind` is one of core's error kinds (`unknown_tag`, `store_unavailable`, …) or the server's
/// own ([`ErrorKind::SERVER`]): `unauthorized`, `forbidden`, `rate_limited`, `bad_request`,
/// `not_found`, `method_not_allowed`, `payload_too_large`, `timeout`, `shutting_down`.
///
/// `status`, `retryable` and `fields` are absent from the bodies of servers older than them;
/// a reader of such a body knows its kind and message only.
///
/// ```
/// let d: idmint_core::wire::ErrorDetail = serde_json::from_str(r#"{"kind":"timeout","message":"slow"}"#).unwrap();
/// assert_eq!((d.kind.as_str(), d.retryable), ("timeout", None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    /// Stable machine-readable kind.
    pub kind: String,
    /// What went wrong, naming the bad value and the valid range: for people, not programs.
    pub message: String,
    /// The HTTP status of the kind (as the response's), from core's table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(nullable = false, minimum = 400, maximum = 599)
    )]
    pub status: Option<u16>,
    /// Whether the same request may succeed if sent again later (a store down, a clock behind,
    /// a rate exceeded, a server stopping); otherwise something must change first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub retryable: Option<bool>,
    /// The error's fields by name, each as text (numbers in decimal, so no reader rounds them):
    /// what the message says, for a program. A `tag_exhausted` has `tag`, `max_id`, `count`
    /// and `limit`; a `value_out_of_range` `field`, `value` and `max`; an `invalid_argument`
    /// `name`, `value` and `expected` … (the fields of the kind's variant of core's `Error`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, String>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Recovery;

    /// One error of each of core's kinds, every field read from the same text ("7" is a valid
    /// value of each field's type).
    fn one_of_each() -> Vec<Error> {
        Error::TABLE
            .iter()
            .map(|k| Error::from_fields(k.kind, |_| Some("7")).expect(k.kind))
            .collect()
    }

    /// Each kind goes through the JSON body and comes back whole, with its table's status and
    /// retryability, from the fields alone: the message is replaced before it is read back.
    #[test]
    fn every_kind_round_trips_without_its_message() {
        let all = one_of_each();
        assert_eq!(all.len(), Error::KINDS.len());
        for err in all {
            let mut body = ErrorBody::of(&err);
            body.error.message = "a message in another language".into();
            let json = serde_json::to_string(&body).unwrap();
            let back: ErrorBody = serde_json::from_str(&json).unwrap();
            assert_eq!(back.error(), Some(err.clone()), "{json}");
            let entry = err.error_kind();
            assert_eq!(back.error.kind, entry.kind);
            assert_eq!(back.error.status, Some(entry.status));
            assert_eq!(back.error.retryable, Some(err.is_retryable()));
            assert_eq!(err.is_retryable(), entry.recovery == Recovery::Retry);
        }
    }

    /// The numbers of a range error travel as text, whole: no reader rounds 2^63-1 or a
    /// negative value a binding passed on.
    #[test]
    fn big_and_negative_numbers_keep_every_digit() {
        for err in [
            Error::TagExhausted {
                tag: "t".into(),
                max_id: i64::MAX - 5,
                count: 1000,
                limit: i64::MAX,
            },
            Error::TimeOutOfRange {
                time_ms: i128::MIN,
                min_ms: 0,
                end_ms: u64::MAX,
            },
            Error::ValueOutOfRange {
                field: "worker".into(),
                value: -3,
                max: 31,
            },
        ] {
            let json = serde_json::to_string(&ErrorBody::of(&err)).unwrap();
            let back: ErrorBody = serde_json::from_str(&json).unwrap();
            assert_eq!(back.error(), Some(err), "{json}");
        }
    }

    /// A field that is missing or does not read as its type gives no error rather than a
    /// made-up one; the server's own kinds carry no core error.
    #[test]
    fn incomplete_bodies_give_no_error() {
        let mut body = ErrorBody::of(&Error::LeaseLost {
            value: 3,
            store: "s".into(),
            reason: "r".into(),
        });
        body.error.fields.insert("value".into(), "three".into());
        assert_eq!(body.error(), None);
        body.error.fields.remove("value");
        assert_eq!(body.error(), None);
        assert_eq!(ErrorBody::new("forbidden", "no").error(), None);
    }

    /// The statuses and retry rules the server has always answered, now read from the table:
    /// 503 exactly for what retrying fixes.
    #[test]
    fn statuses_match_recovery() {
        for k in Error::TABLE.iter().chain(ErrorKind::SERVER) {
            assert_eq!(
                k.status == 503 || k.status == 429,
                k.retryable(),
                "{}",
                k.kind
            );
            assert!((400..600).contains(&k.status), "{}", k.kind);
        }
        for (kind, status) in [
            ("unknown_tag", 404),
            ("store_unavailable", 503),
            ("clock_moved_backwards", 503),
            ("would_block", 503),
            ("range_below_issued", 503),
            ("lease_lost", 409),
            ("no_free_lease", 409),
            ("tag_exhausted", 409),
            ("counter_overflow", 409),
            ("layout_exhausted", 409),
            ("invalid_argument", 400),
        ] {
            assert_eq!(ErrorKind::get(kind).unwrap().status, status, "{kind}");
        }
    }
}

//! One reader for every ID format ([`idmint_core::formats`]): `decode`, `decode_as`, `guess`.

use std::sync::Arc;

use idmint_core::formats::{self, Format, PartValue};

use crate::convert::*;
use crate::errors::*;
use crate::layout::Layout;

/// One named part of a decoded ID: a number or text, as the core gives it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DecodedPart {
    /// The part's name (`worker`, `random`, `version`, ...).
    pub name: String,
    /// Its value if it is a number (every number part the core gives is below 2^63).
    pub number: Option<i64>,
    /// Its value if it is text (lowercase hex bytes, or a name such as a UUID variant).
    pub text: Option<String>,
}

/// An ID taken apart ([`idmint_core::formats::Decoded`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DecodedId {
    /// The format's name: `snowflake`, `integer`, `objectid`, `uuid`, `ulid`, `ksuid`, `xid`,
    /// `tsid`.
    pub format: String,
    /// The canonical text.
    pub id: String,
    /// The 64-bit value's bits, for snowflake, integer and TSID (unsigned: may be negative).
    pub value: Option<i64>,
    /// The time, unix ms (floored; negative before 1970).
    pub time_ms: Option<i64>,
    /// The time as RFC 3339 at the format's precision.
    pub time: Option<String>,
    /// The named parts, most significant first.
    pub parts: Vec<DecodedPart>,
    /// The layout a snowflake was read with: its preset name or spec.
    pub layout: Option<String>,
}

fn decoded(d: formats::Decoded) -> Result<DecodedId> {
    let parts = d
        .parts
        .into_iter()
        .map(|(name, v)| {
            Ok(match v {
                PartValue::Int(n) => DecodedPart {
                    name,
                    number: Some(to_long(n)?),
                    text: None,
                },
                PartValue::Text(t) => DecodedPart {
                    name,
                    number: None,
                    text: Some(t),
                },
            })
        })
        .collect::<Result<_>>()?;
    Ok(DecodedId {
        format: d.format.name().to_string(),
        id: d.id,
        value: d.value.map(|v| v as i64),
        time_ms: d.time_ms,
        time: d.time,
        parts,
        layout: d.layout,
    })
}

/// Recognise and take apart `text` ([`idmint_core::formats::decode`]): a decimal is a
/// snowflake of `layout`, or without one a 64-bit integer.
#[uniffi::export]
pub fn decode(text: String, layout: Option<Arc<Layout>>) -> Result<DecodedId> {
    decoded(formats::decode(&text, layout.as_ref().map(|l| &l.0)).ffi()?)
}

/// Take `text` apart as `format` (a format's name) only ([`idmint_core::formats::decode_as`]).
#[uniffi::export]
pub fn decode_as(text: String, format: String, layout: Option<Arc<Layout>>) -> Result<DecodedId> {
    let format: Format = format.parse().ffi()?;
    decoded(formats::decode_as(&text, format, layout.as_ref().map(|l| &l.0)).ffi()?)
}

/// What each preset makes of a 64-bit ID given as its bits ([`idmint_core::formats::guess`]).
#[uniffi::export]
pub fn guess(id: i64) -> Result<Vec<DecodedId>> {
    formats::guess(id as u64).into_iter().map(decoded).collect()
}

//! One `parse` for every format: the core's [`formats::decode`] and [`formats::guess`], their
//! [`Decoded`] results as plain objects. Conversion only; `facade.js` (js/) builds the public
//! result from them.

use idmint_core::formats::{self, Decoded, PartValue};
use idmint_core::{parse_u64, Layout};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;

use crate::{js_err, Result};

/// A [`Decoded`] as it crosses to JS: part values as text (decimal for whole numbers, which
/// `part_ints` marks), so none above 2^53 loses digits on the way.
#[napi(object)]
pub struct DecodedInfo {
    /// The format's name ([`formats::Format::name`]).
    pub format: String,
    /// The ID in the format's canonical text.
    pub id: String,
    /// The ID as a 64-bit integer, for the formats that are one.
    pub value: Option<BigInt>,
    /// Unix milliseconds of the time the ID carries (exact: at most year 10889).
    pub time_ms: Option<f64>,
    /// That time as RFC 3339 at the format's precision.
    pub time: Option<String>,
    /// The layout a snowflake was read with: a preset name or a spec.
    pub layout: Option<String>,
    /// The parts' names, most significant first.
    pub part_names: Vec<String>,
    /// Their values, as text.
    pub part_values: Vec<String>,
    /// Whether each value is a whole number (else text).
    pub part_ints: Vec<bool>,
}

fn info(d: Decoded) -> DecodedInfo {
    let mut part_names = Vec::with_capacity(d.parts.len());
    let mut part_values = Vec::with_capacity(d.parts.len());
    let mut part_ints = Vec::with_capacity(d.parts.len());
    for (name, value) in d.parts {
        part_ints.push(matches!(value, PartValue::Int(_)));
        part_values.push(value.to_string());
        part_names.push(name);
    }
    DecodedInfo {
        format: d.format.name().to_string(),
        id: d.id,
        value: d.value.map(BigInt::from),
        time_ms: d.time_ms.map(|ms| ms as f64),
        time: d.time,
        layout: d.layout,
        part_names,
        part_values,
        part_ints,
    }
}

/// Recognise and take apart `text` ([`formats::decode`]); a decimal ID is read with `layout` (a
/// preset name or spec) when given.
#[napi(catch_unwind)]
pub fn decode_any(text: String, layout: Option<String>) -> Result<DecodedInfo> {
    let layout = match layout {
        Some(spec) => Some(Layout::parse(&spec).map_err(js_err)?),
        None => None,
    };
    formats::decode(&text, layout.as_ref())
        .map(info)
        .map_err(js_err)
}

/// What each preset makes of the 64-bit integer in decimal `text` ([`formats::guess`]).
#[napi(catch_unwind)]
pub fn guess_id(text: String) -> Result<Vec<DecodedInfo>> {
    let id = parse_u64(&text).map_err(js_err)?;
    Ok(formats::guess(id).into_iter().map(info).collect())
}

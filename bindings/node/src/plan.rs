//! The core's layout planner and migration check, and TypeIDs, as plain objects: conversion
//! only; `facade.js` (js/) builds the public results (Dates, bigints) from them.

use idmint_core::plan::{self, Need, Width};
use idmint_core::typeid::{TypeId, TypeIdGenerator};
use idmint_core::{parse_time_ms, Clock, Layout, Uuid7, WallClock};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;

use crate::{js_err, Result};

/// A layout the planner chose ([`plan::Planned`]); ms values below 2^53 (year 9999).
#[napi(object, object_from_js = false)]
pub struct PlannedInfo {
    /// The layout's spec.
    pub spec: String,
    /// The tick of its time field, ms.
    pub tick_ms: f64,
    /// Bits of time.
    pub time_bits: u32,
    /// Bits of the node field `worker` (0: none).
    pub node_bits: u32,
    /// Bits of sequence.
    pub sequence_bits: u32,
    /// Nodes it tells apart.
    pub nodes: f64,
    /// Can pass 2^53 (a sequence given the spare bits): a bigint.
    pub cap_per_second: BigInt,
    /// The first instant its time field cannot hold, unix ms.
    pub end_ms: f64,
    /// The same as RFC 3339.
    pub end: String,
    /// The first instant its IDs can pass 2^53, unix ms; absent when never.
    #[napi(js_name = "beyond253Ms")]
    pub beyond_2_53_ms: Option<f64>,
}

/// The whole-number text `index.js` sends (a number or bigint as decimal), for the core's range
/// check: a value beyond `u64` arrives as `u64::MAX`, which the core refuses naming the range.
fn whole(text: &str) -> u64 {
    text.parse::<u64>().unwrap_or(u64::MAX)
}

/// The layouts that meet a need, finest tick first; `rate` as text (`4000000`, `4M/s`), `start`
/// as unix ms digits or RFC 3339 (default today, 00:00 UTC), `width` `bigint`, `unsigned` or `js-safe`.
#[napi(catch_unwind)]
pub fn plan_layouts(
    nodes: String,
    rate: String,
    years: String,
    start: Option<String>,
    width: Option<String>,
) -> Result<Vec<PlannedInfo>> {
    let rate = plan::parse_rate(&rate).map_err(js_err)?;
    let start = start
        .map(|s| parse_time_ms("start", &s))
        .transpose()
        .map_err(js_err)?;
    let mut need = Need::new(whole(&nodes), rate, whole(&years))
        .map_err(js_err)?
        .start_or_today(start, idmint_core::WallClock.now_ms());
    if let Some(w) = width {
        need = need.width(w.parse::<Width>().map_err(js_err)?);
    }
    Ok(plan::plan(&need)
        .map_err(js_err)?
        .into_iter()
        .map(|p| PlannedInfo {
            spec: p.spec,
            tick_ms: p.tick_ms as f64,
            time_bits: p.time_bits,
            node_bits: p.node_bits,
            sequence_bits: p.sequence_bits,
            nodes: p.nodes as f64,
            cap_per_second: BigInt::from(p.cap_per_second),
            end_ms: p.end_ms as f64,
            end: p.end,
            beyond_2_53_ms: p.beyond_2_53_ms.map(|ms| ms as f64),
        })
        .collect())
}

/// [`plan::Migration`]: IDs as bigints, times as unix ms.
#[napi(object, object_from_js = false)]
pub struct MigrationInfo {
    /// Whether every new ID from the switch on is above `old_max`.
    pub safe: bool,
    /// The switch, unix ms.
    pub switch_ms: f64,
    /// The largest old ID: given, or the largest the old layout can have minted.
    pub old_max: BigInt,
    /// The smallest ID the new layout can mint at the switch.
    pub new_first: BigInt,
    /// From when the switch is safe, unix ms; absent when never.
    pub safe_from_ms: Option<f64>,
    /// The same as RFC 3339.
    pub safe_from: Option<String>,
}

/// Whether switching from layout `from` to `to` at `at` (default now) keeps every new ID above
/// `above` (decimal, up to 2^64-1; default the largest `from` can have minted).
#[napi(catch_unwind)]
pub fn check_migration(
    from: String,
    to: String,
    above: Option<String>,
    at: Option<String>,
) -> Result<MigrationInfo> {
    let from = Layout::parse(&from).map_err(js_err)?;
    let to = Layout::parse(&to).map_err(js_err)?;
    let above = above
        .map(|a| idmint_core::parse_u64(&a))
        .transpose()
        .map_err(js_err)?;
    let at = match at {
        Some(t) => parse_time_ms("at", &t).map_err(js_err)?,
        None => WallClock.now_ms(),
    };
    let m = plan::check_migration(&from, &to, above, at).map_err(js_err)?;
    Ok(MigrationInfo {
        safe: m.safe,
        switch_ms: m.switch_ms as f64,
        old_max: BigInt::from(m.old_max),
        new_first: BigInt::from(m.new_first),
        safe_from_ms: m.safe_from_ms.map(|ms| ms as f64),
        safe_from: m.safe_from,
    })
}

/// A TypeID taken apart.
#[napi(object, object_from_js = false)]
pub struct TypeIdInfo {
    /// The TypeID's text.
    pub typeid: String,
    /// The type prefix (empty for none).
    pub prefix: String,
    /// The 26-character suffix.
    pub suffix: String,
    /// Lowercase, hyphenated.
    pub uuid: String,
    /// The time of a UUIDv7 inside (unix ms), absent for another version.
    pub time_ms: Option<f64>,
}

fn typeid_info(t: TypeId) -> TypeIdInfo {
    TypeIdInfo {
        typeid: t.to_string(),
        prefix: t.prefix().to_string(),
        suffix: t.suffix(),
        uuid: t.uuid(),
        time_ms: Uuid7::from_u128(t.uuid_value())
            .ok()
            .map(|u| u.time_ms() as f64),
    }
}

/// Read a TypeID's text (`invalid_id` for what the spec refuses).
#[napi(catch_unwind)]
pub fn typeid_parse(text: String) -> Result<TypeIdInfo> {
    TypeId::parse(&text).map(typeid_info).map_err(js_err)
}

/// A TypeID of `prefix` and a UUID of any version (hyphenated or 32 hex digits).
#[napi(catch_unwind)]
pub fn typeid_from_uuid(prefix: String, uuid: String) -> Result<TypeIdInfo> {
    let value = idmint_core::uuid7::uuid_value(&uuid).map_err(js_err)?;
    TypeId::new(&prefix, value).map(typeid_info).map_err(js_err)
}

/// Mints TypeIDs of one prefix from UUIDv7s.
#[napi]
pub struct NativeTypeIdGenerator {
    inner: TypeIdGenerator,
}

#[napi]
impl NativeTypeIdGenerator {
    /// A generator of `prefix`, on the default clock.
    #[napi(constructor, catch_unwind)]
    pub fn new(prefix: String) -> Result<Self> {
        TypeIdGenerator::new(&prefix)
            .map(|inner| NativeTypeIdGenerator { inner })
            .map_err(js_err)
    }

    /// The next TypeID's text.
    #[napi(catch_unwind)]
    pub fn next(&self) -> Result<String> {
        self.inner.next_id().map(|t| t.to_string()).map_err(js_err)
    }
}

//! The core's layout planner and migration check ([`idmint_core::plan`]) and its TypeIDs
//! ([`idmint_core::typeid`]): `plan`, `check_migration`, `TypeIdInfo`, `TypeIdGenerator`.
//! Conversion only.

use std::fmt;
use std::sync::Arc;

use idmint_core as core;
use idmint_core::plan::{Need, Width};
use idmint_core::Clock;

use crate::convert::*;
use crate::errors::*;
use crate::layout::*;
use crate::snowflake::*;

/// A layout the planner chose ([`idmint_core::plan::Planned`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct PlannedLayout {
    /// The layout's spec (`Layout.parse` reads it).
    pub spec: String,
    /// The tick of its time field, ms.
    pub tick_ms: i64,
    /// Bits of time.
    pub time_bits: i32,
    /// Bits of the node field `worker` (0: none).
    pub node_bits: i32,
    /// Bits of sequence.
    pub sequence_bits: i32,
    /// Nodes it tells apart.
    pub nodes: i64,
    /// IDs a second one node can mint.
    pub cap_per_second: i64,
    /// The first instant its time field cannot hold, unix ms.
    pub end_ms: i64,
    /// The same as RFC 3339.
    pub end: String,
    /// The first instant its IDs can pass 2^53, unix ms; none when they never do.
    pub beyond_2_53_ms: Option<i64>,
}

fn planned(p: core::plan::Planned) -> Result<PlannedLayout> {
    Ok(PlannedLayout {
        tick_ms: to_long(p.tick_ms)?,
        time_bits: p.time_bits as i32,
        node_bits: p.node_bits as i32,
        sequence_bits: p.sequence_bits as i32,
        nodes: to_long(p.nodes)?,
        cap_per_second: to_long(p.cap_per_second)?,
        end_ms: to_long(p.end_ms)?,
        beyond_2_53_ms: p.beyond_2_53_ms.map(to_long).transpose()?,
        spec: p.spec,
        end: p.end,
    })
}

/// The layouts that meet a need, finest tick first ([`idmint_core::plan::plan`]): `nodes`
/// nodes minting `rate` IDs a second each for `years` years from `start_ms` (none: today,
/// 00:00 UTC) in `width` bits (`bigint`, the default; `unsigned`; `js-safe`). A need no layout
/// meets is the core's `invalid_argument` naming the arithmetic.
#[uniffi::export]
pub fn plan(
    nodes: i64,
    rate: i64,
    years: i64,
    start_ms: Option<i64>,
    width: Option<String>,
) -> Result<Vec<PlannedLayout>> {
    // A negative `long` goes in as `u64::MAX`, which the core refuses; its error then names the
    // value as given (Need::new checks nodes, then rate, then years, and names the first).
    let ((n, n_given), (r, r_given), (y, y_given)) =
        (stand_in(nodes), stand_in(rate), stand_in(years));
    let mut need = Need::new(n, r, y).map_err(|e| {
        let given = match &e {
            core::Error::InvalidArgument { name, .. } if name == "nodes" => n_given,
            core::Error::InvalidArgument { name, .. } if name == "rate" => r_given,
            core::Error::InvalidArgument { name, .. } if name == "years" => y_given,
            _ => None,
        };
        ffi_error(e.with_given(given))
    })?;
    let start = start_ms.map(|ms| unix_ms("start", ms)).transpose()?;
    need = need.start_or_today(start, core::WallClock.now_ms());
    if let Some(w) = width {
        need = need.width(w.parse::<Width>().ffi()?);
    }
    core::plan::plan(&need)
        .ffi()?
        .into_iter()
        .map(planned)
        .collect()
}

/// A rate as people write it (`4000000`, `4M`, `4M/s`, `25.6k/s`), as IDs a second
/// ([`idmint_core::plan::parse_rate`]).
#[uniffi::export]
pub fn plan_parse_rate(text: String) -> Result<i64> {
    to_long(core::plan::parse_rate(&text).ffi()?)
}

/// The answer of [`check_migration`] ([`idmint_core::plan::Migration`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Migration {
    /// Whether every ID the new layout mints from the switch on is above `old_max`.
    pub safe: bool,
    /// The switch, unix ms.
    pub switch_ms: i64,
    /// The largest ID of the old layout (given, or the largest it can have minted), as its 64
    /// bits (an ID of 2^63 or more, only an unsigned layout's, reads as a negative `long`).
    pub old_max: i64,
    /// The smallest ID the new layout can mint at the switch, as its 64 bits likewise.
    pub new_first: i64,
    /// From when the switch is safe, unix ms; none when the new layout never passes `old_max`.
    pub safe_from_ms: Option<i64>,
    /// The same as RFC 3339.
    pub safe_from: Option<String>,
}

/// Whether switching from layout `from` to layout `to` at `at_ms` (none: now, by the wall
/// clock) keeps IDs unique and ordered ([`idmint_core::plan::check_migration`]): every ID `to`
/// mints from then on above `above` (an ID of `from`: its 64 bits for an unsigned layout, else
/// negative is `invalid_id`; none: the largest `from` can have minted before the switch).
#[uniffi::export]
pub fn check_migration(
    from: Arc<Layout>,
    to: Arc<Layout>,
    above: Option<i64>,
    at_ms: Option<i64>,
) -> Result<Migration> {
    let above = above.map(|id| layout_id(&from.0, id)).transpose()?;
    let at = match at_ms {
        Some(ms) => unix_ms("at", ms)?,
        None => core::WallClock.now_ms(),
    };
    let m = core::plan::check_migration(&from.0, &to.0, above, at).ffi()?;
    Ok(Migration {
        safe: m.safe,
        switch_ms: to_long(m.switch_ms)?,
        // u64 to its 64 bits: the Java facade shows them unsigned, so nothing wraps silently.
        old_max: m.old_max as i64,
        new_first: m.new_first as i64,
        safe_from_ms: m.safe_from_ms.map(to_long).transpose()?,
        safe_from: m.safe_from,
    })
}

/// A TypeID taken apart ([`idmint_core::typeid::TypeId`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TypeIdInfo {
    /// Its text, `prefix_suffix` (the suffix alone for no prefix).
    pub text: String,
    /// The type prefix (empty for none).
    pub prefix: String,
    /// The 26-character base32 suffix.
    pub suffix: String,
    /// The UUID's top 64 bits, as the bits of a Java `long` (`UUID.getMostSignificantBits`).
    pub msb: i64,
    /// The low 64 bits, likewise.
    pub lsb: i64,
    /// The time of a UUIDv7 inside, unix ms; none for another UUID version.
    pub time_ms: Option<i64>,
}

fn typeid_info(t: core::typeid::TypeId) -> Result<TypeIdInfo> {
    let v = t.uuid_value();
    let time_ms = core::Uuid7::from_u128(v).ok().map(|u| u.time_ms());
    Ok(TypeIdInfo {
        text: t.to_string(),
        prefix: t.prefix().to_string(),
        suffix: t.suffix(),
        msb: (v >> 64) as u64 as i64,
        lsb: v as u64 as i64,
        time_ms: time_ms.map(to_long).transpose()?,
    })
}

/// Read a TypeID's text; the core's `invalid_id` for anything the TypeID spec refuses.
#[uniffi::export]
pub fn typeid_parse(text: String) -> Result<TypeIdInfo> {
    typeid_info(core::typeid::TypeId::parse(&text).ffi()?)
}

/// The TypeID of `prefix` and the UUID of these 128 bits (two Java `long`s' bits, any version).
#[uniffi::export]
pub fn typeid_from_uuid(prefix: String, msb: i64, lsb: i64) -> Result<TypeIdInfo> {
    let v = (u128::from(msb as u64) << 64) | u128::from(lsb as u64);
    typeid_info(core::typeid::TypeId::new(&prefix, v).ffi()?)
}

/// Mints TypeIDs of one prefix from UUIDv7s ([`idmint_core::typeid::TypeIdGenerator`]):
/// strictly increasing across threads.
#[derive(uniffi::Object)]
pub struct TypeIdGenerator(core::typeid::TypeIdGenerator<core::AnyClock>);

impl fmt::Debug for TypeIdGenerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TypeIdGenerator")
            .field(&self.0.prefix())
            .finish()
    }
}

#[uniffi::export]
impl TypeIdGenerator {
    /// A generator of `prefix` on the default monotonic clock, or on `clock`; the core's
    /// `invalid_argument` for a prefix the TypeID spec refuses.
    #[uniffi::constructor]
    pub fn new(prefix: String, clock: Option<Arc<ManualClock>>) -> Result<Arc<Self>> {
        Ok(Arc::new(TypeIdGenerator(
            core::typeid::TypeIdGenerator::with_clock(&prefix, any_clock(clock)).ffi()?,
        )))
    }

    /// The next TypeID.
    pub fn next(&self) -> Result<TypeIdInfo> {
        typeid_info(self.0.next_id().ffi()?)
    }

    /// The next TypeID's text.
    pub fn next_text(&self) -> Result<String> {
        Ok(self.0.next_id().ffi()?.to_string())
    }

    /// `n` increasing TypeIDs' texts; negative `n` is `invalid_argument`.
    pub fn next_texts(&self, n: i32) -> Result<Vec<String>> {
        let n = java_count("n", n).ffi()?;
        (0..n)
            .map(|_| Ok(self.0.next_id().ffi()?.to_string()))
            .collect()
    }

    /// The prefix.
    pub fn prefix(&self) -> String {
        self.0.prefix().to_string()
    }
}

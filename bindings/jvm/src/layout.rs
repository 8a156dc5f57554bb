//! Layouts and the parts of an ID: `Layout`, `Parts`, `parse_id`, `parse_time_ms`, `presets`.

use std::sync::Arc;

use idmint_core::{self as core, FieldKind};

use crate::convert::*;
use crate::errors::*;

/// A node field's name and value.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct NodeValue {
    /// Field name, e.g. `worker`.
    pub name: String,
    /// Its value.
    pub value: i64,
}

/// One field of a layout below the time field.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct FieldInfo {
    /// Field name (`sequence` for the sequence).
    pub name: String,
    /// Width in bits.
    pub bits: i32,
    /// Bits below it.
    pub shift: i32,
    /// Whether it is the sequence (else a node field).
    pub sequence: bool,
    /// Largest value.
    pub max: i64,
}

/// The parts of an ID.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Parts {
    /// Start of the ID's tick, unix ms.
    pub time_ms: i64,
    /// The same as RFC 3339 UTC with milliseconds.
    pub time: String,
    /// Node fields in layout order.
    pub nodes: Vec<NodeValue>,
    /// Sequence within the tick.
    pub sequence: i64,
}

pub(crate) fn parts(p: core::Parts) -> Result<Parts> {
    Ok(Parts {
        time_ms: to_long(p.time_ms)?,
        time: p.time(),
        nodes: p
            .nodes
            .into_iter()
            .map(|(name, v)| {
                Ok(NodeValue {
                    name,
                    value: to_long(v)?,
                })
            })
            .collect::<Result<_>>()?,
        sequence: to_long(p.sequence)?,
    })
}

/// A bit layout ([`idmint_core::Layout`]).
#[derive(Debug, uniffi::Object)]
pub struct Layout(pub(crate) core::Layout);

#[uniffi::export]
impl Layout {
    /// A preset name or spec, with an optional epoch override (unix ms or RFC 3339).
    #[uniffi::constructor]
    pub fn parse(spec: String, epoch: Option<String>) -> Result<Arc<Self>> {
        Ok(Arc::new(Layout(
            core::Layout::parse_with_epoch(&spec, epoch.as_deref()).ffi()?,
        )))
    }

    /// Canonical spec.
    pub fn spec(&self) -> String {
        self.0.spec()
    }

    /// Preset name, if unchanged from one.
    pub fn preset_name(&self) -> Option<String> {
        self.0.preset_name().map(str::to_string)
    }

    /// Bits in all.
    pub fn total_bits(&self) -> i32 {
        self.0.total_bits() as i32
    }

    /// Bits of the time field.
    pub fn time_bits(&self) -> i32 {
        self.0.time_bits() as i32
    }

    /// Tick length, ms.
    pub fn tick_ms(&self) -> Result<i64> {
        to_long(self.0.tick_ms())
    }

    /// Epoch, unix ms.
    pub fn epoch_ms(&self) -> Result<i64> {
        to_long(self.0.epoch_ms())
    }

    /// Largest ID (as its 64 bits for an `unsigned` layout: -1 when it uses all 64).
    pub fn max_id(&self) -> Result<i64> {
        id_bits(&self.0, self.0.max_id())
    }

    /// Whether IDs may use all 64 bits (the spec's `unsigned`): Java `long`s then hold an ID's
    /// bits, negative from 2^63 on.
    pub fn is_unsigned(&self) -> bool {
        self.0.is_unsigned()
    }

    /// Fields below the time field, most significant first.
    pub fn fields(&self) -> Result<Vec<FieldInfo>> {
        self.0
            .fields()
            .iter()
            .map(|f| {
                Ok(FieldInfo {
                    name: f.name().to_string(),
                    bits: f.bits() as i32,
                    shift: f.shift() as i32,
                    sequence: f.kind() == FieldKind::Sequence,
                    max: to_long(f.max())?,
                })
            })
            .collect()
    }

    /// First instant the time field cannot hold, unix ms.
    pub fn exhausts_at_ms(&self) -> Result<i64> {
        to_long(self.0.exhausts_at_ms())
    }

    /// The same as RFC 3339.
    pub fn exhausts_at(&self) -> String {
        self.0.exhausts_at()
    }

    /// Most IDs one generator can mint per second.
    pub fn ids_per_second_cap(&self) -> f64 {
        self.0.ids_per_second_cap()
    }

    /// Split an ID: for an `unsigned` layout the `long`'s 64 bits, else negative is
    /// `invalid_id`.
    pub fn decompose(&self, id: i64) -> Result<Parts> {
        if self.0.is_unsigned() {
            return parts(self.0.decompose(id as u64).ffi()?);
        }
        parts(self.0.decompose_wide(id as i128).ffi()?)
    }

    /// Split an ID written in decimal.
    pub fn decompose_str(&self, id: String) -> Result<Parts> {
        parts(self.0.decompose_str(&id).ffi()?)
    }

    /// Put parts together; every value is checked by the core.
    pub fn compose(&self, time_ms: i64, nodes: Vec<NodeValue>, sequence: i64) -> Result<i64> {
        id_bits(
            &self.0,
            self.0
                .compose_values(
                    time_ms as i128,
                    nodes.iter().map(|n| (n.name.as_str(), n.value as i128)),
                    sequence as i128,
                )
                .ffi()?,
        )
    }

    /// [`core::Layout::min_id_at`]: the smallest ID of the tick holding `time_ms` (its bits
    /// for an `unsigned` layout).
    pub fn min_id_at(&self, time_ms: i64) -> Result<i64> {
        id_bits(&self.0, self.0.min_id_at(time_ms as i128).ffi()?)
    }

    /// [`core::Layout::max_id_at`]: the largest ID of the tick holding `time_ms`.
    pub fn max_id_at(&self, time_ms: i64) -> Result<i64> {
        id_bits(&self.0, self.0.max_id_at(time_ms as i128).ffi()?)
    }
}

/// Read a decimal ID (digits only, at most 2^63-1).
#[uniffi::export]
pub fn parse_id(text: String) -> Result<i64> {
    to_long(core::parse_id(&text).ffi()?)
}

/// Read a time as unix ms or RFC 3339; `what` names it in the error.
#[uniffi::export]
pub fn parse_time_ms(what: String, text: String) -> Result<i64> {
    to_long(core::parse_time_ms(&what, &text).ffi()?)
}

/// The preset layout names.
#[uniffi::export]
pub fn presets() -> Vec<String> {
    core::PRESETS.iter().map(|s| s.to_string()).collect()
}

/// The presets of 64-bit IDs other systems mint (`unsigned` layouts: discord, instagram, ...).
#[uniffi::export]
pub fn unsigned_presets() -> Vec<String> {
    core::UNSIGNED_PRESETS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Read a decimal ID up to 2^64-1 as its 64 bits in a `long` (`Long.parseUnsignedLong`'s
/// result, with the core's errors).
#[uniffi::export]
pub fn parse_unsigned_id(text: String) -> Result<i64> {
    Ok(core::layout::parse_u64(&text).ffi()? as i64)
}

/// The preset of a generator given no layout ([`idmint_core::Layout::DEFAULT_PRESET`]).
#[uniffi::export]
pub fn default_preset() -> String {
    core::Layout::DEFAULT_PRESET.to_string()
}

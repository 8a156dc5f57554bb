//! Java's `long` and `int` to the core's numbers and back, checked: a value that does not fit is
//! the core's error for it, never a wrapped number.

use idmint_core as core;

use crate::errors::*;

/// A value the core guarantees below 2^63 (IDs, times up to year 9999, field maxima), as `i64`.
/// Should the guarantee ever break, the caller gets an `invalid_id` error, never a negative wrap.
pub(crate) fn to_long(v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| {
        ffi_error(core::Error::InvalidId {
            id: v.to_string(),
            reason: "above 2^63-1, the largest Java long".to_string(),
        })
    })
}

/// An ID of `layout` as a Java `long`: the ID's 64 bits for an `unsigned` layout (an ID of 2^63
/// or more reads as a negative `long`; `Long.toUnsignedString` shows it), else [`to_long`].
pub(crate) fn id_bits(layout: &core::Layout, id: u64) -> Result<i64> {
    if layout.is_unsigned() {
        Ok(id as i64)
    } else {
        to_long(id)
    }
}

/// A Java `long` ID of `layout` as the core's `u64`: its bits for an `unsigned` layout (the
/// inverse of [`id_bits`]), else [`java_id`].
pub(crate) fn layout_id(layout: &core::Layout, id: i64) -> Result<u64> {
    if layout.is_unsigned() {
        Ok(id as u64)
    } else {
        java_id(id)
    }
}

/// A counter (issued IDs, waits): saturates at `Long.MAX_VALUE`, which it cannot reach in practice.
pub(crate) fn count(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A Java `long` ID as the core's `u64`: negative is the core's `invalid_id` error, never a wrap.
pub(crate) fn java_id(id: i64) -> Result<u64> {
    u64::try_from(id).map_err(|_| {
        ffi_error(core::Error::InvalidId {
            id: id.to_string(),
            reason: "negative; IDs are 0..=9223372036854775807".to_string(),
        })
    })
}

/// A Java `long` for a core `u64` the core range-checks: a negative one is passed as `u64::MAX`,
/// which the core refuses, and `Error::with_given` puts the value back into the core's error.
pub(crate) fn stand_in(v: i64) -> (u64, Option<i128>) {
    match u64::try_from(v) {
        Ok(u) => (u, None),
        Err(_) => (u64::MAX, Some(i128::from(v))),
    }
}

/// A Java `int` key version as the core's `u8`: one outside `0..=255` is passed as 255, which no
/// key can have, and [`key_given`] makes the core's `invalid_key` error name it as given.
pub(crate) fn key_version(version: i32) -> (u8, Option<i32>) {
    match u8::try_from(version) {
        Ok(v) => (v, None),
        Err(_) => (u8::MAX, Some(version)),
    }
}

pub(crate) fn key_given(e: core::Error, given: Option<i32>) -> core::Error {
    match (e, given) {
        (core::Error::InvalidKey { reason, .. }, Some(v)) => core::Error::InvalidKey {
            key: format!("v{v}"),
            reason,
        },
        (e, _) => e,
    }
}

/// A Java `int` count as `usize`, checked by the core (negative is `invalid_argument`).
pub(crate) fn java_count(name: &str, n: i32) -> core::Result<usize> {
    core::args::count_up_to(name, n, i32::MAX as usize)
}

/// A Java `long` of unix ms, checked by the core's time reader (0..=year 9999).
pub(crate) fn unix_ms(name: &str, ms: i64) -> Result<u64> {
    core::parse_time_ms(name, &ms.to_string()).ffi()
}

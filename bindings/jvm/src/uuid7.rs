//! UUIDv7s: parsed from text, ULIDs or two 64-bit halves, and generated.

use std::fmt;
use std::sync::Arc;

use idmint_core as core;

use crate::convert::*;
use crate::errors::*;
use crate::snowflake::*;

/// A UUIDv7 taken apart ([`idmint_core::Uuid7`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Uuid7Info {
    /// The top 64 bits, as the bits of a Java `long` (`UUID.getMostSignificantBits`).
    pub msb: i64,
    /// The low 64 bits, likewise.
    pub lsb: i64,
    /// The timestamp, unix ms (below 2^48).
    pub time_ms: i64,
    /// The same as RFC 3339 (capped at year 9999).
    pub time: String,
    /// The 12 bits after the version.
    pub rand_a: i32,
    /// The 62 bits after the variant.
    pub rand_b: i64,
    /// Hyphenated lowercase text.
    pub text: String,
    /// The ULID text of the same bits.
    pub ulid: String,
}

pub(crate) fn uuid7_info(u: core::Uuid7) -> Result<Uuid7Info> {
    let v = u.as_u128();
    Ok(Uuid7Info {
        msb: (v >> 64) as u64 as i64,
        lsb: v as u64 as i64,
        time_ms: to_long(u.time_ms())?,
        time: u.time(),
        rand_a: i32::from(u.rand_a()),
        rand_b: to_long(u.rand_b())?,
        text: u.to_string(),
        ulid: u.to_ulid(),
    })
}

/// Read a UUIDv7: hyphenated or 32 hex digits, either case.
#[uniffi::export]
pub fn uuid7_parse(text: String) -> Result<Uuid7Info> {
    uuid7_info(core::Uuid7::parse_str(&text).ffi()?)
}

/// Read the 26-character ULID text of a UUIDv7.
#[uniffi::export]
pub fn uuid7_parse_ulid(text: String) -> Result<Uuid7Info> {
    uuid7_info(core::Uuid7::parse_ulid(&text).ffi()?)
}

/// The UUIDv7 of these 128 bits (two Java `long`s' bits); `invalid_uuid` unless version 7.
#[uniffi::export]
pub fn uuid7_from_bits(msb: i64, lsb: i64) -> Result<Uuid7Info> {
    let v = (u128::from(msb as u64) << 64) | u128::from(lsb as u64);
    uuid7_info(core::Uuid7::from_u128(v).ffi()?)
}

/// A UUIDv7 generator ([`idmint_core::Uuid7Generator`]): strictly increasing across threads.
#[derive(uniffi::Object)]
pub struct Uuid7Generator(pub(crate) core::Uuid7Generator<core::AnyClock>);

impl fmt::Debug for Uuid7Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[uniffi::export]
impl Uuid7Generator {
    /// On the default monotonic clock, or on `clock`.
    #[uniffi::constructor]
    pub fn new(clock: Option<Arc<ManualClock>>) -> Arc<Self> {
        Arc::new(Uuid7Generator(core::Uuid7Generator::with_clock(any_clock(
            clock,
        ))))
    }

    /// The next UUID.
    pub fn next(&self) -> Result<Uuid7Info> {
        uuid7_info(self.0.next_uuid().ffi()?)
    }

    /// The next UUID's ULID text.
    pub fn next_ulid(&self) -> Result<String> {
        Ok(self.0.next_uuid().ffi()?.to_ulid())
    }

    /// The address of this generator, for [`crate::fast::idmint_jvm_fast_uuid7_next`]; valid while the
    /// Java object that holds it is alive.
    pub fn fast_handle(&self) -> i64 {
        self as *const Uuid7Generator as i64
    }
}

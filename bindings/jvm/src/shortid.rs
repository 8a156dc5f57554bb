//! Short strings of IDs: base62 and Crockford base32.

use idmint_core as core;

use crate::convert::*;
use crate::errors::*;

/// `value` in a short-string encoding ([`idmint_core::Encoding`], by name: `base62`,
/// `base62-fixed`, `base32`, `base32-fixed`); negative is `invalid_id`.
#[uniffi::export]
pub fn short_id_encode(value: i64, encoding: String) -> Result<String> {
    let encoding: core::Encoding = encoding.parse().ffi()?;
    Ok(encoding.encode(java_id(value)?))
}

/// Read a short string back; a value above 2^63-1 (the encodings cover 64 bits) is
/// `invalid_id`, as it fits no Java `long`.
#[uniffi::export]
pub fn short_id_decode(text: String, encoding: String) -> Result<i64> {
    let encoding: core::Encoding = encoding.parse().ffi()?;
    to_long(encoding.decode(&text).ffi()?)
}

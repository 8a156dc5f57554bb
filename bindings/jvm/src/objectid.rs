//! ObjectIds: minted, parsed and taken apart.

use idmint_core as core;

use crate::errors::*;

/// Fields of an ObjectId.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ObjectIdInfo {
    /// 24 lowercase hex characters.
    pub hex: String,
    /// Unix seconds (unsigned 32-bit, so never negative as a `long`).
    pub timestamp: i64,
    /// RFC 3339 UTC.
    pub time: String,
    /// The 5 random bytes.
    pub random: Vec<u8>,
    /// The 3-byte counter.
    pub counter: i32,
}

/// A new ObjectId from the process-wide generator, as 12 bytes.
#[uniffi::export]
pub fn object_id_new() -> Vec<u8> {
    core::ObjectId::new().bytes().to_vec()
}

/// How many new ObjectIds the facade takes at a time for a thread's block
/// ([`idmint_core::ObjectId::BLOCK_LEN`]).
#[uniffi::export]
pub fn object_id_block_len() -> i32 {
    core::ObjectId::BLOCK_LEN as i32
}

/// Read 24 hex characters (either case) into 12 bytes.
#[uniffi::export]
pub fn object_id_parse(hex: String) -> Result<Vec<u8>> {
    Ok(core::ObjectId::parse_str(&hex).ffi()?.bytes().to_vec())
}

/// Check 12 bytes are an ObjectId.
#[uniffi::export]
pub fn object_id_check(bytes: Vec<u8>) -> Result<Vec<u8>> {
    Ok(core::ObjectId::from_slice(&bytes).ffi()?.bytes().to_vec())
}

/// 24 lowercase hex characters of 12 bytes.
#[uniffi::export]
pub fn object_id_to_hex(bytes: Vec<u8>) -> Result<String> {
    Ok(core::ObjectId::from_slice(&bytes).ffi()?.to_hex())
}

/// The fields of 12 bytes.
#[uniffi::export]
pub fn object_id_info(bytes: Vec<u8>) -> Result<ObjectIdInfo> {
    let oid = core::ObjectId::from_slice(&bytes).ffi()?;
    Ok(ObjectIdInfo {
        hex: oid.to_hex(),
        timestamp: i64::from(oid.timestamp()),
        time: oid.time(),
        random: oid.random().to_vec(),
        counter: oid.counter() as i32,
    })
}

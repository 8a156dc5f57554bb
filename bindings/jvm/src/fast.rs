//! Hot paths with primitive arguments only, for JNA direct mapping (`io.idmint.Fast`).
//!
//! uniffi-bindgen-java 0.3.1 passes a JNA `Structure` (the call status) with every call and
//! clones the object handle through a second call; JNA builds those by reflection, which costs
//! microseconds per call, far above the 244 ns a twitter-layout ID may take at the cap. These
//! entry points are the same conversions without that: a negative return means "failed"; the
//! core error is kept for [`take_fast_error`], which the facade calls at once on the same thread
//! to throw it through the generated layer. A panic never unwinds into Java: it returns -2.

use idmint_core as core;

use crate::convert::java_count;
use crate::errors::*;
#[cfg(feature = "stores")]
use crate::segment::*;
use crate::snowflake::*;
use crate::uuid7::*;

thread_local! {
    /// Error kept for [`take_fast_error`] on the thread whose fast call failed.
    static FAST_ERROR: std::cell::RefCell<Option<core::Error>> = const { std::cell::RefCell::new(None) };
}

/// Raise the error of this thread's last failed call of this module (and forget it).
#[uniffi::export]
pub fn take_fast_error() -> Result<()> {
    match FAST_ERROR.with(|e| e.borrow_mut().take()) {
        Some(e) => Err(ffi_error(e)),
        None => Ok(()),
    }
}

use std::panic::{catch_unwind, AssertUnwindSafe};

pub(crate) const FAILED: i64 = -1;
const PANICKED: i64 = -2;

pub(crate) fn guard(f: impl FnOnce() -> core::Result<i64>) -> i64 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            FAST_ERROR.with(|slot| *slot.borrow_mut() = Some(e));
            FAILED
        }
        Err(_) => PANICKED,
    }
}

pub(crate) fn id_out(id: u64) -> core::Result<i64> {
    i64::try_from(id).map_err(|_| core::Error::InvalidId {
        id: id.to_string(),
        reason: "above 2^63-1, the largest Java long".to_string(),
    })
}

/// The next ID of the generator at `handle`, or a negative failure code; an ID of 2^63 or more
/// (an `unsigned` layout's) is refused, since it would read as one: the facade takes those
/// through [`idmint_jvm_fast_next_ids`].
///
/// # Safety
/// `handle` is [`Snowflake::fast_handle`] of a generator that stays alive during the call.
#[no_mangle]
pub unsafe extern "C" fn idmint_jvm_fast_next_id(handle: i64) -> i64 {
    // SAFETY: the caller keeps the generator alive (see above).
    let gen = unsafe { &*(handle as *const Snowflake) };
    guard(|| id_out(gen.0.next_id()?))
}

/// Fill `out[0..n]` with increasing IDs; 0, or a negative failure code (negative `n` is
/// `invalid_argument`).
///
/// # Safety
/// `handle` as for [`idmint_jvm_fast_next_id`]; `out` points to `n` writable `i64`s.
#[no_mangle]
pub unsafe extern "C" fn idmint_jvm_fast_next_ids(handle: i64, out: *mut i64, n: i32) -> i64 {
    // SAFETY: the caller keeps the generator alive.
    let gen = unsafe { &*(handle as *const Snowflake) };
    guard(|| {
        let n = java_count("n", n)?;
        if n == 0 {
            return Ok(0);
        }
        // SAFETY: `out` holds `n` i64s, which have the layout of u64s; the core writes IDs
        // below 2^63, each read back as the same non-negative i64, or for an `unsigned` layout
        // any 64 bits, as the facade reads them (the return value is only a status).
        let ids = unsafe { std::slice::from_raw_parts_mut(out as *mut u64, n) };
        gen.0.next_ids_into(ids)?;
        Ok(0)
    })
}

/// Write the next UUIDv7 of the generator at `handle` to `out[0]` (top 64 bits) and
/// `out[1]`, as Java `UUID` holds them; 0, or a negative failure code.
///
/// # Safety
/// `handle` is [`Uuid7Generator::fast_handle`] of a generator that stays alive during the
/// call; `out` points to 2 writable `i64`s.
#[no_mangle]
pub unsafe extern "C" fn idmint_jvm_fast_uuid7_next(handle: i64, out: *mut i64) -> i64 {
    // SAFETY: the caller keeps the generator alive (see above).
    let gen = unsafe { &*(handle as *const Uuid7Generator) };
    guard(|| {
        let v = gen.0.next_uuid()?.as_u128();
        // SAFETY: `out` holds 2 i64s.
        unsafe {
            *out = (v >> 64) as u64 as i64;
            *out.add(1) = v as u64 as i64;
        }
        Ok(0)
    })
}

/// Write the 24 lowercase hex characters of the 12 bytes at `bytes` to `out`; 0, or -2.
///
/// # Safety
/// `bytes` points to 12 readable bytes, `out` to 24 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn idmint_jvm_fast_object_id_hex(bytes: *const u8, out: *mut u8) -> i64 {
    guard(|| {
        let mut b = [0u8; 12];
        // SAFETY: `bytes` holds 12 bytes, `out` 24.
        unsafe { std::ptr::copy_nonoverlapping(bytes, b.as_mut_ptr(), 12) };
        let hex = core::ObjectId::from_bytes(b).to_hex_bytes();
        unsafe { std::ptr::copy_nonoverlapping(hex.as_ptr(), out, 24) };
        Ok(0)
    })
}

/// Take a block of [`SegmentTag::block_size`] contiguous IDs of the tag at `handle` and write
/// its start and end (excluded) to `out[0]` and `out[1]`; 0, or a negative failure code. When
/// the core's ranges are used up, `wait` 1 waits on the store (up to the client's `max_wait`),
/// 0 fails at once with `would_block` after starting the refill.
///
/// # Safety
/// `handle` is [`SegmentTag::fast_handle`] of a handle that stays alive during the call; `out`
/// points to 2 writable `i64`s.
#[no_mangle]
pub unsafe extern "C" fn idmint_jvm_fast_segment_block(
    handle: i64,
    wait: i32,
    out: *mut i64,
) -> i64 {
    // Exported by both builds (Fast binds every function it declares); without the stores no
    // tag exists to call it with.
    #[cfg(not(feature = "stores"))]
    return guard(|| {
        let _ = (handle, wait, out);
        Err(core::addon::missing("SegmentTag"))
    });
    // SAFETY: the caller keeps the handle alive (see above).
    #[cfg(feature = "stores")]
    let tag = unsafe { &*(handle as *const SegmentTag) };
    #[cfg(feature = "stores")]
    guard(|| {
        let n = tag.block_size() as u64;
        let r = if wait != 0 {
            tag.handle.next_ids(n)?
        } else {
            tag.handle.try_next_ids(n)?
        };
        let (start, end) = (id_out(r.start)?, id_out(r.end)?);
        // SAFETY: `out` holds 2 i64s.
        unsafe {
            *out = start;
            *out.add(1) = end;
        }
        Ok(0)
    })
}

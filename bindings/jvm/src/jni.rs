//! The hot calls through JNI (`io.idmint.Jni`), beside the JNA entry points of [`crate::fast`].
//!
//! A JNI call costs the JVM far less than a JNA direct-mapped one (the JVM bench times one core
//! call through each, docs/bench/jvm.md), and a Java caller of an uncapped layout or of
//! `new ObjectId()` can tell them apart. Same conversions, same core, same failure protocol as
//! [`crate::fast`]: a negative return means "failed", the core error is kept for
//! [`crate::fast::take_fast_error`]; a panic never unwinds into the JVM (every body runs under
//! `catch_unwind`) and returns -2, which the facade throws as an `internal` error. Results go
//! into arrays the caller owns, so a call allocates nothing on the Java heap.
//!
//! The JVM finds these by their `Java_io_idmint_Jni_*` names once the facade has
//! `System.load`ed the library file JNA already loaded.

use ::jni::objects::{JByteArray, JClass, JLongArray};
use ::jni::sys::{jint, jlong};
use ::jni::JNIEnv;
use idmint_core as core;

use crate::convert::java_count;
use crate::fast::{guard, id_out, FAILED};
use crate::snowflake::Snowflake;

/// How many IDs (or ObjectIds) a call writes through one stack buffer: the array region
/// copies go in steps of this many.
const STEP: usize = 256;

/// The next ID of the generator at `handle` (one core call), or a negative failure code.
#[no_mangle]
pub extern "system" fn Java_io_idmint_Jni_nextId(
    _env: JNIEnv,
    _class: JClass,
    handle: jlong,
) -> jlong {
    // SAFETY: `handle` is `Snowflake::fast_handle` of a generator the caller keeps alive
    // (the facade holds it and fences its reachability across the call).
    let gen = unsafe { &*(handle as *const Snowflake) };
    guard(|| id_out(gen.0.next_id()?))
}

/// Write `n` increasing IDs of the generator at `handle` to `out[0..n]` (an `unsigned` layout's
/// as their 64 bits); 0, or a negative
/// failure code (a negative `n` is `invalid_argument`; an `out` shorter than `n` leaves Java's
/// `ArrayIndexOutOfBoundsException` pending, which the JVM throws on return).
#[no_mangle]
pub extern "system" fn Java_io_idmint_Jni_nextIds(
    env: JNIEnv,
    _class: JClass,
    handle: jlong,
    out: JLongArray,
    n: jint,
) -> jlong {
    // SAFETY: as for `nextId`.
    let gen = unsafe { &*(handle as *const Snowflake) };
    guard(|| {
        let n = java_count("n", n)?;
        // An `unsigned` layout's IDs are any 64 bits, written as they are (the return value
        // is only a status); others stay below 2^63.
        let unsigned = gen.0.layout().is_unsigned();
        let mut buf = [0u64; STEP];
        let mut done = 0;
        while done < n {
            let k = (n - done).min(STEP);
            gen.0.next_ids_into(&mut buf[..k])?;
            let mut ids = [0i64; STEP];
            for (slot, &id) in ids.iter_mut().zip(&buf[..k]) {
                *slot = if unsigned { id as i64 } else { id_out(id)? };
            }
            if env
                .set_long_array_region(&out, done as i32, &ids[..k])
                .is_err()
            {
                return Ok(FAILED_JAVA);
            }
            done += k;
        }
        Ok(0)
    })
}

/// Fill the front of `out` with new ObjectIds of one second from the process-wide generator
/// ([`core::ObjectId::new_block`]), as many as fit up to [`core::ObjectId::BLOCK_LEN`]; how many
/// (fewer when the second's counters run out), or a negative failure code.
#[no_mangle]
pub extern "system" fn Java_io_idmint_Jni_objectIds(
    env: JNIEnv,
    _class: JClass,
    out: JByteArray,
) -> jlong {
    guard(|| {
        let len = match env.get_array_length(&out) {
            Ok(len) => len as usize,
            Err(_) => return Ok(FAILED_JAVA),
        };
        let mut ids = [core::ObjectId::default(); core::ObjectId::BLOCK_LEN];
        let n = core::ObjectId::new_block(&mut ids[..(len / 12).min(core::ObjectId::BLOCK_LEN)]);
        let mut buf = [0i8; 12 * core::ObjectId::BLOCK_LEN];
        for (chunk, id) in buf.chunks_exact_mut(12).zip(&ids[..n]) {
            // Java's byte is signed: the same bits.
            for (b, &v) in chunk.iter_mut().zip(&id.bytes()) {
                *b = v as i8;
            }
        }
        if env.set_byte_array_region(&out, 0, &buf[..12 * n]).is_err() {
            return Ok(FAILED_JAVA);
        }
        Ok(n as i64)
    })
}

/// A failure whose Java exception is already pending (thrown by the JVM on return).
const FAILED_JAVA: i64 = -3;

const _: () = assert!(FAILED_JAVA != FAILED);

#[cfg(test)]
mod tests {
    /// Every entry point of this module runs its body under [`guard`](crate::fast::guard), so
    /// a panic never unwinds into the JVM: a new one without it fails here.
    #[test]
    fn every_entry_point_is_guarded() {
        let src = include_str!("jni.rs");
        let src = &src[..src.find("#[cfg(test)]").unwrap()];
        let bodies: Vec<&str> = src.split("pub extern \"system\" fn ").skip(1).collect();
        assert_eq!(bodies.len(), 3, "entry points found");
        for body in bodies {
            let name = &body[..body.find('(').unwrap()];
            assert!(name.starts_with("Java_io_idmint_Jni_"), "{name}");
            assert!(body.contains("guard(|| "), "{name} runs outside guard()");
        }
    }
}

//! ObjectIds, UUIDv7s (and their ULID text) and TypeIDs.

use std::ffi::c_char;

use idmint_core::typeid::TypeIdGenerator;
use idmint_core::{ObjectId, ObjectIdGenerator, Uuid7, Uuid7Generator};

use crate::ffi::{IdmintError, buffer, copy_exact, handle, run, text};
use crate::kinds::IdmintStatus;

/// A new ObjectId (12 bytes, byte-compatible with MongoDB's) from the process-wide generator,
/// into `id[0..12]`: never repeated within the process, at most 2^24 per second (then it waits
/// for the next second), and after `fork()` the child draws a new random value, so it never
/// repeats its parent's either.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL `id`. Thread-safe.
///
/// # Safety
///
/// `id` points to 12 writable bytes; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut a = [0u8; 12];\nlet mut b = [0u8; 12];\nunsafe { idmint::idmint_objectid_new(a.as_mut_ptr(), std::ptr::null_mut()) };\nunsafe { idmint::idmint_objectid_new(b.as_mut_ptr(), std::ptr::null_mut()) };\nassert_ne!(a, b);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_objectid_new(
    id: *mut u8,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let dst = buffer("id", id, 12)?;
            dst.copy_from_slice(&ObjectId::new().bytes());
            Ok(())
        })
    }
}

/// An ObjectId generator of its own (its own random value and counter), for callers that want
/// one per component; most want the process-wide `idmint_objectid_new`. Thread-safe; freed with
/// `idmint_objectid_generator_free`.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut g = std::ptr::null_mut();\nunsafe { idmint::idmint_objectid_generator_new(&mut g, std::ptr::null_mut()) };\nunsafe { idmint::idmint_objectid_generator_free(g) };\n```"
)]
pub struct IdmintObjectIdGenerator {
    generator: ObjectIdGenerator,
}

/// Makes an ObjectId generator with a random value and counter start from the OS.
///
/// Ownership: `*out` is a new handle the caller frees with `idmint_objectid_generator_free`.
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL `out`. Thread-safe.
///
/// # Safety
///
/// `out` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut g = std::ptr::null_mut();\nassert_eq!(unsafe { idmint::idmint_objectid_generator_new(&mut g, std::ptr::null_mut()) }, idmint::IdmintStatus::Ok);\nunsafe { idmint::idmint_objectid_generator_free(g) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_objectid_generator_new(
    out: *mut *mut IdmintObjectIdGenerator,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            *slot = Box::into_raw(Box::new(IdmintObjectIdGenerator {
                generator: ObjectIdGenerator::new(),
            }));
            Ok(())
        })
    }
}

/// Fills `ids[0..12*n]` with `n` new ObjectIds of `generator` (NULL: the process-wide generator),
/// 12 bytes each, in one call.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL buffer. Thread-safe; waits for the next
/// second when this one's 2^24 are used up.
///
/// # Safety
///
/// `generator` is NULL or live; `ids` points to `12*n` writable bytes; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut ids = [0u8; 12 * 3];\nassert_eq!(unsafe { idmint::idmint_objectid_fill(std::ptr::null(), ids.as_mut_ptr(), 3, std::ptr::null_mut()) }, idmint::IdmintStatus::Ok);\nassert_ne!(ids[..12], ids[12..24]);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_objectid_fill(
    generator: *const IdmintObjectIdGenerator,
    ids: *mut u8,
    n: usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let len = n.checked_mul(12).ok_or_else(|| {
                crate::ffi::invalid(
                    "n",
                    n.to_string(),
                    "a count whose 12 bytes each fit in memory",
                )
            })?;
            let dst = buffer("ids", ids, len)?;
            let generator = generator.as_ref().map(|g| &g.generator);
            let mut block = [ObjectId::default(); ObjectId::BLOCK_LEN];
            let mut chunks = dst.chunks_exact_mut(12);
            let mut left = n;
            while left > 0 {
                let want = left.min(block.len());
                let got = match generator {
                    Some(g) => g.next_block(&mut block[..want]),
                    None => ObjectId::new_block(&mut block[..want]),
                };
                for (oid, chunk) in block[..got].iter().zip(chunks.by_ref()) {
                    chunk.copy_from_slice(&oid.bytes());
                }
                left -= got;
            }
            Ok(())
        })
    }
}

/// How many ObjectIds a caller that hands them out of a buffer takes in one
/// `idmint_objectid_fill` call, to drop the rest once the system clock's second has passed
/// since it made the call (a dropped ObjectId is never issued): the core's
/// `ObjectId::BLOCK_LEN`. Never fails.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert_eq!(idmint::idmint_objectid_block_len(), 128);\n```"
)]
#[unsafe(no_mangle)]
pub extern "C" fn idmint_objectid_block_len() -> usize {
    ObjectId::BLOCK_LEN
}

/// Frees an ObjectId generator. NULL is allowed; only once, after every other call on it.
///
/// # Safety
///
/// `generator` is NULL or live.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_objectid_generator_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_objectid_generator_free(generator: *mut IdmintObjectIdGenerator) {
    unsafe { crate::ffi::free_box(generator) };
}

/// Writes an ObjectId's 24 lowercase hex digits into `hex[0..24]` (no NUL; `hex_len` must be
/// 24). Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL pointer or another length.
///
/// # Safety
///
/// `id` points to 12 readable bytes; `hex` to `hex_len` writable bytes.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet id = [0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11];\nlet mut hex = [0 as std::ffi::c_char; 24];\nunsafe { idmint::idmint_objectid_to_hex(id.as_ptr(), hex.as_mut_ptr(), 24, std::ptr::null_mut()) };\nassert_eq!(hex.map(|c| c as u8), *b\"507f1f77bcf86cd799439011\");\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_objectid_to_hex(
    id: *const u8,
    hex: *mut c_char,
    hex_len: usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let bytes = crate::ffi::array("id", id, 12)?;
            let oid = ObjectId::from_slice(bytes)?;
            copy_exact("hex", &oid.to_hex_bytes(), hex, hex_len)?;
            Ok(())
        })
    }
}

/// Reads an ObjectId's 24 hex digits (either case) into `id[0..12]`.
///
/// Errors: `IDMINT_STATUS_INVALID_OBJECT_ID` (its message names the bad character or length),
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL pointer or text that is not UTF-8.
///
/// # Safety
///
/// `hex` points to `hex_len` readable bytes; `id` to 12 writable bytes.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet t = \"507F1F77BCF86CD799439011\";\nlet mut id = [0u8; 12];\nassert_eq!(unsafe { idmint::idmint_objectid_parse(t.as_ptr().cast(), t.len(), id.as_mut_ptr(), std::ptr::null_mut()) }, idmint::IdmintStatus::Ok);\nassert_eq!(id[0], 0x50);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_objectid_parse(
    hex: *const c_char,
    hex_len: usize,
    id: *mut u8,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let dst = buffer("id", id, 12)?;
            let oid = ObjectId::parse_str(text("hex", hex, hex_len)?)?;
            dst.copy_from_slice(&oid.bytes());
            Ok(())
        })
    }
}

/// A UUIDv7 generator: its UUIDs increase within the process (RFC 9562's method 3: a 12-bit
/// counter in `rand_a`), and after `fork()` the child's never repeat its parent's.
/// Thread-safe; freed with `idmint_uuid7_generator_free`.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut g = std::ptr::null_mut();\nunsafe { idmint::idmint_uuid7_generator_new(&mut g, std::ptr::null_mut()) };\nunsafe { idmint::idmint_uuid7_generator_free(g) };\n```"
)]
pub struct IdmintUuid7Generator {
    generator: Uuid7Generator,
}

/// Makes a UUIDv7 generator on the process's monotonic clock.
///
/// Ownership: `*out` is a new handle the caller frees with `idmint_uuid7_generator_free`.
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL `out`. Thread-safe.
///
/// # Safety
///
/// `out` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut g = std::ptr::null_mut();\nassert_eq!(unsafe { idmint::idmint_uuid7_generator_new(&mut g, std::ptr::null_mut()) }, idmint::IdmintStatus::Ok);\nunsafe { idmint::idmint_uuid7_generator_free(g) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_uuid7_generator_new(
    out: *mut *mut IdmintUuid7Generator,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            *slot = Box::into_raw(Box::new(IdmintUuid7Generator {
                generator: Uuid7Generator::new(),
            }));
            Ok(())
        })
    }
}

/// Frees a UUIDv7 generator. NULL is allowed; only once, after every other call on it.
///
/// # Safety
///
/// `generator` is NULL or live.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_uuid7_generator_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_uuid7_generator_free(generator: *mut IdmintUuid7Generator) {
    unsafe { crate::ffi::free_box(generator) };
}

/// The next UUIDv7, its 16 bytes (big-endian, as RFC 9562 lays them out) into `uuid[0..16]`.
///
/// Errors: `IDMINT_STATUS_CLOCK_MOVED_BACKWARDS` only if the clock is past the year 10889,
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument. Thread-safe.
///
/// # Safety
///
/// `generator` is live; `uuid` points to 16 writable bytes; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut g = std::ptr::null_mut();\nunsafe { idmint::idmint_uuid7_generator_new(&mut g, std::ptr::null_mut()) };\nlet mut u = [0u8; 16];\nunsafe { idmint::idmint_uuid7_next(g, u.as_mut_ptr(), std::ptr::null_mut()) };\nassert_eq!(u[6] >> 4, 7);\nunsafe { idmint::idmint_uuid7_generator_free(g) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_uuid7_next(
    generator: *const IdmintUuid7Generator,
    uuid: *mut u8,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let g = handle("generator", generator)?;
            let dst = buffer("uuid", uuid, 16)?;
            dst.copy_from_slice(&g.generator.next_uuid()?.to_bytes());
            Ok(())
        })
    }
}

/// Writes a UUIDv7's text: `ulid` false gives the 36 lowercase characters with hyphens
/// (`text_len` must be 36), `ulid` true its 26-character ULID (`text_len` 26). No NUL.
///
/// Errors: `IDMINT_STATUS_INVALID_UUID` for 16 bytes that are not a version-7 UUID,
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL pointer or another length.
///
/// # Safety
///
/// `uuid` points to 16 readable bytes; `text` to `text_len` writable bytes.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet u = [0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f];\nlet mut t = [0 as std::ffi::c_char; 26];\nunsafe { idmint::idmint_uuid7_text(u.as_ptr(), true, t.as_mut_ptr(), 26, std::ptr::null_mut()) };\nassert_eq!(t.map(|c| c as u8), *b\"01FWHE4YDGFK1SHH6W1G60EECF\");\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_uuid7_text(
    uuid: *const u8,
    ulid: bool,
    text: *mut c_char,
    text_len: usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let bytes: [u8; 16] = crate::ffi::array("uuid", uuid, 16)?
                .try_into()
                .map_err(|_| crate::ffi::invalid("uuid", "not 16 bytes", "16 bytes"))?;
            let u = Uuid7::from_bytes(bytes)?;
            let t = if ulid { u.to_ulid() } else { u.to_string() };
            copy_exact("text", t.as_bytes(), text, text_len)?;
            Ok(())
        })
    }
}

/// A TypeID generator of one prefix (spec v0.3: `user_01h455vb4pex5vsknk084sn02q`), from
/// UUIDv7s that increase within the process. Thread-safe; freed with
/// `idmint_typeid_generator_free`.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut g = std::ptr::null_mut();\nunsafe { idmint::idmint_typeid_generator_new(c\"user\".as_ptr(), 4, &mut g, std::ptr::null_mut()) };\nunsafe { idmint::idmint_typeid_generator_free(g) };\n```"
)]
pub struct IdmintTypeIdGenerator {
    generator: TypeIdGenerator,
}

/// Makes a TypeID generator of `prefix` (0 to 63 of `a-z` and `_`, not starting or ending with
/// `_`; empty: bare suffixes).
///
/// Ownership: `*out` is a new handle the caller frees with `idmint_typeid_generator_free`.
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a bad prefix (the message says why), a NULL
/// pointer or text that is not UTF-8. Thread-safe.
///
/// # Safety
///
/// `prefix` points to `prefix_len` readable bytes; `out` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut g = std::ptr::null_mut();\nassert_eq!(unsafe { idmint::idmint_typeid_generator_new(c\"User\".as_ptr(), 4, &mut g, std::ptr::null_mut()) }, idmint::IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_typeid_generator_new(
    prefix: *const c_char,
    prefix_len: usize,
    out: *mut *mut IdmintTypeIdGenerator,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            let generator = TypeIdGenerator::new(text("prefix", prefix, prefix_len)?)?;
            *slot = Box::into_raw(Box::new(IdmintTypeIdGenerator { generator }));
            Ok(())
        })
    }
}

/// Frees a TypeID generator. NULL is allowed; only once, after every other call on it.
///
/// # Safety
///
/// `generator` is NULL or live.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_typeid_generator_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_typeid_generator_free(generator: *mut IdmintTypeIdGenerator) {
    unsafe { crate::ffi::free_box(generator) };
}

/// The next TypeID as a string the caller frees with `idmint_string_free`, its length
/// (without the NUL) in `*len`.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument. Thread-safe.
///
/// # Safety
///
/// `generator` is live; `out` and `len` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet (mut g, mut s, mut n) = (std::ptr::null_mut(), std::ptr::null_mut(), 0);\nunsafe { idmint::idmint_typeid_generator_new(c\"user\".as_ptr(), 4, &mut g, std::ptr::null_mut()) };\nunsafe { idmint::idmint_typeid_next(g, &mut s, &mut n, std::ptr::null_mut()) };\nassert_eq!(n, 31);\nunsafe { idmint::idmint_string_free(s); idmint::idmint_typeid_generator_free(g) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_typeid_next(
    generator: *const IdmintTypeIdGenerator,
    out: *mut *mut c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        crate::ffi::read_string(err, "generator", generator, out, len, |g| {
            Ok(g.generator.next_id()?.to_string())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_spans_more_than_one_block() {
        let n = ObjectId::BLOCK_LEN * 2 + 5;
        let mut ids = vec![0u8; 12 * n];
        let s = unsafe {
            idmint_objectid_fill(std::ptr::null(), ids.as_mut_ptr(), n, std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::Ok);
        let mut seen: Vec<&[u8]> = ids.chunks(12).collect();
        assert!(seen.iter().all(|c| c.iter().any(|&b| b != 0)));
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), n);
    }

    #[test]
    fn text_buffers_of_another_length_are_refused() {
        let mut g = std::ptr::null_mut();
        unsafe { idmint_uuid7_generator_new(&mut g, std::ptr::null_mut()) };
        let mut u = [0u8; 16];
        unsafe { idmint_uuid7_next(g, u.as_mut_ptr(), std::ptr::null_mut()) };
        let mut t = [0 as c_char; 37];
        let s = unsafe {
            idmint_uuid7_text(u.as_ptr(), false, t.as_mut_ptr(), 37, std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::InvalidArgument);
        let s = unsafe {
            idmint_uuid7_text(u.as_ptr(), false, t.as_mut_ptr(), 36, std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::Ok);
        unsafe { idmint_uuid7_generator_free(g) };
    }

    #[test]
    fn bad_object_ids_keep_their_kind() {
        let t = "xyz";
        let mut id = [0u8; 12];
        let s = unsafe {
            idmint_objectid_parse(t.as_ptr().cast(), 3, id.as_mut_ptr(), std::ptr::null_mut())
        };
        assert_eq!(s, IdmintStatus::InvalidObjectId);
    }
}

//! What the rest of the API only writes, read back: a layout's derived values (canonical spec,
//! preset, width, signedness, the end of its time field as text), an ID decoded in a format the
//! caller names, UUIDv7 text read with its version checks and its time as text, and a TypeID
//! put together from a prefix and any UUID. Each is one call of the core, so a C caller (and
//! the conformance drivers, docs/spec.md "The conformance protocol") gets the core's answer
//! instead of recomputing it.

use std::ffi::c_char;

use idmint_core::Uuid7;
use idmint_core::formats::{self, Format};
use idmint_core::typeid::TypeId;

use crate::ffi::{Failure, IdmintError, array, give_string, handle, run, text};
use crate::kinds::IdmintStatus;
use crate::layout::{IdmintDecoded, IdmintLayout};

/// The 16 bytes of a UUID argument.
///
/// # Safety
///
/// `uuid` is NULL or points to 16 readable bytes.
unsafe fn uuid_bytes(uuid: *const u8) -> Result<[u8; 16], Failure> {
    let bytes = unsafe { array("uuid", uuid, 16) }?;
    Ok(bytes.try_into().expect("array gives 16 bytes"))
}

/// The layout's canonical spec (`"time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657"`:
/// the tick in ms, the epoch in unix ms, a preset written out; docs/spec.md 2.2), as a string
/// the caller frees with `idmint_string_free`; its length without the NUL in `*len`.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument. Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `out` and `len` are writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"sonyflake\");\nlet (mut s, mut n) = (std::ptr::null_mut(), 0);\nassert_eq!(unsafe { idmint_layout_canonical_spec(l, &mut s, &mut n, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(s) }.to_str().unwrap(), \"time:39@10ms,sequence:8,machine:16,epoch=1409529600000\");\nunsafe { idmint_string_free(s); idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_canonical_spec(
    layout: *const IdmintLayout,
    out: *mut *mut c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe { crate::ffi::read_string(err, "layout", layout, out, len, |l| Ok(l.layout.spec())) }
}

/// The preset the layout is (`"twitter"`, `"discord"`, ...), as a string the caller frees with
/// `idmint_string_free`, its length in `*len`; `*out` NULL (and `*len` 0) for a layout that is
/// no preset, or a preset given another epoch.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument. Thread-safe.
///
/// # Safety
///
/// `layout` is a live layout; `out` and `len` are writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"time:41,worker:10,sequence:12\");\nlet (mut s, mut n) = (std::ptr::null_mut(), 0);\nassert_eq!(unsafe { idmint_layout_preset(l, &mut s, &mut n, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert!(s.is_null());\nunsafe { idmint_layout_free(l) };\nlet l = test_layout(\"discord\");\nunsafe { idmint_layout_preset(l, &mut s, &mut n, std::ptr::null_mut()) };\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(s) }.to_str().unwrap(), \"discord\");\nunsafe { idmint_string_free(s); idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_preset(
    layout: *const IdmintLayout,
    out: *mut *mut c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let l = handle("layout", layout)?;
            let (ptr, len) = (crate::ffi::out("out", out)?, crate::ffi::out("len", len)?);
            match l.layout.preset_name() {
                Some(name) => give_string(name.to_string(), ptr, len),
                None => {
                    *ptr = std::ptr::null_mut();
                    *len = 0;
                }
            }
            Ok(())
        })
    }
}

/// The layout's width in bits (time bits plus every field's: 63 or less, 64 for some
/// `unsigned` layouts) into `*bits`. Thread-safe.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument.
///
/// # Safety
///
/// `layout` is a live layout; `bits` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"mastodon\");\nlet mut bits = 0;\nassert_eq!(unsafe { idmint_layout_total_bits(l, &mut bits, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(bits, 64);\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_total_bits(
    layout: *const IdmintLayout,
    bits: *mut u32,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        crate::ffi::read_into(err, "layout", layout, "bits", bits, |l| {
            Ok(l.layout.total_bits())
        })
    }
}

/// Whether the layout is `unsigned` (its IDs may pass 2^63-1: it reads and composes the 64-bit
/// IDs of other systems) into `*is_unsigned`. Thread-safe.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument.
///
/// # Safety
///
/// `layout` is a live layout; `is_unsigned` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"discord\");\nlet mut u = false;\nassert_eq!(unsafe { idmint_layout_is_unsigned(l, &mut u, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert!(u);\nunsafe { idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_is_unsigned(
    layout: *const IdmintLayout,
    is_unsigned: *mut bool,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        crate::ffi::read_into(err, "layout", layout, "is_unsigned", is_unsigned, |l| {
            Ok(l.layout.is_unsigned())
        })
    }
}

/// `idmint_layout_exhausts_at_ms` as RFC 3339 UTC text with milliseconds
/// (`"2080-07-10T17:30:30.209Z"`), capped at 9999-12-31T23:59:59.999Z, as a string the caller
/// frees with `idmint_string_free`; its length in `*len`. Thread-safe.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL argument.
///
/// # Safety
///
/// `layout` is a live layout; `out` and `len` are writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet l = test_layout(\"twitter\");\nlet (mut s, mut n) = (std::ptr::null_mut(), 0);\nassert_eq!(unsafe { idmint_layout_exhausts_at(l, &mut s, &mut n, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(s) }.to_str().unwrap(), \"2080-07-10T17:30:30.209Z\");\nunsafe { idmint_string_free(s); idmint_layout_free(l) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_layout_exhausts_at(
    layout: *const IdmintLayout,
    out: *mut *mut c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        crate::ffi::read_string(err, "layout", layout, out, len, |l| {
            Ok(l.layout.exhausts_at())
        })
    }
}

/// `idmint_parse` in the format the caller names (`"snowflake"`, `"integer"`, `"objectid"`,
/// `"uuid"`, `"ulid"`, `"ksuid"`, `"xid"`, `"tsid"`, `"typeid"`), skipping the choice by length
/// and alphabet: a TypeID without a prefix, or a TSID of digits alone, is read as one. `layout`
/// may be NULL (a snowflake needs one).
///
/// Ownership: on success `*out` is a new `IdmintDecoded` the caller frees with
/// `idmint_decoded_free`. Errors: that format's refusal (`IDMINT_STATUS_INVALID_ID`,
/// `IDMINT_STATUS_INVALID_OBJECT_ID`, `IDMINT_STATUS_INVALID_UUID`),
/// `IDMINT_STATUS_INVALID_ARGUMENT` (an unknown format, a snowflake without a layout, NULL, not
/// UTF-8). Thread-safe.
///
/// # Safety
///
/// `text` points to `len` readable bytes, `format` to `format_len`; `layout` is NULL or a live
/// layout; `out` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (t, f, mut d) = (\"01h455vb4pex5vsknk084sn02q\", \"typeid\", std::ptr::null_mut());\nassert_eq!(unsafe { idmint_parse_as(t.as_ptr().cast(), t.len(), f.as_ptr().cast(), f.len(), std::ptr::null(), &mut d, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(idmint_decoded_format(d, std::ptr::null_mut())) }.to_str().unwrap(), \"typeid\");\nunsafe { idmint_decoded_free(d) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_parse_as(
    text: *const c_char,
    len: usize,
    format: *const c_char,
    format_len: usize,
    layout: *const IdmintLayout,
    out: *mut *mut IdmintDecoded,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let slot = crate::ffi::out("out", out)?;
            let text = crate::ffi::text("text", text, len)?;
            let format: Format = crate::ffi::text("format", format, format_len)?.parse()?;
            let layout = layout.as_ref().map(|l| &l.layout);
            let d = formats::decode_as(text, format, layout)?;
            *slot = Box::into_raw(Box::new(IdmintDecoded::from(d)));
            Ok(())
        })
    }
}

/// Reads a UUIDv7's text into its 16 bytes (`uuid[0..16]`, big-endian): `ulid` false, the
/// 36-character hyphenated form or 32 hex digits, either case; `ulid` true, its 26-character
/// ULID text (Crockford base32, either case). Either way the version must be 7 and the variant
/// RFC 9562's.
///
/// Errors: `IDMINT_STATUS_INVALID_UUID` (its message says what is wrong: a length, a
/// character, the version), `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL pointer or text that is
/// not UTF-8. Thread-safe.
///
/// # Safety
///
/// `text` points to `len` readable bytes; `uuid` to 16 writable bytes; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (t, mut u) = (\"01FWHE4YDGFK1SHH6W1G60EECF\", [0u8; 16]);\nassert_eq!(unsafe { idmint_uuid7_parse(t.as_ptr().cast(), t.len(), true, u.as_mut_ptr(), std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(u[..4], [0x01, 0x7f, 0x22, 0xe2]);\nlet v4 = \"6ba7b810-9dad-41d1-80b4-00c04fd430c8\";\nassert_eq!(unsafe { idmint_uuid7_parse(v4.as_ptr().cast(), v4.len(), false, u.as_mut_ptr(), std::ptr::null_mut()) }, IdmintStatus::InvalidUuid);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_uuid7_parse(
    text: *const c_char,
    len: usize,
    ulid: bool,
    uuid: *mut u8,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let dst = crate::ffi::buffer("uuid", uuid, 16)?;
            let text = crate::ffi::text("text", text, len)?;
            let u = if ulid {
                Uuid7::parse_ulid(text)?
            } else {
                Uuid7::parse_str(text)?
            };
            dst.copy_from_slice(&u.to_bytes());
            Ok(())
        })
    }
}

/// A UUIDv7's time (`unix_ts_ms`) as RFC 3339 UTC text with milliseconds, capped at
/// 9999-12-31T23:59:59.999Z (a UUIDv7's 48 bits reach the year 10889), as a string the caller
/// frees with `idmint_string_free`; its length in `*len`.
///
/// Errors: `IDMINT_STATUS_INVALID_UUID` for 16 bytes that are not a version-7 UUID,
/// `IDMINT_STATUS_INVALID_ARGUMENT` for a NULL pointer. Thread-safe.
///
/// # Safety
///
/// `uuid` points to 16 readable bytes; `out` and `len` writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet u = [0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f];\nlet (mut s, mut n) = (std::ptr::null_mut(), 0);\nassert_eq!(unsafe { idmint_uuid7_time(u.as_ptr(), &mut s, &mut n, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(s) }.to_str().unwrap(), \"2022-02-22T19:22:22.000Z\");\nunsafe { idmint_string_free(s) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_uuid7_time(
    uuid: *const u8,
    out: *mut *mut c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let (ptr, len) = (crate::ffi::out("out", out)?, crate::ffi::out("len", len)?);
            let u = Uuid7::from_bytes(uuid_bytes(uuid)?)?;
            give_string(u.time(), ptr, len);
            Ok(())
        })
    }
}

/// The TypeID of `prefix` (0 to 63 of `a-z` and `_`, not starting or ending with `_`; empty:
/// the suffix alone) and a UUID of any version (`uuid[0..16]`, big-endian), as a string the
/// caller frees with `idmint_string_free`; its length in `*len`. The inverse of
/// `idmint_parse_as(text, "typeid")`.
///
/// Errors: `IDMINT_STATUS_INVALID_ARGUMENT` for a bad prefix (the message says why), a NULL
/// pointer or text that is not UTF-8. Thread-safe.
///
/// # Safety
///
/// `prefix` points to `prefix_len` readable bytes; `uuid` to 16 readable bytes; `out` and `len`
/// writable; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet u = [0x01, 0x89, 0x0a, 0x5d, 0xac, 0x96, 0x77, 0x4b, 0xbc, 0xce, 0xb3, 0x02, 0x09, 0x9a, 0x80, 0x57];\nlet (mut s, mut n) = (std::ptr::null_mut(), 0);\nassert_eq!(unsafe { idmint_typeid_encode(c\"prefix\".as_ptr(), 6, u.as_ptr(), &mut s, &mut n, std::ptr::null_mut()) }, IdmintStatus::Ok);\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(s) }.to_str().unwrap(), \"prefix_01h455vb4pex5vsknk084sn02q\");\nunsafe { idmint_string_free(s) };\nassert_eq!(unsafe { idmint_typeid_encode(c\"Users\".as_ptr(), 5, u.as_ptr(), &mut s, &mut n, std::ptr::null_mut()) }, IdmintStatus::InvalidArgument);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_typeid_encode(
    prefix: *const c_char,
    prefix_len: usize,
    uuid: *const u8,
    out: *mut *mut c_char,
    len: *mut usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let (ptr, len) = (crate::ffi::out("out", out)?, crate::ffi::out("len", len)?);
            let prefix = text("prefix", prefix, prefix_len)?;
            let t = TypeId::new(prefix, u128::from_be_bytes(uuid_bytes(uuid)?))?;
            give_string(t.to_string(), ptr, len);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_as_refuses_an_unknown_format_and_a_snowflake_without_layout() {
        let mut d = std::ptr::null_mut();
        for format in ["guid", "snowflake"] {
            let s = unsafe {
                idmint_parse_as(
                    c"123".as_ptr(),
                    3,
                    format.as_ptr().cast(),
                    format.len(),
                    std::ptr::null(),
                    &mut d,
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(s, IdmintStatus::InvalidArgument, "{format}");
            assert!(d.is_null());
        }
    }

    #[test]
    fn uuid7_parse_and_time_refuse_null_buffers() {
        let t = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
        let s = unsafe {
            idmint_uuid7_parse(
                t.as_ptr().cast(),
                t.len(),
                false,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(s, IdmintStatus::InvalidArgument);
        let (mut p, mut n) = (std::ptr::null_mut(), 0);
        let s =
            unsafe { idmint_uuid7_time(std::ptr::null(), &mut p, &mut n, std::ptr::null_mut()) };
        assert_eq!(s, IdmintStatus::InvalidArgument);
    }

    #[test]
    fn uuid7_time_is_capped_at_the_year_9999() {
        let u = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, 0,
        ];
        let (mut p, mut n) = (std::ptr::null_mut(), 0);
        let s = unsafe { idmint_uuid7_time(u.as_ptr(), &mut p, &mut n, std::ptr::null_mut()) };
        assert_eq!(s, IdmintStatus::Ok);
        let t = unsafe { std::ffi::CStr::from_ptr(p) }
            .to_str()
            .unwrap()
            .to_string();
        unsafe { crate::idmint_string_free(p) };
        assert_eq!(t, "9999-12-31T23:59:59.999Z");
        assert_eq!(n, t.len());
    }
}

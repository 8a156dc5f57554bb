//! Reading and freeing what the library hands out: errors, strings, and the names of statuses.

use std::ffi::{CStr, CString, c_char};

use crate::ffi::IdmintError;
use crate::kinds::{INTERNAL_KIND, IdmintStatus, entry};

/// The status of an error (the value the failed call returned).
///
/// Never fails: a NULL `error` gives `IDMINT_STATUS_OK`. Thread-safe.
///
/// # Safety
///
/// `error` is NULL or an error made by this library and not yet freed.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert_eq!(unsafe { idmint::idmint_error_status(std::ptr::null()) }, idmint::IdmintStatus::Ok);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_error_status(error: *const IdmintError) -> IdmintStatus {
    unsafe { error.as_ref() }.map_or(IdmintStatus::Ok, IdmintError::status)
}

/// The kind of an error as idmint's stable lowercase name (`"invalid_layout"`), the string
/// every idmint package and `tests/vectors/` use: a static NUL-terminated string, never freed.
///
/// Never fails: a NULL `error` gives `"ok"`. Thread-safe.
///
/// # Safety
///
/// `error` is NULL or an error made by this library and not yet freed.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet k = unsafe { std::ffi::CStr::from_ptr(idmint::idmint_error_kind(std::ptr::null())) };\nassert_eq!(k.to_str().unwrap(), \"ok\");\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_error_kind(error: *const IdmintError) -> *const c_char {
    match unsafe { error.as_ref() } {
        Some(e) => status_kind(e.status()).as_ptr(),
        None => c"ok".as_ptr(),
    }
}

/// The error's message, in English, naming the bad value and the valid range (the core's
/// words, the same as every other package's): UTF-8, NUL-terminated, owned by the error (valid
/// until `idmint_error_free`). Its length in bytes, without the NUL, goes to `*len` when `len`
/// is not NULL.
///
/// Never fails: a NULL `error` gives `""`. Thread-safe.
///
/// # Safety
///
/// `error` is NULL or an error made by this library and not yet freed; `len` is NULL or
/// writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet mut len = 7;\nlet m = unsafe { idmint::idmint_error_message(std::ptr::null(), &mut len) };\nassert_eq!((unsafe { *m }, len), (0, 0));\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_error_message(
    error: *const IdmintError,
    len: *mut usize,
) -> *const c_char {
    let (ptr, n) = match unsafe { error.as_ref() } {
        Some(e) => e.message(),
        None => (c"".as_ptr(), 0),
    };
    if let Some(len) = unsafe { len.as_mut() } {
        *len = n;
    }
    ptr
}

/// The number of fields of an error: the core error's values by name (`behind_ms` of a clock
/// that moved backwards, `tag` of an unknown tag, ...), what its message says, for a program to
/// read instead of the message. 0 for a NULL `error` or an `IDMINT_STATUS_INTERNAL` one. Never
/// fails; thread-safe.
///
/// # Safety
///
/// `error` is NULL or an error made by this library and not yet freed.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert_eq!(unsafe { idmint::idmint_error_field_count(std::ptr::null()) }, 0);\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_error_field_count(error: *const IdmintError) -> usize {
    unsafe { error.as_ref() }.map_or(0, |e| e.fields().len())
}

/// Field `index` of an error (in the order of the core's variant): its name and its value as
/// text (numbers in decimal), both NUL-terminated and owned by the error (valid until
/// `idmint_error_free`), their lengths in `*name_len` and `*value_len`. Any out pointer may be
/// NULL. Returns false (nothing written) for a NULL `error` or an index past the last field.
/// Never fails otherwise; thread-safe.
///
/// # Safety
///
/// `error` is NULL or live; each out pointer is NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (mut l, mut err) = (std::ptr::null_mut(), std::ptr::null_mut());\nunsafe { idmint_layout_new(c\"twiter\".as_ptr(), 6, std::ptr::null(), 0, &mut l, &mut err) };\nlet (mut name, mut value) = (std::ptr::null(), std::ptr::null());\nassert!(unsafe { idmint_error_field(err, 0, &mut name, std::ptr::null_mut(), &mut value, std::ptr::null_mut()) });\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(name) }.to_str().unwrap(), \"spec\");\nassert_eq!(unsafe { std::ffi::CStr::from_ptr(value) }.to_str().unwrap(), \"twiter\");\nunsafe { idmint_error_free(err) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_error_field(
    error: *const IdmintError,
    index: usize,
    name: *mut *const c_char,
    name_len: *mut usize,
    value: *mut *const c_char,
    value_len: *mut usize,
) -> bool {
    let Some((n, v)) = unsafe { error.as_ref() }.and_then(|e| e.fields().get(index)) else {
        return false;
    };
    unsafe {
        if let Some(p) = name.as_mut() {
            *p = n.as_ptr();
        }
        if let Some(p) = name_len.as_mut() {
            *p = n.as_bytes().len();
        }
        if let Some(p) = value.as_mut() {
            *p = v.as_ptr();
        }
        if let Some(p) = value_len.as_mut() {
            *p = v.as_bytes().len();
        }
    }
    true
}

/// Frees an error. NULL is allowed (nothing happens). Not to be called twice on one error, nor
/// while another thread reads it.
///
/// # Safety
///
/// `error` is NULL or an error made by this library and not yet freed.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_error_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_error_free(error: *mut IdmintError) {
    unsafe { crate::ffi::free_box(error) };
}

fn status_kind(status: IdmintStatus) -> &'static CStr {
    match status {
        IdmintStatus::Ok => c"ok",
        IdmintStatus::Internal => c"internal",
        s => entry(s as i32).map_or(c"internal", |(_, k, _)| k),
    }
}

/// The kind string of a status (`"invalid_layout"` for `IDMINT_STATUS_INVALID_LAYOUT`, `"ok"`
/// for `IDMINT_STATUS_OK`, `"internal"` for `IDMINT_STATUS_INTERNAL`): a static NUL-terminated
/// string, never freed. A number that is no status gives NULL.
///
/// Never fails otherwise. Thread-safe.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet k = unsafe { std::ffi::CStr::from_ptr(idmint::idmint_status_kind(idmint::IdmintStatus::LeaseLost as i32)) };\nassert_eq!(k.to_str().unwrap(), \"lease_lost\");\nassert!(idmint::idmint_status_kind(-5).is_null());\n```"
)]
#[unsafe(no_mangle)]
pub extern "C" fn idmint_status_kind(status: i32) -> *const c_char {
    if status == IdmintStatus::Ok as i32 {
        return c"ok".as_ptr();
    }
    if status == IdmintStatus::Internal as i32 {
        debug_assert_eq!(INTERNAL_KIND, "internal");
        return c"internal".as_ptr();
    }
    entry(status).map_or(std::ptr::null(), |(_, k, _)| k.as_ptr())
}

/// Whether the same call may succeed if made again later (a store down, a clock behind): the
/// core's rule for the status's kind, which every idmint client follows. False for
/// `IDMINT_STATUS_OK`, `IDMINT_STATUS_INTERNAL` and numbers that are no status.
///
/// Never fails. Thread-safe.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::{idmint_status_retryable, IdmintStatus};\nassert!(idmint_status_retryable(IdmintStatus::StoreUnavailable as i32));\nassert!(!idmint_status_retryable(IdmintStatus::InvalidLayout as i32));\n```"
)]
#[unsafe(no_mangle)]
pub extern "C" fn idmint_status_retryable(status: i32) -> bool {
    entry(status).is_some_and(|(_, _, retry)| *retry)
}

/// Frees a string the library handed out (an ID's text, a layout's spec). NULL is allowed.
/// Every such string is NUL-terminated; its length came with it.
///
/// # Safety
///
/// `s` is NULL or a string this library handed out and not yet freed; never a string of the
/// caller's, nor one borrowed from a handle (those say so).
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nunsafe { idmint::idmint_string_free(std::ptr::null_mut()) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_string_free(s: *mut c_char) {
    if !s.is_null() {
        drop(unsafe { CString::from_raw(s) });
    }
}

/// The library's version (`"0.1.0"`): a static NUL-terminated string. Never fails.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nlet v = unsafe { std::ffi::CStr::from_ptr(idmint::idmint_version()) };\nassert_eq!(v.to_str().unwrap(), env!(\"CARGO_PKG_VERSION\"));\n```"
)]
#[unsafe(no_mangle)]
pub extern "C" fn idmint_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"",
        };
    VERSION.as_ptr()
}

/// Whether this build of the library has the stores (segment clients, leased snowflake node
/// values): built with the cargo feature `stores`. Without them those calls fail with
/// `IDMINT_STATUS_STORES_NOT_INSTALLED`. Never fails.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert_eq!(idmint::idmint_has_stores(), cfg!(feature = \"stores\"));\n```"
)]
#[unsafe(no_mangle)]
pub extern "C" fn idmint_has_stores() -> bool {
    // This crate's feature, not the core's: a workspace build turns the core's stores on for
    // every crate, while this library's store calls exist only with its own `stores`.
    cfg!(feature = "stores")
}

/// Which package the library is linked into, for the words of an error that tells how to get
/// the stores (`IDMINT_STATUS_STORES_NOT_INSTALLED`).
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nassert_ne!(idmint::IdmintPackage::C, idmint::IdmintPackage::Go);\n```"
)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdmintPackage {
    /// A C (or C++, Zig, …) program linking libidmint: the default.
    C = 0,
    /// The Go module `github.com/idmint/idmint/go`, whose stores are a build tag.
    Go = 1,
}

/// Names the package the library is linked into, for the words of its errors (the first call
/// counts; later ones change nothing). A package that wraps libidmint calls it once before
/// anything else; a C program need not call it. Takes an `IdmintPackage` value as an integer,
/// since a value outside the enum must be harmless (ignored), not undefined. Never fails.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nidmint::idmint_register_package(99); // ignored\nidmint::idmint_register_package(idmint::IdmintPackage::Go as u32);\nassert_eq!(idmint_core::addon::package(), idmint_core::addon::Package::Go);\n```"
)]
#[unsafe(no_mangle)]
pub extern "C" fn idmint_register_package(package: u32) {
    let package = match package {
        p if p == IdmintPackage::C as u32 => idmint_core::addon::Package::C,
        p if p == IdmintPackage::Go as u32 => idmint_core::addon::Package::Go,
        _ => return,
    };
    idmint_core::addon::register(package);
}

/// The core's "stores not installed" error for `what` in the words of the package linked in
/// (C unless another registered first).
// Called only where the stores are compiled out (and by the tests).
#[cfg_attr(feature = "stores", allow(dead_code))]
pub(crate) fn stores_missing(what: &str) -> crate::ffi::Failure {
    idmint_core::addon::register(idmint_core::addon::Package::C);
    idmint_core::addon::missing(what).into()
}

/// The error of a call on an object its wrapper already closed (`what`: "snowflake
/// generator", "segment client"): `IDMINT_STATUS_CLOSED` with the core's message, for a
/// package that frees a handle on close and must still answer later calls (Go's `Close`).
///
/// # Safety
///
/// `what` points to `what_len` readable bytes of UTF-8; `err` NULL or writable.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet mut err = std::ptr::null_mut();\nlet s = unsafe { idmint_closed_error(c\"segment client\".as_ptr(), 14, &mut err) };\nassert_eq!(s, IdmintStatus::Closed);\nunsafe { idmint_error_free(err) };\n```"
)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmint_closed_error(
    what: *const c_char,
    what_len: usize,
    err: *mut *mut IdmintError,
) -> IdmintStatus {
    unsafe {
        crate::ffi::run(err, || {
            let what = crate::ffi::text("what", what, what_len)?;
            Err(idmint_core::Error::Closed {
                what: what.to_string(),
            }
            .into())
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stores_missing_is_worded_for_c_unless_go_registered_first() {
        // Nothing registered in this test binary before: the C words.
        let m = super::stores_missing("idmint_segment_client_connect").to_string();
        assert!(
            m.contains("idmint_segment_client_connect") && m.contains("libidmint"),
            "{m}"
        );
    }
}

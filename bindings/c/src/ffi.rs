//! The conversion layer every exported function goes through: C arguments to Rust values (each
//! refusal a core [`Error::InvalidArgument`] naming the argument), the core's result to a
//! status and an [`IdmintError`], and a panic caught before it can cross the boundary.

use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use idmint_core::Error;

use crate::kinds::{IdmintStatus, status_of};

/// Why a call failed: the core's error, or a panic caught at the boundary (a bug in idmint,
/// reported as `IDMINT_STATUS_INTERNAL` instead of unwinding into C, which is undefined
/// behavior).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// An error of the core, with its kind.
    #[error(transparent)]
    Core(#[from] Error),
    /// A panic caught at the boundary, with its message.
    #[error("idmint panicked (a bug in idmint; please report it): {0}")]
    Panic(String),
}

impl Failure {
    fn status(&self) -> IdmintStatus {
        match self {
            Failure::Core(e) => status_of(e.kind()),
            Failure::Panic(_) => IdmintStatus::Internal,
        }
    }
}

/// A failed call's error: its status (`idmint_error_status`; `idmint_error_kind` gives its
/// kind string) and its message (`idmint_error_message`: the core's words, naming the bad value
/// and the valid range).
///
/// Made by the library when a call fails and its `err` argument is not NULL; the caller owns
/// it and frees it with `idmint_error_free`. Immutable, so it may be read from any thread.
#[cfg_attr(
    any(doc, doctest),
    doc = "\n```\nuse idmint::*;\nlet (mut layout, mut err) = (std::ptr::null_mut(), std::ptr::null_mut());\nlet spec = \"twiter\";\nlet status = unsafe { idmint_layout_new(spec.as_ptr().cast(), spec.len(), std::ptr::null(), 0, &mut layout, &mut err) };\nassert_eq!(status, IdmintStatus::InvalidLayout);\nassert_eq!(unsafe { idmint_error_status(err) }, IdmintStatus::InvalidLayout);\nunsafe { idmint_error_free(err) };\n```"
)]
pub struct IdmintError {
    status: IdmintStatus,
    /// The core error's fields by name, as text (`Error::fields`), for programs that read
    /// values instead of the message; none for a panic.
    fields: Vec<(CString, CString)>,
    /// NUL-terminated, for C's `%s`; its length is kept apart.
    message: CString,
    message_len: usize,
}

impl IdmintError {
    fn new(failure: &Failure) -> IdmintError {
        let message = failure.to_string();
        let message_len = message.len();
        IdmintError {
            status: failure.status(),
            fields: match failure {
                Failure::Core(e) => e
                    .fields()
                    .into_iter()
                    .map(|(name, value)| (c_string(name.to_string()), c_string(value)))
                    .collect(),
                Failure::Panic(_) => Vec::new(),
            },
            message: c_string(message),
            message_len,
        }
    }

    pub(crate) fn status(&self) -> IdmintStatus {
        self.status
    }

    pub(crate) fn fields(&self) -> &[(CString, CString)] {
        &self.fields
    }

    pub(crate) fn message(&self) -> (*const c_char, usize) {
        (self.message.as_ptr(), self.message_len)
    }
}

/// Text as a C string. idmint's messages and IDs hold no NUL (error messages show one as
/// `\0`); should one ever, it is dropped rather than cut the text short.
pub(crate) fn c_string(text: String) -> CString {
    CString::new(text).unwrap_or_else(|e| {
        let mut bytes = e.into_vec();
        bytes.retain(|&b| b != 0);
        CString::new(bytes).unwrap_or_default()
    })
}

/// Runs the body of an exported function: its status, and on failure an [`IdmintError`] in
/// `*err` when `err` is not NULL. A panic is caught here, never unwound into C.
///
/// # Safety
///
/// `err` is NULL or points to writable storage for one pointer.
pub(crate) unsafe fn run(
    err: *mut *mut IdmintError,
    body: impl FnOnce() -> Result<(), Failure>,
) -> IdmintStatus {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return IdmintStatus::Ok,
        Ok(Err(f)) => f,
        Err(panic) => Failure::Panic(panic_message(&*panic)),
    };
    let status = failure.status();
    if !err.is_null() {
        // Building the error allocates; a panic there (out of memory aborts instead) is
        // caught too, and the status alone is returned.
        if let Ok(e) = catch_unwind(AssertUnwindSafe(|| Box::new(IdmintError::new(&failure)))) {
            unsafe { *err = Box::into_raw(e) };
        }
    }
    status
}

/// Frees a handle made with `Box::into_raw`; NULL is allowed. Dropping runs the core's code (a
/// lease released, a buffered range given back, a high-water mark written), so a panic there
/// is caught here like any other, never unwound into C: what it could not free is leaked.
///
/// # Safety
///
/// `ptr` is NULL or a live handle of type `T` made by this library, freed only once.
pub(crate) unsafe fn free_box<T>(ptr: *mut T) {
    if !ptr.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(ptr) })));
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// The core's error for a C argument that cannot be read as given.
pub(crate) fn invalid(name: &str, value: impl Into<String>, expected: &str) -> Error {
    Error::InvalidArgument {
        name: name.to_string(),
        value: value.into(),
        expected: expected.to_string(),
    }
}

/// UTF-8 text given as pointer and length; NULL is "not given" (`None`), but only with length
/// 0: a NULL pointer with a length is a caller's mistake, refused.
///
/// # Safety
///
/// `ptr` is NULL or points to `len` readable bytes that stay unchanged during the call.
pub(crate) unsafe fn opt_text<'a>(
    name: &str,
    ptr: *const c_char,
    len: usize,
) -> Result<Option<&'a str>, Error> {
    if ptr.is_null() {
        if len != 0 {
            return Err(invalid(
                name,
                format!("NULL with length {len}"),
                "a pointer to that many bytes of UTF-8, or NULL with length 0",
            ));
        }
        return Ok(None);
    }
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map(Some).map_err(|e| {
        invalid(
            name,
            format!(
                "{len} bytes that are not UTF-8 (from byte {})",
                e.valid_up_to()
            ),
            "UTF-8 text",
        )
    })
}

/// UTF-8 text that must be given: NULL is refused, naming the argument.
///
/// # Safety
///
/// As [`opt_text`].
pub(crate) unsafe fn text<'a>(
    name: &str,
    ptr: *const c_char,
    len: usize,
) -> Result<&'a str, Error> {
    unsafe { opt_text(name, ptr, len) }?.ok_or_else(|| invalid(name, "NULL", "UTF-8 text"))
}

/// The object behind a handle; NULL is refused, naming the argument.
///
/// # Safety
///
/// `ptr` is NULL or a live handle of type `T` made by this library.
pub(crate) unsafe fn handle<'a, T>(name: &str, ptr: *const T) -> Result<&'a T, Error> {
    unsafe { ptr.as_ref() }.ok_or_else(|| invalid(name, "NULL", "a handle made by this library"))
}

/// Where a result goes; NULL is refused, naming the argument.
///
/// # Safety
///
/// `ptr` is NULL or points to writable storage for one `T`.
pub(crate) unsafe fn out<'a, T>(name: &str, ptr: *mut T) -> Result<&'a mut T, Error> {
    unsafe { ptr.as_mut() }.ok_or_else(|| invalid(name, "NULL", "a pointer to write the result to"))
}

/// A caller's buffer of `len` values; NULL is refused unless `len` is 0.
///
/// # Safety
///
/// `ptr` is NULL or points to `len` writable values of `T` that nothing else reads or writes
/// during the call.
pub(crate) unsafe fn buffer<'a, T>(
    name: &str,
    ptr: *mut T,
    len: usize,
) -> Result<&'a mut [T], Error> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(invalid(
            name,
            format!("NULL with length {len}"),
            "a buffer of that many values",
        ));
    }
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// A caller's array of `len` values to read; NULL is refused unless `len` is 0.
///
/// # Safety
///
/// `ptr` is NULL or points to `len` readable values of `T`.
pub(crate) unsafe fn array<'a, T>(name: &str, ptr: *const T, len: usize) -> Result<&'a [T], Error> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(invalid(
            name,
            format!("NULL with length {len}"),
            "an array of that many values",
        ));
    }
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Hands `text` to the caller as a NUL-terminated string it frees with `idmint_string_free`,
/// and its length (without the NUL).
pub(crate) fn give_string(text: String, ptr: &mut *mut c_char, len: &mut usize) {
    let s = c_string(text);
    *len = s.as_bytes().len();
    *ptr = s.into_raw();
}

/// The body of a getter: the value `get` reads from the handle behind `ptr` (NULL refused,
/// naming `name`), written to `*dst` (NULL refused, naming `dst_name`).
///
/// # Safety
///
/// As [`run`], [`handle`] and [`out`] for `err`, `ptr` and `dst`.
pub(crate) unsafe fn read_into<H, T>(
    err: *mut *mut IdmintError,
    name: &str,
    ptr: *const H,
    dst_name: &str,
    dst: *mut T,
    get: impl FnOnce(&H) -> Result<T, Failure>,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let h = handle(name, ptr)?;
            let slot = out(dst_name, dst)?;
            *slot = get(h)?;
            Ok(())
        })
    }
}

/// The body of a getter of text: the string `get` makes from the handle behind `ptr`, handed
/// to the caller in `*text` (to free with `idmint_string_free`) and its length in `*len`.
///
/// # Safety
///
/// As [`read_into`]; `text` and `len` writable.
pub(crate) unsafe fn read_string<H>(
    err: *mut *mut IdmintError,
    name: &str,
    ptr: *const H,
    text: *mut *mut c_char,
    len: *mut usize,
    get: impl FnOnce(&H) -> Result<String, Failure>,
) -> IdmintStatus {
    unsafe {
        run(err, || {
            let h = handle(name, ptr)?;
            let (text, len) = (out("out", text)?, out("len", len)?);
            give_string(get(h)?, text, len);
            Ok(())
        })
    }
}

/// Writes `text` into a caller's fixed-size buffer of exactly its length (no NUL).
pub(crate) fn copy_exact(
    name: &str,
    text: &[u8],
    dst: *mut c_char,
    size: usize,
) -> Result<(), Error> {
    let dst = unsafe { buffer(name, dst.cast::<u8>(), size) }?;
    if dst.len() != text.len() {
        return Err(invalid(
            name,
            format!("a buffer of {size} bytes"),
            &format!("exactly {} bytes", text.len()),
        ));
    }
    dst.copy_from_slice(text);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure_of(body: impl FnOnce() -> Result<(), Failure>) -> (IdmintStatus, String) {
        let mut err = std::ptr::null_mut();
        let status = unsafe { run(&mut err, body) };
        let e = unsafe { Box::from_raw(err) };
        (status, e.message.to_str().unwrap().to_string())
    }

    #[test]
    fn a_panic_is_an_internal_error_not_an_unwind() {
        let (status, message) = failure_of(|| panic!("boom"));
        assert_eq!(status, IdmintStatus::Internal);
        assert!(message.contains("boom"), "{message}");
    }

    #[test]
    fn core_errors_keep_their_kind_and_message() {
        let (status, message) = failure_of(|| Err(Error::UnknownTag { tag: "t".into() }.into()));
        assert_eq!(status, IdmintStatus::UnknownTag);
        assert_eq!(message, Error::UnknownTag { tag: "t".into() }.to_string());
    }

    #[test]
    fn handles_are_send_and_sync_as_the_header_promises() {
        fn shared<T: Send + Sync>() {}
        shared::<crate::IdmintSnowflake>();
        shared::<crate::IdmintLayout>();
        shared::<crate::IdmintDecoded>();
        shared::<crate::IdmintObjectIdGenerator>();
        shared::<crate::IdmintUuid7Generator>();
        shared::<crate::IdmintTypeIdGenerator>();
        shared::<crate::IdmintSegmentClient>();
        shared::<crate::IdmintTag>();
        shared::<IdmintError>();
    }

    #[test]
    fn errors_carry_the_cores_fields() {
        let mut err = std::ptr::null_mut();
        unsafe {
            run(&mut err, || {
                Err(Error::ClockMovedBackwards {
                    behind_ms: 5,
                    allowed_ms: 0,
                }
                .into())
            })
        };
        let e = unsafe { Box::from_raw(err) };
        let fields: Vec<_> = e
            .fields()
            .iter()
            .map(|(n, v)| (n.to_str().unwrap(), v.to_str().unwrap()))
            .collect();
        assert_eq!(fields, [("behind_ms", "5"), ("allowed_ms", "0")]);
    }

    #[test]
    fn a_null_err_still_returns_the_status() {
        let status = unsafe { run(std::ptr::null_mut(), || Err(Failure::Panic("x".into()))) };
        assert_eq!(status, IdmintStatus::Internal);
        assert_eq!(
            unsafe { run(std::ptr::null_mut(), || Ok(())) },
            IdmintStatus::Ok
        );
    }

    #[test]
    fn null_and_bad_utf8_name_the_argument() {
        let e = unsafe { text("layout", std::ptr::null(), 0) }.unwrap_err();
        assert_eq!(e.kind(), "invalid_argument");
        assert!(e.to_string().contains("`layout`"), "{e}");
        let e = unsafe { opt_text("epoch", std::ptr::null(), 3) }.unwrap_err();
        assert!(e.to_string().contains("NULL with length 3"), "{e}");
        let bad = [b'a', 0xff, b'b'];
        let e = unsafe { text("tag", bad.as_ptr().cast(), 3) }.unwrap_err();
        assert!(e.to_string().contains("not UTF-8 (from byte 1)"), "{e}");
        assert_eq!(unsafe { opt_text("x", std::ptr::null(), 0) }.unwrap(), None);
        let e = unsafe { handle::<u8>("generator", std::ptr::null()) }.unwrap_err();
        assert!(e.to_string().contains("`generator`"), "{e}");
        let e = unsafe { out::<u64>("out", std::ptr::null_mut()) }.unwrap_err();
        assert!(e.to_string().contains("`out`"), "{e}");
        let e = unsafe { buffer::<u64>("ids", std::ptr::null_mut(), 2) }.unwrap_err();
        assert!(e.to_string().contains("`ids`"), "{e}");
        assert!(
            unsafe { buffer::<u64>("ids", std::ptr::null_mut(), 0) }
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn strings_drop_a_stray_nul_instead_of_ending_there() {
        assert_eq!(c_string("a\0b".into()).as_bytes(), b"ab");
    }

    #[test]
    fn exact_buffers_are_checked() {
        let mut buf = [0 as c_char; 3];
        copy_exact("out", b"abc", buf.as_mut_ptr(), 3).unwrap();
        assert_eq!(buf.map(|c| c as u8), *b"abc");
        assert!(copy_exact("out", b"abcd", buf.as_mut_ptr(), 3).is_err());
    }
}

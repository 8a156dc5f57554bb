//! Core errors on their way to Java: [`FfiError`] carries the core's stable kind and message;
//! the Java facade turns the kind into its exception class.

use std::fmt;
use std::sync::Arc;

use idmint_core as core;

/// A core error on its way to Java: its stable kind and its message, both as the core gives them.
///
/// An object rather than an enum: uniffi-bindgen-java 0.3.1 writes enum errors with `switch`
/// patterns that need Java 21, while object errors compile on Java 17.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Object)]
pub struct FfiError {
    kind: String,
    message: String,
}

#[uniffi::export]
impl FfiError {
    /// [`idmint_core::Error::kind`].
    pub fn kind(&self) -> String {
        self.kind.clone()
    }

    /// The core's message (`Display`).
    pub fn message(&self) -> String {
        self.message.clone()
    }
}

impl fmt::Display for FfiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FfiError {}

pub(crate) fn ffi_error(e: core::Error) -> Arc<FfiError> {
    Arc::new(FfiError {
        kind: e.kind().to_string(),
        message: e.to_string(),
    })
}

pub(crate) type Result<T> = std::result::Result<T, Arc<FfiError>>;

/// A core result with its error made ready for Java.
pub(crate) trait IntoFfi<T> {
    fn ffi(self) -> Result<T>;
}

impl<T> IntoFfi<T> for core::Result<T> {
    fn ffi(self) -> Result<T> {
        self.map_err(ffi_error)
    }
}

/// Every error kind the core can report.
#[uniffi::export]
pub fn error_kinds() -> Vec<String> {
    core::Error::KINDS.iter().map(|s| s.to_string()).collect()
}

/// The core's `closed` error for `what` (e.g. `snowflake generator`), raised by the facade when
/// an object it closed is used again: its native half is gone, so the core cannot say it.
#[uniffi::export]
pub fn closed_error(what: String) -> Result<()> {
    Err(ffi_error(core::Error::Closed { what }))
}

//! # idmint's C ABI
//!
//! `libidmint.a` / `libidmint.so` and `include/idmint.h` (generated from this crate by
//! cbindgen): idmint-core for C and every language with a C FFI (Go through cgo, Ruby, PHP,
//! .NET, Swift, Zig). Like every binding it holds only conversion: each rule, default and error
//! message is the core's. docs/c.md is the guide; the header's comments are the reference.
//!
//! The conventions of every exported function:
//!
//! - It returns an [`IdmintStatus`]: `IDMINT_STATUS_OK` (0) or the kind of its error, one value
//!   per kind of the core's errors. Its last argument, `IdmintError **err`, may be NULL; when it
//!   is not and the call fails, `*err` receives an [`IdmintError`] (kind and message) that the
//!   caller frees with `idmint_error_free`. (The few functions that cannot fail, the `_free`
//!   functions and the accessors, say so.)
//! - Nothing unwinds into C: a panic is caught at the boundary and reported as
//!   `IDMINT_STATUS_INTERNAL`. A NULL pointer, a buffer of the wrong length or text that is not
//!   UTF-8 is `IDMINT_STATUS_INVALID_ARGUMENT` with a message naming the argument.
//! - Text goes in as UTF-8 pointer and length (no NUL needed) and comes out as pointer and
//!   length too: NUL-terminated as well, either borrowed from a handle (valid until it is
//!   freed) or owned by the caller (freed with `idmint_string_free`), as each function says.
//! - 64-bit IDs are `uint64_t`; times in unix ms are `int64_t` going in (a negative one is
//!   reported as out of range, not wrapped).
//! - Handles are opaque and thread-safe: every call on one may run on any number of threads at
//!   once, except its `_free`, which must come after all of them.
//!
//! ```
//! use idmint::*;
//! let opts = IdmintSnowflakeOptions { random_nodes: true, ..Default::default() };
//! let (mut generator, mut id) = (std::ptr::null_mut(), 0u64);
//! assert_eq!(unsafe { idmint_snowflake_new(&opts, &mut generator, std::ptr::null_mut()) }, IdmintStatus::Ok);
//! assert_eq!(unsafe { idmint_snowflake_next_id(generator, &mut id, std::ptr::null_mut()) }, IdmintStatus::Ok);
//! unsafe { idmint_snowflake_free(generator) };
//! ```

#![deny(missing_docs)]

mod errors;
mod ffi;
mod ids;
// Generated (src/kinds_gen.rs checks it): its text is the generator's, not rustfmt's.
#[rustfmt::skip]
mod kinds;
#[cfg(test)]
mod kinds_gen;
mod layout;
mod read;
mod segment;
mod snowflake;

pub use errors::*;
pub use ffi::IdmintError;
pub use ids::*;
pub use kinds::IdmintStatus;
pub use layout::*;
pub use read::*;
pub use segment::*;
pub use snowflake::*;

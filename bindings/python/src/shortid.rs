//! `idmint.encode`, `idmint.decode` and `idmint.ENCODINGS`: short strings of 64-bit IDs.

use pyo3::prelude::*;

use idmint_core::{Encoding, Error};

use crate::convert::u64_or_digits;
use crate::errors::{to_py, IntoPy};

/// The encoding named by `encoding`, read by the core (`invalid_argument` for other names).
fn encoding_arg(encoding: &str) -> PyResult<Encoding> {
    encoding.parse().py()
}

/// `id` (an int in `0..=2^64-1`) as a short string: `"base62"` (default), `"base62-fixed"`,
/// `"base32"` or `"base32-fixed"` (Crockford).
#[pyfunction]
#[pyo3(signature = (id, encoding = "base62"))]
pub fn encode(id: &Bound<'_, PyAny>, encoding: &str) -> PyResult<String> {
    let encoding = encoding_arg(encoding)?;
    match u64_or_digits("id", id)? {
        Ok(v) => Ok(encoding.encode(v)),
        // The core's encode takes every u64, so it has no error for the values around it; this
        // is the message the CLI gives for the same input.
        Err(digits) => Err(to_py(Error::InvalidId {
            id: digits,
            reason: "short strings encode IDs in 0..=18446744073709551615 (2^64-1)".into(),
        })),
    }
}

/// The ID that `text` encodes, read strictly by the core (`InvalidEncoding` otherwise).
#[pyfunction]
#[pyo3(signature = (text, encoding = "base62"))]
pub fn decode(text: &str, encoding: &str) -> PyResult<u64> {
    encoding_arg(encoding)?.decode(text).py()
}

/// The encoding names, in the core's order.
pub fn names() -> Vec<&'static str> {
    Encoding::ALL.iter().map(|e| e.name()).collect()
}

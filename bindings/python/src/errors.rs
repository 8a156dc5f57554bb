//! Core errors to Python exceptions, and argument errors raised by the conversions.
//!
//! The exception classes live in Python (`idmint/_errors.py`, one class per core error kind,
//! several also subclassing `ValueError` and friends), so the hierarchy is plain, documented
//! Python. Here a core error is looked up by [`idmint_core::Error::kind`] in that module's
//! `BY_KIND` table; a kind the table does not know yet (a newer core) raises the base
//! `idmint.Error` with its `.kind` set, so nothing is ever lost or turned into a panic.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

use idmint_core::Error;

static BY_KIND: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
static BASE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn build(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let table = BY_KIND.import(py, "idmint._errors", "BY_KIND")?;
    let message = e.to_string();
    let exc = match table.get_item(e.kind())? {
        Some(cls) => cls.call1((message,))?,
        None => {
            let base = BASE.import(py, "idmint._errors", "Error")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("kind", e.kind())?;
            base.call((message,), Some(&kwargs))?
        }
    };
    Ok(PyErr::from_value(exc))
}

/// The Python exception for a core error.
pub fn to_py(e: Error) -> PyErr {
    Python::attach(|py| match build(py, &e) {
        Ok(err) => err,
        // Only if the package is broken (idmint._errors missing); still an exception, not a panic.
        Err(_) => PyValueError::new_err(format!("{} [{}]", e, e.kind())),
    })
}

/// Extension to turn a core `Result` into a `PyResult`.
pub trait IntoPy<T> {
    /// Map the error to its exception.
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A core `InvalidArgument` for an argument the conversion itself rejects by value (a naive
/// datetime, a negative count), so it reaches Python as `idmint.InvalidArgument`, a `ValueError`.
pub fn invalid_argument(name: &str, value: impl Into<String>, expected: &str) -> PyErr {
    to_py(Error::InvalidArgument {
        name: name.to_string(),
        value: value.into(),
        expected: expected.to_string(),
    })
}

/// A `TypeError` naming the argument, what it accepts and the type it got.
pub fn wrong_type(name: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let ty = got
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_string());
    PyTypeError::new_err(format!("{name} must be {expected}, not {ty}"))
}

//! Core errors to Python exceptions, and argument errors raised by the conversions.
//!
//! The exception classes live in Python (`idmint/_errors.py`), built from the core's table of
//! kinds that [`table`] exports: one class per kind, named after the variant, subclassing
//! `ValueError`, `RuntimeError`, `ConnectionError` or `LookupError` by the kind's family. Here a
//! core error is looked up by [`idmint_core::Error::kind`] in that module's `BY_KIND` table; a kind the table does not know yet (a newer core) raises the base
//! `idmint.Error` with its `.kind` set, so nothing is ever lost or turned into a panic.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

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

/// The core's table of error kinds as `(kind, name, family, description)` tuples, e.g.
/// `("lease_lost", "LeaseLost", "state", "A generator's worker lease ...")`.
pub fn table(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    let rows = Error::TABLE
        .iter()
        .map(|k| (k.kind, k.name, k.family.as_str(), k.description()));
    PyTuple::new(py, rows)
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

//! `with` and `async with` for the classes that hold a lease or a store's connections
//! (`Snowflake`, `SegmentClient`, `RedisSnowflake`), written once: each class writes its own
//! `close()` (and `close_async()`), and this adds `__enter__`/`__exit__` (and
//! `__aenter__`/`__aexit__`) that close on the way out and never swallow the exception.
//!
//! A macro around the class's whole `#[pymethods]` block, because pyo3 takes one such block per
//! class (a second needs its `multiple-pymethods` feature and the `inventory` crate) and
//! expands no macro inside one.

/// `#[pymethods] impl $class { ...methods... }` with the context-manager methods added:
/// `closing!(Class, { methods })` for `with`, `closing!(Class, async, { methods })` for
/// `async with` too (`close_async` must then be one of the methods).
macro_rules! closing {
    ($class:ident, async, { $($methods:tt)* }) => {
        $crate::closing::closing!($class, {
            $($methods)*

            fn __aenter__<'py>(
                slf: &::pyo3::Bound<'py, Self>,
            ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::PyAny>> {
                $crate::aio::ready(slf.py(), Ok(slf.clone()))
            }

            #[pyo3(signature = (*_exc))]
            fn __aexit__<'py>(
                slf: &::pyo3::Bound<'py, Self>,
                _exc: &::pyo3::Bound<'py, ::pyo3::types::PyTuple>,
            ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::PyAny>> {
                Self::close_async(slf)
            }
        });
    };
    ($class:ident, { $($methods:tt)* }) => {
        #[::pyo3::pymethods]
        impl $class {
            $($methods)*

            fn __enter__(slf: ::pyo3::Py<Self>) -> ::pyo3::Py<Self> {
                slf
            }

            /// Closes; the exception, if any, goes on (False).
            #[pyo3(signature = (*_exc))]
            fn __exit__(
                &self,
                py: ::pyo3::Python<'_>,
                _exc: &::pyo3::Bound<'_, ::pyo3::types::PyTuple>,
            ) -> bool {
                self.close(py);
                false
            }
        }
    };
}

pub(crate) use closing;

//! `idmint.uuid7`, `idmint.parse_uuid7`, `idmint.Uuid7` and `idmint.Uuid7Generator`.

use std::sync::OnceLock;

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyType};

use idmint_core as core;
use idmint_core::{AnyClock, MAX_TIME_MS};

use crate::convert::{datetime_from_ms, fit, int_value};
use crate::errors::{invalid_argument, to_py, wrong_type, IntoPy};
use crate::snowflake::clock_arg;

static UUID: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A core UUIDv7 as a stdlib `uuid.UUID`.
fn to_uuid<'py>(py: Python<'py>, u: &core::Uuid7) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("int", u.as_u128())?;
    UUID.import(py, "uuid", "UUID")?.call((), Some(&kwargs))
}

fn is_uuid(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(UUID.import(obj.py(), "uuid", "UUID")?)
}

/// Read a UUIDv7 from a str (hyphenated, 32 hex digits, or its 26-character ULID, told apart
/// by length as the CLI does), a `uuid.UUID`, 16 bytes or a `Uuid7`; the core checks it.
fn from_any(value: &Bound<'_, PyAny>) -> PyResult<core::Uuid7> {
    if let Ok(s) = value.cast::<PyString>() {
        let s = s.to_str()?;
        return if s.len() == 26 {
            core::Uuid7::parse_ulid(s)
        } else {
            core::Uuid7::parse_str(s)
        }
        .py();
    }
    if let Ok(u) = value.cast::<Uuid7>() {
        return Ok(u.get().inner);
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        let bytes: [u8; 16] = b.as_bytes().try_into().map_err(|_| {
            invalid_argument(
                "value",
                format!("{} bytes", b.as_bytes().len()),
                "exactly 16 bytes (a UUID, big-endian)",
            )
        })?;
        return core::Uuid7::from_bytes(bytes).py();
    }
    if is_uuid(value)? {
        return core::Uuid7::from_u128(value.getattr("int")?.extract()?).py();
    }
    Err(wrong_type(
        "value",
        "a str (UUID or ULID text), a uuid.UUID, 16 bytes or an idmint.Uuid7",
        value,
    ))
}

/// A version-7 UUID taken apart: its time, counter and random bits, and its ULID text.
/// Immutable, hashable, ordered by value (time first); equal to the `uuid.UUID` of the same value.
#[pyclass(frozen, module = "idmint", name = "Uuid7")]
pub struct Uuid7 {
    inner: core::Uuid7,
}

#[pymethods]
impl Uuid7 {
    /// Read a UUIDv7: a str (hyphenated, 32 hex digits or the 26-character ULID text), a
    /// `uuid.UUID`, 16 bytes or a `Uuid7`.
    #[new]
    fn new(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Uuid7 {
            inner: from_any(value)?,
        })
    }

    /// Put a UUIDv7 together: unix ms below 2^48, `rand_a` below 2^12, `rand_b` below 2^62.
    #[staticmethod]
    fn from_parts(
        unix_ms: &Bound<'_, PyAny>,
        rand_a: &Bound<'_, PyAny>,
        rand_b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        // Values beyond the core's integer types are passed as their type's largest value,
        // which the core refuses as out of range; the error then shows the value as given.
        let (ms, ms_given) = fit("unix_ms", unix_ms, u64::MAX)?;
        let (a, a_given) = fit("rand_a", rand_a, u16::MAX)?;
        let (b, b_given) = fit("rand_b", rand_b, u64::MAX)?;
        let inner = core::Uuid7::from_parts(ms, a, b).map_err(|e| match e {
            core::Error::ValueOutOfRange { field, value, max } => {
                let given = match field.as_str() {
                    "unix_ts_ms" => ms_given,
                    "rand_a" => a_given,
                    "rand_b" => b_given,
                    _ => None,
                };
                core::Error::ValueOutOfRange {
                    field,
                    value: given.unwrap_or(value),
                    max,
                }
            }
            other => other,
        });
        Ok(Uuid7 { inner: inner.py()? })
    }

    /// The same value as a stdlib `uuid.UUID`.
    #[getter]
    fn uuid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_uuid(py, &self.inner)
    }

    /// The timestamp, unix milliseconds.
    #[getter]
    fn time_ms(&self) -> u64 {
        self.inner.time_ms()
    }

    /// The timestamp as an aware UTC datetime (capped at the end of year 9999, as the core's
    /// RFC 3339 text is; a UUIDv7 runs to the year 10889).
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        datetime_from_ms(py, self.inner.time_ms().min(MAX_TIME_MS))
    }

    /// The 12 bits after the version: the counter, for UUIDs from a `Uuid7Generator`.
    #[getter]
    fn rand_a(&self) -> u16 {
        self.inner.rand_a()
    }

    /// The 62 bits after the variant.
    #[getter]
    fn rand_b(&self) -> u64 {
        self.inner.rand_b()
    }

    /// The ULID text of the same 128 bits: 26 Crockford base32 characters.
    #[getter]
    fn ulid(&self) -> String {
        self.inner.to_ulid()
    }

    /// The 128-bit value.
    #[getter]
    fn int(&self) -> u128 {
        self.inner.as_u128()
    }

    /// The 16 bytes, big-endian.
    #[getter]
    fn bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.bytes(py)
    }

    fn __int__(&self) -> u128 {
        self.inner.as_u128()
    }

    /// Lowercase, hyphenated.
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Uuid7('{}')", self.inner)
    }

    /// Ordered by value against `Uuid7` and `uuid.UUID`.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let theirs: u128 = if let Ok(o) = other.cast::<Uuid7>() {
            o.get().inner.as_u128()
        } else if is_uuid(other)? {
            other.getattr("int")?.extract()?
        } else {
            return Ok(py.NotImplemented());
        };
        Ok(op
            .matches(self.inner.as_u128().cmp(&theirs))
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind())
    }

    /// The hash of `uuid.UUID` (that of its int), so the two find each other in dicts and sets.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.inner.as_u128().into_pyobject(py)?.hash()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (String,)) {
        (slf.get_type(), (slf.get().inner.to_string(),))
    }

    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'py, PyAny>) -> PyRef<'py, Self> {
        slf
    }
}

/// Take a UUIDv7 apart: a str (hyphenated, 32 hex digits or its ULID), a `uuid.UUID` or 16
/// bytes; `InvalidUuid` for anything that is not a version-7 UUID.
#[pyfunction]
pub fn parse_uuid7(value: &Bound<'_, PyAny>) -> PyResult<Uuid7> {
    Ok(Uuid7 {
        inner: from_any(value)?,
    })
}

/// The process's generator behind `idmint.uuid7()`, so its UUIDs increase across calls and
/// threads.
fn process_generator() -> &'static core::Uuid7Generator {
    static GEN: OnceLock<core::Uuid7Generator> = OnceLock::new();
    GEN.get_or_init(core::Uuid7Generator::new)
}

/// A new UUIDv7 as a stdlib `uuid.UUID`, from one generator per process: strictly increasing.
#[pyfunction]
pub fn uuid7(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_uuid(py, &process_generator().next_uuid().py()?)
}

/// A UUIDv7 generator of its own (RFC 9562 §6.2 method 1: a 12-bit counter in `rand_a`):
/// lock-free, strictly increasing across threads, on a chosen clock.
#[pyclass(frozen, module = "idmint", name = "Uuid7Generator")]
pub struct Uuid7Generator {
    gen: core::Uuid7Generator<AnyClock>,
}

#[pymethods]
impl Uuid7Generator {
    #[new]
    #[pyo3(signature = (*, clock = None))]
    fn new(clock: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Uuid7Generator {
            gen: core::Uuid7Generator::with_clock(clock_arg(clock)?),
        })
    }

    /// The next UUID, a stdlib `uuid.UUID`.
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let u = self.gen.next_uuid().py()?;
        to_uuid(py, &u)
    }

    /// The next UUID as its 26-character ULID text.
    fn next_ulid(&self) -> PyResult<String> {
        Ok(self.gen.next_uuid().py()?.to_ulid())
    }

    /// The next UUID taken apart (`Uuid7`: time, counter, ULID).
    fn next_uuid7(&self) -> PyResult<Uuid7> {
        Ok(Uuid7 {
            inner: self.gen.next_uuid().py()?,
        })
    }

    /// `n` increasing UUIDs (`uuid.UUID`), minted with the GIL released.
    fn next_uuids<'py>(
        &self,
        py: Python<'py>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let count = core::args::count("n", int_value("n", n)?).py()?;
        let uuids = py.detach(|| self.gen.next_uuids(count)).map_err(to_py)?;
        let list = PyList::empty(py);
        for u in &uuids {
            list.append(to_uuid(py, u)?)?;
        }
        Ok(list)
    }

    /// `"monotonic"`, `"wall"` or `"manual"`.
    #[getter]
    fn clock(&self) -> &'static str {
        self.gen.clock().name()
    }

    fn __repr__(&self) -> String {
        format!("Uuid7Generator(clock={:?})", self.clock())
    }
}

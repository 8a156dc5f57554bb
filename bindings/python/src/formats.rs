//! `idmint.Decoded`, what `idmint.parse` and `idmint.guess` return: an ID of any format the
//! core reads ([`idmint_core::formats`]), its time and its named parts.

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyString, PyType};

use idmint_core::formats::{self, PartValue};

use crate::convert::{int_value, u64_or_digits};
use crate::errors::{wrong_type, IntoPy};

static TIMEDELTA: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static UNIX_EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// An aware UTC `datetime` for unix milliseconds of either sign (a UUIDv1 may be before 1970).
fn datetime_from_signed_ms(py: Python<'_>, ms: i64) -> PyResult<Bound<'_, PyAny>> {
    let epoch = UNIX_EPOCH.get_or_try_init(py, || {
        let m = py.import("datetime")?;
        let utc = m.getattr("timezone")?.getattr("utc")?;
        Ok::<_, PyErr>(
            m.getattr("datetime")?
                .call1((1970, 1, 1, 0, 0, 0, 0, utc))?
                .unbind(),
        )
    })?;
    let delta = TIMEDELTA.import(py, "datetime", "timedelta")?.call1((
        0,
        ms.div_euclid(1000),
        ms.rem_euclid(1000) * 1000,
    ))?;
    epoch.bind(py).add(delta)
}

/// A part's value as a Python object: `int` for numbers, `str` for hex bytes and names.
fn part_object<'py>(py: Python<'py>, v: &PartValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        PartValue::Int(n) => n.into_pyobject(py)?.into_any(),
        PartValue::Text(t) => PyString::new(py, t).into_any(),
    })
}

/// An ID taken apart by `idmint.parse`: its format, canonical text, time and named parts.
/// Immutable; each part is an attribute too (`d.worker`, `d.sequence`, `d.random`).
#[pyclass(frozen, module = "idmint", name = "Decoded")]
pub struct Decoded {
    inner: formats::Decoded,
}

impl From<formats::Decoded> for Decoded {
    fn from(inner: formats::Decoded) -> Self {
        Decoded { inner }
    }
}

#[pymethods]
impl Decoded {
    /// The format's name: `snowflake`, `integer`, `objectid`, `uuid`, `ulid`, `ksuid`, `xid`
    /// or `tsid`.
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format.name()
    }

    /// The ID in its canonical text.
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// The ID as an `int`, for the formats that are a 64-bit integer (snowflake, integer,
    /// tsid); else None.
    #[getter]
    fn value(&self) -> Option<u64> {
        self.inner.value
    }

    /// The time the ID carries, unix milliseconds (floored), or None.
    #[getter]
    fn timestamp_ms(&self) -> Option<i64> {
        self.inner.time_ms
    }

    /// That time as an aware UTC datetime (to the millisecond), or None without a time or
    /// outside the years 1 to 9999.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match (self.inner.time_ms, &self.inner.time) {
            (Some(ms), Some(_)) => datetime_from_signed_ms(py, ms).map(Some),
            _ => Ok(None),
        }
    }

    /// The time as RFC 3339 UTC at the format's precision (seconds, ms or 100 ns), or None.
    #[getter]
    fn time_text(&self) -> Option<&str> {
        self.inner.time.as_deref()
    }

    /// The layout a snowflake was read with (its preset name or spec); None for other formats.
    #[getter]
    fn layout(&self) -> Option<&str> {
        self.inner.layout.as_deref()
    }

    /// The named parts, most significant first: `int`s, or `str`s for hex bytes and names.
    #[getter]
    fn parts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, v) in &self.inner.parts {
            d.set_item(n, part_object(py, v)?)?;
        }
        Ok(d)
    }

    /// A snowflake's node fields, name -> value in layout order (its parts but the sequence), as
    /// `Parts.fields` has them; empty for the other formats.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        if self.inner.format == formats::Format::Snowflake {
            for (n, v) in &self.inner.parts {
                if let (PartValue::Int(i), false) = (v, n == "sequence") {
                    d.set_item(n, i)?;
                }
            }
        }
        Ok(d)
    }

    /// Everything as a dict: `format`, `id`, `value`, `time`, `timestamp_ms`, `time_text`,
    /// `layout`, then each part.
    fn asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("format", self.format())?;
        d.set_item("id", &self.inner.id)?;
        d.set_item("value", self.inner.value)?;
        d.set_item("time", self.time(py)?)?;
        d.set_item("timestamp_ms", self.inner.time_ms)?;
        d.set_item("time_text", self.time_text())?;
        d.set_item("layout", self.layout())?;
        for (n, v) in &self.inner.parts {
            d.set_item(n, part_object(py, v)?)?;
        }
        Ok(d)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.part(name) {
            Some(v) => part_object(py, v),
            None => Err(PyAttributeError::new_err(format!(
                "'Decoded' ({}) has no part '{name}'",
                self.inner.format
            ))),
        }
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let same = other
            .cast::<Decoded>()
            .ok()
            .map(|o| self.inner == o.get().inner);
        crate::convert::eq_only(other.py(), same, op)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.format.hash(&mut h);
        self.inner.id.hash(&mut h);
        self.inner.layout.hash(&mut h);
        h.finish()
    }

    fn __str__(&self) -> &str {
        &self.inner.id
    }

    fn __repr__(&self) -> String {
        let mut s = format!(
            "Decoded(format='{}', id='{}'",
            self.inner.format, self.inner.id
        );
        if let Some(t) = &self.inner.time {
            s.push_str(&format!(", time='{t}'"));
        }
        for (n, v) in &self.inner.parts {
            match v {
                PartValue::Int(i) => s.push_str(&format!(", {n}={i}")),
                PartValue::Text(t) => s.push_str(&format!(", {n}='{t}'")),
            }
        }
        if let Some(l) = &self.inner.layout {
            s.push_str(&format!(", layout='{l}'"));
        }
        s.push(')');
        s
    }
}

/// An ID argument as the text the core reads: a `str` as given, an `int` (or integer-like) as
/// its exact decimal digits, whatever its size or sign (the core says what is wrong with it).
pub fn id_text(id: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = id.cast::<PyString>() {
        return Ok(s.to_str()?.to_string());
    }
    if id.is_instance_of::<PyInt>() && !id.is_instance_of::<PyBool>() {
        if let Ok(v) = id.extract::<u64>() {
            return Ok(v.to_string());
        }
    }
    int_value("id", id).map_err(|_| wrong_type("id", "a str or an int", id))?;
    Ok(match u64_or_digits("id", id)? {
        Ok(v) => v.to_string(),
        Err(digits) => digits,
    })
}

/// What each preset layout makes of a 64-bit ID (an `int` or decimal `str`, up to 2^64-1): one
/// `Decoded` per preset that can hold it (`idmint_core::formats::guess`).
#[pyfunction]
pub fn guess(id: &Bound<'_, PyAny>) -> PyResult<Vec<Decoded>> {
    let value = idmint_core::layout::parse_u64(&id_text(id)?).py()?;
    Ok(formats::guess(value)
        .into_iter()
        .map(Decoded::from)
        .collect())
}

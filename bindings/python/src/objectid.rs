//! `idmint.ObjectId` and `idmint.ObjectIdGenerator`.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyString, PyType};

use idmint_core as core;
use idmint_core::AnyClock;

use crate::convert::{datetime_from_ms, int_value, time_value};
use crate::errors::{to_py, wrong_type, IntoPy};
use crate::snowflake::clock_arg;

const COUNTER_MAX: u64 = 0xFF_FFFF;

/// A MongoDB-compatible 12-byte ObjectId. Immutable, hashable, ordered by its bytes.
#[pyclass(frozen, module = "idmint", name = "ObjectId")]
pub struct ObjectId {
    inner: core::ObjectId,
}

/// Read an ObjectId from a str (24 hex), 12 bytes, an idmint ObjectId or anything with a
/// 12-byte `.binary` (pymongo's `bson.ObjectId`).
fn from_any(o: &Bound<'_, PyAny>) -> PyResult<core::ObjectId> {
    if let Ok(s) = o.cast::<PyString>() {
        return core::ObjectId::parse_str(&s.to_cow()?).py();
    }
    if let Ok(oid) = o.cast::<ObjectId>() {
        return Ok(oid.get().inner);
    }
    if let Ok(b) = o.cast::<PyBytes>() {
        return core::ObjectId::from_slice(b.as_bytes()).py();
    }
    if let Ok(b) = o.cast::<PyByteArray>() {
        return core::ObjectId::from_slice(&b.to_vec()).py();
    }
    if let Some(b) = binary_of(o) {
        return core::ObjectId::from_slice(&b).py();
    }
    Err(wrong_type(
        "oid",
        "None, a 24-character hex str, 12 bytes or an ObjectId",
        o,
    ))
}

/// The 12 bytes of a foreign ObjectId (pymongo's `bson.ObjectId` has `.binary`).
fn binary_of(o: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    let b = o.getattr("binary").ok()?;
    let b = b.cast::<PyBytes>().ok()?;
    (b.as_bytes().len() == 12).then(|| b.as_bytes().to_vec())
}

fn seconds_arg(name: &str, v: i128) -> PyResult<u32> {
    u32::try_from(v).map_err(|_| {
        to_py(core::Error::ValueOutOfRange {
            field: name.to_string(),
            value: v,
            max: u32::MAX as u64,
        })
    })
}

fn counter_arg(name: &str, o: &Bound<'_, PyAny>) -> PyResult<u32> {
    let v = int_value(name, o)?;
    if !(0..=COUNTER_MAX as i128).contains(&v) {
        return Err(to_py(core::Error::ValueOutOfRange {
            field: name.to_string(),
            value: v,
            max: COUNTER_MAX,
        }));
    }
    Ok(v as u32)
}

fn random_arg(o: &Bound<'_, PyAny>) -> PyResult<[u8; 5]> {
    let b = o
        .cast::<PyBytes>()
        .map_err(|_| wrong_type("random", "5 bytes", o))?;
    core::ObjectId::random_value(b.as_bytes()).py()
}

static BSON_OBJECTID: PyOnceLock<Py<PyType>> = PyOnceLock::new();

#[pymethods]
impl ObjectId {
    /// A new ObjectId, or one read from `oid`.
    #[new]
    #[pyo3(signature = (oid = None))]
    #[inline]
    fn new(oid: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let inner = match oid {
            None => core::ObjectId::new(),
            Some(o) if o.is_none() => core::ObjectId::new(),
            Some(o) => from_any(o)?,
        };
        Ok(ObjectId { inner })
    }

    /// Read 24 hex characters (either case).
    #[staticmethod]
    fn from_hex(hex: &str) -> PyResult<Self> {
        Ok(ObjectId {
            inner: core::ObjectId::parse_str(hex).py()?,
        })
    }

    /// The ObjectId in 12 bytes.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Ok(ObjectId {
            inner: core::ObjectId::from_slice(data).py()?,
        })
    }

    /// Put an ObjectId together: unix seconds, 5 random bytes, a counter below 2^24.
    #[staticmethod]
    fn from_parts(
        timestamp: &Bound<'_, PyAny>,
        random: &Bound<'_, PyAny>,
        counter: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let secs = seconds_arg("timestamp", int_value("timestamp", timestamp)?)?;
        let random = random_arg(random)?;
        let counter = counter_arg("counter", counter)?;
        Ok(ObjectId {
            inner: core::ObjectId::from_parts(secs, random, counter).py()?,
        })
    }

    /// The smallest ObjectId of a second (random and counter zero), for range queries, as
    /// pymongo's `ObjectId.from_datetime`. `time`: aware datetime, unix ms, or RFC 3339 str.
    #[staticmethod]
    fn from_datetime(time: &Bound<'_, PyAny>) -> PyResult<Self> {
        let ms = time_value("time", time)?;
        let secs = seconds_arg("timestamp", ms.div_euclid(1000))?;
        Ok(ObjectId {
            inner: core::ObjectId::from_parts(secs, [0; 5], 0).py()?,
        })
    }

    /// Whether `oid` is a valid ObjectId (24 hex characters, 12 bytes, or an ObjectId).
    #[staticmethod]
    fn is_valid(oid: &Bound<'_, PyAny>) -> bool {
        from_any(oid).is_ok()
    }

    /// Unix seconds when it was made (bytes 0-3).
    #[getter]
    fn timestamp(&self) -> u32 {
        self.inner.timestamp()
    }

    /// When it was made, an aware UTC datetime (whole seconds).
    #[getter]
    fn generation_time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        datetime_from_ms(py, self.inner.timestamp() as u64 * 1000)
    }

    /// The 5-byte per-process random value (bytes 4-8).
    #[getter]
    fn random<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.random())
    }

    /// The 3-byte counter (bytes 9-11).
    #[getter]
    fn counter(&self) -> u32 {
        self.inner.counter()
    }

    /// The 12 bytes (pymongo's name).
    #[getter]
    fn binary<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.bytes())
    }

    /// 24 lowercase hex characters, as `str(oid)`.
    #[getter]
    fn hex<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        self.__str__(py)
    }

    /// This ObjectId as pymongo's `bson.ObjectId` (needs pymongo installed).
    fn to_bson<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        BSON_OBJECTID
            .import(py, "bson.objectid", "ObjectId")?
            .call1((PyBytes::new(py, &self.inner.bytes()),))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.bytes())
    }

    fn __str__<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        let hex = self.inner.to_hex_bytes();
        // Hex digits are ASCII, so this never fails.
        PyString::new(py, std::str::from_utf8(&hex).unwrap_or_default())
    }

    fn __repr__(&self) -> String {
        format!("ObjectId('{}')", self.inner)
    }

    /// Ordered by bytes (time first), as MongoDB orders them; compares with pymongo's
    /// `bson.ObjectId` too.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let theirs = if let Ok(o) = other.cast::<ObjectId>() {
            o.get().inner.bytes()
        } else if let Some(b) = binary_of(other) {
            b.try_into().unwrap_or([0; 12])
        } else {
            return Ok(py.NotImplemented());
        };
        let ord = self.inner.bytes().cmp(&theirs);
        Ok(op
            .matches(ord)
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind())
    }

    /// The hash of its 12 bytes, the same as pymongo's `bson.ObjectId`, so the two can be
    /// looked up interchangeably in dicts and sets.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyBytes::new(py, &self.inner.bytes()).hash()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, (Bound<'py, PyString>,))> {
        Ok((slf.get_type(), (slf.get().__str__(slf.py()),)))
    }

    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'py, PyAny>) -> PyRef<'py, Self> {
        slf
    }
}

/// An ObjectId generator of its own: a chosen clock, a fixed random value or counter start.
/// `ObjectId()` uses one per process.
#[pyclass(frozen, module = "idmint", name = "ObjectIdGenerator")]
pub struct ObjectIdGenerator {
    gen: core::ObjectIdGenerator<AnyClock>,
}

#[pymethods]
impl ObjectIdGenerator {
    #[new]
    #[pyo3(signature = (*, clock = None, random = None, counter_start = None))]
    fn new(
        clock: Option<&Bound<'_, PyAny>>,
        random: Option<&Bound<'_, PyAny>>,
        counter_start: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let random = random.map(random_arg).transpose()?;
        let counter = counter_start
            .map(|c| counter_arg("counter_start", c))
            .transpose()?;
        Ok(ObjectIdGenerator {
            gen: core::ObjectIdGenerator::with_clock(clock_arg(clock)?, random, counter),
        })
    }

    /// The next ObjectId; waits for the next second once this second's 2^24 are used.
    fn next_id(&self) -> ObjectId {
        ObjectId {
            inner: self.gen.next_id(),
        }
    }

    /// How many times a caller waited for the next second.
    #[getter]
    fn waits(&self) -> u64 {
        self.gen.waits()
    }

    /// The 5-byte random value in use.
    #[getter]
    fn random<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.gen.random())
    }

    fn __repr__(&self) -> String {
        let r = self.gen.random();
        let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
        format!("ObjectIdGenerator(random={hex})")
    }
}

//! `idmint.plan`, `idmint.check_migration` (the core's layout planner and migration check),
//! `idmint.TypeId` and `idmint.TypeIdGenerator` (the core's TypeIDs). Conversion only.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyType};

use idmint_core as core;
use idmint_core::plan::{Need, Width};
use idmint_core::{AnyClock, Clock, MAX_TIME_MS};

use crate::convert::{any_u64, datetime_from_ms, int_value, time_value};
use crate::errors::{wrong_type, IntoPy};
use crate::layout::layout_arg;
use crate::snowflake::clock_arg;

/// A whole-number argument of the planner, as `u64` (the core checks its range; a value beyond
/// `u64` arrives as its largest, which the core refuses naming the range).
fn whole(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    let v = int_value(name, obj)?;
    Ok(v.clamp(0, i128::from(u64::MAX)) as u64)
}

/// A layout the planner chose, with its cap and its end.
#[pyclass(frozen, module = "idmint", name = "PlannedLayout")]
pub struct PlannedLayout {
    inner: core::plan::Planned,
}

#[pymethods]
impl PlannedLayout {
    /// The layout's spec (`idmint.Layout(spec)` reads it).
    #[getter]
    fn spec(&self) -> &str {
        &self.inner.spec
    }
    /// The layout itself.
    #[getter]
    fn layout(&self) -> PyResult<crate::layout::Layout> {
        Ok(crate::layout::Layout {
            inner: core::Layout::parse(&self.inner.spec).py()?,
        })
    }
    /// The tick of its time field, ms.
    #[getter]
    fn tick_ms(&self) -> u64 {
        self.inner.tick_ms
    }
    /// Bits of time.
    #[getter]
    fn time_bits(&self) -> u32 {
        self.inner.time_bits
    }
    /// Bits of the node field `worker` (0: none).
    #[getter]
    fn node_bits(&self) -> u32 {
        self.inner.node_bits
    }
    /// Bits of sequence.
    #[getter]
    fn sequence_bits(&self) -> u32 {
        self.inner.sequence_bits
    }
    /// Nodes it tells apart.
    #[getter]
    fn nodes(&self) -> u64 {
        self.inner.nodes
    }
    /// IDs a second one node can mint.
    #[getter]
    fn cap_per_second(&self) -> u64 {
        self.inner.cap_per_second
    }
    /// The first instant its time field cannot hold, unix ms.
    #[getter]
    fn end_ms(&self) -> u64 {
        self.inner.end_ms
    }
    /// The same as an aware UTC datetime (capped at the end of year 9999).
    #[getter]
    fn end<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        datetime_from_ms(py, self.inner.end_ms.min(MAX_TIME_MS))
    }
    /// The same as RFC 3339 text.
    #[getter]
    fn end_text(&self) -> &str {
        &self.inner.end
    }
    /// The first instant its IDs can pass 2^53 (unix ms); None when they never do.
    #[getter]
    fn beyond_2_53_ms(&self) -> Option<u64> {
        self.inner.beyond_2_53_ms
    }
    /// The same as an aware UTC datetime, or None.
    #[getter]
    fn beyond_2_53<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .beyond_2_53_ms
            .map(|ms| datetime_from_ms(py, ms.min(MAX_TIME_MS)))
            .transpose()
    }
    fn __repr__(&self) -> String {
        format!(
            "PlannedLayout('{}', cap_per_second={}, end='{}')",
            self.inner.spec, self.inner.cap_per_second, self.inner.end
        )
    }
}

/// The layouts that meet a need (finest tick first): `nodes` nodes minting `rate` IDs a second
/// each (an int, or text such as `"4M/s"`) for `years` years from `start` (default today,
/// 00:00 UTC) in `width` bits (`"bigint"`: 63, `"unsigned"`: 64, `"js-safe"`: 53). A need no
/// layout meets is `InvalidArgument` naming the arithmetic.
#[pyfunction]
#[pyo3(signature = (nodes, rate, years, *, start = None, width = "bigint"))]
pub fn plan(
    nodes: &Bound<'_, PyAny>,
    rate: &Bound<'_, PyAny>,
    years: &Bound<'_, PyAny>,
    start: Option<&Bound<'_, PyAny>>,
    width: &str,
) -> PyResult<Vec<PlannedLayout>> {
    let rate = match rate.cast::<PyString>() {
        Ok(s) => core::plan::parse_rate(s.to_str()?).py()?,
        Err(_) => whole("rate", rate)?,
    };
    let start = start
        .map(|s| core::parse_time_ms("start", &time_value("start", s)?.to_string()).py())
        .transpose()?;
    let mut need = Need::new(whole("nodes", nodes)?, rate, whole("years", years)?)
        .py()?
        .start_or_today(start, core::WallClock.now_ms());
    need = need.width(width.parse::<Width>().py()?);
    Ok(core::plan::plan(&need)
        .py()?
        .into_iter()
        .map(|inner| PlannedLayout { inner })
        .collect())
}

/// The answer of `check_migration`.
#[pyclass(frozen, module = "idmint", name = "Migration")]
pub struct Migration {
    inner: core::plan::Migration,
}

#[pymethods]
impl Migration {
    /// Whether every ID the new layout mints from the switch on is above `old_max`.
    #[getter]
    fn safe(&self) -> bool {
        self.inner.safe
    }
    /// The switch, unix ms.
    #[getter]
    fn switch_ms(&self) -> u64 {
        self.inner.switch_ms
    }
    /// The largest ID of the old layout: the one given, or the largest it can have minted.
    #[getter]
    fn old_max(&self) -> u64 {
        self.inner.old_max
    }
    /// The smallest ID the new layout can mint at the switch.
    #[getter]
    fn new_first(&self) -> u64 {
        self.inner.new_first
    }
    /// From when the switch is safe (unix ms); None when the new layout never passes `old_max`.
    #[getter]
    fn safe_from_ms(&self) -> Option<u64> {
        self.inner.safe_from_ms
    }
    /// The same as an aware UTC datetime, or None.
    #[getter]
    fn safe_from<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .safe_from_ms
            .map(|ms| datetime_from_ms(py, ms))
            .transpose()
    }
    fn __bool__(&self) -> bool {
        self.inner.safe
    }
    fn __repr__(&self) -> String {
        format!(
            "Migration(safe={}, old_max={}, new_first={}, safe_from={:?})",
            if self.inner.safe { "True" } else { "False" },
            self.inner.old_max,
            self.inner.new_first,
            self.inner.safe_from
        )
    }
}

/// Whether switching from layout `old` to layout `new` at `at` (default now) keeps IDs unique
/// and ordered: every ID `new` mints from then on above `above` (the largest ID in the table;
/// default the largest `old` can have minted before the switch). The answer names from when
/// it is safe; a generator of `new` with `start_above=above` starts then.
#[pyfunction]
#[pyo3(signature = (old, new, *, above = None, at = None))]
pub fn check_migration(
    old: &Bound<'_, PyAny>,
    new: &Bound<'_, PyAny>,
    above: Option<&Bound<'_, PyAny>>,
    at: Option<&Bound<'_, PyAny>>,
) -> PyResult<Migration> {
    let from = layout_arg(Some(old), None)?;
    let to = layout_arg(Some(new), None)?;
    let above = above.map(|a| any_u64("above", a)).transpose()?;
    let at = match at {
        Some(t) => core::parse_time_ms("at", &time_value("at", t)?.to_string()).py()?,
        None => core::WallClock.now_ms(),
    };
    Ok(Migration {
        inner: core::plan::check_migration(&from, &to, above, at).py()?,
    })
}

/// A TypeID: a type prefix and a UUID, `user_01h455vb4pex5vsknk084sn02q`. Immutable,
/// hashable, ordered (prefix, then UUID); `str()` is its text.
#[pyclass(frozen, module = "idmint", name = "TypeId")]
pub struct TypeId {
    inner: core::typeid::TypeId,
}

#[pymethods]
impl TypeId {
    /// Read a TypeID's text; `InvalidId` for anything the TypeID spec refuses.
    #[new]
    fn new(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let s = text
            .cast::<PyString>()
            .map_err(|_| wrong_type("text", "a str (TypeID text)", text))?;
        Ok(TypeId {
            inner: core::typeid::TypeId::parse(s.to_str()?).py()?,
        })
    }

    /// A TypeID of `prefix` and `uuid` (a `uuid.UUID`, its text or its int).
    #[classmethod]
    fn from_uuid(
        _cls: &Bound<'_, PyType>,
        prefix: &str,
        uuid: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let value: u128 = if let Ok(s) = uuid.cast::<PyString>() {
            // Any version: a TypeID holds any UUID.
            core::uuid7::uuid_value(s.to_str()?).py()?
        } else if let Ok(int) = uuid.getattr("int") {
            int.extract()?
        } else {
            uuid.extract().map_err(|_| {
                wrong_type("uuid", "a uuid.UUID, its text or an int below 2^128", uuid)
            })?
        };
        Ok(TypeId {
            inner: core::typeid::TypeId::new(prefix, value).py()?,
        })
    }

    /// The type prefix (`""` for none).
    #[getter]
    fn prefix(&self) -> &str {
        self.inner.prefix()
    }
    /// The 26-character suffix.
    #[getter]
    fn suffix(&self) -> String {
        self.inner.suffix()
    }
    /// The UUID as a stdlib `uuid.UUID`.
    #[getter]
    fn uuid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("int", self.inner.uuid_value())?;
        py.import("uuid")?.getattr("UUID")?.call((), Some(&kwargs))
    }
    /// The time of a UUIDv7 inside, as an aware UTC datetime; None for another UUID version.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match core::Uuid7::from_u128(self.inner.uuid_value()) {
            Ok(u) => Ok(Some(datetime_from_ms(py, u.time_ms().min(MAX_TIME_MS))?)),
            Err(_) => Ok(None),
        }
    }
    fn __str__(&self) -> String {
        self.inner.to_string()
    }
    fn __repr__(&self) -> String {
        format!("TypeId('{}')", self.inner)
    }
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(o) = other.cast::<TypeId>() else {
            return Ok(py.NotImplemented());
        };
        Ok(op
            .matches(self.inner.cmp(&o.get().inner))
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind())
    }
    fn __hash__(&self) -> isize {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.hash(&mut h);
        h.finish() as isize
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (String,)) {
        (slf.get_type(), (slf.get().inner.to_string(),))
    }
}

/// Mints TypeIDs of one prefix from UUIDv7s: strictly increasing across threads.
#[pyclass(frozen, module = "idmint", name = "TypeIdGenerator")]
pub struct TypeIdGenerator {
    gen: core::typeid::TypeIdGenerator<AnyClock>,
}

#[pymethods]
impl TypeIdGenerator {
    /// A generator of `prefix` (0 to 63 of a-z and _, not first or last; `""` for none).
    #[new]
    #[pyo3(signature = (prefix, *, clock = None))]
    fn new(prefix: &str, clock: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(TypeIdGenerator {
            gen: core::typeid::TypeIdGenerator::with_clock(prefix, clock_arg(clock)?).py()?,
        })
    }
    /// The next TypeID's text.
    fn next(&self) -> PyResult<String> {
        Ok(self.gen.next_id().py()?.to_string())
    }
    /// The next TypeID.
    fn next_typeid(&self) -> PyResult<TypeId> {
        Ok(TypeId {
            inner: self.gen.next_id().py()?,
        })
    }
    /// `n` increasing TypeIDs' texts.
    fn next_ids<'py>(
        &self,
        py: Python<'py>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let count = core::args::count("n", int_value("n", n)?).py()?;
        let list = PyList::empty(py);
        for _ in 0..count {
            list.append(self.gen.next_id().py()?.to_string())?;
        }
        Ok(list)
    }
    /// The prefix.
    #[getter]
    fn prefix(&self) -> &str {
        self.gen.prefix()
    }
    fn __repr__(&self) -> String {
        format!("TypeIdGenerator('{}')", self.gen.prefix())
    }
}

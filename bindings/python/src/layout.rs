//! `idmint.Layout`, `idmint.Field` and `idmint.Parts`.

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};

use std::sync::{Arc, Mutex, OnceLock};

use idmint_core as core;
use idmint_core::FieldKind;

use crate::convert::{self, datetime_from_ms, epoch_text, int_value, time_value};
use crate::errors::{wrong_type, IntoPy};
use crate::formats::{id_text, Decoded};
use idmint_core::formats;

/// A snowflake bit layout: a time field, node fields, a sequence and an epoch.
#[pyclass(frozen, module = "idmint", name = "Layout")]
pub struct Layout {
    pub inner: core::Layout,
}

/// Read a layout argument: a preset name or spec (`str`), or a `Layout`; `epoch` overrides
/// the layout's epoch.
pub fn layout_arg(
    layout: Option<&Bound<'_, PyAny>>,
    epoch: Option<&Bound<'_, PyAny>>,
) -> PyResult<core::Layout> {
    let epoch = epoch.map(epoch_text).transpose()?;
    match layout {
        None => core::Layout::parse_with_epoch(core::Layout::DEFAULT_PRESET, epoch.as_deref()).py(),
        Some(l) => {
            if let Ok(s) = l.cast::<PyString>() {
                core::Layout::parse_with_epoch(s.to_str()?, epoch.as_deref()).py()
            } else if let Ok(l) = l.cast::<Layout>() {
                let inner = &l.get().inner;
                match epoch {
                    None => Ok(inner.clone()),
                    Some(e) => inner
                        .with_epoch_ms(core::parse_time_ms("epoch", &e).py()?)
                        .py(),
                }
            } else {
                Err(wrong_type(
                    "layout",
                    "a preset name, a layout spec (str) or an idmint.Layout",
                    l,
                ))
            }
        }
    }
}

/// Compose from Python arguments: `time`, `sequence` and node fields from `fields` (a dict of
/// name -> int), with `defaults` for the node fields not given.
pub fn compose(
    layout: &core::Layout,
    time: &Bound<'_, PyAny>,
    sequence: &Bound<'_, PyAny>,
    fields: Option<&Bound<'_, PyDict>>,
    defaults: &[(String, u64)],
) -> PyResult<u64> {
    let time_ms = time_value("time", time)?;
    let sequence = int_value("sequence", sequence)?;
    let mut nodes: Vec<(String, i128)> = Vec::new();
    if let Some(fields) = fields {
        for (k, v) in fields.iter() {
            let name: String = k.extract()?;
            let value = int_value(&name, &v)?;
            nodes.push((name, value));
        }
    }
    for (name, v) in defaults {
        if !nodes.iter().any(|(n, _)| n == name) {
            nodes.push((name.clone(), *v as i128));
        }
    }
    layout
        .compose_values(
            time_ms,
            nodes.iter().map(|(n, v)| (n.as_str(), *v)),
            sequence,
        )
        .py()
}

#[pymethods]
impl Layout {
    #[new]
    #[pyo3(signature = (spec = None, *, epoch = None))]
    fn new(spec: Option<&Bound<'_, PyAny>>, epoch: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Layout {
            inner: layout_arg(spec, epoch)?,
        })
    }

    /// The canonical spec, even for a preset.
    #[getter]
    fn spec(&self) -> String {
        self.inner.spec()
    }

    /// The preset name if this layout is an unchanged preset, else None.
    #[getter]
    fn preset(&self) -> Option<&'static str> {
        self.inner.preset_name()
    }

    #[getter]
    fn time_bits(&self) -> u32 {
        self.inner.time_bits()
    }

    #[getter]
    fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }

    #[getter]
    fn epoch_ms(&self) -> u64 {
        self.inner.epoch_ms()
    }

    /// The epoch as an aware UTC datetime.
    #[getter]
    fn epoch<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        datetime_from_ms(py, self.inner.epoch_ms())
    }

    #[getter]
    fn total_bits(&self) -> u32 {
        self.inner.total_bits()
    }

    #[getter]
    fn max_id(&self) -> u64 {
        self.inner.max_id()
    }

    /// Whether IDs may use all 64 bits (the spec's `unsigned`): read as unsigned values, up to
    /// 2^64-1, and minted only by `Snowflake(..., unsigned=True)`.
    #[getter]
    fn unsigned(&self) -> bool {
        self.inner.is_unsigned()
    }

    /// The fields below the time field, most significant first.
    #[getter]
    fn fields(&self) -> Vec<Field> {
        self.inner
            .fields()
            .iter()
            .map(|f| Field {
                name: f.name().to_string(),
                bits: f.bits(),
                shift: f.shift(),
                kind: match f.kind() {
                    FieldKind::Node => "node",
                    FieldKind::Sequence => "sequence",
                },
                max: f.max(),
            })
            .collect()
    }

    /// The node field names, most significant first.
    #[getter]
    fn node_fields(&self) -> Vec<String> {
        self.inner
            .node_fields()
            .map(|f| f.name().to_string())
            .collect()
    }

    #[getter]
    fn ids_per_second_cap(&self) -> f64 {
        self.inner.ids_per_second_cap()
    }

    #[getter]
    fn exhausts_at_ms(&self) -> u64 {
        self.inner.exhausts_at_ms()
    }

    /// The first instant the time field cannot hold, as an aware UTC datetime (capped at the
    /// end of year 9999, the latest instant idmint represents).
    #[getter]
    fn exhausts_at<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        datetime_from_ms(py, self.inner.exhausts_at_ms().min(core::MAX_TIME_MS))
    }

    /// The same layout from another epoch.
    fn with_epoch(&self, epoch: &Bound<'_, PyAny>) -> PyResult<Layout> {
        let ms = core::parse_time_ms("epoch", &epoch_text(epoch)?).py()?;
        Ok(Layout {
            inner: self.inner.with_epoch_ms(ms).py()?,
        })
    }

    /// Split an ID (int or decimal str) into its parts.
    fn decompose(&self, id: &Bound<'_, PyAny>) -> PyResult<Parts> {
        Ok(Parts::from(convert::decompose(&self.inner, id)?))
    }

    /// Put an ID together: `time` (unix ms, RFC 3339 str or aware datetime), every node field
    /// by name, and `sequence`.
    #[pyo3(signature = (time, *, sequence = None, fields = None, **kwargs))]
    fn compose(
        &self,
        py: Python<'_>,
        time: &Bound<'_, PyAny>,
        sequence: Option<&Bound<'_, PyAny>>,
        fields: Option<&Bound<'_, PyDict>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<u64> {
        let all = merge(py, fields, kwargs)?;
        let zero = 0i32.into_pyobject(py)?.into_any();
        compose(
            &self.inner,
            time,
            sequence.unwrap_or(&zero),
            all.as_ref(),
            &[],
        )
    }

    /// The smallest ID of the tick holding `time` (unix ms, RFC 3339 str or aware datetime):
    /// with `max_id_at`, the bounds of a time-range query on an ID column.
    fn min_id_at(&self, time: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.inner.min_id_at(time_value("time", time)?).py()
    }

    /// The largest ID of the tick holding `time`; see `min_id_at`.
    fn max_id_at(&self, time: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.inner.max_id_at(time_value("time", time)?).py()
    }

    fn __str__(&self) -> String {
        self.inner.spec()
    }

    fn __repr__(&self) -> String {
        match self.inner.preset_name() {
            Some(p) => format!("Layout({p:?})"),
            None => format!("Layout({:?})", self.inner.spec()),
        }
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let same = other
            .cast::<Layout>()
            .ok()
            .map(|o| self.inner.spec() == o.get().inner.spec());
        crate::convert::eq_only(other.py(), same, op)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.spec().hash(&mut h);
        h.finish()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (String,)) {
        let inner = &slf.get().inner;
        let spec = inner
            .preset_name()
            .map(str::to_string)
            .unwrap_or_else(|| inner.spec());
        (slf.get_type(), (spec,))
    }
}

/// Merge an explicit `fields` mapping with keyword node fields (keywords win).
pub fn merge<'py>(
    py: Python<'py>,
    fields: Option<&Bound<'py, PyDict>>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    match (fields, kwargs) {
        (None, None) => Ok(None),
        (Some(f), None) => Ok(Some(f.clone())),
        (None, Some(k)) => Ok(Some(k.clone())),
        (Some(f), Some(k)) => {
            let d = PyDict::new(py);
            d.update(f.as_mapping())?;
            d.update(k.as_mapping())?;
            Ok(Some(d))
        }
    }
}

/// One field of a layout below the time field.
#[pyclass(frozen, module = "idmint", name = "Field")]
pub struct Field {
    #[pyo3(get)]
    name: String,
    #[pyo3(get)]
    bits: u32,
    #[pyo3(get)]
    shift: u32,
    /// `"node"` or `"sequence"`.
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    max: u64,
}

#[pymethods]
impl Field {
    fn __repr__(&self) -> String {
        format!(
            "Field(name={:?}, bits={}, shift={}, kind={:?}, max={})",
            self.name, self.bits, self.shift, self.kind, self.max
        )
    }
}

/// The decomposition of an ID: its time, each node field by name, its sequence. Immutable.
#[pyclass(frozen, module = "idmint", name = "Parts")]
pub struct Parts {
    inner: core::Parts,
}

impl From<core::Parts> for Parts {
    fn from(inner: core::Parts) -> Self {
        Parts { inner }
    }
}

#[pymethods]
impl Parts {
    /// The start of the ID's tick, unix milliseconds.
    #[getter]
    fn timestamp_ms(&self) -> u64 {
        self.inner.time_ms
    }

    /// The start of the ID's tick as an aware UTC datetime.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        datetime_from_ms(py, self.inner.time_ms)
    }

    #[getter]
    fn sequence(&self) -> u64 {
        self.inner.sequence
    }

    /// The node fields, name -> value, in layout order.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, v) in &self.inner.nodes {
            d.set_item(n, v)?;
        }
        Ok(d)
    }

    /// Everything as a dict: `time`, `timestamp_ms`, each node field, `sequence`.
    fn asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("time", self.time(py)?)?;
        d.set_item("timestamp_ms", self.inner.time_ms)?;
        for (n, v) in &self.inner.nodes {
            d.set_item(n, v)?;
        }
        d.set_item("sequence", self.inner.sequence)?;
        Ok(d)
    }

    fn __getattr__(&self, name: &str) -> PyResult<u64> {
        self.inner
            .node(name)
            .ok_or_else(|| PyAttributeError::new_err(format!("'Parts' has no field '{name}'")))
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let same = other
            .cast::<Parts>()
            .ok()
            .map(|o| self.inner == o.get().inner);
        crate::convert::eq_only(other.py(), same, op)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        let mut s = format!("Parts(time='{}'", self.inner.time());
        for (n, v) in &self.inner.nodes {
            s.push_str(&format!(", {n}={v}"));
        }
        s.push_str(&format!(", sequence={})", self.inner.sequence));
        s
    }
}

/// Layouts read from text by `parse`, so a spec is read once, not per ID.
fn cached_layout(spec: &str) -> PyResult<Arc<core::Layout>> {
    static PRESETS: OnceLock<Vec<Arc<core::Layout>>> = OnceLock::new();
    static SPECS: Mutex<Vec<(String, Arc<core::Layout>)>> = Mutex::new(Vec::new());
    const MAX_SPECS: usize = 64;
    let presets = PRESETS.get_or_init(|| {
        core::PRESETS
            .iter()
            .chain(core::UNSIGNED_PRESETS)
            .filter_map(|p| core::Layout::preset(p).ok().map(Arc::new))
            .collect()
    });
    if let Some(l) = presets.iter().find(|l| l.preset_name() == Some(spec)) {
        return Ok(l.clone());
    }
    let mut specs = SPECS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, l)) = specs.iter().find(|(s, _)| s == spec) {
        return Ok(l.clone());
    }
    let layout = Arc::new(core::Layout::parse(spec).py()?);
    if specs.len() >= MAX_SPECS {
        specs.remove(0);
    }
    specs.push((spec.to_string(), layout.clone()));
    Ok(layout)
}

/// Recognise and take apart an ID of any format the core reads (`idmint_core::formats`): an
/// `int` or decimal `str` is a snowflake of `layout` (a preset name, a spec or a `Layout`;
/// `epoch` overriding its epoch), or without one a 64-bit integer; other text is an ObjectId,
/// UUID, ULID, KSUID, xid or TSID. `format` (a format's name) reads the text as that format
/// only, for text another format would claim (a TSID of digits only).
#[pyfunction]
#[pyo3(signature = (id, layout = None, *, epoch = None, format = None))]
pub fn parse(
    id: &Bound<'_, PyAny>,
    layout: Option<&Bound<'_, PyAny>>,
    epoch: Option<&Bound<'_, PyAny>>,
    format: Option<&str>,
) -> PyResult<Decoded> {
    let text = id_text(id)?;
    let owned;
    let cached;
    let layout: Option<&core::Layout> = match (layout, epoch) {
        (None, None) => None,
        (Some(l), None) if l.is_instance_of::<PyString>() => {
            cached = cached_layout(l.cast::<PyString>()?.to_str()?)?;
            Some(&*cached)
        }
        (Some(l), None) if l.is_instance_of::<Layout>() => Some(&l.cast::<Layout>()?.get().inner),
        (l, e) => {
            owned = layout_arg(l, e)?;
            Some(&owned)
        }
    };
    let decoded = match format {
        None => formats::decode(&text, layout),
        Some(f) => formats::decode_as(&text, f.parse().py()?, layout),
    };
    decoded.py().map(Decoded::from)
}

//! `idmint.metric_definitions()`, `idmint.health()` and the values of the `observe()` methods
//! and `observe_all()` (observe.rs): the core's metrics (`idmint_core::metrics`) and health rule
//! (`idmint_core::health`) as Python values. `idmint/otel.py` builds one OpenTelemetry
//! instrument per definition and reads `observe_all` in its callbacks, so no metric name, unit,
//! value or health rule is written in Python.
//!
//! A leaf: the generators' and clients' modules use it (`Source`, `observed`), never the
//! reverse.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use idmint_core::health::{self as core_health, LeaseHealth, TagHealth};
use idmint_core::metrics::{Observation, METRICS};

use crate::errors::{wrong_type, IntoPy};

/// A definition as Python sees it: `(name, instrument, unit, description, attributes)`.
type Definition = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Vec<&'static str>,
);

/// An observation as Python sees it: `(metric, value, {attribute: value})`.
pub type Observed = (&'static str, f64, BTreeMap<&'static str, String>);

/// What reports metrics: a generator or a client.
pub trait Source {
    /// The core's observations of it now.
    fn observations(&self) -> Vec<Observation>;
}

/// Every metric the idmint packages publish, in the order of `docs/metrics.md`, as
/// `(name, instrument, unit, description, attributes)` tuples; `instrument` is `"counter"` or
/// `"gauge"`.
#[pyfunction]
pub fn metric_definitions() -> Vec<Definition> {
    METRICS
        .iter()
        .map(|m| {
            (
                m.name,
                m.instrument.as_str(),
                m.unit,
                m.description,
                m.attributes.to_vec(),
            )
        })
        .collect()
}

/// The core's observations as `(metric, value, attributes)` tuples.
pub fn observed(all: Vec<Observation>) -> Vec<Observed> {
    all.into_iter()
        .map(|o| (o.metric, o.value, o.attributes.into_iter().collect()))
        .collect()
}

/// One `(metric, value, attributes)` tuple read back as the core's observation
/// (`Observation::parse` checks it).
fn observation(item: &Bound<'_, PyAny>) -> PyResult<Observation> {
    let expected = "(metric, value, {attribute: value}) tuples";
    let shape = || wrong_type("observations", expected, item);
    let t = item.cast::<PyTuple>().map_err(|_| shape())?;
    let (metric, value, attributes): (String, f64, BTreeMap<String, String>) =
        t.extract().map_err(|_| shape())?;
    Observation::parse(&metric, value, attributes).py()
}

/// The health of the generators and clients whose observations these are (`observe()`,
/// `observe_all()`, or the same tuples from elsewhere), by the core's rule: down while a
/// snowflake lease is not held, or while a tag has no IDs buffered and failed store calls;
/// degraded while a layout has less than a year left.
#[pyfunction]
pub fn health(observations: &Bound<'_, PyAny>) -> PyResult<Health> {
    let mut all = Vec::new();
    for item in observations.try_iter()? {
        all.push(observation(&item?)?);
    }
    Ok(Health {
        h: core_health::health(all),
    })
}

/// The core's health of a process's generators (`idmint_core::health::Health`).
#[pyclass(frozen, module = "idmint", name = "Health")]
pub struct Health {
    h: core_health::Health,
}

fn lease_dict<'py>(py: Python<'py>, l: &LeaseHealth) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("held", l.held)?;
    d.set_item("fence_s", l.fence_s)?;
    d.set_item("renew_failures", l.renew_failures)?;
    Ok(d)
}

fn tag_dict<'py>(py: Python<'py>, t: &TagHealth) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("tag", &t.tag)?;
    d.set_item("remaining", t.remaining)?;
    d.set_item("store_errors", t.store_errors)?;
    d.set_item("starved", t.starved)?;
    Ok(d)
}

#[pymethods]
impl Health {
    /// `"up"`, `"degraded"` (a layout within a year of its end; still true) or `"down"`.
    #[getter]
    fn status(&self) -> &'static str {
        self.h.status.as_str()
    }

    /// Why it is not up, one sentence per cause (empty when up).
    #[getter]
    fn reasons(&self) -> Vec<String> {
        self.h.reasons.clone()
    }

    /// The snowflake lease (`held`, `fence_s`, `renew_failures`), or None without one.
    #[getter]
    fn lease<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.h.lease.as_ref().map(|l| lease_dict(py, l)).transpose()
    }

    /// Each segment tag (`tag`, `remaining`, `store_errors`, `starved`), in the order observed.
    #[getter]
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let tags = self
            .h
            .tags
            .iter()
            .map(|t| tag_dict(py, t))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, tags)
    }

    /// True when up or degraded: the generators hand out IDs.
    fn __bool__(&self) -> bool {
        self.h.is_up()
    }

    /// `{"status", "reasons", "lease", "tags"}`, ready for JSON.
    fn asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("status", self.status())?;
        d.set_item("reasons", self.reasons())?;
        d.set_item("lease", self.lease(py)?)?;
        d.set_item("tags", self.tags(py)?)?;
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let reasons = PyList::new(py, &self.h.reasons)?.repr()?;
        Ok(format!(
            "Health(status='{}', reasons={reasons})",
            self.status()
        ))
    }
}

//! `idmint.metric_definitions()`, `idmint.observe_all()` and the `observe()` methods: the
//! core's metrics (`idmint_core::metrics`) as Python values. `idmint/otel.py` builds one
//! OpenTelemetry instrument per definition and reads `observe_all` in its callbacks, so no
//! metric name, unit or value is written in Python.

use std::collections::BTreeMap;

use pyo3::prelude::*;

use idmint_core::metrics::{merge, Observation, METRICS};

use crate::segment::SegmentClient;
use crate::snowflake::Snowflake;

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

/// The observations of every `Snowflake` and `SegmentClient` in `sources`, combined by the
/// core's `merge` (one value per metric and attribute set: counts added, gauges by each
/// metric's rule), as `(metric, value, attributes)` tuples. A closed generator adds nothing.
#[pyfunction]
pub fn observe_all(sources: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Observed>> {
    let mut all = Vec::new();
    for s in &sources {
        if let Ok(g) = s.cast::<Snowflake>() {
            all.extend(g.get().observations());
        } else if let Ok(c) = s.cast::<SegmentClient>() {
            all.extend(c.get().observations());
        } else {
            return Err(crate::errors::wrong_type(
                "sources",
                "idmint.Snowflake or idmint.SegmentClient items",
                s,
            ));
        }
    }
    Ok(observed(merge(all)))
}

/// The core's observations as `(metric, value, attributes)` tuples.
pub fn observed(all: Vec<Observation>) -> Vec<Observed> {
    all.into_iter()
        .map(|o| (o.metric, o.value, o.attributes.into_iter().collect()))
        .collect()
}

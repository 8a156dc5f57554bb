//! `idmint.observe_all()`: the observations of several generators and clients, combined by the
//! core's `merge`. Here rather than in metrics.rs so that metrics.rs stays a leaf that the
//! generators' and clients' modules use.

use pyo3::prelude::*;

use idmint_core::metrics::merge;

use crate::metrics::{observed, Observed, Source};
#[cfg(feature = "stores")]
use crate::segment::SegmentClient;
use crate::snowflake::Snowflake;

/// The observations of every `Snowflake` and `SegmentClient` in `sources`, combined by the
/// core's `merge` (one value per metric and attribute set: counts added, gauges by each
/// metric's rule), as `(metric, value, attributes)` tuples. A closed generator adds nothing.
#[pyfunction]
pub fn observe_all(sources: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Observed>> {
    let mut all = Vec::new();
    for s in &sources {
        if let Ok(g) = s.cast::<Snowflake>() {
            all.extend(g.get().observations());
            continue;
        }
        #[cfg(feature = "stores")]
        if let Ok(c) = s.cast::<SegmentClient>() {
            all.extend(c.get().observations());
            continue;
        }
        return Err(crate::errors::wrong_type(
            "sources",
            "idmint.Snowflake or idmint.SegmentClient items",
            s,
        ));
    }
    Ok(observed(merge(all)))
}

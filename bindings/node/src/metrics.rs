//! The metrics of [`idmint_core::metrics`] for the Node package: the definitions, each
//! generator's and client's observations, and the core's [`merge`] of them. Conversion only:
//! `node/metrics.js` registers one OpenTelemetry instrument per definition and hands it these
//! values; no name, unit or value is made on the JS side.

use std::collections::HashMap;

use idmint_core::metrics::{self, merge, Observation, METRICS};
use napi_derive::napi;

use crate::segment::NativeSegmentClient;
use crate::{invalid_argument, NativeSnowflake, Result};

/// One entry of [`METRICS`], as OpenTelemetry's instrument options take it.
#[napi(object, object_from_js = false)]
pub struct MetricDefinition {
    /// The OpenTelemetry name (`idmint.ids.issued`).
    pub name: String,
    /// `counter` or `gauge`.
    pub instrument: String,
    /// The UCUM unit.
    pub unit: String,
    /// What it counts.
    pub description: String,
    /// The attributes its values carry.
    pub attributes: Vec<String>,
}

/// One value of one metric, with its attributes as an object (`{ kind, tag }`).
#[napi(object)]
pub struct ObservationJs {
    /// A name of [`METRICS`].
    pub metric: String,
    /// The value (a count, seconds, or 0/1; counts stay far below 2^53).
    pub value: f64,
    /// Attribute name to value.
    pub attributes: HashMap<String, String>,
}

fn to_js(o: Observation) -> ObservationJs {
    ObservationJs {
        metric: o.metric.to_string(),
        value: o.value,
        attributes: o
            .attributes
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

/// An observation back from JS, its attributes in the order the metric declares them (so equal
/// sets compare equal in [`merge`]).
fn from_js(o: ObservationJs) -> Result<Observation> {
    let Some(m) = metrics::metric(&o.metric) else {
        return Err(invalid_argument(
            "metric",
            o.metric,
            "a metric of idmint_core::metrics::METRICS",
        ));
    };
    if let Some(name) = o
        .attributes
        .keys()
        .find(|k| !m.attributes.contains(&k.as_str()))
    {
        return Err(invalid_argument(
            "attributes",
            name.clone(),
            &format!("an attribute of {}: {}", m.name, m.attributes.join(", ")),
        ));
    }
    let mut attributes = Vec::new();
    for name in m.attributes {
        if let Some(v) = o.attributes.get(*name) {
            attributes.push((*name, v.clone()));
        }
    }
    Ok(Observation {
        metric: m.name,
        value: o.value,
        attributes,
    })
}

/// Every metric idmint publishes ([`METRICS`]), in the order `docs/metrics.md` lists them.
#[napi(catch_unwind)]
pub fn metric_definitions() -> Vec<MetricDefinition> {
    METRICS
        .iter()
        .map(|m| MetricDefinition {
            name: m.name.to_string(),
            instrument: m.instrument.as_str().to_string(),
            unit: m.unit.to_string(),
            description: m.description.to_string(),
            attributes: m.attributes.iter().map(|a| a.to_string()).collect(),
        })
        .collect()
}

/// The observations of several generators and clients as the values to publish: one per
/// metric and attribute set ([`merge`]: counts added up, gauges by their rule).
#[napi(catch_unwind)]
pub fn merge_observations(observations: Vec<ObservationJs>) -> Result<Vec<ObservationJs>> {
    let parsed = observations
        .into_iter()
        .map(from_js)
        .collect::<Result<Vec<_>>>()?;
    Ok(merge(parsed).into_iter().map(to_js).collect())
}

#[napi]
impl NativeSnowflake {
    /// The generator's values now ([`metrics::observe_snowflake`]); none once it is closed.
    #[napi(catch_unwind)]
    pub fn observe(&self) -> Vec<ObservationJs> {
        match self.get() {
            Ok(g) => metrics::observe_snowflake(&g)
                .into_iter()
                .map(to_js)
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

#[napi]
impl NativeSegmentClient {
    /// The client's values now, per tag it has served ([`metrics::observe_segments`]).
    #[napi(catch_unwind)]
    pub fn observe(&self) -> Vec<ObservationJs> {
        metrics::observe_segments(self.inner())
            .into_iter()
            .map(to_js)
            .collect()
    }
}

//! The metrics of [`idmint_core::metrics`] for the Node package: the definitions, each
//! generator's and client's observations, the core's [`merge`] of them and their
//! [`health`](health::health). Conversion only:
//! `node/metrics.js` registers one OpenTelemetry instrument per definition and hands it these
//! values; no name, unit or value is made on the JS side.

use std::collections::HashMap;

use idmint_core::health;
use idmint_core::metrics::{self, merge, Observation, METRICS};
use napi_derive::napi;

#[cfg(feature = "stores")]
use crate::segment::NativeSegmentClient;
use crate::{js_err, NativeSnowflake, Result};

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

/// An observation back from JS, checked and put in the core's form by
/// [`Observation::parse`] (its attributes in the order the metric declares them, so equal sets
/// compare equal in [`merge`]).
fn from_js(o: ObservationJs) -> Result<Observation> {
    Observation::parse(&o.metric, o.value, o.attributes).map_err(js_err)
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

/// The snowflake lease in a health answer ([`health::LeaseHealth`]).
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct LeaseHealthJs {
    /// True while the lease is held.
    pub held: bool,
    /// The lease's fence, unix seconds; null when not observed.
    pub fence_s: Option<f64>,
    /// Renewals that failed so far; null when not observed.
    pub renew_failures: Option<f64>,
}

/// One tag in a health answer ([`health::TagHealth`]).
#[napi(object, object_from_js = false)]
pub struct TagHealthJs {
    /// The tag.
    pub tag: String,
    /// IDs buffered in memory.
    pub remaining: f64,
    /// Failed store calls.
    pub store_errors: f64,
    /// Nothing buffered and store calls failed: this tag makes the health down.
    pub starved: bool,
}

/// The core's health of a process's generators ([`health::Health`]).
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct HealthJs {
    /// `up`, `degraded` (a layout within a year of its end) or `down`.
    pub status: String,
    /// Why it is down, one sentence per cause.
    pub reasons: Vec<String>,
    /// The snowflake lease; null without one.
    pub lease: Option<LeaseHealthJs>,
    /// Each segment tag, in the order observed.
    pub tags: Vec<TagHealthJs>,
}

/// The health of the generators and clients whose observations these are, by the core's rule
/// ([`health::health`]). Counts fit a JS number: they stay far below 2^53.
#[napi(catch_unwind)]
pub fn health(observations: Vec<ObservationJs>) -> Result<HealthJs> {
    let parsed = observations
        .into_iter()
        .map(from_js)
        .collect::<Result<Vec<_>>>()?;
    let h = health::health(parsed);
    Ok(HealthJs {
        status: h.status.as_str().to_string(),
        reasons: h.reasons,
        lease: h.lease.map(|l| LeaseHealthJs {
            held: l.held,
            fence_s: l.fence_s,
            renew_failures: l.renew_failures.map(|n| n as f64),
        }),
        tags: h
            .tags
            .into_iter()
            .map(|t| TagHealthJs {
                tag: t.tag,
                remaining: t.remaining as f64,
                store_errors: t.store_errors as f64,
                starved: t.starved,
            })
            .collect(),
    })
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

#[cfg(feature = "stores")]
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

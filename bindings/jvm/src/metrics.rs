//! The metrics every package publishes ([`idmint_core::metrics`]), carried to the JVM: the
//! table of definitions, and the values of a [`Snowflake`] or a [`SegmentClient`] at one
//! moment, and the core's health of such values ([`health`]). Conversion only: the names, instruments, units, meanings and values are the core's;
//! the Spring Boot starter (`java-spring/`) turns each definition into a Micrometer meter that
//! reads these values when it is scraped.

use idmint_core::health as core_health;
use idmint_core::metrics as core_metrics;

use crate::errors::{IntoFfi, Result};
use crate::segment::SegmentClient;
use crate::snowflake::Snowflake;

/// One metric as the core defines it ([`idmint_core::metrics::Metric`]).
///
/// ```
/// let defs = idmint_jvm::metric_definitions();
/// let issued = defs.iter().find(|d| d.name == "idmint.ids.issued").unwrap();
/// assert_eq!((issued.instrument.as_str(), issued.unit.as_str()), ("counter", "{id}"));
/// assert_eq!(issued.attributes, ["kind", "tag"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct MetricDefinition {
    /// The OpenTelemetry name (`idmint.ids.issued`).
    pub name: String,
    /// `counter` or `gauge`.
    pub instrument: String,
    /// The UCUM unit (`s`, `{id}`, `1`).
    pub unit: String,
    /// What it counts, one sentence.
    pub description: String,
    /// The attributes its values carry.
    pub attributes: Vec<String>,
}

/// One attribute of an [`Observation`]: name and value.
///
/// ```
/// let a = idmint_jvm::MetricAttribute { name: "tag".into(), value: "orders".into() };
/// assert_eq!(a.name, "tag");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct MetricAttribute {
    /// The attribute's name, one of [`MetricDefinition::attributes`].
    pub name: String,
    /// Its value.
    pub value: String,
}

/// One metric's value now ([`idmint_core::metrics::Observation`]).
///
/// ```
/// let g = idmint_jvm::Snowflake::new(
///     idmint_jvm::Layout::parse("sonyflake".into(), None)?,
///     vec![idmint_jvm::NodeValue { name: "machine".into(), value: 9 }],
///     false, None, None, None, None, None, None, None, false,
/// )?;
/// g.next_ids(2)?;
/// let issued = g.observe().into_iter().find(|o| o.metric == "idmint.ids.issued").unwrap();
/// assert_eq!(issued.value, 2.0);
/// # Ok::<(), std::sync::Arc<idmint_jvm::FfiError>>(())
/// ```
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Observation {
    /// The metric's name, one of [`metric_definitions`].
    pub metric: String,
    /// The value: a count, seconds, or 0/1.
    pub value: f64,
    /// The attributes, in the order the definition names them.
    pub attributes: Vec<MetricAttribute>,
}

fn observations(all: Vec<core_metrics::Observation>) -> Vec<Observation> {
    all.into_iter()
        .map(|o| Observation {
            metric: o.metric.to_string(),
            value: o.value,
            attributes: o
                .attributes
                .into_iter()
                .map(|(name, value)| MetricAttribute {
                    name: name.to_string(),
                    value,
                })
                .collect(),
        })
        .collect()
}

/// Every metric the packages publish, in the order `docs/metrics.md` lists them.
///
/// ```
/// let names: Vec<_> = idmint_jvm::metric_definitions().into_iter().map(|d| d.name).collect();
/// assert!(names.contains(&"idmint.lease.held".to_string()));
/// ```
#[uniffi::export]
pub fn metric_definitions() -> Vec<MetricDefinition> {
    core_metrics::METRICS
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

/// The snowflake lease in a [`Health`] ([`idmint_core::health::LeaseHealth`]).
///
/// ```
/// let l = idmint_jvm::LeaseHealth { held: true, fence_s: None, renew_failures: Some(0) };
/// assert!(l.held);
/// ```
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct LeaseHealth {
    /// True while the lease is held.
    pub held: bool,
    /// The lease's fence, unix seconds, if observed.
    pub fence_s: Option<f64>,
    /// Renewals that failed so far, if observed.
    pub renew_failures: Option<u64>,
}

/// One segment tag in a [`Health`] ([`idmint_core::health::TagHealth`]).
///
/// ```
/// let t = idmint_jvm::TagHealth { tag: "orders".into(), remaining: 0, store_errors: 2, starved: true };
/// assert!(t.starved);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TagHealth {
    /// The tag.
    pub tag: String,
    /// IDs buffered in memory.
    pub remaining: u64,
    /// Failed store calls.
    pub store_errors: u64,
    /// Nothing buffered and store calls failed: this tag makes the health down.
    pub starved: bool,
}

/// The core's health of a process's generators ([`idmint_core::health::Health`]).
///
/// ```
/// let h = idmint_jvm::health(vec![])?;
/// assert_eq!((h.status.as_str(), h.reasons.len()), ("up", 0));
/// # Ok::<(), std::sync::Arc<idmint_jvm::FfiError>>(())
/// ```
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Health {
    /// `up` or `down`.
    pub status: String,
    /// Why it is down, one sentence per cause (empty when up).
    pub reasons: Vec<String>,
    /// The snowflake lease, when a generator observed has one.
    pub lease: Option<LeaseHealth>,
    /// Each segment tag, in the order observed.
    pub tags: Vec<TagHealth>,
}

/// The health of the generators and clients whose observations these are
/// ([`idmint_core::health::health`]): down while a snowflake lease is not held, or while a tag
/// has no IDs buffered and failed store calls. Each observation is checked as the core reads
/// one back ([`idmint_core::metrics::Observation::parse`]): an unknown metric or attribute, a
/// per-tag value without its tag or a negative value is `invalid_argument`.
///
/// ```
/// let lost = idmint_jvm::Observation { metric: "idmint.lease.held".into(), value: 0.0, attributes: vec![] };
/// let h = idmint_jvm::health(vec![lost])?;
/// assert_eq!(h.status, "down");
/// assert_eq!(h.reasons, ["the node lease is not held"]);
/// # Ok::<(), std::sync::Arc<idmint_jvm::FfiError>>(())
/// ```
#[uniffi::export]
pub fn health(observations: Vec<Observation>) -> Result<Health> {
    let parsed = observations
        .into_iter()
        .map(|o| {
            let attributes = o.attributes.into_iter().map(|a| (a.name, a.value));
            core_metrics::Observation::parse(&o.metric, o.value, attributes).ffi()
        })
        .collect::<Result<Vec<_>>>()?;
    let h = core_health::health(parsed);
    Ok(Health {
        status: h.status.as_str().to_string(),
        reasons: h.reasons,
        lease: h.lease.map(|l| LeaseHealth {
            held: l.held,
            fence_s: l.fence_s,
            renew_failures: l.renew_failures,
        }),
        tags: h
            .tags
            .into_iter()
            .map(|t| TagHealth {
                tag: t.tag,
                remaining: t.remaining,
                store_errors: t.store_errors,
                starved: t.starved,
            })
            .collect(),
    })
}

#[uniffi::export]
impl Snowflake {
    /// The generator's metric values now ([`idmint_core::metrics::observe_snowflake`]): IDs
    /// issued, clock rollbacks and waits, and its lease's state when it has one.
    ///
    /// ```
    /// let g = idmint_jvm::Snowflake::new(
    ///     idmint_jvm::Layout::parse("twitter".into(), None)?, vec![], true,
    ///     None, None, None, None, None, None, None, false,
    /// )?;
    /// let names: Vec<_> = g.observe().into_iter().map(|o| o.metric).collect();
    /// assert_eq!(names, ["idmint.ids.issued", "idmint.clock.rollbacks", "idmint.clock.waits", "idmint.clock.behind", "idmint.layout.remaining"]);
    /// # Ok::<(), std::sync::Arc<idmint_jvm::FfiError>>(())
    /// ```
    pub fn observe(&self) -> Vec<Observation> {
        observations(core_metrics::observe_snowflake(&self.0))
    }
}

#[uniffi::export]
impl SegmentClient {
    /// The client's metric values now, per tag it has loaded
    /// ([`idmint_core::metrics::observe_segments`]).
    ///
    /// ```
    /// let client = idmint_jvm::SegmentClient::connect(idmint_jvm::SegmentOptions {
    ///     url: "memory:".into(), refill_at: None, max_step: None, default_step: None,
    ///     auto_create: None, default_tag: None, max_wait_ms: None, op_timeout_ms: None,
    /// })?;
    /// client.tag("orders".into())?.next_id()?;
    /// let refills = client.observe().into_iter().find(|o| o.metric == "idmint.segment.refills").unwrap();
    /// assert_eq!(refills.attributes[0].value, "orders");
    /// assert!(refills.value >= 1.0);
    /// # Ok::<(), std::sync::Arc<idmint_jvm::FfiError>>(())
    /// ```
    pub fn observe(&self) -> Vec<Observation> {
        crate::stores::stores!(unreachable {
            observations(core_metrics::observe_segments(&self.0))
        })
    }
}

//! The metrics every package publishes ([`idmint_core::metrics`]), carried to the JVM: the
//! table of definitions, and the values of a [`Snowflake`] or a [`SegmentClient`] at one
//! moment. Conversion only: the names, instruments, units, meanings and values are the core's;
//! the Spring Boot starter (`java-spring/`) turns each definition into a Micrometer meter that
//! reads these values when it is scraped.

use idmint_core::metrics as core_metrics;

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
///     false, None, None, None, None, None, None, false,
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

#[uniffi::export]
impl Snowflake {
    /// The generator's metric values now ([`idmint_core::metrics::observe_snowflake`]): IDs
    /// issued, clock rollbacks and waits, and its lease's state when it has one.
    ///
    /// ```
    /// let g = idmint_jvm::Snowflake::new(
    ///     idmint_jvm::Layout::parse("twitter".into(), None)?, vec![], true,
    ///     None, None, None, None, None, None, false,
    /// )?;
    /// let names: Vec<_> = g.observe().into_iter().map(|o| o.metric).collect();
    /// assert_eq!(names, ["idmint.ids.issued", "idmint.clock.rollbacks", "idmint.clock.waits"]);
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
        observations(core_metrics::observe_segments(&self.0))
    }
}

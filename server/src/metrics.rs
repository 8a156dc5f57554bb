//! Prometheus metrics (`/metrics` on the admin listener), OpenMetrics text.
//!
//! Two sources: the listeners' own counters (IDs issued, requests, latency), kept in typed
//! families registered once; and the core's state read at each scrape (segment buffers and
//! refills, the node lease, clock rollbacks and waits), written by a collector so the values
//! are never a copy that could fall behind. Names follow `idmint_<thing>_<unit>_total`.

use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct IssuedLabels {
    kind: &'static str,
    tag: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

type LatencyFamily = Family<RouteLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 20 µs .. ~0.65 s: a memory-served ID takes microseconds, a store refill milliseconds.
    Histogram::new(exponential_buckets(0.00002, 2.0, 16))
}

/// The listeners' metrics.
pub struct Metrics {
    registry: Registry,
    issued: Family<IssuedLabels, Counter>,
    requests: Family<RequestLabels, Counter>,
    latency: LatencyFamily,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// The families, registered.
    ///
    /// ```
    /// let m = idmint_server::metrics::Metrics::new();
    /// m.issued("segment", "orders", 3);
    /// m.request("/v1/segment/{tag}", 200, std::time::Duration::from_micros(40));
    /// let text = m.encode_static();
    /// assert!(text.contains("idmint_ids_issued_total{kind=\"segment\",tag=\"orders\"} 3"), "{text}");
    /// ```
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let issued = Family::<IssuedLabels, Counter>::default();
        registry.register(
            "idmint_ids_issued",
            "IDs handed out, by kind and tag (or template)",
            issued.clone(),
        );
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "idmint_http_requests",
            "Requests answered, by route and HTTP status (gRPC calls by method)",
            requests.clone(),
        );
        let latency: LatencyFamily = Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "idmint_http_request_duration",
            "Time from request to response, by route",
            Unit::Seconds,
            latency.clone(),
        );
        Metrics {
            registry,
            issued,
            requests,
            latency,
        }
    }

    /// `n` IDs of `kind` (tag or template `tag`, empty for none) handed out.
    pub fn issued(&self, kind: &'static str, tag: &str, n: u64) {
        self.issued
            .get_or_create(&IssuedLabels {
                kind,
                tag: tag.to_string(),
            })
            .inc_by(n);
    }

    /// A request on `route` (its pattern, not the path: bounded labels) answered `status`.
    pub fn request(&self, route: &str, status: u16, took: Duration) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_string(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels {
                route: route.to_string(),
            })
            .observe(took.as_secs_f64());
    }

    /// The listeners' families alone, with the closing `# EOF`.
    pub fn encode_static(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }

    /// Everything: the listeners' families and the core's state as read now (the caller reads
    /// it: this module knows the metric families, not the server's generators).
    pub fn encode(&self, state: CoreState) -> String {
        let mut out = String::new();
        let mut core = Registry::default();
        core.register_collector(Box::new(state));
        prometheus_client::encoding::text::encode_registry(&mut out, &self.registry)
            .and_then(|()| prometheus_client::encoding::text::encode_registry(&mut out, &core))
            .and_then(|()| prometheus_client::encoding::text::encode_eof(&mut out))
            .expect("writing to a String cannot fail");
        out
    }
}

/// OpenMetrics text as the classic Prometheus text format (0.0.4), for scrapers and tools that
/// do not ask for OpenMetrics (`promtool check metrics`, older Prometheus): a counter's
/// `# HELP`/`# TYPE` name the `_total` series, and `# UNIT` and `# EOF` go.
///
/// ```
/// let om = "# HELP a_b Things.\n# TYPE a_b counter\na_b_total 3\n# UNIT x_seconds seconds\n# EOF\n";
/// assert_eq!(idmint_server::metrics::to_prometheus_text(om), "# HELP a_b_total Things.\n# TYPE a_b_total counter\na_b_total 3\n");
/// ```
pub fn to_prometheus_text(openmetrics: &str) -> String {
    let mut counters = std::collections::HashSet::new();
    for line in openmetrics.lines() {
        if let Some(name) = line
            .strip_prefix("# TYPE ")
            .and_then(|rest| rest.strip_suffix(" counter"))
        {
            counters.insert(name.to_string());
        }
    }
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line.starts_with("# UNIT ") || line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(name)
                .then(|| format!("{prefix}{name}_total {tail}"))
        });
        out.push_str(renamed.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// The core's state at one scrape (`state::Ids::core_state` reads it).
#[derive(Debug, Default)]
pub struct CoreState {
    /// Each segment tag's counters.
    pub tags: Vec<idmint_core::segment::TagMetrics>,
    /// The snowflake generator's counters.
    pub stats: idmint_core::Stats,
    /// The node lease's, when the node value is leased.
    pub lease: Option<idmint_core::LeaseStats>,
    /// The node field values.
    pub nodes: Vec<(String, u64)>,
    /// ObjectId requests that waited for the clock.
    pub object_id_waits: u64,
}

impl Collector for CoreState {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        macro_rules! per_tag {
            ($name:expr, $help:expr, $unit:expr, $kind:expr, $value:expr) => {{
                let mut f = encoder.encode_descriptor($name, $help, $unit, $kind)?;
                for m in &self.tags {
                    let labels = [("tag", m.tag.as_str())];
                    $value(m).encode(f.encode_family(&labels)?)?;
                }
            }};
        }
        per_tag!(
            "idmint_segment_remaining",
            "Segment IDs buffered in memory (current range and the next one, if fetched)",
            None,
            MetricType::Gauge,
            |m: &idmint_core::segment::TagMetrics| ConstGauge::new(m.remaining as i64)
        );
        per_tag!(
            "idmint_segment_step",
            "Step of the last range fetched",
            None,
            MetricType::Gauge,
            |m: &idmint_core::segment::TagMetrics| ConstGauge::new(m.step as i64)
        );
        per_tag!(
            "idmint_segment_refills",
            "Ranges fetched from the store",
            None,
            MetricType::Counter,
            |m: &idmint_core::segment::TagMetrics| ConstCounter::new(m.refills)
        );
        per_tag!(
            "idmint_segment_refill_duration_mean",
            "Mean time of a successful refill",
            Some(&Unit::Seconds),
            MetricType::Gauge,
            |m: &idmint_core::segment::TagMetrics| ConstGauge::new(
                m.mean_refill_latency.as_secs_f64()
            )
        );
        per_tag!(
            "idmint_segment_refill_duration_max",
            "Slowest successful refill",
            Some(&Unit::Seconds),
            MetricType::Gauge,
            |m: &idmint_core::segment::TagMetrics| ConstGauge::new(
                m.max_refill_latency.as_secs_f64()
            )
        );
        per_tag!(
            "idmint_segment_store_errors",
            "Failed store calls (each retry counts)",
            None,
            MetricType::Counter,
            |m: &idmint_core::segment::TagMetrics| ConstCounter::new(m.store_errors)
        );
        per_tag!(
            "idmint_segment_waits",
            "Requests that found both buffered ranges used up and waited for a refill",
            None,
            MetricType::Counter,
            |m: &idmint_core::segment::TagMetrics| ConstCounter::new(m.waits)
        );
        let single = |encoder: &mut DescriptorEncoder,
                      name: &str,
                      help: &str,
                      kind: MetricType,
                      metric: &dyn EncodeMetric|
         -> Result<(), std::fmt::Error> {
            let f = encoder.encode_descriptor(name, help, None, kind)?;
            metric.encode(f)
        };
        if let Some(lease) = self.lease {
            single(
                &mut encoder,
                "idmint_lease_held",
                "1 while this server holds its node value's lease, 0 while it refuses to mint",
                MetricType::Gauge,
                &ConstGauge::new(lease.held as i64),
            )?;
            single(
                &mut encoder,
                "idmint_lease_fence_timestamp_seconds",
                "The lease's fence in the store: IDs carry times up to this (unix time)",
                MetricType::Gauge,
                &ConstGauge::new(lease.fence_ms as f64 / 1000.0),
            )?;
            single(
                &mut encoder,
                "idmint_lease_renew_failures",
                "Lease renewals that failed",
                MetricType::Counter,
                &ConstCounter::new(lease.renew_failures),
            )?;
        }
        let mut f = encoder.encode_descriptor(
            "idmint_snowflake_node",
            "This server's node field values (leased)",
            None,
            MetricType::Gauge,
        )?;
        for (name, value) in &self.nodes {
            ConstGauge::new(*value as i64).encode(f.encode_family(&[("field", name.as_str())])?)?;
        }
        single(
            &mut encoder,
            "idmint_clock_rollbacks",
            "Times the snowflake generator found the clock behind its last issued time",
            MetricType::Counter,
            &ConstCounter::new(self.stats.rollbacks),
        )?;
        single(
            &mut encoder,
            "idmint_clock_waits",
            "Times a snowflake or ObjectId request waited for the clock (next tick, rollback)",
            MetricType::Counter,
            &ConstCounter::new(self.stats.waits + self.object_id_waits),
        )?;
        Ok(())
    }
}

//! Prometheus metrics (`/metrics` on the admin listener), OpenMetrics text.
//!
//! Two sources: the listeners' own counters (IDs issued, requests, latency), kept in typed
//! families registered once; and the core's state read at each scrape (segment buffers and
//! refills, the node lease, clock rollbacks and waits), written by a collector so the values
//! are never a copy that could fall behind. Names follow `idmint_<thing>_<unit>_total`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use arc_swap::ArcSwap;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    DescriptorEncoder, EncodeLabelSet, EncodeMetric, MetricEncoder, NoLabelSet,
};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::{MetricType, TypedMetric};
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

/// The request-duration buckets' upper bounds: 20 µs .. ~0.65 s (a memory-served ID takes
/// microseconds, a store refill milliseconds), then +Inf.
const LATENCY_BUCKETS: usize = 16;

fn latency_bounds() -> [f64; LATENCY_BUCKETS] {
    std::array::from_fn(|i| 0.00002 * 2f64.powi(i as i32))
}

/// A request-duration histogram whose every observation is two relaxed atomic additions (its
/// bucket and the sum), where prometheus-client's `Histogram` takes a lock: every request of
/// every route observes one.
#[derive(Clone, Debug, Default)]
pub struct Latency(Arc<LatencyCells>);

#[derive(Debug, Default)]
struct LatencyCells {
    /// Observations per bucket (not cumulative), the last one +Inf.
    buckets: [AtomicU64; LATENCY_BUCKETS + 1],
    sum_ns: AtomicU64,
}

impl Latency {
    /// Counts one request that took `took`.
    ///
    /// ```
    /// let l = idmint_server::metrics::Latency::default();
    /// l.observe(std::time::Duration::from_micros(30));
    /// assert_eq!(l.count(), 1);
    /// ```
    pub fn observe(&self, took: Duration) {
        let ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        // Bucket i holds (20 µs·2^(i-1), 20 µs·2^i]: the first bound at or above `ns`.
        let i = (0..LATENCY_BUCKETS)
            .find(|&i| ns <= 20_000u64 << i)
            .unwrap_or(LATENCY_BUCKETS);
        self.0.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.0.sum_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// Observations so far.
    ///
    /// ```
    /// assert_eq!(idmint_server::metrics::Latency::default().count(), 0);
    /// ```
    pub fn count(&self) -> u64 {
        self.0
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .sum()
    }
}

impl TypedMetric for Latency {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for Latency {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let bounds = latency_bounds();
        // Per bucket, not cumulative: the encoder sums them up as it writes.
        let buckets: Vec<(f64, u64)> = self
            .0
            .buckets
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let upper = bounds.get(i).copied().unwrap_or(f64::INFINITY);
                (upper, b.load(Ordering::Relaxed))
            })
            .collect();
        let count = buckets.iter().map(|b| b.1).sum();
        let sum = self.0.sum_ns.load(Ordering::Relaxed) as f64 / 1e9;
        encoder.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Histogram
    }
}

/// One route's handles, resolved the first time the route answers: a request then costs
/// atomic additions, not a label lookup under the family's lock.
#[derive(Debug)]
pub struct RouteMeter {
    route: String,
    /// Status 200's counter, the status of nearly every answer (created on the first).
    ok: OnceLock<Counter>,
    latency: Latency,
    requests: Family<RequestLabels, Counter>,
}

impl RouteMeter {
    /// Counts one answer of this route.
    pub fn record(&self, status: u16, took: Duration) {
        if status == 200 {
            self.ok.get_or_init(|| self.counter(200)).inc();
        } else {
            self.counter(status).inc();
        }
        self.latency.observe(took);
    }

    fn counter(&self, status: u16) -> Counter {
        self.requests.get_or_create_owned(&RequestLabels {
            route: self.route.clone(),
            status,
        })
    }
}

/// `n` IDs of one kind and tag: a counter resolved once.
#[derive(Debug, Clone)]
pub struct Issued(Counter);

impl Issued {
    /// Adds `n` IDs handed out.
    pub fn add(&self, n: u64) {
        self.0.inc_by(n);
    }
}

/// A read-mostly map of handles, read without a lock and copied on the rare insert.
pub(crate) type HandleMap<V> = ArcSwap<HashMap<String, Arc<V>>>;

/// Stores `value` under `key` unless a value is there already (two first callers at once may
/// both build one); returns the stored one.
pub(crate) fn keep_first<V>(map: &HandleMap<V>, key: &str, value: Arc<V>) -> Arc<V> {
    map.rcu(|current| {
        let mut next = HashMap::clone(current);
        next.entry(key.to_string()).or_insert_with(|| value.clone());
        next
    });
    map.load().get(key).cloned().unwrap_or(value)
}

/// The listeners' metrics.
pub struct Metrics {
    registry: Registry,
    issued: Family<IssuedLabels, Counter>,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Latency>,
    /// Each route's handles, by route pattern: read without a lock, copied on the rare insert
    /// (a route's first answer).
    routes: HandleMap<RouteMeter>,
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
    /// assert!(text.contains("idmint_http_request_duration_seconds_bucket{le=\"0.00004\",route=\"/v1/segment/{tag}\"} 1"), "{text}");
    /// assert!(text.contains("idmint_http_request_duration_seconds_bucket{le=\"+Inf\",route=\"/v1/segment/{tag}\"} 1"), "{text}");
    /// assert!(text.contains("idmint_http_request_duration_seconds_count{route=\"/v1/segment/{tag}\"} 1"), "{text}");
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
        let latency = Family::<RouteLabels, Latency>::default();
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
            routes: ArcSwap::default(),
        }
    }

    /// The counter of IDs of `kind` (tag or template `tag`, empty for none), to keep and add
    /// to ([`Metrics::issued`] looks it up each time).
    ///
    /// ```
    /// let m = idmint_server::metrics::Metrics::new();
    /// m.issued_counter("snowflake", "").add(2);
    /// assert!(m.encode_static().contains("idmint_ids_issued_total{kind=\"snowflake\",tag=\"\"} 2"));
    /// ```
    pub fn issued_counter(&self, kind: &'static str, tag: &str) -> Issued {
        Issued(self.issued.get_or_create_owned(&IssuedLabels {
            kind,
            tag: tag.to_string(),
        }))
    }

    /// `n` IDs of `kind` (tag or template `tag`, empty for none) handed out.
    pub fn issued(&self, kind: &'static str, tag: &str, n: u64) {
        self.issued_counter(kind, tag).add(n);
    }

    /// The handles of `route` (its pattern, not the path: bounded labels), resolved on its
    /// first answer and kept.
    ///
    /// ```
    /// let m = idmint_server::metrics::Metrics::new();
    /// let meter = m.route("/v1/snowflake");
    /// meter.record(200, std::time::Duration::from_micros(40));
    /// assert!(std::sync::Arc::ptr_eq(&meter, &m.route("/v1/snowflake")));
    /// ```
    pub fn route(&self, route: &str) -> Arc<RouteMeter> {
        if let Some(m) = self.routes.load().get(route) {
            return m.clone();
        }
        let meter = Arc::new(RouteMeter {
            route: route.to_string(),
            ok: OnceLock::new(),
            latency: self.latency.get_or_create_owned(&RouteLabels {
                route: route.to_string(),
            }),
            requests: self.requests.clone(),
        });
        // Two first answers at once may both build one; both share the family's series anyway.
        keep_first(&self.routes, route, meter)
    }

    /// A request on `route` answered `status`.
    pub fn request(&self, route: &str, status: u16, took: Duration) {
        match self.routes.load().get(route) {
            Some(meter) => meter.record(status, took),
            None => self.route(route).record(status, took),
        }
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
    /// The time left in the snowflake layout (`Snowflake::layout_remaining`).
    pub layout_remaining: Duration,
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
        single(
            &mut encoder,
            "idmint_layout_remaining_seconds",
            "Time left until the snowflake layout's time field runs out, by the server's clock",
            MetricType::Gauge,
            &ConstGauge::new(self.layout_remaining.as_secs_f64()),
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_buckets_are_upper_bounds_included() {
        let m = Metrics::new();
        for took in [20_000, 20_001, 655_360_000, 655_360_001] {
            m.request("/r", 200, Duration::from_nanos(took));
        }
        let text = m.encode_static();
        let bucket = |le: &str| {
            let key =
                format!("idmint_http_request_duration_seconds_bucket{{le=\"{le}\",route=\"/r\"}} ");
            let line = text
                .lines()
                .find(|l| l.starts_with(&key))
                .unwrap_or_else(|| panic!("{key} in {text}"));
            line[key.len()..].parse::<u64>().expect("a count")
        };
        assert_eq!(bucket("0.00002"), 1, "{text}");
        assert_eq!(bucket("0.00004"), 2, "{text}");
        assert_eq!(bucket("0.65536"), 3, "{text}");
        assert_eq!(bucket("+Inf"), 4, "{text}");
        assert!(
            text.contains("idmint_http_requests_total{route=\"/r\",status=\"200\"} 4"),
            "{text}"
        );
        m.request("/r", 404, Duration::from_micros(1));
        assert!(m
            .encode_static()
            .contains("idmint_http_requests_total{route=\"/r\",status=\"404\"} 1"));
    }
}

//! The metrics every idmint package publishes, defined once: names, instruments, units and
//! meanings ([`METRICS`]), and the values of a generator or a segment client at one moment
//! ([`observe_snowflake`], and `observe_segments` with feature `segment`).
//!
//! The Python and Node packages hand these to the OpenTelemetry API (an observable counter or
//! gauge per entry, read when the exporter collects), the JVM package to Micrometer; none of them
//! names a metric or computes a value itself. The values are counters the core keeps anyway, so
//! publishing them costs nothing on the minting path. `docs/metrics.md` lists the same table (a
//! test compares them).
//!
//! Names follow OpenTelemetry's conventions (dotted, the unit not in the name, instrumentation
//! scope `idmint`); a Prometheus exporter turns `idmint.segment.refills` into
//! `idmint_segment_refills_total`.
//!
//! ```
//! use idmint_core::metrics::{observe_snowflake, Instrument, METRICS};
//! use idmint_core::{Layout, Snowflake};
//! let g = Snowflake::builder(Layout::preset("twitter")?).node("datacenter", 1).node("worker", 2).build()?;
//! g.next_ids(3)?;
//! let issued = observe_snowflake(&g).into_iter().find(|o| o.metric == "idmint.ids.issued").unwrap();
//! assert_eq!((issued.value, issued.attributes[0].1.as_str()), (3.0, "snowflake"));
//! let def = METRICS.iter().find(|m| m.name == issued.metric).unwrap();
//! assert_eq!(def.instrument, Instrument::Counter);
//! # Ok::<(), idmint_core::Error>(())
//! ```

use crate::Snowflake;

/// How a metric is published.
///
/// ```
/// assert_eq!(idmint_core::metrics::Instrument::Counter.as_str(), "counter");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instrument {
    /// A total that only grows (OpenTelemetry: observable counter; Micrometer: function
    /// counter; Prometheus: `_total`).
    Counter,
    /// A value that goes up and down (observable gauge).
    Gauge,
}

impl Instrument {
    /// The instrument's name in [`definitions_json`]: `counter` or `gauge`.
    ///
    /// ```
    /// assert_eq!(idmint_core::metrics::Instrument::Gauge.as_str(), "gauge");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Instrument::Counter => "counter",
            Instrument::Gauge => "gauge",
        }
    }
}

/// How one metric's values from several generators or clients of a process become the one
/// value a package publishes per attribute set ([`merge`]): a metrics API keeps one value per
/// attribute set and callback, so two generators must not overwrite each other's.
///
/// ```
/// use idmint_core::metrics::{Combine, METRICS};
/// let held = METRICS.iter().find(|m| m.name == "idmint.lease.held").unwrap();
/// assert_eq!(held.combine, Combine::Min);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// Added up: counts, and IDs buffered.
    Sum,
    /// The largest: the slowest refill of any client.
    Max,
    /// The smallest: 0 if any generator lost its lease, the fence that ends first.
    Min,
}

/// One metric: what every package publishes under this name.
///
/// ```
/// let m = &idmint_core::metrics::METRICS[0];
/// assert!(m.name.starts_with("idmint."));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// The OpenTelemetry name (`idmint.ids.issued`).
    pub name: &'static str,
    /// Counter or gauge.
    pub instrument: Instrument,
    /// The UCUM unit (`s`, `{id}`, `1`).
    pub unit: &'static str,
    /// What it counts, one sentence.
    pub description: &'static str,
    /// The attributes its values carry (`kind`, `tag`).
    pub attributes: &'static [&'static str],
    /// Those every value carries ([`Observation::parse`] refuses one without them): a
    /// snowflake's `idmint.ids.issued` has a `kind` but no `tag`, a segment's value always
    /// names its tag.
    pub required: &'static [&'static str],
    /// How values of several generators or clients combine ([`merge`]).
    pub combine: Combine,
}

/// Every metric, in the order `docs/metrics.md` lists them.
///
/// ```
/// let names: Vec<_> = idmint_core::metrics::METRICS.iter().map(|m| m.name).collect();
/// assert!(names.contains(&"idmint.segment.remaining"));
/// ```
pub const METRICS: &[Metric] = &[
    Metric {
        name: "idmint.ids.issued",
        instrument: Instrument::Counter,
        unit: "{id}",
        description: "IDs handed out, by generator kind (snowflake, segment) and segment tag",
        attributes: &["kind", "tag"],
        required: &["kind"],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.clock.rollbacks",
        instrument: Instrument::Counter,
        unit: "{event}",
        description: "Times the snowflake generator found the clock behind its last issued time",
        attributes: &[],
        required: &[],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.clock.waits",
        instrument: Instrument::Counter,
        unit: "{event}",
        description:
            "Times a snowflake request waited for the clock (next tick, rollback, borrowed lead)",
        attributes: &[],
        required: &[],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.clock.behind",
        instrument: Instrument::Gauge,
        unit: "s",
        description: "How far the clock is behind the last issued snowflake time, beyond the lead the generator's policy allows (0 while sane)",
        attributes: &[],
        required: &[],
        combine: Combine::Max,
    },
    Metric {
        name: "idmint.layout.remaining",
        instrument: Instrument::Gauge,
        unit: "s",
        description:
            "Time left until the snowflake layout's time field runs out, by the generator's clock",
        attributes: &[],
        required: &[],
        combine: Combine::Min,
    },
    Metric {
        name: "idmint.lease.held",
        instrument: Instrument::Gauge,
        unit: "1",
        description:
            "1 while the generator holds its node value's lease, 0 while it refuses to mint",
        attributes: &[],
        required: &[],
        combine: Combine::Min,
    },
    Metric {
        name: "idmint.lease.fence",
        instrument: Instrument::Gauge,
        unit: "s",
        description: "The lease's fence in the store (unix time): IDs carry times up to this",
        attributes: &[],
        required: &[],
        combine: Combine::Min,
    },
    Metric {
        name: "idmint.lease.renew.failures",
        instrument: Instrument::Counter,
        unit: "{event}",
        description: "Lease renewals that failed",
        attributes: &[],
        required: &[],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.segment.remaining",
        instrument: Instrument::Gauge,
        unit: "{id}",
        description:
            "Segment IDs buffered in memory (the current range and the next one, if fetched)",
        attributes: &["tag"],
        required: &["tag"],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.segment.refills",
        instrument: Instrument::Counter,
        unit: "{refill}",
        description: "Ranges fetched from the store",
        attributes: &["tag"],
        required: &["tag"],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.segment.refill.time",
        instrument: Instrument::Counter,
        unit: "s",
        description:
            "Time spent in successful refills, added up (divided by refills: the mean latency)",
        attributes: &["tag"],
        required: &["tag"],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.segment.refill.max",
        instrument: Instrument::Gauge,
        unit: "s",
        description: "The slowest successful refill",
        attributes: &["tag"],
        required: &["tag"],
        combine: Combine::Max,
    },
    Metric {
        name: "idmint.segment.store.errors",
        instrument: Instrument::Counter,
        unit: "{error}",
        description: "Failed store calls (each retry counts)",
        attributes: &["tag"],
        required: &["tag"],
        combine: Combine::Sum,
    },
    Metric {
        name: "idmint.segment.waits",
        instrument: Instrument::Counter,
        unit: "{event}",
        description: "Requests that found both buffered ranges used up and waited for a refill",
        attributes: &["tag"],
        required: &["tag"],
        combine: Combine::Sum,
    },
];

/// One metric's value at one moment, with its attributes.
///
/// ```
/// let o = idmint_core::metrics::Observation { metric: "idmint.clock.waits", value: 0.0, attributes: vec![] };
/// assert_eq!(o.metric, "idmint.clock.waits");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The metric's name, one of [`METRICS`].
    pub metric: &'static str,
    /// The value (a count, seconds, or 0/1).
    pub value: f64,
    /// Attribute name and value pairs, as [`Metric::attributes`] names them.
    pub attributes: Vec<(&'static str, String)>,
}

impl Observation {
    /// An observation a package hands back (read from JSON, or from its own `observe()`
    /// values) as the core's: `metric` one of [`METRICS`], `value` a finite number ≥ 0, and
    /// each attribute one the metric names, with every one it requires
    /// ([`Metric::required`]). The attributes come out in the order the metric names them,
    /// so equal sets compare equal in [`merge`].
    ///
    /// ```
    /// use idmint_core::metrics::Observation;
    /// let o = Observation::parse("idmint.ids.issued", 5.0, [("tag", "orders"), ("kind", "segment")])?;
    /// assert_eq!(o.attributes, [("kind", "segment".to_string()), ("tag", "orders".to_string())]);
    /// let err = Observation::parse("idmint.segment.remaining", 5.0, [("kind", "segment")]).unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn parse<K, V>(
        metric: &str,
        value: f64,
        attributes: impl IntoIterator<Item = (K, V)>,
    ) -> crate::Result<Observation>
    where
        K: AsRef<str>,
        V: Into<String>,
    {
        let invalid = |name: &str, value: String, expected: String| crate::Error::InvalidArgument {
            name: name.to_string(),
            value,
            expected,
        };
        let Some(m) = self::metric(metric) else {
            let names: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
            return Err(invalid(
                "metric",
                format!("{metric:?}"),
                format!("one of {}", names.join(", ")),
            ));
        };
        // Every value the core observes is a count, seconds or 0/1: none is negative or NaN.
        if !(value.is_finite() && value >= 0.0) {
            return Err(invalid(
                "value",
                value.to_string(),
                format!("a finite number >= 0 for {}", m.name),
            ));
        }
        let names = || match m.attributes {
            [] => "none".to_string(),
            all => all.join(", "),
        };
        let mut given: Vec<(&'static str, String)> = Vec::new();
        for (k, v) in attributes {
            let k = k.as_ref();
            let Some(name) = m.attributes.iter().find(|a| **a == k) else {
                return Err(invalid(
                    "attributes",
                    format!("{k:?}"),
                    format!("an attribute of {}: {}", m.name, names()),
                ));
            };
            if given.iter().any(|(g, _)| g == name) {
                return Err(invalid(
                    "attributes",
                    format!("{k:?} twice"),
                    format!("each attribute of {} once", m.name),
                ));
            }
            given.push((name, v.into()));
        }
        if let Some(missing) = m
            .required
            .iter()
            .find(|r| given.iter().all(|(g, _)| g != *r))
        {
            let have: Vec<&str> = given.iter().map(|(g, _)| *g).collect();
            return Err(invalid(
                "attributes",
                format!("[{}]", have.join(", ")),
                format!(
                    "{} with `{missing}` (it requires {})",
                    m.name,
                    m.required.join(", ")
                ),
            ));
        }
        let attributes = m
            .attributes
            .iter()
            .filter_map(|a| given.iter().find(|(g, _)| g == a).cloned())
            .collect();
        Ok(Observation {
            metric: m.name,
            value,
            attributes,
        })
    }
}

fn obs(metric: &'static str, value: f64, attributes: Vec<(&'static str, String)>) -> Observation {
    debug_assert!(
        METRICS.iter().any(|m| m.name == metric),
        "{metric} is not in METRICS"
    );
    Observation {
        metric,
        value,
        attributes,
    }
}

/// A snowflake generator's values now: IDs issued, clock rollbacks and waits, the time left in
/// its layout ([`Snowflake::layout_remaining`]), and its lease's state when it has one.
///
/// ```
/// use idmint_core::{metrics::observe_snowflake, Layout, Snowflake};
/// let g = Snowflake::builder(Layout::preset("sonyflake")?).node("machine", 9).build()?;
/// g.next_id()?;
/// let names: Vec<_> = observe_snowflake(&g).into_iter().map(|o| o.metric).collect();
/// // Without a lease there is no lease state to report.
/// assert_eq!(names, ["idmint.ids.issued", "idmint.clock.rollbacks", "idmint.clock.waits", "idmint.clock.behind", "idmint.layout.remaining"]);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn observe_snowflake<C: crate::Clock>(g: &Snowflake<C>) -> Vec<Observation> {
    let s = g.stats();
    #[allow(unused_mut)] // pushed to only with feature `segment` (leases)
    let mut out = vec![
        obs(
            "idmint.ids.issued",
            s.issued as f64,
            vec![("kind", "snowflake".into())],
        ),
        obs("idmint.clock.rollbacks", s.rollbacks as f64, vec![]),
        obs("idmint.clock.waits", s.waits as f64, vec![]),
        obs(
            "idmint.clock.behind",
            g.clock_behind().as_secs_f64(),
            vec![],
        ),
        obs(
            "idmint.layout.remaining",
            g.layout_remaining().as_secs_f64(),
            vec![],
        ),
    ];
    #[cfg(feature = "segment")]
    if let Some(l) = g.lease_stats() {
        out.push(obs(
            "idmint.lease.held",
            if l.held { 1.0 } else { 0.0 },
            vec![],
        ));
        out.push(obs(
            "idmint.lease.fence",
            l.fence_ms as f64 / 1000.0,
            vec![],
        ));
        out.push(obs(
            "idmint.lease.renew.failures",
            l.renew_failures as f64,
            vec![],
        ));
    }
    out
}

/// A segment client's values now, per tag it has served.
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient};
/// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
/// client.next_ids("orders", 5)?;
/// let all = idmint_core::metrics::observe_segments(&client);
/// let issued = all.iter().find(|o| o.metric == "idmint.ids.issued").unwrap();
/// assert_eq!(issued.value, 5.0);
/// assert_eq!(issued.attributes, [("kind", "segment".to_string()), ("tag", "orders".to_string())]);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[cfg(feature = "segment")]
pub fn observe_segments(client: &crate::segment::SegmentClient) -> Vec<Observation> {
    let mut out = Vec::new();
    for m in client.metrics() {
        let tag = || vec![("tag", m.tag.clone())];
        out.push(obs(
            "idmint.ids.issued",
            m.issued as f64,
            vec![("kind", "segment".into()), ("tag", m.tag.clone())],
        ));
        out.push(obs("idmint.segment.remaining", m.remaining as f64, tag()));
        out.push(obs("idmint.segment.refills", m.refills as f64, tag()));
        out.push(obs(
            "idmint.segment.refill.time",
            m.total_refill_latency.as_secs_f64(),
            tag(),
        ));
        out.push(obs(
            "idmint.segment.refill.max",
            m.max_refill_latency.as_secs_f64(),
            tag(),
        ));
        out.push(obs(
            "idmint.segment.store.errors",
            m.store_errors as f64,
            tag(),
        ));
        out.push(obs("idmint.segment.waits", m.waits as f64, tag()));
    }
    out
}

/// The metric named `name`, if [`METRICS`] has it (a package reading observations back by
/// name).
///
/// ```
/// let m = idmint_core::metrics::metric("idmint.segment.refills").unwrap();
/// assert_eq!(m.unit, "{refill}");
/// assert!(idmint_core::metrics::metric("idmint.nope").is_none());
/// ```
pub fn metric(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// The observations of every generator and client of a process as the values to publish: one
/// per metric and attribute set, combined by the metric's [`Combine`] rule, in the order each
/// first appears.
///
/// ```
/// use idmint_core::metrics::{merge, observe_snowflake};
/// use idmint_core::{Layout, Snowflake};
/// let layout = Layout::preset("twitter")?;
/// let a = Snowflake::builder(layout.clone()).node("datacenter", 1).node("worker", 1).build()?;
/// let b = Snowflake::builder(layout).node("datacenter", 1).node("worker", 2).build()?;
/// a.next_ids(3)?;
/// b.next_ids(4)?;
/// let all = merge(observe_snowflake(&a).into_iter().chain(observe_snowflake(&b)));
/// let issued: Vec<_> = all.iter().filter(|o| o.metric == "idmint.ids.issued").collect();
/// assert_eq!((issued.len(), issued[0].value), (1, 7.0));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn merge(observations: impl IntoIterator<Item = Observation>) -> Vec<Observation> {
    let mut out: Vec<Observation> = Vec::new();
    for o in observations {
        let same = out
            .iter_mut()
            .find(|p| p.metric == o.metric && p.attributes == o.attributes);
        let Some(p) = same else {
            out.push(o);
            continue;
        };
        // A name outside METRICS cannot be observed (obs() checks); summing is then harmless.
        p.value = match metric(o.metric).map_or(Combine::Sum, |m| m.combine) {
            Combine::Sum => p.value + o.value,
            Combine::Max => p.value.max(o.value),
            Combine::Min => p.value.min(o.value),
        };
    }
    out
}

/// [`METRICS`] as JSON (an array of `{name, instrument, unit, description, attributes}`), for a
/// package that builds its instruments from the table.
///
/// ```
/// let json = idmint_core::metrics::definitions_json();
/// assert!(json.starts_with("[{\"name\":\"idmint.ids.issued\",\"instrument\":\"counter\""));
/// ```
pub fn definitions_json() -> String {
    let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let items: Vec<String> = METRICS
        .iter()
        .map(|m| {
            let attrs: Vec<String> = m.attributes.iter().map(|a| q(a)).collect();
            format!(
                "{{\"name\":{},\"instrument\":{},\"unit\":{},\"description\":{},\"attributes\":[{}]}}",
                q(m.name),
                q(m.instrument.as_str()),
                q(m.unit),
                q(m.description),
                attrs.join(",")
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/metrics.md lists every metric with its instrument, unit and description, as here.
    #[test]
    fn docs_list_the_table() {
        let doc = include_str!("../../docs/metrics.md");
        for m in METRICS {
            let row = format!(
                "| `{}` | {} | `{}` | {} |",
                m.name,
                m.instrument.as_str(),
                m.unit,
                m.description
            );
            assert!(doc.contains(&row), "docs/metrics.md lacks the row\n{row}");
        }
        let rows = doc.lines().filter(|l| l.starts_with("| `idmint.")).count();
        assert_eq!(
            rows,
            METRICS.len(),
            "docs/metrics.md lists a metric the core does not define"
        );
    }

    /// Gauges of several generators are not added up: the lowest lease state, the slowest refill.
    #[test]
    fn merge_combines_by_rule() {
        let o = |metric, value, tag: &str| Observation {
            metric,
            value,
            attributes: if tag.is_empty() {
                vec![]
            } else {
                vec![("tag", tag.to_string())]
            },
        };
        let merged = merge([
            o("idmint.lease.held", 1.0, ""),
            o("idmint.segment.refill.max", 0.5, "a"),
            o("idmint.lease.held", 0.0, ""),
            o("idmint.segment.refill.max", 0.25, "a"),
            o("idmint.segment.refill.max", 0.125, "b"),
            o("idmint.segment.refills", 2.0, "a"),
            o("idmint.segment.refills", 3.0, "a"),
        ]);
        assert_eq!(
            merged,
            [
                o("idmint.lease.held", 0.0, ""),
                o("idmint.segment.refill.max", 0.5, "a"),
                o("idmint.segment.refill.max", 0.125, "b"),
                o("idmint.segment.refills", 5.0, "a"),
            ]
        );
    }

    /// What the core observes reads back as itself; what it never observes is refused, naming
    /// the bad value.
    #[test]
    fn parse_reads_observations_back() {
        let g = crate::Snowflake::builder(crate::Layout::preset("sonyflake").unwrap())
            .node("machine", 1)
            .build()
            .unwrap();
        g.next_ids(2).unwrap();
        for o in observe_snowflake(&g) {
            let back = Observation::parse(o.metric, o.value, o.attributes.clone()).unwrap();
            assert_eq!(back, o);
        }
        let refused = |metric: &str, value: f64, attrs: &[(&str, &str)]| match Observation::parse(
            metric,
            value,
            attrs.iter().copied(),
        )
        .unwrap_err()
        {
            crate::Error::InvalidArgument { name, value, .. } => (name, value),
            e => panic!("{e}"),
        };
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(
            refused("idmint.nope", 1.0, &[]),
            pair("metric", "\"idmint.nope\"")
        );
        assert_eq!(
            refused("idmint.clock.waits", -1.0, &[]),
            pair("value", "-1")
        );
        assert_eq!(
            refused("idmint.clock.waits", f64::NAN, &[]),
            pair("value", "NaN")
        );
        assert_eq!(
            refused("idmint.clock.waits", f64::INFINITY, &[]),
            pair("value", "inf")
        );
        assert_eq!(
            refused("idmint.clock.waits", 1.0, &[("tag", "a")]),
            pair("attributes", "\"tag\"")
        );
        assert_eq!(
            refused("idmint.segment.waits", 1.0, &[("tag", "a"), ("tag", "b")]),
            pair("attributes", "\"tag\" twice")
        );
        assert_eq!(
            refused("idmint.segment.waits", 1.0, &[]),
            pair("attributes", "[]")
        );
        assert_eq!(
            refused("idmint.ids.issued", 1.0, &[("tag", "a")]),
            pair("attributes", "[tag]")
        );
    }

    #[test]
    fn required_attributes_are_attributes() {
        for m in METRICS {
            assert!(
                m.required.iter().all(|r| m.attributes.contains(r)),
                "{}",
                m.name
            );
        }
    }

    #[test]
    fn names_are_unique_and_dotted() {
        for (i, m) in METRICS.iter().enumerate() {
            assert!(
                m.name.starts_with("idmint.") && !m.name.contains('_'),
                "{}",
                m.name
            );
            assert!(
                METRICS[i + 1..].iter().all(|n| n.name != m.name),
                "{} twice",
                m.name
            );
        }
    }
}

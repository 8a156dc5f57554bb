//! Whether a process's generators can hand out IDs, decided once from their metric
//! observations ([`crate::metrics`]): the Spring Boot starter's Actuator health, the Python
//! and Node packages' `health()` and `idmint serve`'s `/readyz` all give this answer.
//!
//! The rule: **down** while a snowflake generator does not hold its node value's lease
//! (`idmint.lease.held` 0: the core refuses to mint until it holds one again), and while a
//! segment tag has no IDs buffered (`idmint.segment.remaining` 0) and store calls for it
//! failed (`idmint.segment.store.errors` above 0: callers then wait on a store that does not
//! answer), while a snowflake generator's clock is behind its last issued time
//! (`idmint.clock.behind` above 0: calls wait or fail by its rollback policy), and while a tag
//! the process must serve ([`health_requiring`]: a server's preloaded tags) has no IDs
//! buffered; **degraded** while a snowflake layout has less than [`DEGRADED_BELOW`] (a year)
//! left before its time field runs out (`idmint.layout.remaining`: it still mints, but its end
//! needs a successor planned now); **up** otherwise, also when nothing is observed. The observations of several
//! generators and clients are combined first as [`merge`] does for publishing: one generator
//! that lost its lease makes the process down, and a tag is starved only when no client of the
//! process has IDs of it buffered.
//!
//! ```
//! use idmint_core::health::{health, Status};
//! use idmint_core::metrics::Observation;
//! let tag = || vec![("tag", "orders".to_string())];
//! let h = health([
//!     Observation { metric: "idmint.lease.held", value: 0.0, attributes: vec![] },
//!     Observation { metric: "idmint.segment.remaining", value: 0.0, attributes: tag() },
//!     Observation { metric: "idmint.segment.store.errors", value: 3.0, attributes: tag() },
//! ]);
//! assert_eq!(h.status, Status::Down);
//! assert_eq!(h.reasons, [
//!     "the node lease is not held",
//!     "tag `orders` has no IDs buffered and 3 store calls failed",
//! ]);
//! ```

use crate::metrics::{merge, Observation};

/// Up, degraded or down.
///
/// ```
/// assert_eq!(idmint_core::health::Status::Down.as_str(), "down");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Status {
    /// Every generator observed can hand out IDs.
    Up,
    /// Every generator can hand out IDs, but one needs attention before it cannot (a layout
    /// within a year of its end): [`Health::reasons`] says which. Readiness stays green.
    Degraded,
    /// One cannot: [`Health::reasons`] says which and why.
    Down,
}

impl Status {
    /// `up`, `degraded` or `down`.
    ///
    /// ```
    /// assert_eq!(idmint_core::health::Status::Up.as_str(), "up");
    /// assert_eq!(idmint_core::health::Status::Degraded.as_str(), "degraded");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Up => "up",
            Status::Degraded => "degraded",
            Status::Down => "down",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The snowflake lease as observed (several generators combined: the lowest `held`, the
/// fence that ends first, renewal failures added up).
///
/// ```
/// use idmint_core::{health::health, metrics::Observation};
/// let h = health([Observation { metric: "idmint.lease.held", value: 1.0, attributes: vec![] }]);
/// let lease = h.lease.unwrap();
/// assert!(lease.held);
/// assert_eq!(lease.fence_s, None); // not observed
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LeaseHealth {
    /// True while the lease is held (`idmint.lease.held` 1).
    pub held: bool,
    /// The lease's fence in the store, unix seconds (`idmint.lease.fence`), if observed.
    pub fence_s: Option<f64>,
    /// Renewals that failed so far (`idmint.lease.renew.failures`), if observed.
    pub renew_failures: Option<u64>,
}

/// One segment tag as observed (several clients combined: IDs buffered and store errors added
/// up).
///
/// ```
/// use idmint_core::{health::health, metrics::Observation};
/// let h = health([Observation::parse("idmint.segment.remaining", 0.0, [("tag", "orders")])?]);
/// // Nothing buffered but no store call failed: the first refill is on its way.
/// assert!(!h.tags[0].starved);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TagHealth {
    /// The tag.
    pub tag: String,
    /// IDs buffered in memory (`idmint.segment.remaining`; 0 when not observed).
    pub remaining: u64,
    /// Failed store calls (`idmint.segment.store.errors`; 0 when not observed).
    pub store_errors: u64,
    /// True when nothing is buffered and store calls failed: this tag makes the health down.
    pub starved: bool,
}

/// The answer: the status, why it is down (one sentence per cause, none when up), and what
/// it was decided from.
///
/// ```
/// let h = idmint_core::health::health([]);
/// assert_eq!((h.status.as_str(), h.reasons.len(), h.lease, h.tags.len()), ("up", 0, None, 0));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Health {
    /// Up, degraded or down.
    pub status: Status,
    /// Why it is not up: what makes it down (the lease first, then each starved tag in the
    /// order observed, the clock, each required tag without a range), then what makes it
    /// degraded (the layout's end).
    pub reasons: Vec<String>,
    /// The lease, when a generator observed has one.
    pub lease: Option<LeaseHealth>,
    /// Each tag observed, in the order first observed.
    pub tags: Vec<TagHealth>,
}

impl Health {
    /// True when the generators can hand out IDs: up or degraded (what readiness asks).
    ///
    /// ```
    /// use idmint_core::health::{health, Status};
    /// use idmint_core::metrics::Observation;
    /// assert!(health([]).is_up());
    /// let late = health([Observation { metric: "idmint.layout.remaining", value: 86_400.0, attributes: vec![] }]);
    /// assert_eq!(late.status, Status::Degraded);
    /// assert!(late.is_up());
    /// ```
    pub fn is_up(&self) -> bool {
        self.status != Status::Down
    }
}

/// Health turns degraded while a snowflake layout has less than this left before its time field
/// runs out (`idmint.layout.remaining`): a year of 365 days.
///
/// ```
/// assert_eq!(idmint_core::health::DEGRADED_BELOW.as_secs(), 365 * 86_400);
/// ```
pub const DEGRADED_BELOW: std::time::Duration = std::time::Duration::from_secs(365 * 86_400);

/// A count as observed: observations are counts in an `f64` (exact far beyond any count
/// reached); a value [`Observation::parse`] would refuse counts 0.
fn count(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 {
        value as u64
    } else {
        0
    }
}

/// The health of the generators and clients whose observations these are
/// ([`crate::metrics::observe_snowflake`], `metrics::observe_segments` (feature `segment`), or
/// a package's `observe()` values read back with [`Observation::parse`]), by the rule of this
/// module. Metrics the rule does not read are ignored, and so are per-tag values without a
/// `tag` (which [`Observation::parse`] refuses).
///
/// ```
/// use idmint_core::health::{health, Status};
/// use idmint_core::metrics::{observe_snowflake, Observation};
/// use idmint_core::{Layout, Snowflake};
/// let gen = Snowflake::builder(Layout::preset("sonyflake")?).node("machine", 9).build()?;
/// gen.next_id()?;
/// let h = health(observe_snowflake(&gen));
/// assert_eq!(h.status, Status::Up);
/// assert_eq!(h.lease, None); // a generator without a lease
///
/// // A segment client's values for a tag it cannot refill (as `observe_segments` reports them).
/// let starved = [
///     Observation::parse("idmint.segment.remaining", 0.0, [("tag", "orders")])?,
///     Observation::parse("idmint.segment.store.errors", 2.0, [("tag", "orders")])?,
/// ];
/// let h = health(observe_snowflake(&gen).into_iter().chain(starved));
/// assert_eq!(h.status, Status::Down);
/// assert!(h.tags[0].starved);
/// assert_eq!(h.reasons, ["tag `orders` has no IDs buffered and 2 store calls failed"]);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn health(observations: impl IntoIterator<Item = Observation>) -> Health {
    health_requiring::<&str>(observations, &[])
}

/// [`health`], for a process that must serve `required` tags (`idmint serve`'s preloaded
/// `[segment] tags`, loaded before it says ready): each of them with no IDs buffered, or not
/// observed at all, also makes the health down (`tag `x` has no range loaded`), unless it is
/// starved, which says so already.
///
/// ```
/// use idmint_core::health::{health_requiring, Status};
/// use idmint_core::metrics::Observation;
/// let loaded = [Observation::parse("idmint.segment.remaining", 500.0, [("tag", "orders")])?];
/// assert_eq!(health_requiring(loaded.clone(), &["orders"]).status, Status::Up);
/// let h = health_requiring(loaded, &["orders", "users"]);
/// assert_eq!(h.status, Status::Down);
/// assert_eq!(h.reasons, ["tag `users` has no range loaded"]);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn health_requiring<S: AsRef<str>>(
    observations: impl IntoIterator<Item = Observation>,
    required: &[S],
) -> Health {
    let mut held = None;
    let mut behind = None;
    let mut fence_s = None;
    let mut renew_failures = None;
    let mut layout_remaining = None;
    let mut tags: Vec<TagHealth> = Vec::new();
    for o in merge(observations) {
        match o.metric {
            "idmint.lease.held" => held = Some(o.value >= 1.0),
            "idmint.lease.fence" => fence_s = Some(o.value),
            "idmint.lease.renew.failures" => renew_failures = Some(count(o.value)),
            "idmint.layout.remaining" => layout_remaining = Some(o.value),
            "idmint.clock.behind" => behind = Some(o.value),
            "idmint.segment.remaining" | "idmint.segment.store.errors" => {
                let Some((_, name)) = o.attributes.iter().find(|(k, _)| *k == "tag") else {
                    continue;
                };
                let i = match tags.iter().position(|t| &t.tag == name) {
                    Some(i) => i,
                    None => {
                        tags.push(TagHealth {
                            tag: name.clone(),
                            remaining: 0,
                            store_errors: 0,
                            starved: false,
                        });
                        tags.len() - 1
                    }
                };
                if o.metric == "idmint.segment.remaining" {
                    tags[i].remaining = count(o.value);
                } else {
                    tags[i].store_errors = count(o.value);
                }
            }
            _ => {}
        }
    }
    // Without `held` there is no lease state to judge: a fence alone says nothing.
    let lease = held.map(|held| LeaseHealth {
        held,
        fence_s,
        renew_failures,
    });
    let mut reasons = Vec::new();
    if lease.as_ref().is_some_and(|l| !l.held) {
        reasons.push("the node lease is not held".to_string());
    }
    for t in &mut tags {
        // Nothing buffered alone is a refill on its way (or a tag not loaded yet); with failed
        // store calls, callers wait on a store that does not answer.
        t.starved = t.remaining == 0 && t.store_errors > 0;
        if t.starved {
            let calls = if t.store_errors == 1 { "call" } else { "calls" };
            reasons.push(format!(
                "tag `{}` has no IDs buffered and {} store {calls} failed",
                t.tag, t.store_errors
            ));
        }
    }
    // Merged, the generator whose clock is furthest behind.
    if behind.is_some_and(|s| s > 0.0) {
        reasons.push("the clock is behind the last issued snowflake ID".to_string());
    }
    for name in required {
        let name = name.as_ref();
        let tag = tags.iter().find(|t| t.tag == name);
        // A starved tag has its reason already; a tag not observed has nothing buffered.
        if !tag.is_some_and(|t| t.remaining > 0 || t.starved) {
            reasons.push(format!("tag `{name}` has no range loaded"));
        }
    }
    let down = !reasons.is_empty();
    // The layout's end: merged, the generator whose layout ends first.
    let degraded = layout_remaining.filter(|s| *s < DEGRADED_BELOW.as_secs_f64());
    if let Some(s) = degraded {
        reasons.push(format!(
            "the snowflake layout runs out in {} days, less than the {} days health allows",
            (s / 86_400.0).floor() as u64,
            DEGRADED_BELOW.as_secs() / 86_400
        ));
    }
    Health {
        status: if down {
            Status::Down
        } else if degraded.is_some() {
            Status::Degraded
        } else {
            Status::Up
        },
        reasons,
        lease,
        tags,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(metric: &str, value: f64, tag: &str) -> Observation {
        let attrs: Vec<(&str, &str)> = if tag.is_empty() {
            vec![]
        } else {
            vec![("tag", tag)]
        };
        Observation::parse(metric, value, attrs).unwrap()
    }

    #[test]
    fn nothing_observed_is_up() {
        let h = health([]);
        assert!(h.is_up());
        assert!(h.reasons.is_empty() && h.lease.is_none() && h.tags.is_empty());
    }

    #[test]
    fn a_lost_lease_is_down_and_held_is_up() {
        let held = health([o("idmint.lease.held", 1.0, "")]);
        assert!(held.is_up());
        let lost = health([
            o("idmint.lease.held", 0.0, ""),
            o("idmint.lease.fence", 1_700_000_000.5, ""),
            o("idmint.lease.renew.failures", 4.0, ""),
        ]);
        assert_eq!(lost.status, Status::Down);
        assert_eq!(lost.reasons, ["the node lease is not held"]);
        assert_eq!(
            lost.lease,
            Some(LeaseHealth {
                held: false,
                fence_s: Some(1_700_000_000.5),
                renew_failures: Some(4)
            })
        );
    }

    /// One generator of two without its lease makes the process down (merge takes the lowest).
    #[test]
    fn one_lost_lease_of_two_is_down() {
        let h = health([
            o("idmint.lease.held", 1.0, ""),
            o("idmint.lease.held", 0.0, ""),
        ]);
        assert_eq!(h.status, Status::Down);
        let h = health([
            o("idmint.lease.held", 0.0, ""),
            o("idmint.lease.held", 1.0, ""),
        ]);
        assert_eq!(h.status, Status::Down);
    }

    /// Below a year left: degraded, still up for readiness; down reasons come first.
    #[test]
    fn a_layout_near_its_end_is_degraded() {
        let year = DEGRADED_BELOW.as_secs_f64();
        assert_eq!(
            health([o("idmint.layout.remaining", year, "")]).status,
            Status::Up
        );
        let h = health([o("idmint.layout.remaining", year - 1.0, "")]);
        assert_eq!((h.status, h.is_up()), (Status::Degraded, true));
        assert_eq!(
            h.reasons,
            ["the snowflake layout runs out in 364 days, less than the 365 days health allows"]
        );
        // Two generators: the one that ends first decides.
        let h = health([
            o("idmint.layout.remaining", 10.0 * year, ""),
            o("idmint.layout.remaining", 0.0, ""),
            o("idmint.lease.held", 0.0, ""),
        ]);
        assert_eq!(h.status, Status::Down);
        assert_eq!(
            h.reasons,
            [
                "the node lease is not held",
                "the snowflake layout runs out in 0 days, less than the 365 days health allows"
            ]
        );
    }

    #[test]
    fn a_tag_is_starved_only_empty_and_failing() {
        let cases = [
            (0.0, 0.0, false),
            (0.0, 1.0, true),
            (5.0, 1.0, false),
            (5.0, 0.0, false),
        ];
        for (remaining, errors, starved) in cases {
            let h = health([
                o("idmint.segment.remaining", remaining, "a"),
                o("idmint.segment.store.errors", errors, "a"),
            ]);
            assert_eq!(h.tags[0].starved, starved, "{remaining} {errors}");
            assert_eq!(h.is_up(), !starved);
        }
        let one = health([o("idmint.segment.store.errors", 1.0, "a")]);
        assert_eq!(
            one.reasons,
            ["tag `a` has no IDs buffered and 1 store call failed"]
        );
    }

    /// A generator whose clock went back behind its last ID is down, by its own observations
    /// (what a package's `health()` and the server's `/readyz` both read).
    #[test]
    fn a_clock_behind_is_down() {
        use crate::metrics::observe_snowflake;
        use crate::{Layout, ManualClock, Snowflake};
        let clock = ManualClock::new(1_700_000_000_000);
        let g = Snowflake::with_clock(Layout::preset("twitter").unwrap(), &clock)
            .node("datacenter", 0)
            .node("worker", 1)
            .build()
            .unwrap();
        g.next_id().unwrap();
        assert!(health(observe_snowflake(&g)).is_up());
        clock.set_ms(1_699_999_990_000);
        let h = health(observe_snowflake(&g));
        assert_eq!(h.status, Status::Down);
        assert_eq!(
            h.reasons,
            ["the clock is behind the last issued snowflake ID"]
        );
        clock.set_ms(1_700_000_000_001);
        assert!(health(observe_snowflake(&g)).is_up());
        // Two generators: the one furthest behind decides.
        let h = health([
            o("idmint.clock.behind", 0.0, ""),
            o("idmint.clock.behind", 0.5, ""),
        ]);
        assert_eq!(h.status, Status::Down);
    }

    /// Required (preloaded) tags: each needs IDs buffered; a starved one gives one reason.
    #[test]
    fn a_required_tag_without_a_range_is_down() {
        let loaded = [o("idmint.segment.remaining", 10.0, "a")];
        assert!(health_requiring(loaded.clone(), &["a"]).is_up());
        let empty = [
            o("idmint.segment.remaining", 0.0, "a"),
            o("idmint.segment.store.errors", 0.0, "a"),
        ];
        // Without the requirement, an empty tag is a refill on its way: up.
        assert!(health(empty.clone()).is_up());
        let h = health_requiring(empty, &["a"]);
        assert_eq!(h.status, Status::Down);
        assert_eq!(h.reasons, ["tag `a` has no range loaded"]);
        let h = health_requiring([], &["b".to_string()]);
        assert_eq!(h.reasons, ["tag `b` has no range loaded"]);
        let starved = [
            o("idmint.segment.remaining", 0.0, "a"),
            o("idmint.segment.store.errors", 2.0, "a"),
        ];
        assert_eq!(
            health_requiring(starved, &["a"]).reasons,
            ["tag `a` has no IDs buffered and 2 store calls failed"]
        );
        // Down reasons before degraded ones; the clock before required tags.
        let h = health_requiring(
            [
                o("idmint.layout.remaining", 0.0, ""),
                o("idmint.clock.behind", 1.0, ""),
            ],
            &["a"],
        );
        assert_eq!(h.reasons.len(), 3);
        assert_eq!(
            h.reasons[0],
            "the clock is behind the last issued snowflake ID"
        );
        assert_eq!(h.reasons[1], "tag `a` has no range loaded");
    }

    /// A real client's observations: served from memory, up.
    #[cfg(feature = "segment")]
    #[test]
    fn a_serving_client_is_up() {
        use crate::segment::{MemoryStore, SegmentClient};
        let client = SegmentClient::builder()
            .store(MemoryStore::new())
            .connect_blocking()
            .unwrap();
        client.next_ids("a", 3).unwrap();
        let h = health(crate::metrics::observe_segments(&client));
        assert!(h.is_up(), "{h:?}");
        assert_eq!(h.tags.len(), 1);
        assert_eq!((h.tags[0].tag.as_str(), h.tags[0].store_errors), ("a", 0));
    }

    /// The serde form is the one tests/vectors/health.json writes as `expected`.
    #[cfg(feature = "serde")]
    #[test]
    fn serialized_form() {
        let h = health([
            o("idmint.lease.held", 0.0, ""),
            o("idmint.segment.remaining", 0.0, "a"),
            o("idmint.segment.store.errors", 2.0, "a"),
        ]);
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "status": "down",
                "reasons": [
                    "the node lease is not held",
                    "tag `a` has no IDs buffered and 2 store calls failed"
                ],
                "lease": {"held": false, "fence_s": null, "renew_failures": null},
                "tags": [{"tag": "a", "remaining": 0, "store_errors": 2, "starved": true}]
            })
        );
    }
}

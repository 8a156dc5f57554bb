//! The snowflake generator, its clock and its counters: `Snowflake`, `ManualClock`, `Stats`.

use std::fmt;
use std::sync::Arc;

use idmint_core::{self as core, AnyClock, OnExhausted, OnRollback};

use crate::convert::*;
use crate::errors::*;
use crate::layout::*;
use crate::lease::*;

/// A generator's counters ([`idmint_core::Stats`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Stats {
    /// IDs issued.
    pub issued: i64,
    /// Times a caller waited.
    pub waits: i64,
    /// Clock rollback events.
    pub rollbacks: i64,
    /// Current lead over the clock, ms.
    pub lead_ms: i64,
    /// Largest lead seen, ms.
    pub max_lead_ms: i64,
}

/// A clock that moves only when told ([`idmint_core::ManualClock`]), for tests: a generator
/// built on it mints deterministic IDs, and setting it back shows the rollback policy at work.
#[derive(Debug, uniffi::Object)]
pub struct ManualClock(pub(crate) Arc<core::ManualClock>);

#[uniffi::export]
impl ManualClock {
    /// A clock reading `now_ms` (unix ms; negative is `invalid_argument`).
    #[uniffi::constructor]
    pub fn new(now_ms: i64) -> Result<Arc<Self>> {
        Ok(Arc::new(ManualClock(Arc::new(core::ManualClock::new(
            unix_ms("now_ms", now_ms)?,
        )))))
    }

    /// The time it reads, unix ms.
    pub fn now_ms(&self) -> Result<i64> {
        to_long(core::Clock::now_ms(&*self.0))
    }

    /// Set it to `now_ms`, forwards or backwards.
    pub fn set_ms(&self, now_ms: i64) -> Result<()> {
        self.0.set_ms(unix_ms("now_ms", now_ms)?);
        Ok(())
    }

    /// Move it forwards by `ms`.
    pub fn advance_ms(&self, ms: i64) -> Result<()> {
        self.0.advance_ms(unix_ms("ms", ms)?);
        Ok(())
    }
}

/// The clock of a generator: `clock`, or the default monotonic clock.
pub(crate) fn any_clock(clock: Option<Arc<ManualClock>>) -> AnyClock {
    clock.map_or_else(AnyClock::default, |c| AnyClock::Manual(c.0.clone()))
}

/// A snowflake generator ([`idmint_core::Snowflake`]), on the default monotonic clock or on a
/// [`ManualClock`].
#[derive(uniffi::Object)]
pub struct Snowflake(pub(crate) core::Snowflake<AnyClock>);

impl fmt::Debug for Snowflake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[uniffi::export]
impl Snowflake {
    /// Build a generator; `unsigned` lets it mint with a 64-bit layout (the core refuses one
    /// without it, saying why); policies in the core's text forms (`wait`, `borrow:MS`; `error`,
    /// `wait:MS`, `continue`), none for the core's defaults; `clock` none for the default
    /// monotonic clock; `resume_after` an ID this node issued before a restart (negative is
    /// `invalid_id`; the core checks it against the layout); `start_above` an ID in decimal
    /// (up to 2^64-1, read by the core's decimal reader: anything else is `invalid_id`) the
    /// first ID must be above, from the first tick whose IDs all are (the core refuses one the
    /// layout never passes, or a clock before that tick under the `error` policy, as
    /// `invalid_argument` naming the time); `lease` a worker lease that fills
    /// the node fields; `high_water_mark` the path of the file that keeps the last time issued.
    /// The core decides which node values are allowed together.
    #[uniffi::constructor]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        layout: Arc<Layout>,
        nodes: Vec<NodeValue>,
        random_nodes: bool,
        on_exhausted: Option<String>,
        on_rollback: Option<String>,
        clock: Option<Arc<ManualClock>>,
        resume_after: Option<i64>,
        start_above: Option<String>,
        lease: Option<LeaseSpec>,
        high_water_mark: Option<String>,
        unsigned: bool,
    ) -> Result<Arc<Self>> {
        let on_exhausted = on_exhausted.as_deref().map(str::parse::<OnExhausted>);
        let on_exhausted = on_exhausted.transpose().ffi()?.unwrap_or_default();
        let on_rollback = on_rollback.as_deref().map(str::parse::<OnRollback>);
        let on_rollback = on_rollback.transpose().ffi()?.unwrap_or_default();
        let mut builder = core::Snowflake::with_clock(layout.0.clone(), any_clock(clock))
            .nodes(nodes.iter().map(|n| (n.name.as_str(), n.value)))
            .on_exhausted(on_exhausted)
            .on_rollback(on_rollback);
        if random_nodes {
            builder = builder.random_nodes();
        }
        if unsigned {
            builder = builder.unsigned();
        }
        if let Some(last_id) = resume_after {
            builder = builder.resume_after(layout_id(&layout.0, last_id)?);
        }
        if let Some(above) = start_above {
            builder = builder.start_above(core::layout::parse_u64(&above).ffi()?);
        }
        // The first range value as given, when it does not fit (for the core's error).
        #[cfg_attr(not(feature = "stores"), allow(unused_mut))]
        let mut given = None;
        if let Some(spec) = lease {
            let (opts, g) = lease_options(spec)?;
            #[cfg(feature = "stores")]
            {
                builder = builder.lease(opts);
                given = g;
            }
            #[cfg(not(feature = "stores"))]
            {
                let _ = g;
                match opts {}
            }
        }
        if let Some(path) = high_water_mark {
            builder = builder.high_water_mark(path);
        }
        let gen = builder
            .build()
            .map_err(|e| ffi_error(range_given(e, given)))?;
        Ok(Arc::new(Snowflake(gen)))
    }

    /// The next ID (its 64 bits for an `unsigned` layout).
    pub fn next_id(&self) -> Result<i64> {
        id_bits(self.0.layout(), self.0.next_id().ffi()?)
    }

    /// `n` increasing IDs; negative `n` is `invalid_argument`.
    pub fn next_ids(&self, n: i32) -> Result<Vec<i64>> {
        let n = java_count("n", n).ffi()?;
        let layout = self.0.layout();
        let ids = self.0.next_ids(n).ffi()?;
        ids.into_iter().map(|id| id_bits(layout, id)).collect()
    }

    /// The generator's layout.
    pub fn layout(&self) -> Arc<Layout> {
        Arc::new(Layout(self.0.layout().clone()))
    }

    /// Node values, in layout order.
    pub fn nodes(&self) -> Result<Vec<NodeValue>> {
        self.0
            .nodes()
            .iter()
            .map(|(name, v)| {
                Ok(NodeValue {
                    name: name.clone(),
                    value: to_long(*v)?,
                })
            })
            .collect()
    }

    /// Sequence-exhaustion policy, as text.
    pub fn on_exhausted(&self) -> String {
        self.0.on_exhausted().to_string()
    }

    /// Clock-rollback policy, as text.
    pub fn on_rollback(&self) -> String {
        self.0.on_rollback().to_string()
    }

    /// The core's warning when the layout has less than five years left (by the generator's
    /// clock), else nothing.
    pub fn lifetime_warning(&self) -> Option<String> {
        self.0.lifetime_warning()
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        let s = self.0.stats();
        Stats {
            issued: count(s.issued),
            waits: count(s.waits),
            rollbacks: count(s.rollbacks),
            lead_ms: count(s.lead_ms),
            max_lead_ms: count(s.max_lead_ms),
        }
    }

    /// Split an ID of this generator's layout (as [`Layout::decompose`]).
    pub fn decompose(&self, id: i64) -> Result<Parts> {
        Layout(self.0.layout().clone()).decompose(id)
    }

    /// The address of this generator, for the [`crate::fast`] entry points. Valid while the Java object
    /// that holds this generator is alive (the facade keeps it reachable across each call).
    pub fn fast_handle(&self) -> i64 {
        self as *const Snowflake as i64
    }

    /// How many IDs the facade takes at a time for its per-thread blocks
    /// ([`idmint_core::Snowflake::block_len`]; 1: a call for each ID).
    pub fn block_len(&self) -> i32 {
        self.0.block_len() as i32
    }
}

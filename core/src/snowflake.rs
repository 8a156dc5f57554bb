//! The snowflake generator: lock-free, strictly increasing, with explicit policies for a
//! sequence that runs out within a tick and for a clock that moves backwards.
//!
//! # How state is kept
//!
//! The whole generator state is one `AtomicU64`: the next free *slot*, `tick << seq_bits | seq`.
//! Slots map one-to-one and in order onto IDs (time is the top field; the node bits are fixed),
//! so "every ID is greater than every earlier one" is "slots only grow", which one
//! compare-and-swap per call guarantees. A full sequence needs no special case: slot
//! `(t, max_seq) + 1` *is* `(t + 1, 0)`, a slot in the next tick, which the policies then allow
//! (borrow) or wait for.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::clock::{whole_ms, Clock, MonotonicClock};
use crate::error::quoted;
use crate::guard::{Admit, Guard, HighWaterMark};
use crate::layout::{Layout, Parts};
use crate::{Error, Result};

/// What to do when a tick's sequence numbers are all used.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::OnExhausted;
/// let borrow = OnExhausted::Borrow { max_ahead: Duration::from_millis(50) };
/// assert_ne!(borrow, OnExhausted::default());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnExhausted {
    /// Wait for the next tick (the default).
    #[default]
    Wait,
    /// Issue from future ticks, running the generator's logical time ahead of the clock by at
    /// most `max_ahead` (rounded down to whole ticks), then wait. Smooths bursts; the lead is
    /// reported by [`Stats::lead_ms`]. IDs then carry times up to `max_ahead` in the future.
    Borrow {
        /// The largest lead over the clock.
        max_ahead: Duration,
    },
}

/// What to do when the clock reads earlier than the last issued time (a wall clock stepped back,
/// or a restart with a clock behind). A lead taken under [`OnExhausted::Borrow`] is not a
/// rollback; only a clock further behind than that lead is.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::OnRollback;
/// assert_eq!(OnRollback::default(), OnRollback::Error);
/// let wait = OnRollback::Wait { max: Duration::from_millis(500) };
/// # let _ = wait;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnRollback {
    /// Return [`Error::ClockMovedBackwards`], saying how far back (the default).
    #[default]
    Error,
    /// Wait for the clock to catch up if it is at most `max` behind; else the error.
    Wait {
        /// The longest wait.
        max: Duration,
    },
    /// Keep issuing from the last logical time, ahead of the clock, never reissuing.
    Continue,
}

#[cfg_attr(idmint_optimize_size, optimize(size))]
fn parse_ms(policy: &str, text: &str, expected: &str) -> Result<Duration> {
    let trimmed = text.trim_ascii();
    let digits = trimmed.strip_suffix("ms").unwrap_or(trimmed);
    digits
        .parse::<u64>()
        .ok()
        .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
        .map(Duration::from_millis)
        .ok_or_else(|| Error::InvalidArgument {
            name: policy.to_string(),
            value: quoted(text),
            expected: expected.to_string(),
        })
}

const EXHAUSTED_FORMS: &str = "`wait` or `borrow:MS` (the largest lead in ms, e.g. borrow:50)";
const ROLLBACK_FORMS: &str =
    "`error`, `wait:MS` (the longest wait in ms, e.g. wait:500) or `continue`";

impl FromStr for OnExhausted {
    type Err = Error;
    /// The text form every binding and the CLI accept: `wait` or `borrow:MS`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::OnExhausted;
    /// assert_eq!("borrow:50".parse::<OnExhausted>()?, OnExhausted::Borrow { max_ahead: Duration::from_millis(50) });
    /// assert_eq!("wait".parse::<OnExhausted>()?.to_string(), "wait");
    /// assert_eq!("spin".parse::<OnExhausted>().unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    fn from_str(s: &str) -> Result<Self> {
        let trimmed = s.trim_ascii();
        match trimmed.split_once(':') {
            None if trimmed == "wait" => Ok(OnExhausted::Wait),
            Some(("borrow", ms)) => Ok(OnExhausted::Borrow {
                max_ahead: parse_ms("on_exhausted", ms, EXHAUSTED_FORMS)?,
            }),
            _ => Err(Error::InvalidArgument {
                name: "on_exhausted".into(),
                value: quoted(s),
                expected: EXHAUSTED_FORMS.into(),
            }),
        }
    }
}

impl fmt::Display for OnExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnExhausted::Wait => f.write_str("wait"),
            OnExhausted::Borrow { max_ahead } => write!(f, "borrow:{}", whole_ms(*max_ahead)),
        }
    }
}

impl FromStr for OnRollback {
    type Err = Error;
    /// The text form every binding and the CLI accept: `error`, `wait:MS` or `continue`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::OnRollback;
    /// assert_eq!("wait:500".parse::<OnRollback>()?, OnRollback::Wait { max: Duration::from_millis(500) });
    /// assert_eq!("continue".parse::<OnRollback>()?.to_string(), "continue");
    /// assert!("wait".parse::<OnRollback>().unwrap_err().to_string().contains("wait:MS"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    fn from_str(s: &str) -> Result<Self> {
        let trimmed = s.trim_ascii();
        match trimmed.split_once(':') {
            None if trimmed == "error" => Ok(OnRollback::Error),
            None if trimmed == "continue" => Ok(OnRollback::Continue),
            Some(("wait", ms)) => Ok(OnRollback::Wait {
                max: parse_ms("on_rollback", ms, ROLLBACK_FORMS)?,
            }),
            _ => Err(Error::InvalidArgument {
                name: "on_rollback".into(),
                value: quoted(s),
                expected: ROLLBACK_FORMS.into(),
            }),
        }
    }
}

impl fmt::Display for OnRollback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnRollback::Error => f.write_str("error"),
            OnRollback::Wait { max } => write!(f, "wait:{}", whole_ms(*max)),
            OnRollback::Continue => f.write_str("continue"),
        }
    }
}

fn random_u64() -> Result<u64> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| Error::InvalidArgument {
        name: "random_nodes".into(),
        value: "true".into(),
        expected: format!("a working OS random source ({e})"),
    })?;
    Ok(u64::from_le_bytes(b))
}

/// Random values for the node fields of `layout` whose bits `mask` covers, as node bits.
fn random_node_bits(layout: &Layout, mask: u64) -> Result<u64> {
    let mut bits = 0;
    for f in layout.node_fields() {
        if mask & (f.max() << f.shift()) != 0 {
            bits |= (random_u64()? & f.max()) << f.shift();
        }
    }
    Ok(bits)
}

/// Counters of a generator, readable at any time.
///
/// ```
/// let g = idmint_core::Snowflake::builder(idmint_core::Layout::preset("twitter")?)
///     .node("datacenter", 1).node("worker", 2).build()?;
/// g.next_ids(10)?;
/// assert_eq!(g.stats().issued, 10);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// IDs issued.
    pub issued: u64,
    /// Times a caller waited: for a next tick, for a borrowed lead to shrink, or for a clock
    /// to catch up.
    pub waits: u64,
    /// Rollback events: runs of calls that found the clock behind the last issued time by more
    /// than a borrowed lead explains.
    pub rollbacks: u64,
    /// How far the last issued time is ahead of the clock now, in ms (0 when not ahead).
    pub lead_ms: u64,
    /// The largest lead seen when issuing, in ms.
    pub max_lead_ms: u64,
}

/// A leased generator's lease as it stands ([`Snowflake::lease_stats`]), for metrics (feature
/// `segment`, as leases).
///
/// ```
/// use idmint_core::lease::{LeaseOptions, MemoryLeaseStore};
/// use idmint_core::{Layout, Snowflake};
/// let g = Snowflake::builder(Layout::preset("twitter")?)
///     .lease(LeaseOptions::store(MemoryLeaseStore::new()))
///     .build()?;
/// g.next_id()?;
/// let l = g.lease_stats().unwrap();
/// assert!(l.held && l.fence_ms > 0 && l.renew_failures == 0);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[cfg(feature = "segment")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LeaseStats {
    /// Whether the lease is held now ([`Snowflake::lease_held`]).
    pub held: bool,
    /// The fence recorded in the store: IDs carry times up to this (unix ms).
    pub fence_ms: u64,
    /// Renewals that failed so far.
    pub renew_failures: u64,
}

#[repr(align(64))]
#[derive(Default)]
struct Padded<T>(T);

#[derive(Default)]
struct Counters {
    issued: AtomicU64,
    waits: AtomicU64,
    rollbacks: AtomicU64,
    in_rollback: AtomicBool,
    max_lead_ticks: AtomicU64,
}

/// A snowflake ID generator for one node.
///
/// Thread-safe and lock-free: share it (`Arc`, a `static`) between threads. Every ID it returns
/// is greater than every ID it returned before, on any thread.
///
/// ```
/// use idmint_core::{Layout, Snowflake};
///
/// let gen = Snowflake::builder(Layout::preset("twitter")?)
///     .node("datacenter", 3)
///     .node("worker", 17)
///     .build()?;
/// let a = gen.next_id()?;
/// let b = gen.next_id()?;
/// assert!(b > a);
/// let parts = gen.layout().decompose(b)?;
/// assert_eq!(parts.node("worker"), Some(17));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub struct Snowflake<C: Clock = MonotonicClock> {
    state: Padded<AtomicU64>,
    /// The slot in memory several processes share, used instead of `state` when set
    /// ([`SnowflakeBuilder::shared_state`]).
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    shared: Option<&'static AtomicU64>,
    counters: Padded<Counters>,
    clock: C,
    layout: Layout,
    /// The node fields' bits; changed only in a forked child (random node values).
    node_bits: AtomicU64,
    source: NodeSource,
    /// The bits of the node fields drawn at random (drawn again in a forked child).
    random_mask: u64,
    /// The fork generation the node values belong to (see [`Snowflake::after_fork`]).
    fork_gen: AtomicU64,
    fork_lock: Mutex<()>,
    seq_bits: u32,
    seq_mask: u64,
    seq_shift: u32,
    time_shift: u32,
    epoch_ms: u64,
    tick_ms: u64,
    max_tick: u64,
    borrow_ticks: u64,
    on_exhausted: OnExhausted,
    on_rollback: OnRollback,
    guard: Option<Arc<Guard>>,
}

/// Where a generator's node values came from: exactly one of these, which decides what the
/// generator does in the child of a `fork()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeSource {
    /// Set by the caller: the child refuses ([`Error::Forked`]), as the values are the parent's.
    Explicit,
    /// Drawn from the OS random source (the fields not given): the child draws its own.
    Random,
    /// Leased from a store: the child leases its own value.
    Leased,
}

/// Where a leased generator gets its node value: implemented by the worker-lease module.
pub(crate) trait GuardSource: fmt::Debug + Send + Sync {
    /// Leases a node value for `layout` and starts keeping it; the guard holds the value.
    fn start(&self, layout: &Layout, ahead: Duration) -> Result<Arc<Guard>>;
}

/// A worker lease for [`SnowflakeBuilder::lease`]: made from the lease module's
/// `LeaseOptions` (`From`, written beside them), so this module, beneath that one, takes them
/// without naming them.
///
/// ```
/// use idmint_core::lease::{LeaseOptions, MemoryLeaseStore};
/// use idmint_core::LeaseSource;
/// let source: LeaseSource = LeaseOptions::store(MemoryLeaseStore::new()).range(0, 3).into();
/// assert!(format!("{source:?}").contains("LeaseSource"));
/// ```
#[cfg(feature = "segment")]
#[derive(Debug, Clone)]
pub struct LeaseSource(pub(crate) Arc<dyn GuardSource>);

#[cfg(feature = "segment")]
impl<C> SnowflakeBuilder<C> {
    /// Lease the node value from a store instead of setting it: every node field is filled
    /// from the leased value, renewed in the background while the generator lives and released
    /// when it is dropped. Building fails with [`Error::NoFreeLease`] when every value of the
    /// range is taken; a generator whose renewals fail stops with [`Error::LeaseLost`] before
    /// its lease can have ended for others. (A lease another process holds for this one is
    /// `shared_lease`, in the lease module's `shared.rs`, unix only.)
    ///
    /// ```
    /// use idmint_core::lease::{LeaseOptions, MemoryLeaseStore};
    /// use idmint_core::{Layout, Snowflake};
    /// let g = Snowflake::builder(Layout::preset("sonyflake")?)
    ///     .lease(LeaseOptions::store(MemoryLeaseStore::new()).range(100, 199))
    ///     .build()?;
    /// assert_eq!(g.nodes()[0], ("machine".to_string(), 100));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn lease(mut self, options: impl Into<LeaseSource>) -> Self {
        self.lease = Some(options.into().0);
        self
    }
}

/// How far ahead of its IDs a guarded generator records its fence, unless set.
pub const DEFAULT_FENCE_AHEAD: Duration = Duration::from_secs(1);

/// Configures a [`Snowflake`]: node values, policies, clock.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::{Layout, ManualClock, OnExhausted, OnRollback, Snowflake};
///
/// let clock = ManualClock::new(1_700_000_000_000);
/// let gen = Snowflake::builder(Layout::preset("sonyflake")?)
///     .node("machine", 513)
///     .on_exhausted(OnExhausted::Borrow { max_ahead: Duration::from_millis(100) })
///     .on_rollback(OnRollback::Continue)
///     .clock(&clock)
///     .build()?;
/// assert_eq!(gen.layout().decompose(gen.next_id()?)?.time_ms, 1_700_000_000_000);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SnowflakeBuilder<C = MonotonicClock> {
    layout: Layout,
    nodes: Vec<(String, i128)>,
    random_nodes: bool,
    resume_after: Option<u64>,
    // Not in the browser's build: its main module is at its 40 KB budget and its package does
    // not offer the option (web/README.md, "Size").
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    start_above: Option<u64>,
    on_exhausted: OnExhausted,
    on_rollback: OnRollback,
    clock: C,
    pub(crate) high_water_mark: Option<PathBuf>,
    pub(crate) lease: Option<Arc<dyn GuardSource>>,
    fence_ahead: Duration,
    unsigned: bool,
    // Not in the browser's build, as `start_above`: nothing there shares memory between processes.
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    shared_slot: Option<&'static AtomicU64>,
}

impl<C: Clock> SnowflakeBuilder<C> {
    /// Give every node field not set with [`SnowflakeBuilder::node`] a random value from the
    /// OS random source, for places with no stable machine identity (a browser tab, a CLI
    /// run). Each node field's value comes from exactly one source: a value set, this, or a
    /// lease (which fills every field, so it takes neither of the others); a field without one
    /// is a `missing_field` error.
    ///
    /// Two generators then collide only if they draw the same values *and* mint in the same
    /// tick: with `n` node bits, two busy generators share values with probability `2^-n`
    /// (twitter: 1 in 1024), so use it only where a rare duplicate can be detected and
    /// retried, and prefer leased or configured node values on servers. In the child of a
    /// `fork()` the generator draws new values.
    ///
    /// ```
    /// let layout = idmint_core::Layout::preset("twitter")?;
    /// let g = idmint_core::Snowflake::builder(layout.clone())
    ///     .node("datacenter", 7)
    ///     .random_nodes()
    ///     .build()?;
    /// assert_eq!(g.nodes()[0], ("datacenter".to_string(), 7));
    /// assert!(g.nodes()[1].1 <= 31);
    /// let none = idmint_core::Snowflake::builder(layout).node("worker", 7).build();
    /// assert_eq!(none.unwrap_err().kind(), "missing_field");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn random_nodes(mut self) -> Self {
        self.random_nodes = true;
        self
    }

    /// Continue after `last_id`, an ID this node issued before (kept by the caller across a
    /// restart): every new ID is greater than it, and a clock behind its time is a rollback,
    /// handled by the [`OnRollback`] policy. Checked against the layout on build.
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let last = Layout::preset("twitter")?.compose_values(1_700_000_005_000, [("datacenter", 1), ("worker", 2)], 9)?;
    /// let g = Snowflake::with_clock(Layout::preset("twitter")?, &clock)
    ///     .node("datacenter", 1).node("worker", 2)
    ///     .resume_after(last)
    ///     .build()?;
    /// assert_eq!(g.next_id().unwrap_err().kind(), "clock_moved_backwards"); // clock 5 s behind
    /// clock.set_ms(1_700_000_005_000);
    /// assert!(g.next_id()? > last);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn resume_after(mut self, last_id: u64) -> Self {
        self.resume_after = Some(last_id);
        self
    }

    /// Start strictly above `id`, an ID minted by another layout (the one this layout replaces:
    /// a new epoch, other field widths): every ID this generator mints is greater than `id`, so
    /// keys stay unique and ordered across the switch. [`resume_after`](Self::resume_after) is
    /// the same for an ID of this layout.
    ///
    /// The generator starts at the first tick whose smallest ID is above `id` — the instant
    /// [`check_migration`](crate::plan::check_migration) names as `safe_from` — and build
    /// checks it against the clock (so a refusal names that time): a clock already there mints
    /// at once; a clock before it is handled as [`resume_after`](Self::resume_after) handles a
    /// clock behind its ID, by the [`OnRollback`] policy: `error` refuses, `wait:MS` waits on
    /// the first call if the time is at most that far off and refuses otherwise, `continue`
    /// mints from that tick at once, ahead of the clock. Refusals are `invalid_argument` errors
    /// naming `id`, the time and the clock's reading; an `id` this layout's IDs never pass (at
    /// or above its last tick's smallest ID) is refused the same way.
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, OnRollback, Snowflake};
    /// let last = 1_541_815_603_606_036_480; // the largest twitter ID in the table
    /// let new = Layout::parse("time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z")?;
    /// let clock = ManualClock::new(1_767_225_600_000); // 2026-01-01
    /// let e = Snowflake::with_clock(new.clone(), &clock).node("worker", 1).start_above(last).build();
    /// assert!(e.unwrap_err().to_string().contains("2035-08-25T14:24:45.449Z"));
    /// let g = Snowflake::with_clock(new, &clock)
    ///     .node("worker", 1)
    ///     .start_above(last)
    ///     .on_rollback(OnRollback::Continue) // mint ahead of the clock, from 2035-08-25
    ///     .build()?;
    /// assert!(g.next_id()? > last);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    ///
    /// Not on `wasm32-unknown-unknown` (the browser's main module has no room for it).
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn start_above(mut self, id: u64) -> Self {
        self.start_above = Some(id);
        self
    }

    /// Keep a high-water mark in the file at `path`: the time up to which this generator may
    /// have issued IDs, written ahead (by [`SnowflakeBuilder::fence_ahead`], default 1 s) and
    /// synced to disk before an ID past it is handed out. A restart reads it, so a clock that is
    /// behind after a reboot or a crash cannot make the node reissue: IDs stay above the mark
    /// and the [`OnRollback`] policy decides whether to wait, continue ahead, or fail. A clean
    /// exit (dropping the generator) lowers the mark to the last ID really issued.
    ///
    /// One file per node value and process: two generators sharing a file do not see each
    /// other's IDs. Without a worker lease, this is how a node survives restarts.
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let path = std::env::temp_dir().join(format!("idmint-doc-hwm-{}", std::process::id()));
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let g = Snowflake::with_clock(Layout::preset("twitter")?, &clock)
    ///     .node("datacenter", 1).node("worker", 1)
    ///     .high_water_mark(&path)
    ///     .build()?;
    /// let last = g.next_id()?;
    /// drop(g);
    /// clock.set_ms(1_699_999_995_000); // restarted with the clock 5 s behind
    /// let g = Snowflake::with_clock(Layout::preset("twitter")?, &clock)
    ///     .node("datacenter", 1).node("worker", 1)
    ///     .high_water_mark(&path)
    ///     .build()?;
    /// assert_eq!(g.next_id().unwrap_err().kind(), "clock_moved_backwards");
    /// # drop(g); std::fs::remove_file(&path).ok();
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn high_water_mark(mut self, path: impl Into<PathBuf>) -> Self {
        self.high_water_mark = Some(path.into());
        self
    }

    /// How far ahead of the IDs' time a high-water mark or a lease fence is recorded (default
    /// 1 s, [`DEFAULT_FENCE_AHEAD`]): the record is written at most once per this long, and a
    /// restart after a crash may have to wait this long.
    pub fn fence_ahead(mut self, ahead: Duration) -> Self {
        self.fence_ahead = ahead;
        self
    }

    /// Set node field `name` (e.g. `worker`) to `value`; checked against the layout on build.
    pub fn node(mut self, name: &str, value: impl Into<i128>) -> Self {
        self.nodes.push((name.to_string(), value.into()));
        self
    }

    /// Set several node fields.
    pub fn nodes<'a, V: Into<i128>>(
        mut self,
        nodes: impl IntoIterator<Item = (&'a str, V)>,
    ) -> Self {
        for (n, v) in nodes {
            self.nodes.push((n.to_string(), v.into()));
        }
        self
    }

    /// The sequence-exhaustion policy (default [`OnExhausted::Wait`]).
    pub fn on_exhausted(mut self, policy: OnExhausted) -> Self {
        self.on_exhausted = policy;
        self
    }

    /// The clock-rollback policy (default [`OnRollback::Error`]).
    pub fn on_rollback(mut self, policy: OnRollback) -> Self {
        self.on_rollback = policy;
        self
    }

    /// Mint with a layout of 64 bits ([`Layout::is_unsigned`], such as the `discord` preset),
    /// whose IDs are read as unsigned 64-bit values. Without it such a layout is refused on
    /// build: IDs from 2^63 on are negative as a Java `long` or SQL `BIGINT`, and JSON numbers
    /// lose digits above 2^53, so the caller says they are handled as unsigned. Layouts of up to
    /// 63 bits need nothing.
    ///
    /// ```
    /// use idmint_core::{Layout, Snowflake};
    /// let discord = Layout::preset("discord")?;
    /// let refused = Snowflake::builder(discord.clone()).node("worker", 1).node("process", 0).build();
    /// assert_eq!(refused.unwrap_err().kind(), "invalid_layout");
    /// let gen = Snowflake::builder(discord).unsigned().node("worker", 1).node("process", 0).build()?;
    /// assert_eq!(gen.layout().decompose(gen.next_id()?)?.node("worker"), Some(1));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn unsigned(mut self) -> Self {
        self.unsigned = true;
        self
    }

    /// Use another time source (default [`MonotonicClock`]).
    pub fn clock<D: Clock>(self, clock: D) -> SnowflakeBuilder<D> {
        SnowflakeBuilder {
            layout: self.layout,
            nodes: self.nodes,
            random_nodes: self.random_nodes,
            resume_after: self.resume_after,
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            start_above: self.start_above,
            on_exhausted: self.on_exhausted,
            on_rollback: self.on_rollback,
            clock,
            high_water_mark: self.high_water_mark,
            lease: self.lease,
            fence_ahead: self.fence_ahead,
            unsigned: self.unsigned,
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            shared_slot: self.shared_slot,
        }
    }

    /// Keep the generator's state (its next slot, see the [module docs](crate::snowflake)) in
    /// `cell` instead of in the generator: memory that several processes map, such as
    /// PostgreSQL's shared memory, where every backend builds its own generator on the one cell
    /// and together they mint as one (idmint's PostgreSQL extension, `pg/`). Every generator on
    /// a cell must have the same layout and node values; building moves the cell forward to
    /// this generator's start, never back. Start the cell at 0. Give them one clock too (a
    /// [`MonotonicClock`] made once and copied, e.g. across `fork()`): each `MonotonicClock::new`
    /// fixes its own offset to the wall clock, and two that disagree by a tick make the one
    /// behind see the other's IDs as a clock rollback.
    ///
    /// ```
    /// use std::sync::atomic::AtomicU64;
    /// use idmint_core::{Layout, Snowflake};
    ///
    /// static CELL: AtomicU64 = AtomicU64::new(0);
    /// let build = || Snowflake::builder(Layout::preset("twitter")?)
    ///     .node("datacenter", 1).node("worker", 2).shared_state(&CELL).build();
    /// let (a, b) = (build()?, build()?);
    /// let ids = [a.next_id()?, b.next_id()?, a.next_id()?];
    /// assert!(ids[0] < ids[1] && ids[1] < ids[2]); // one sequence across both generators
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn shared_state(mut self, cell: &'static AtomicU64) -> Self {
        self.shared_slot = Some(cell);
        self
    }

    /// Check everything and build. Fails on a node value that is missing or out of range, an
    /// epoch ahead of the clock, or a layout whose time field has already run out.
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub fn build(self) -> Result<Snowflake<C>> {
        // Without feature `segment` nothing can set a lease: saying so lets the compiler drop
        // the lease paths where none can be taken (the browser's main module is 1 KiB smaller).
        #[cfg(not(feature = "segment"))]
        let lease: &Option<Arc<dyn GuardSource>> = &None;
        #[cfg(feature = "segment")]
        let lease = &self.lease;
        let high_water_mark = &self.high_water_mark;
        // wasm32-unknown-unknown has no file system to keep a high-water mark in: refused here,
        // before the file paths (which the compiler then drops from the browser's module).
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        let high_water_mark: &Option<PathBuf> = match high_water_mark {
            Some(path) => {
                return Err(Error::InvalidArgument {
                    name: "high_water_mark".into(),
                    value: path.display().to_string(),
                    expected: "a file system, which wasm32-unknown-unknown has none of: give the node values, or random_nodes".into(),
                })
            }
            None => &None,
        };
        let layout = self.layout;
        check_mintable(&layout, self.unsigned)?;
        let mut nodes = self.nodes;
        let now_ms = self.clock.now_ms();
        if now_ms < layout.epoch_ms() {
            return Err(Error::EpochInFuture {
                epoch_ms: layout.epoch_ms(),
                now_ms,
            });
        }
        if layout.is_exhausted_at(now_ms) {
            return Err(layout.exhausted_error());
        }
        let seq = layout.sequence_field();
        // Everything that can fail is checked before a lease is taken, so a failed build
        // leaves no value held.
        let mut start_slot = match self.resume_after {
            Some(last) => {
                let (time_ms, sequence) =
                    layout.decompose_into(last, &mut vec![0; layout.fields().len() - 1])?;
                let tick = (time_ms - layout.epoch_ms()) / layout.tick_ms();
                ((tick << seq.bits()) | sequence) + 1
            }
            None => 0,
        };
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        if let Some(above) = self.start_above {
            let from_ms = start_above_ms(&layout, above, now_ms, self.on_rollback)?;
            start_slot = start_slot.max(slot_after(&layout, from_ms - 1));
        }
        let source = match (lease, self.random_nodes) {
            (Some(_), true) => {
                return Err(Error::InvalidArgument {
                    name: "random_nodes".into(),
                    value: "with a lease".into(),
                    expected: "one source per node field: a value, a lease, or random".into(),
                })
            }
            (Some(_), false) => NodeSource::Leased,
            (None, true) => NodeSource::Random,
            (None, false) => NodeSource::Explicit,
        };
        // With random nodes, the fields not given are drawn: these are their bits.
        let random_mask = if source == NodeSource::Random {
            layout
                .node_fields()
                .filter(|f| !nodes.iter().any(|(n, _)| n == f.name()))
                .fold(0, |m, f| m | (f.max() << f.shift()))
        } else {
            0
        };
        let guard = match (lease, high_water_mark) {
            (Some(_), Some(_)) => {
                return Err(Error::InvalidArgument {
                    name: "high_water_mark".into(),
                    value: "a file and a lease".into(),
                    expected: "one of them: a lease keeps its fence in the lease store".into(),
                })
            }
            (Some(source), None) => {
                if let Some((name, _)) = nodes.first() {
                    return Err(Error::InvalidArgument {
                        name: name.clone(),
                        value: "set by hand".into(),
                        expected:
                            "no node value with a lease: the leased value fills every node field"
                                .into(),
                    });
                }
                let guard = source.start(&layout, self.fence_ahead)?;
                let bits = guard.node_bits();
                nodes = layout
                    .node_fields()
                    .map(|f| {
                        (
                            f.name().to_string(),
                            ((bits >> f.shift()) & f.max()) as i128,
                        )
                    })
                    .collect();
                Some(guard)
            }
            (None, _) => None,
        };
        if random_mask != 0 {
            let drawn = random_node_bits(&layout, random_mask)?;
            for f in layout.node_fields() {
                if random_mask & (f.max() << f.shift()) != 0 {
                    nodes.push((
                        f.name().to_string(),
                        ((drawn >> f.shift()) & f.max()) as i128,
                    ));
                }
            }
        }
        let node_bits = layout.node_bits(nodes.iter().map(|(n, v)| (n.as_str(), *v)))?;
        let borrow_ticks = match self.on_exhausted {
            OnExhausted::Wait => 0,
            OnExhausted::Borrow { max_ahead } => {
                (whole_ms(max_ahead) / layout.tick_ms()).min(u32::MAX as u64)
            }
        };
        let guard = match (guard, high_water_mark) {
            (None, Some(path)) => {
                let (file, mark) = HighWaterMark::open(path)?;
                Some(Arc::new(Guard::new(
                    Box::new(file),
                    node_bits,
                    mark,
                    mark,
                    self.fence_ahead,
                    false,
                )))
            }
            (g, _) => g,
        };
        if let Some(g) = &guard {
            start_slot = start_slot.max(slot_after(&layout, g.floor_ms()));
        }
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        if let Some(shared) = self.shared_slot {
            // Never back: the other processes' generators may have issued past `start_slot`.
            shared.fetch_max(start_slot, Ordering::AcqRel);
        }
        Ok(Snowflake {
            guard,
            state: Padded(AtomicU64::new(start_slot)),
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            shared: self.shared_slot,
            counters: Padded::default(),
            seq_bits: seq.bits(),
            seq_mask: seq.max(),
            seq_shift: seq.shift(),
            time_shift: layout.total_bits() - layout.time_bits(),
            epoch_ms: layout.epoch_ms(),
            tick_ms: layout.tick_ms(),
            max_tick: layout.max_time_value(),
            borrow_ticks,
            on_exhausted: self.on_exhausted,
            on_rollback: self.on_rollback,
            clock: self.clock,
            node_bits: AtomicU64::new(node_bits),
            source,
            random_mask,
            fork_gen: AtomicU64::new(crate::fork::watch()),
            fork_lock: Mutex::new(()),
            layout,
        })
    }
}

/// Refuse a layout a generator must not mint with: one of 64 bits unless the caller opted in
/// ([`SnowflakeBuilder::unsigned`]), and one without a node field, which any two generators of
/// it would fill alike.
#[cfg_attr(idmint_optimize_size, optimize(size))]
fn check_mintable(layout: &Layout, unsigned: bool) -> Result<()> {
    let name = || {
        layout
            .preset_name()
            .map_or_else(|| layout.spec(), str::to_string)
    };
    if layout.node_fields().next().is_none() {
        return Err(Error::InvalidLayout {
            spec: name(),
            reason: "it has no node field, so two generators of it would mint the same IDs; it can read and compose IDs, not mint them".into(),
        });
    }
    if layout.total_bits() > 63 && !unsigned {
        return Err(Error::InvalidLayout {
            spec: name(),
            reason: format!(
                "its IDs take all 64 bits (up to {}): from 2^63 on they are negative as a Java long or SQL BIGINT, \
                 and JSON numbers lose digits above 2^53; to mint them anyway, opt in with SnowflakeBuilder::unsigned",
                layout.max_id()
            ),
        });
    }
    Ok(())
}

impl Snowflake<MonotonicClock> {
    /// Start configuring a generator for `layout` on the default [`MonotonicClock`].
    pub fn builder(layout: Layout) -> SnowflakeBuilder<MonotonicClock> {
        Snowflake::with_clock(layout, MonotonicClock::new())
    }
}

impl<C: Clock> Snowflake<C> {
    /// Start configuring a generator for `layout` on `clock`, without ever making the default
    /// clock (which panics on `wasm32-unknown-unknown`).
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let g = Snowflake::with_clock(Layout::preset("redis-lua")?, ManualClock::new(1426212000000))
    ///     .node("shard", 53)
    ///     .build()?;
    /// assert_eq!(g.next_id()?, 5981966696448054272);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn with_clock(layout: Layout, clock: C) -> SnowflakeBuilder<C> {
        SnowflakeBuilder {
            layout,
            nodes: Vec::new(),
            random_nodes: false,
            resume_after: None,
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            start_above: None,
            on_exhausted: OnExhausted::default(),
            on_rollback: OnRollback::default(),
            clock,
            high_water_mark: None,
            lease: None,
            fence_ahead: DEFAULT_FENCE_AHEAD,
            unsigned: false,
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            shared_slot: None,
        }
    }
}

impl<C: Clock> Snowflake<C> {
    /// The next ID.
    ///
    /// Errors: [`Error::ClockMovedBackwards`] under [`OnRollback::Error`] or a too long
    /// [`OnRollback::Wait`]; [`Error::LayoutExhausted`] once the time field has run out.
    #[inline]
    pub fn next_id(&self) -> Result<u64> {
        self.check_fork()?;
        let Some(g) = &self.guard else {
            let (slot, _) = self.reserve(1)?;
            return Ok(self.id_of(slot, self.node_bits.load(Ordering::Relaxed)));
        };
        loop {
            let generation = g.generation();
            let (slot, _) = self.reserve(1)?;
            let id = self.id_of(slot, g.node_bits());
            match g.admit(generation, self.tick_start_ms(slot >> self.seq_bits))? {
                Admit::Ok => return Ok(id),
                Admit::Retry { floor_ms } => self.raise_floor(floor_ms),
            }
        }
    }

    /// How many IDs a binding may take in one [`next_ids_into`](Snowflake::next_ids_into) call
    /// and hand out one by one from a per-thread block (for a runtime where each call into the
    /// core costs more than minting an ID), dropping the block once the system clock's
    /// millisecond has passed. 1/1024 of a tick's sequence, between 1 and 256, so the rest a
    /// thread drops costs under 0.1% of the layout's cap per thread; 1 (a call for each ID) for
    /// a generator with a lease or
    /// a high-water mark, whose IDs are admitted as they are issued, and on a clock that does
    /// not move by itself ([`Clock::moves_by_itself`]).
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let twitter = Snowflake::builder(Layout::preset("twitter")?).node("datacenter", 0).node("worker", 1).build()?;
    /// assert_eq!(twitter.block_len(), 4);
    /// let wide = Snowflake::builder(Layout::parse("time:41@1ms,worker:1,sequence:21")?).node("worker", 0).build()?;
    /// assert_eq!(wide.block_len(), 256);
    /// let manual = Snowflake::with_clock(Layout::preset("twitter")?, ManualClock::new(1_700_000_000_000))
    ///     .node("datacenter", 0).node("worker", 1).build()?;
    /// assert_eq!(manual.block_len(), 1);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn block_len(&self) -> usize {
        if self.guard.is_some() || !self.clock.moves_by_itself() {
            return 1;
        }
        (1usize << self.seq_bits.min(18))
            .div_ceil(1024)
            .clamp(1, 256)
    }

    /// Move the state past every slot whose time is at or below `floor_ms`.
    fn raise_floor(&self, floor_ms: u64) {
        let slot = slot_after(&self.layout, floor_ms);
        self.slot().fetch_max(slot, Ordering::AcqRel);
    }

    /// `n` IDs, increasing, reserved a run of sequence numbers at a time (one atomic step per
    /// tick they span). `n` is at most [`args::MAX_COUNT`](crate::args::MAX_COUNT)
    /// (`invalid_argument` above it; mint more with several calls or
    /// [`next_ids_into`](Snowflake::next_ids_into)).
    ///
    /// ```
    /// let g = idmint_core::Snowflake::builder(idmint_core::Layout::preset("twitter")?)
    ///     .node("datacenter", 0).node("worker", 1).build()?;
    /// let ids = g.next_ids(10_000)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// assert_eq!(g.next_ids(usize::MAX).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_ids(&self, n: usize) -> Result<Vec<u64>> {
        let mut out = crate::args::id_list(n, 0)?;
        self.next_ids_into(&mut out)?;
        Ok(out)
    }

    /// Fill `out` with increasing IDs. On error, `out` is partly filled and the IDs reserved
    /// for the rest are never issued.
    pub fn next_ids_into(&self, out: &mut [u64]) -> Result<()> {
        self.check_fork()?;
        let mut filled = 0;
        while filled < out.len() {
            let generation = self.guard.as_ref().map_or(0, |g| g.generation());
            let (start, count) = self.reserve((out.len() - filled) as u64)?;
            let node_bits = self.current_node_bits();
            if let Some(g) = &self.guard {
                let last_ms = self.tick_start_ms((start + count - 1) >> self.seq_bits);
                if let Admit::Retry { floor_ms } = g.admit(generation, last_ms)? {
                    self.raise_floor(floor_ms);
                    continue;
                }
            }
            for (i, slot) in (start..start + count).enumerate() {
                out[filled + i] = self.id_of(slot, node_bits);
            }
            filled += count as usize;
        }
        Ok(())
    }

    #[inline]
    fn current_node_bits(&self) -> u64 {
        match &self.guard {
            Some(g) => g.node_bits(),
            None => self.node_bits.load(Ordering::Relaxed),
        }
    }

    /// Fails, or gives this process node values of its own, when it is the child of a fork
    /// made after the node values were set: one atomic load on the hot path.
    #[inline]
    fn check_fork(&self) -> Result<()> {
        if crate::fork::since(self.fork_gen.load(Ordering::Acquire)) {
            self.after_fork()
        } else {
            Ok(())
        }
    }

    #[cold]
    fn after_fork(&self) -> Result<()> {
        let _one = self.fork_lock.lock().unwrap_or_else(|p| p.into_inner());
        let now = crate::fork::current();
        if self.fork_gen.load(Ordering::Acquire) == now {
            return Ok(());
        }
        match (self.source, &self.guard) {
            (NodeSource::Random, _) => {
                // Release: a thread that sees the new generation sees these values.
                let kept = self.node_bits.load(Ordering::Relaxed) & !self.random_mask;
                let drawn = random_node_bits(&self.layout, self.random_mask)?;
                self.node_bits.store(kept | drawn, Ordering::Release);
            }
            (NodeSource::Leased, Some(g)) => g.after_fork(&self.layout)?,
            _ => {
                return Err(Error::Forked {
                    what: "snowflake generator with explicit node values".into(),
                    remedy: "its node values are the parent's: build a new one in the child, or use a lease or random node values".into(),
                })
            }
        }
        self.fork_gen.store(now, Ordering::Release);
        Ok(())
    }

    /// The generator's whole state: its own slot, or the shared one.
    #[inline(always)]
    fn slot(&self) -> &AtomicU64 {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        if let Some(shared) = self.shared {
            return shared;
        }
        &self.state.0
    }

    #[inline]
    fn id_of(&self, slot: u64, node_bits: u64) -> u64 {
        ((slot >> self.seq_bits) << self.time_shift)
            | node_bits
            | ((slot & self.seq_mask) << self.seq_shift)
    }

    #[inline]
    fn tick_of(&self, now_ms: u64) -> u64 {
        let since = now_ms.saturating_sub(self.epoch_ms);
        // Most layouts tick in milliseconds; skip the division (tens of cycles) for them.
        if self.tick_ms == 1 {
            since
        } else {
            since / self.tick_ms
        }
    }

    #[inline]
    fn tick_start_ms(&self, tick: u64) -> u64 {
        self.epoch_ms + tick * self.tick_ms
    }

    /// Reserve up to `want` (≥ 1) consecutive slots; returns the first and how many.
    fn reserve(&self, want: u64) -> Result<(u64, u64)> {
        let sb = self.seq_bits;
        loop {
            // Load before reading the clock: whoever stored `s` read the clock earlier, so with a
            // monotonic clock our reading is not behind theirs and a lag below means a real
            // rollback, not a race between threads.
            let s = self.slot().load(Ordering::Acquire);
            let now_ms = self.clock.now_ms();
            let now_tick = self.tick_of(now_ms);
            if now_tick > self.max_tick {
                return Err(self.layout.exhausted_error());
            }
            let mut limit = now_tick + self.borrow_ticks;
            let last_tick = s.wrapping_sub(1) >> sb;
            if s != 0 && last_tick > limit {
                match self.on_rollback {
                    OnRollback::Error => {
                        self.note_rollback();
                        return Err(Error::ClockMovedBackwards {
                            behind_ms: self.tick_start_ms(last_tick).saturating_sub(now_ms),
                            allowed_ms: 0,
                        });
                    }
                    OnRollback::Wait { max } => {
                        self.note_rollback();
                        let target_ms = self.tick_start_ms(last_tick - self.borrow_ticks);
                        let max_ms = whole_ms(max);
                        if target_ms - now_ms > max_ms {
                            return Err(Error::ClockMovedBackwards {
                                behind_ms: self.tick_start_ms(last_tick) - now_ms,
                                allowed_ms: max_ms,
                            });
                        }
                        self.counters.0.waits.fetch_add(1, Ordering::Relaxed);
                        self.clock.sleep_until_ms(target_ms);
                        continue;
                    }
                    OnRollback::Continue => {
                        self.note_rollback();
                        limit = self.max_tick;
                    }
                }
            } else if self.counters.0.in_rollback.load(Ordering::Relaxed) {
                self.counters.0.in_rollback.store(false, Ordering::Relaxed);
            }
            let start = s.max(now_tick << sb);
            let start_tick = start >> sb;
            if start_tick > self.max_tick {
                return Err(self.layout.exhausted_error());
            }
            if start_tick > limit {
                // Every slot we may use now is taken: wait until the clock lets `start_tick` in.
                self.counters.0.waits.fetch_add(1, Ordering::Relaxed);
                self.clock
                    .sleep_until_ms(self.tick_start_ms(start_tick - self.borrow_ticks));
                continue;
            }
            let end_cap = (limit.min(self.max_tick) + 1) << sb;
            let end = start.saturating_add(want).min(end_cap);
            if self
                .slot()
                .compare_exchange_weak(s, end, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                let c = &self.counters.0;
                c.issued.fetch_add(end - start, Ordering::Relaxed);
                let lead = ((end - 1) >> sb).saturating_sub(now_tick);
                if lead > 0 {
                    c.max_lead_ticks.fetch_max(lead, Ordering::Relaxed);
                }
                return Ok((start, end - start));
            }
        }
    }

    fn note_rollback(&self) {
        let c = &self.counters.0;
        if !c.in_rollback.swap(true, Ordering::Relaxed) {
            c.rollbacks.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        let c = &self.counters.0;
        let s = self.slot().load(Ordering::Acquire);
        let now_tick = self.tick_of(self.clock.now_ms());
        let lead = if s == 0 {
            0
        } else {
            ((s - 1) >> self.seq_bits).saturating_sub(now_tick)
        };
        Stats {
            issued: c.issued.load(Ordering::Relaxed),
            waits: c.waits.load(Ordering::Relaxed),
            rollbacks: c.rollbacks.load(Ordering::Relaxed),
            lead_ms: lead * self.tick_ms,
            max_lead_ms: c.max_lead_ticks.load(Ordering::Relaxed) * self.tick_ms,
        }
    }

    /// Whether this generator holds its node value's lease now: `None` without a lease (hand-set
    /// or random node values, a high-water mark), `Some(false)` while it refuses to mint with
    /// [`Error::LeaseLost`] (renewals failed), `Some(true)` while it may mint. A server's
    /// readiness check reads it.
    ///
    /// ```
    /// use idmint_core::lease::{LeaseOptions, MemoryLeaseStore};
    /// use idmint_core::{Layout, Snowflake};
    /// let plain = Snowflake::builder(Layout::preset("twitter")?).node("datacenter", 0).node("worker", 1).build()?;
    /// assert_eq!(plain.lease_held(), None);
    /// let leased = Snowflake::builder(Layout::preset("twitter")?)
    ///     .lease(LeaseOptions::store(MemoryLeaseStore::new()))
    ///     .build()?;
    /// assert_eq!(leased.lease_held(), Some(true));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg(feature = "segment")]
    pub fn lease_held(&self) -> Option<bool> {
        self.guard.as_ref().and_then(|g| g.lease_held())
    }

    /// The lease's state for metrics: `None` without a lease.
    #[cfg(feature = "segment")]
    pub fn lease_stats(&self) -> Option<LeaseStats> {
        let g = self.guard.as_ref()?;
        Some(LeaseStats {
            held: g.lease_held()?,
            fence_ms: g.recorded_ms(),
            renew_failures: g.renew_failures(),
        })
    }

    /// The time left until the layout's time field runs out, by this generator's clock
    /// ([`Layout::remaining_at`]): the metric `idmint.layout.remaining`, from which the core's
    /// health turns degraded below a year.
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let layout = Layout::preset("twitter")?;
    /// let clock = ManualClock::new(layout.exhausts_at_ms() - 3_600_000);
    /// let g = Snowflake::with_clock(layout, &clock).node("datacenter", 0).node("worker", 1).build()?;
    /// assert_eq!(g.layout_remaining().as_secs(), 3600);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn layout_remaining(&self) -> std::time::Duration {
        self.layout.remaining_at(self.clock.now_ms())
    }

    /// The warning to give when this generator starts with less than five years left in its
    /// layout, by its clock ([`Layout::lifetime_warning`]); `None` otherwise.
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let layout = Layout::preset("twitter")?;
    /// let g = Snowflake::with_clock(layout.clone(), ManualClock::new(1_700_000_000_000))
    ///     .node("datacenter", 0).node("worker", 1).build()?;
    /// assert_eq!(g.lifetime_warning(), None);
    /// let late = Snowflake::with_clock(layout.clone(), ManualClock::new(layout.exhausts_at_ms() - 1000))
    ///     .node("datacenter", 0).node("worker", 1).build()?;
    /// assert!(late.lifetime_warning().unwrap().contains("in 0 days"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn lifetime_warning(&self) -> Option<String> {
        self.layout.lifetime_warning(self.clock.now_ms())
    }

    /// Whether the clock is where this generator's policies expect it: not behind the last
    /// issued time by more than a lead its [`OnExhausted::Borrow`] allows. False while a
    /// rollback lasts (a wall clock stepped back, or a restart whose clock is behind the fence):
    /// calls then wait or fail by the [`OnRollback`] policy.
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let g = Snowflake::with_clock(Layout::preset("twitter")?, &clock)
    ///     .node("datacenter", 0).node("worker", 1).build()?;
    /// g.next_id()?;
    /// assert!(g.clock_sane());
    /// clock.set_ms(1_699_999_990_000);
    /// assert!(!g.clock_sane());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn clock_sane(&self) -> bool {
        self.clock_behind().is_zero()
    }

    /// How far the clock is behind the last issued time beyond the lead this generator's
    /// [`OnExhausted::Borrow`] allows (and one tick): zero while [`Snowflake::clock_sane`]. The
    /// health rule reads it (`idmint.clock.behind`, [`crate::health`]).
    ///
    /// ```
    /// use idmint_core::{Layout, ManualClock, Snowflake};
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let g = Snowflake::with_clock(Layout::preset("twitter")?, &clock)
    ///     .node("datacenter", 0).node("worker", 1).build()?;
    /// g.next_id()?;
    /// assert!(g.clock_behind().is_zero());
    /// clock.set_ms(1_699_999_990_000);
    /// // 10 s behind, less the one tick (1 ms) of slack.
    /// assert_eq!(g.clock_behind().as_millis(), 9_999);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn clock_behind(&self) -> Duration {
        let allowed = match self.on_exhausted {
            OnExhausted::Wait => 0,
            OnExhausted::Borrow { max_ahead } => crate::clock::whole_ms(max_ahead),
        };
        // One tick of slack: the last ID's tick may start after `now` rounds down.
        Duration::from_millis(
            self.stats()
                .lead_ms
                .saturating_sub(allowed.saturating_add(self.tick_ms)),
        )
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// This generator's node field values now, in layout order: as built, or as leased again
    /// after a lost lease, or as drawn anew in a forked child.
    ///
    /// ```
    /// let g = idmint_core::Snowflake::builder(idmint_core::Layout::preset("twitter")?)
    ///     .node("datacenter", 1).node("worker", 7)
    ///     .build()?;
    /// assert_eq!(g.nodes(), [("datacenter".to_string(), 1), ("worker".to_string(), 7)]);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn nodes(&self) -> Vec<(String, u64)> {
        let bits = self.current_node_bits();
        self.layout
            .node_fields()
            .map(|f| (f.name().to_string(), (bits >> f.shift()) & f.max()))
            .collect()
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The sequence-exhaustion policy.
    pub fn on_exhausted(&self) -> OnExhausted {
        self.on_exhausted
    }

    /// The rollback policy.
    pub fn on_rollback(&self) -> OnRollback {
        self.on_rollback
    }

    /// Split an ID of this layout into its parts (any node values, not only this generator's).
    pub fn decompose(&self, id: u64) -> Result<Parts> {
        self.layout.decompose(id)
    }
}

/// The first instant (unix ms) a generator of `layout` built with
/// [`start_above(above)`](SnowflakeBuilder::start_above) mints at, when built at `now_ms` with
/// rollback policy `policy` — or the refusal `build` returns, naming `above`, that instant and
/// the clock's reading. The instant is [`plan::first_above_ms`](crate::plan::first_above_ms);
/// a clock before it is handled as the builder documents (`error` refuses, `wait:MS` accepts
/// it at most `MS` off, `continue` accepts it).
///
/// A package whose generator cannot take the option (the browser's main module) checks with
/// this and keeps its clock at or above the instant.
///
/// ```
/// use idmint_core::snowflake::start_above_ms;
/// use idmint_core::{Layout, OnRollback};
/// let new = Layout::parse("time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z")?;
/// let last = 1_541_815_603_606_036_480; // the largest twitter ID in the table
/// let from = 2_071_664_685_449; // 2035-08-25T14:24:45.449Z
/// assert_eq!(start_above_ms(&new, last, from + 5, OnRollback::Error)?, from);
/// assert_eq!(start_above_ms(&new, last, 1_767_225_600_000, OnRollback::Continue)?, from);
/// let e = start_above_ms(&new, last, 1_767_225_600_000, OnRollback::Error).unwrap_err();
/// assert_eq!(e.kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn start_above_ms(layout: &Layout, above: u64, now_ms: u64, policy: OnRollback) -> Result<u64> {
    let refuse = |expected: String| Error::InvalidArgument {
        name: "start_above".into(),
        value: above.to_string(),
        expected,
    };
    let Some(from_ms) = crate::plan::first_above_ms(layout, above) else {
        let limit = layout.max_time_value() << (layout.total_bits() - layout.time_bits());
        return Err(refuse(format!(
            "an ID below {limit}: this layout's IDs never pass it (its time field ends at {})",
            layout.exhausts_at()
        )));
    };
    let wait_ms = from_ms.saturating_sub(now_ms);
    let allowed = match policy {
        _ if wait_ms == 0 => return Ok(from_ms),
        OnRollback::Continue => return Ok(from_ms),
        OnRollback::Wait { max } if wait_ms <= whole_ms(max) => return Ok(from_ms),
        OnRollback::Wait { max } => format!("on_rollback wait:{} waits less", whole_ms(max)),
        OnRollback::Error => "on_rollback error does not wait".into(),
    };
    Err(refuse(format!(
        "an ID this layout's IDs are above by now: they pass it only from {} ({from_ms} ms), \
         {wait_ms} ms after the clock's {now_ms} ms, and {allowed}; start then, or with on_rollback \
         wait:{wait_ms} or continue (mint ahead of the clock)",
        crate::format_time_ms(from_ms)
    )))
}

/// The first slot whose tick starts after `floor_ms` (0 for a floor before the epoch).
fn slot_after(layout: &Layout, floor_ms: u64) -> u64 {
    match floor_ms.checked_sub(layout.epoch_ms()) {
        None => 0,
        Some(since) => (since / layout.tick_ms() + 1) << layout.sequence_field().bits(),
    }
}

/// The start of the tick of the last slot handed out when the slot counter stands at `slot`
/// (the next free slot); `None` when nothing was handed out. The inverse of [`slot_after`]: the
/// time a holder releases its fence at. Takes the layout's numbers rather than the [`Layout`]:
/// a generator's `Drop` has them at hand, and the browser's module pays for every byte of it.
pub(crate) fn last_issued_ms(slot: u64, seq_bits: u32, epoch_ms: u64, tick_ms: u64) -> Option<u64> {
    (slot > 0).then(|| epoch_ms + ((slot - 1) >> seq_bits) * tick_ms)
}

impl<C: Clock> Drop for Snowflake<C> {
    fn drop(&mut self) {
        if let Some(g) = &self.guard {
            if crate::fork::since(self.fork_gen.load(Ordering::Acquire)) {
                // A forked child that never leased its own value: the lease (or the file) and
                // the connections behind it are the parent's, so neither release nor drop them.
                crate::fork::abandon(Arc::clone(g));
                return;
            }
            g.release(last_issued_ms(
                self.slot().load(Ordering::Acquire),
                self.seq_bits,
                self.epoch_ms,
                self.tick_ms,
            ));
        }
    }
}

impl<C: Clock> fmt::Debug for Snowflake<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snowflake")
            .field("layout", &self.layout.spec())
            .field("nodes", &self.nodes())
            .field("on_exhausted", &self.on_exhausted)
            .field("on_rollback", &self.on_rollback)
            .field("stats", &self.stats())
            .finish()
    }
}

//! Time sources. Generators take a [`Clock`] as a parameter so that tests (and targets such as
//! wasm32, where `SystemTime::now()` panics) can supply their own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A source of unix time in milliseconds that can also wait.
///
/// Implementations must be cheap to read: generators read the clock on every call.
///
/// ```
/// use idmint_core::{Clock, ManualClock};
///
/// let clock = ManualClock::new(1_000);
/// clock.sleep_until_ms(1_250); // a manual clock "sleeps" by moving itself forward
/// assert_eq!(clock.now_ms(), 1_250);
/// ```
pub trait Clock: Send + Sync {
    /// The current unix time in milliseconds.
    fn now_ms(&self) -> u64;

    /// Block until [`Clock::now_ms`] reads at least `target_ms`.
    ///
    /// The default sleeps in short steps; clocks that know their time base override it to wake
    /// close to the target, which is what lets a generator reach its layout's cap.
    fn sleep_until_ms(&self, target_ms: u64) {
        loop {
            let now = self.now_ms();
            if now >= target_ms {
                return;
            }
            std::thread::sleep(Duration::from_millis((target_ms - now).min(50)));
        }
    }

    /// Whether its time moves on by itself, as the system's does. A binding that serves IDs
    /// from a block and drops the block when the system clock's millisecond has passed can do
    /// so only over such a clock; a [`ManualClock`] moves only when told.
    ///
    /// ```
    /// use idmint_core::{Clock, ManualClock, MonotonicClock};
    /// assert!(MonotonicClock::new().moves_by_itself());
    /// assert!(!ManualClock::new(0).moves_by_itself());
    /// ```
    fn moves_by_itself(&self) -> bool {
        true
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
    fn sleep_until_ms(&self, target_ms: u64) {
        (**self).sleep_until_ms(target_ms)
    }
    fn moves_by_itself(&self) -> bool {
        (**self).moves_by_itself()
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
    fn sleep_until_ms(&self, target_ms: u64) {
        (**self).sleep_until_ms(target_ms)
    }
    fn moves_by_itself(&self) -> bool {
        (**self).moves_by_itself()
    }
}

/// The default time source: the wall clock read once, plus monotonic time elapsed since.
///
/// A wall-clock step backwards (NTP, an operator) while the process runs cannot move it back, so
/// it cannot make a generator reissue. It drifts with the monotonic clock, not with NTP slewing,
/// which for ID timestamps is the right trade. Not for `wasm32-unknown-unknown`, where `Instant`
/// panics: bindings there supply a clock over `Date.now()`.
///
/// ```
/// use idmint_core::{Clock, MonotonicClock};
///
/// let clock = MonotonicClock::new();
/// let a = clock.now_ms();
/// clock.sleep_until_ms(a + 2);
/// assert!(clock.now_ms() >= a + 2);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    base_unix_ns: u64,
    start: Instant,
}

impl MonotonicClock {
    /// Read the wall clock now and run on monotonic time from here.
    pub fn new() -> Self {
        let start = Instant::now();
        let base_unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        MonotonicClock {
            base_unix_ns,
            start,
        }
    }

    #[inline]
    fn now_ns(&self) -> u64 {
        // u64 arithmetic, not `as_nanos()`'s u128: this runs on every ID.
        let e = self.start.elapsed();
        self.base_unix_ns + e.as_secs() * 1_000_000_000 + e.subsec_nanos() as u64
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

/// `d` in whole ms, at most `u64::MAX` (585 million years): `Duration::as_millis` is a `u128`,
/// whose division and printing would add 2 KiB to the browser's wasm module.
pub(crate) fn whole_ms(d: Duration) -> u64 {
    d.as_secs()
        .saturating_mul(1000)
        .saturating_add(u64::from(d.subsec_millis()))
}

/// Sleep until close to `deadline`, then yield-spin the rest. `thread::sleep` wakes late, by tens
/// of microseconds on an idle machine and by milliseconds on a loaded one, and a generator waiting
/// for the next 1 ms tick loses the whole tick when it wakes late; so waits shorter than `SPIN`
/// (every wait for a 1 ms tick) only yield, which gives the core away when others need it.
fn sleep_until_instant(deadline: Instant) {
    const SPIN: Duration = Duration::from_micros(1500);
    loop {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        let left = deadline - now;
        if left > SPIN {
            std::thread::sleep(left - SPIN);
        } else {
            std::thread::yield_now();
        }
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn now_ms(&self) -> u64 {
        self.now_ns() / 1_000_000
    }

    fn sleep_until_ms(&self, target_ms: u64) {
        let target_ns = target_ms.saturating_mul(1_000_000);
        let from_start = target_ns.saturating_sub(self.base_unix_ns);
        sleep_until_instant(self.start + Duration::from_nanos(from_start));
    }
}

/// The plain wall clock (`SystemTime::now()`), for processes that must follow NTP steps.
///
/// It can step backwards; the generator's rollback policy then decides what happens.
///
/// ```
/// use idmint_core::{Clock, WallClock};
/// assert!(WallClock.now_ms() > 1_600_000_000_000);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct WallClock;

impl Clock for WallClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
}

/// A clock that moves only when told to, for deterministic tests of every policy.
///
/// Sleeping moves it forward to the target (as if that time had passed) and is counted, so a
/// test can assert how long a generator would have waited.
///
/// ```
/// use idmint_core::{Clock, ManualClock};
///
/// let clock = ManualClock::new(10_000);
/// clock.advance_ms(5);
/// clock.set_ms(9_000); // a step backwards
/// assert_eq!(clock.now_ms(), 9_000);
/// clock.sleep_until_ms(9_010);
/// assert_eq!(clock.slept_ms(), 10);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicU64,
    slept: AtomicU64,
}

impl ManualClock {
    /// A clock reading `now_ms`.
    pub fn new(now_ms: u64) -> Self {
        ManualClock {
            now: AtomicU64::new(now_ms),
            slept: AtomicU64::new(0),
        }
    }

    /// Set the reading, forwards or backwards.
    pub fn set_ms(&self, now_ms: u64) {
        self.now.store(now_ms, Ordering::SeqCst);
    }

    /// Move the reading forward.
    pub fn advance_ms(&self, ms: u64) {
        self.now.fetch_add(ms, Ordering::SeqCst);
    }

    /// Total milliseconds spent in [`Clock::sleep_until_ms`].
    pub fn slept_ms(&self) -> u64 {
        self.slept.load(Ordering::SeqCst)
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }

    fn moves_by_itself(&self) -> bool {
        false
    }

    fn sleep_until_ms(&self, target_ms: u64) {
        let prev = self.now.fetch_max(target_ms, Ordering::SeqCst);
        if target_ms > prev {
            self.slept.fetch_add(target_ms - prev, Ordering::SeqCst);
        }
    }
}

/// One of the clocks a binding lets its user choose, as one type: bindings hold
/// `Snowflake<AnyClock>` (and the other generators over it) instead of one generator type per
/// clock.
///
/// Reading it is a `match` over three variants, with no allocation and no lock, so a generator on
/// it is as fast as one on the clock inside. [`AnyClock::name`] gives the name bindings show
/// (`"monotonic"`, `"wall"`, `"manual"`), and [`AnyClock::from_name`] reads the first two back.
///
/// ```
/// use std::sync::Arc;
/// use idmint_core::{AnyClock, Clock, Layout, ManualClock, Snowflake};
///
/// let manual = Arc::new(ManualClock::new(1_700_000_000_000));
/// let clock = AnyClock::from(manual.clone());
/// assert_eq!(clock.name(), "manual");
/// let gen = Snowflake::with_clock(Layout::preset("twitter")?, clock)
///     .node("datacenter", 0)
///     .node("worker", 0)
///     .build()?;
/// let first = gen.next_id()?;
/// manual.advance_ms(1);
/// assert!(gen.next_id()? > first);
///
/// assert_eq!(AnyClock::from_name("wall").map(|c| c.name()), Some("wall"));
/// assert!(AnyClock::default().now_ms() > 1_600_000_000_000); // monotonic
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub enum AnyClock {
    /// [`MonotonicClock`], the default.
    Monotonic(MonotonicClock),
    /// [`WallClock`].
    Wall(WallClock),
    /// A [`ManualClock`] shared with whoever moves it.
    Manual(Arc<ManualClock>),
}

impl AnyClock {
    /// `"monotonic"`, `"wall"` or `"manual"`.
    pub fn name(&self) -> &'static str {
        match self {
            AnyClock::Monotonic(_) => "monotonic",
            AnyClock::Wall(_) => "wall",
            AnyClock::Manual(_) => "manual",
        }
    }

    /// A new clock by name: `"monotonic"` (read from now on) or `"wall"`; `None` for any other
    /// name (a manual clock is a value to share, not a name).
    pub fn from_name(name: &str) -> Option<AnyClock> {
        match name {
            "monotonic" => Some(AnyClock::Monotonic(MonotonicClock::new())),
            "wall" => Some(AnyClock::Wall(WallClock)),
            _ => None,
        }
    }
}

impl Default for AnyClock {
    fn default() -> Self {
        AnyClock::Monotonic(MonotonicClock::new())
    }
}

impl From<MonotonicClock> for AnyClock {
    fn from(c: MonotonicClock) -> Self {
        AnyClock::Monotonic(c)
    }
}

impl From<WallClock> for AnyClock {
    fn from(c: WallClock) -> Self {
        AnyClock::Wall(c)
    }
}

impl From<Arc<ManualClock>> for AnyClock {
    fn from(c: Arc<ManualClock>) -> Self {
        AnyClock::Manual(c)
    }
}

impl Clock for AnyClock {
    #[inline]
    fn now_ms(&self) -> u64 {
        match self {
            AnyClock::Monotonic(c) => c.now_ms(),
            AnyClock::Wall(c) => c.now_ms(),
            AnyClock::Manual(c) => c.now_ms(),
        }
    }

    fn sleep_until_ms(&self, target_ms: u64) {
        match self {
            AnyClock::Monotonic(c) => c.sleep_until_ms(target_ms),
            AnyClock::Wall(c) => c.sleep_until_ms(target_ms),
            AnyClock::Manual(c) => c.sleep_until_ms(target_ms),
        }
    }

    fn moves_by_itself(&self) -> bool {
        !matches!(self, AnyClock::Manual(_))
    }
}

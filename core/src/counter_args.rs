//! [`CounterArgs`]: the daily counter of order numbers built from a binding's or the CLI's
//! arguments. A module of its own above both [`crate::template`] (the in-memory counter) and
//! `segment` (the shared one), so neither of those uses the other.

use crate::error::quoted;
use crate::template::{DailyCounter, MemoryDailyCounter};
use crate::{Error, Result};

/// The daily counter the CLI and every binding build from their arguments: an in-memory one
/// of this process (given, fresh, or resuming at `start`), or a shared one opened by URL with
/// `segment::open_daily_counter` under `name` (default `orders`) and `step` (a build without
/// stores refuses a URL: [`crate::addon::missing`]).
///
/// The rules live here once: `name` and `step` only with a URL; `start` and `memory` only
/// without one (the store holds where each day's count is). `step` is checked first. Numbers
/// are taken as any whole number, as bindings receive them, so an out-of-range one gets the
/// core's error showing the value as given.
///
/// ```
/// use idmint_core::CounterArgs;
/// let fresh = CounterArgs::default().open()?;
/// assert_eq!(fresh.next(20240522)?, 1);
/// let resumed = CounterArgs { start: Some((20240522, 5)), ..Default::default() }.open()?;
/// assert_eq!(resumed.next(20240522)?, 5);
/// let err = CounterArgs { name: Some("shop".into()), ..Default::default() }.open().unwrap_err();
/// assert_eq!(err.kind(), "invalid_argument");
/// let shared = CounterArgs { url: Some("memory:".into()), step: Some(10), ..Default::default() };
/// # #[cfg(feature = "segment")]
/// assert!(shared.open().is_ok());
/// # #[cfg(not(feature = "segment"))]
/// assert_eq!(shared.open().unwrap_err().kind(), "stores_not_installed");
/// let err = CounterArgs { start: Some((20240522, 5)), ..shared }.open().unwrap_err();
/// assert_eq!(err.kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CounterArgs {
    /// A counter URL (`segment::open_daily_counter`); `None` for an in-memory counter.
    pub url: Option<String>,
    /// The shared counter's name.
    pub name: Option<String>,
    /// The step of a shared counter's day tags in SQL stores (1..=2^40).
    pub step: Option<i128>,
    /// Without a URL: a fresh in-memory counter whose next value on day `.0` (`yyyymmdd`) is
    /// `.1` ([`MemoryDailyCounter::starting_at`]).
    pub start: Option<(i128, i128)>,
    /// Without a URL: this in-memory counter instead of a fresh one.
    pub memory: Option<std::sync::Arc<MemoryDailyCounter>>,
}

impl CounterArgs {
    /// The counter, or a typed error naming the argument that does not belong.
    pub fn open(&self) -> Result<std::sync::Arc<dyn DailyCounter>> {
        let step = self
            .step
            .map(|s| crate::rules::check_step_wide("step", s))
            .transpose()?;
        let refuse = |arg: &str, value: String, expected: &str| {
            Err(Error::InvalidArgument {
                name: arg.into(),
                value,
                expected: expected.into(),
            })
        };
        let Some(url) = &self.url else {
            const ONLY_SHARED: &str = "only with a shared counter (a counter URL)";
            if let Some(name) = &self.name {
                return refuse("name", quoted(name), ONLY_SHARED);
            }
            if let Some(step) = self.step {
                return refuse("step", step.to_string(), ONLY_SHARED);
            }
            return Ok(match (&self.memory, self.start) {
                (Some(m), None) => m.clone(),
                (None, Some((day, first))) => {
                    std::sync::Arc::new(MemoryDailyCounter::starting_at(day, first)?)
                }
                (None, None) => std::sync::Arc::new(MemoryDailyCounter::new()),
                (Some(_), Some((day, first))) => {
                    return refuse(
                        "start",
                        format!("{day}, {first}"),
                        "none with a given in-memory counter: it has its own",
                    )
                }
            });
        };
        const NOT_SHARED: &str =
            "none with a shared counter: the store holds where each day's counter is";
        if let Some((day, first)) = self.start {
            return refuse("start", format!("{day}, {first}"), NOT_SHARED);
        }
        if self.memory.is_some() {
            return refuse(
                "counter",
                url.clone(),
                "a URL or an in-memory counter, not both",
            );
        }
        #[cfg(feature = "segment")]
        {
            use crate::segment::{open_daily_counter, DailyCounterOptions, DEFAULT_COUNTER_NAME};
            let mut opts = DailyCounterOptions::default();
            if let Some(step) = step {
                opts = opts.step(step)?;
            }
            let name = self.name.as_deref().unwrap_or(DEFAULT_COUNTER_NAME);
            open_daily_counter(url, name, &opts)
        }
        #[cfg(not(feature = "segment"))]
        {
            let _ = (url, step);
            Err(crate::addon::missing(
                "a shared daily counter (a counter URL)",
            ))
        }
    }
}

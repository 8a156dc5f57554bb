//! The layout planner: which snowflake layouts meet a need — so many nodes, so many IDs a second
//! on each, for so many years — in the bits a column holds, each with its cap, the date its time
//! field runs out and, for a layout wider than 53 bits, the date its IDs pass 2^53 (where a
//! JavaScript number stops holding them exactly). A need no layout can meet is refused with the
//! arithmetic that makes it so.
//!
//! For each tick of 1 ms, 10 ms, 100 ms and 1 s, the planner takes the fewest whole bits each
//! field needs: node bits for the nodes, sequence bits for a tick's share of the rate, time bits
//! for the years. A tick fits when their sum is within the width and its time field ends by the
//! year 9999, where every idmint time stops; it gives its spare bits to time (more years) up to
//! that year, then to the sequence (more headroom a tick).
//!
//! ```
//! use idmint_core::plan::{plan, Need, Width};
//! // Twitter's need: 1024 nodes, 4 M IDs a second each, 69 years.
//! let need = Need::new(1024, 4_000_000, 69)?.start_ms(1288834974657);
//! let layouts = plan(&need)?;
//! assert_eq!(layouts[0].spec, "time:41@1ms,worker:10,sequence:12,epoch=1288834974657");
//! assert_eq!(layouts.len(), 1); // no coarser tick fits in 63 bits
//! let e = plan(&Need::new(1024, 10_000_000, 100)?.width(Width::JsSafe)).unwrap_err();
//! assert!(e.to_string().contains("64.8"), "{e}");
//! # Ok::<(), idmint_core::Error>(())
//! ```

use crate::datetime::{format_time_ms, MAX_TIME_MS};
use crate::error::{Error, Result};
use crate::layout::Layout;

/// A Julian year (365.25 days) in milliseconds: the year the planner counts in.
pub const YEAR_MS: u64 = 31_557_600_000;

/// The ticks the planner tries, in milliseconds.
pub const TICKS_MS: [u64; 4] = [1, 10, 100, 1000];

/// How many bits an ID may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "kebab-case")
)]
pub enum Width {
    /// 63 bits: a signed 64-bit column (`BIGINT`), Java's `long` (the default).
    Bigint,
    /// 64 bits: an unsigned 64-bit value (the layout is marked `unsigned`).
    Unsigned,
    /// 53 bits: exact in a JavaScript number (and a double).
    JsSafe,
}

impl Width {
    /// The bits of the width.
    ///
    /// ```
    /// assert_eq!(idmint_core::plan::Width::JsSafe.bits(), 53);
    /// ```
    pub fn bits(self) -> u32 {
        match self {
            Width::Bigint => 63,
            Width::Unsigned => 64,
            Width::JsSafe => 53,
        }
    }
}

impl std::str::FromStr for Width {
    type Err = Error;

    /// The width by its name, as the packages take it: `bigint`, `unsigned` or `js-safe`.
    ///
    /// ```
    /// use idmint_core::plan::Width;
    /// assert_eq!("js-safe".parse::<Width>()?, Width::JsSafe);
    /// assert_eq!("53".parse::<Width>().unwrap_err().to_string(), "invalid argument `width` = \"53\": one of bigint (63 bits), unsigned (64), js-safe (53)");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<Width> {
        match text {
            "bigint" => Ok(Width::Bigint),
            "unsigned" => Ok(Width::Unsigned),
            "js-safe" => Ok(Width::JsSafe),
            _ => Err(Error::InvalidArgument {
                name: "width".into(),
                value: crate::error::quoted(text),
                expected: "one of bigint (63 bits), unsigned (64), js-safe (53)".into(),
            }),
        }
    }
}

/// What the IDs must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Need {
    /// Nodes minting at once (each with its own node value).
    pub nodes: u64,
    /// IDs a second each node must be able to mint.
    pub rate: u64,
    /// Years the layout must last from its epoch.
    pub years: u64,
    /// The epoch: unix milliseconds the time field counts from (the start of the IDs' life).
    pub start_ms: u64,
    /// How many bits an ID may use.
    pub width: Width,
}

impl Need {
    /// A need of `nodes` nodes minting `rate` IDs a second each for `years` years, from the
    /// Unix epoch in 63 bits until [`start_ms`](Need::start_ms) (or
    /// [`start_or_today`](Need::start_or_today)) and [`width`](Need::width) say otherwise. Each at least 1; nodes and rate at most 2^40, years at most 8000.
    ///
    /// ```
    /// let e = idmint_core::plan::Need::new(0, 1, 1).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `nodes` = 0: a whole number 1..=1099511627776");
    /// ```
    pub fn new(nodes: u64, rate: u64, years: u64) -> Result<Need> {
        let limit = |name: &str, value: u64, max: u64| {
            if (1..=max).contains(&value) {
                Ok(value)
            } else {
                Err(Error::InvalidArgument {
                    name: name.into(),
                    value: value.to_string(),
                    expected: format!("a whole number 1..={max}"),
                })
            }
        };
        Ok(Need {
            nodes: limit("nodes", nodes, 1 << 40)?,
            rate: limit("rate", rate, 1 << 40)?,
            years: limit("years", years, 8000)?,
            start_ms: 0,
            width: Width::Bigint,
        })
    }

    /// The epoch: the IDs' life starts here (unix ms).
    pub fn start_ms(mut self, start_ms: u64) -> Need {
        self.start_ms = start_ms;
        self
    }

    /// The epoch: `start_ms` when given, else today, 00:00 UTC, by the clock reading `now_ms` —
    /// the default of the CLI and of every package, so a layout planned now spends none of its
    /// time bits on the years before it.
    ///
    /// ```
    /// use idmint_core::plan::Need;
    /// let now = 1_767_270_896_789; // 2026-01-01T12:34:56.789Z
    /// assert_eq!(Need::new(1, 1, 1)?.start_or_today(None, now).start_ms, 1_767_225_600_000);
    /// assert_eq!(Need::new(1, 1, 1)?.start_or_today(Some(5), now).start_ms, 5);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn start_or_today(self, start_ms: Option<u64>, now_ms: u64) -> Need {
        const DAY_MS: u64 = 86_400_000;
        self.start_ms(start_ms.unwrap_or(now_ms / DAY_MS * DAY_MS))
    }

    /// The bits an ID may use.
    pub fn width(mut self, width: Width) -> Need {
        self.width = width;
        self
    }
}

/// A layout that meets a need.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Planned {
    /// The layout's spec (`Layout::parse` reads it).
    pub spec: String,
    /// The tick of its time field, in ms.
    pub tick_ms: u64,
    /// Bits of time, node (one field, `worker`) and sequence.
    pub time_bits: u32,
    /// Node bits: at least 1, since a generator refuses a layout with no node field (so even
    /// one node gets a `worker` field of 1 bit).
    pub node_bits: u32,
    /// Sequence bits.
    pub sequence_bits: u32,
    /// Nodes it can tell apart: 2^node_bits.
    pub nodes: u64,
    /// IDs a second one node can mint: 2^sequence_bits a tick.
    pub cap_per_second: u64,
    /// The first instant its time field cannot hold (unix ms), and as RFC 3339.
    pub end_ms: u64,
    /// [`end_ms`](Planned::end_ms) as RFC 3339.
    pub end: String,
    /// For a layout wider than 53 bits: the first instant an ID it mints can pass 2^53 (unix
    /// ms); `None` when none ever does.
    pub beyond_2_53_ms: Option<u64>,
}

/// The fewest bits that count `n` values (0 for 1).
fn bits_for(n: u64) -> u32 {
    64 - n.saturating_sub(1).leading_zeros()
}

/// The fields' bits at one tick: (node, sequence, time).
fn needed(need: &Need, tick_ms: u64) -> (u32, u32, u32) {
    let per_tick = (u128::from(need.rate) * u128::from(tick_ms)).div_ceil(1000);
    let sequence = bits_for(u64::try_from(per_tick).unwrap_or(u64::MAX)).max(1);
    let ticks = (u128::from(need.years) * u128::from(YEAR_MS)).div_ceil(u128::from(tick_ms));
    let time = bits_for(u64::try_from(ticks).unwrap_or(u64::MAX)).max(1);
    // At least one node bit: a generator refuses a layout without a node field (two of them
    // could mint the same IDs), so a layout for one node would mint nothing.
    (bits_for(need.nodes).max(1), sequence, time)
}

/// Whether a time field of `time_bits` of `tick_ms` ticks from the need's start ends past the
/// year 9999, where every idmint time stops.
fn past_9999(need: &Need, tick_ms: u64, time_bits: u32) -> bool {
    let end = (1u128 << time_bits) * u128::from(tick_ms) + u128::from(need.start_ms);
    end > u128::from(MAX_TIME_MS) + 1
}

/// The layouts that meet `need`, finest tick first; an error naming the arithmetic when none
/// does.
pub fn plan(need: &Need) -> Result<Vec<Planned>> {
    let width = need.width.bits();
    let mut out = Vec::new();
    for tick in TICKS_MS {
        let (node, mut sequence, time) = needed(need, tick);
        if node + sequence + time > width || past_9999(need, tick, time) {
            continue;
        }
        // Spare bits to time while its end stays within year 9999, the rest to the sequence.
        let mut time_bits = time;
        let spare = width - node - sequence - time;
        for _ in 0..spare {
            if past_9999(need, tick, time_bits + 1) {
                sequence += 1;
            } else {
                time_bits += 1;
            }
        }
        let mut builder = Layout::builder()
            .time(time_bits, tick)
            .node("worker", node)
            .sequence(sequence)
            .epoch_ms(need.start_ms);
        if need.width == Width::Unsigned {
            builder = builder.unsigned();
        }
        let layout = builder.build()?;
        let low = node + sequence;
        let beyond_2_53_ms = match low {
            _ if width <= 53 => None,
            l if l >= 53 => Some(need.start_ms),
            l if 53 - l >= time_bits => None,
            l => Some(need.start_ms + (1u64 << (53 - l)) * tick),
        };
        let end_ms = layout.exhausts_at_ms();
        out.push(Planned {
            spec: layout.spec(),
            tick_ms: tick,
            time_bits,
            node_bits: node,
            sequence_bits: sequence,
            nodes: 1 << node,
            cap_per_second: (1u64 << sequence) * 1000 / tick,
            end_ms,
            end: format_time_ms(end_ms.min(MAX_TIME_MS)),
            beyond_2_53_ms,
        });
    }
    if out.is_empty() {
        return Err(impossible(need));
    }
    Ok(out)
}

/// Why no layout meets `need`: each tick's sum, and the bound no tick beats.
fn impossible(need: &Need) -> Error {
    let width = need.width.bits();
    let sums: Vec<String> = TICKS_MS
        .iter()
        .map(|&tick| {
            let (node, sequence, time) = needed(need, tick);
            let at = if tick < 1000 {
                format!("{tick} ms")
            } else {
                "1 s".into()
            };
            let late = if past_9999(need, tick, time) {
                " (and its time field ends past the year 9999)"
            } else {
                ""
            };
            format!(
                "at a {at} tick {node} node + {sequence} sequence + {time} time bits = {}{late}",
                node + sequence + time
            )
        })
        .collect();
    let ids = need.nodes as f64 * need.rate as f64 * (need.years * YEAR_MS / 1000) as f64;
    Error::InvalidArgument {
        name: "need".into(),
        value: format!(
            "{} nodes × {} IDs/s each × {} years",
            need.nodes, need.rate, need.years
        ),
        expected: format!(
            "no layout of {width} bits holds it: {}; and no tick does better than log2({} × {} × {} s) = {:.1} bits (fewer nodes, a lower rate, fewer years or more bits would)",
            sums.join("; "),
            need.nodes,
            need.rate,
            need.years * YEAR_MS / 1000,
            ids.log2()
        ),
    }
}

/// A rate as people write it: `4000000`, `4M`, `4M/s`, `25.6k/s` (k, M, G: thousands,
/// millions, billions); a whole number of IDs a second, at least 1.
///
/// ```
/// use idmint_core::plan::parse_rate;
/// assert_eq!(parse_rate("4M/s")?, 4_000_000);
/// assert_eq!(parse_rate("25.6k")?, 25_600);
/// assert_eq!(parse_rate("1.5").unwrap_err().to_string(), "invalid argument `rate` = \"1.5\": IDs a second, a whole number 1..=1099511627776, e.g. 4000000, 4M, 4M/s, 25.6k/s");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn parse_rate(text: &str) -> Result<u64> {
    let bad = || Error::InvalidArgument {
        name: "rate".into(),
        value: crate::error::quoted(text),
        expected: format!(
            "IDs a second, a whole number 1..={}, e.g. 4000000, 4M, 4M/s, 25.6k/s",
            1u64 << 40
        ),
    };
    let t = text.trim();
    let t = t.strip_suffix("/s").unwrap_or(t);
    let (digits, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 3),
        Some('m' | 'M') => (&t[..t.len() - 1], 6),
        Some('g' | 'G') => (&t[..t.len() - 1], 9),
        _ => (t, 0),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(frac) || frac.len() > scale {
        return Err(bad());
    }
    let text = format!("{whole}{frac:0<scale$}");
    match text.parse::<u64>() {
        Ok(n) if (1..=1 << 40).contains(&n) => Ok(n),
        _ => Err(bad()),
    }
}

/// Whether IDs a new layout mints from a switch on all sort above the IDs an old layout minted
/// ([`check_migration`]): keys stay unique and in order across the switch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Migration {
    /// True when every ID the new layout mints from `switch_ms` on is above `old_max`.
    pub safe: bool,
    /// The switch: the first instant the new layout mints (unix ms).
    pub switch_ms: u64,
    /// The largest ID the old layout minted: the one given, or the largest it can have minted
    /// before the switch (every node and sequence bit set).
    pub old_max: u64,
    /// The smallest ID the new layout can mint at the switch (node and sequence 0).
    pub new_first: u64,
    /// The first instant the new layout's smallest ID is above `old_max` (unix ms): the switch
    /// is safe from then on; `None` when its time field runs out first.
    pub safe_from_ms: Option<u64>,
    /// [`safe_from_ms`](Migration::safe_from_ms) as RFC 3339.
    pub safe_from: Option<String>,
}

/// The largest ID `layout` can have minted before `at_ms`: the last tick before it with every
/// lower bit set.
fn largest_before(layout: &Layout, at_ms: u64) -> u64 {
    let low = layout.total_bits() - layout.time_bits();
    let Some(ticks) = at_ms.checked_sub(layout.epoch_ms()) else {
        return 0;
    };
    let tick = (ticks / layout.tick_ms()).saturating_sub(u64::from(ticks % layout.tick_ms() == 0));
    let tick = tick.min(layout.max_time_value());
    (tick << low) | ((1u64 << low) - 1)
}

/// The first instant `layout` mints only IDs above `above`: the start of the first tick whose
/// smallest ID (node and sequence 0) is above it, as unix ms; `None` when its time field runs
/// out first. The time field is the layout's most significant ([`Layout::parse`] puts it
/// first), so every ID of a later tick is above every ID of an earlier one whatever its node
/// and sequence: this is both when [`check_migration`] calls a switch safe and where
/// [`SnowflakeBuilder::start_above`](crate::SnowflakeBuilder::start_above) starts.
///
/// ```
/// use idmint_core::{plan::first_above_ms, Layout};
/// let later = Layout::parse("time:41@1ms,worker:10,sequence:12,epoch=2024-01-01T00:00:00Z")?;
/// assert_eq!(first_above_ms(&later, 1_541_815_603_606_036_480), Some(2_071_664_685_449));
/// assert_eq!(first_above_ms(&later, later.max_id()), None); // never above its own largest ID
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn first_above_ms(layout: &Layout, above: u64) -> Option<u64> {
    let low = layout.total_bits() - layout.time_bits();
    let tick = (above >> low) + 1;
    (tick <= layout.max_time_value())
        .then(|| layout.epoch_ms() + tick * layout.tick_ms())
        .filter(|&ms| ms <= MAX_TIME_MS)
}

/// Checks a switch from layout `from` to layout `to` at `switch_ms`: proves every ID `to` mints
/// from then on sorts above every ID `from` minted — `above` when given (the largest ID in the
/// table, the best proof), else the largest `from` can have minted before the switch — or names
/// the first instant it would. `to` must be able to mint at the switch (its epoch passed, its
/// time field not run out).
///
/// ```
/// use idmint_core::plan::check_migration;
/// use idmint_core::Layout;
/// let twitter = Layout::preset("twitter")?;
/// let switch = 1_767_225_600_000; // 2026-01-01
/// // A later epoch with the same shape mints smaller IDs: refused, naming when it would be safe.
/// let later = twitter.with_epoch_ms(1_700_000_000_000)?;
/// let m = check_migration(&twitter, &later, None, switch)?;
/// assert!(!m.safe);
/// assert_eq!(m.safe_from.as_deref(), Some("2039-01-11T20:30:25.343Z")); // its time value catches up
/// // More bits below the time field: its IDs start above twitter's (until 2032).
/// let wider = Layout::parse("time:38@1ms,worker:12,sequence:13,epoch=1700000000000")?;
/// assert!(check_migration(&twitter, &wider, None, switch)?.safe);
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn check_migration(
    from: &Layout,
    to: &Layout,
    above: Option<u64>,
    switch_ms: u64,
) -> Result<Migration> {
    let time_value = to.time_value(i128::from(switch_ms))?;
    let low = to.total_bits() - to.time_bits();
    let old_max = above.unwrap_or_else(|| largest_before(from, switch_ms));
    let new_first = time_value << low;
    let safe_from_ms = first_above_ms(to, old_max);
    Ok(Migration {
        safe: new_first > old_max,
        switch_ms,
        old_max,
        new_first,
        safe_from_ms,
        safe_from: safe_from_ms.map(format_time_ms),
    })
}

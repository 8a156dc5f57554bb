//! Bit layouts of snowflake IDs: which fields, how wide, in which order, from which epoch.
//!
//! # The layout spec
//!
//! A layout is written as comma-separated items, from the most significant bit down:
//!
//! ```text
//! time:BITS[@TICK], NAME:BITS, ..., sequence:BITS [, epoch=EPOCH]
//! ```
//!
//! - `time:BITS@TICK` comes first. `TICK` is a whole number of milliseconds or seconds (`1ms`,
//!   `10ms`, `250ms`, `1s`, `2s`); without it the tick is `1ms`.
//! - Then one or more node fields (`datacenter:5`, `worker:10`, `shard:12`, `machine:16`, any name
//!   of lowercase letters, digits and `_` starting with a letter) and exactly one `sequence:BITS`
//!   (`seq:BITS` is accepted), in any order: the sequence may sit above a node field, as in
//!   sonyflake.
//! - `unsigned` after the fields (before or after `epoch=`), for layouts of IDs that use all 64
//!   bits (see below).
//! - `epoch=EPOCH` last, as unix milliseconds or an RFC 3339 date-time; without it the epoch is
//!   the Unix epoch.
//!
//! At most 63 bits in all, so every ID is a positive signed 64-bit value (Java `long`, SQL
//! `BIGINT`); the time field may not reach past the year 9999. A preset name (`twitter`,
//! `sonyflake`, `redis-lua`, `baidu`, `leaf`, and the [`UNSIGNED_PRESETS`]) can stand wherever a
//! spec can.
//!
//! # 64-bit layouts
//!
//! Many snowflakes met in the wild use all 64 bits (Discord, Instagram, Mastodon, TSID). A layout
//! reads and composes them only when its spec says `unsigned` ([`LayoutBuilder::unsigned`]): IDs
//! from 2^63 on are negative as a Java `long` or SQL `BIGINT`, and every ID above 2^53 loses digits
//! as a JSON number, so writing a 64-bit spec is a decision, never a typo. Such a layout may also
//! have no node field (Mastodon's low 16 bits are a single counter), since it may describe IDs
//! another system mints. A generator takes an `unsigned` layout of 64 bits only when told to
//! (`SnowflakeBuilder::unsigned`), and one without a node field never.

use std::fmt;
use std::str::FromStr;

use crate::datetime::{format_time_ms, parse_time_ms, MAX_TIME_MS};
use crate::error::{quoted, Wide};
use crate::{Error, Result};

/// A generator warns at start when its layout has less than this left (five years of 365 days):
/// [`Layout::lifetime_warning`].
///
/// ```
/// assert_eq!(idmint_core::layout::LIFETIME_WARNING.as_secs(), 5 * 365 * 86_400);
/// ```
pub const LIFETIME_WARNING: std::time::Duration = std::time::Duration::from_secs(5 * 365 * 86_400);

/// One part of an ID in [`Layout::word_plan`]: where its bits lie in the ID's two 32-bit
/// halves, and the scale and offset that turn the field's value into the part (the time's tick
/// and epoch; 1 and 0 for the other fields).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WordSlot {
    /// Shift of the low half (0 when the field has no bits there).
    pub lo_shift: u32,
    /// Mask of the low half after the shift (0 when the field has no bits there).
    pub lo_mask: u32,
    /// Shift of the high half (0 when the field has no bits there).
    pub hi_shift: u32,
    /// Mask of the high half after the shift (0 when the field has no bits there).
    pub hi_mask: u32,
    /// What the high half's bits are worth: 2^(bits of the field in the low half).
    pub hi_scale: f64,
    /// Multiplies the field's value (the tick in ms, for the time).
    pub scale: f64,
    /// Added last (the epoch in unix ms, for the time).
    pub offset: f64,
}

impl WordSlot {
    /// The slot as 7 numbers, `[lo_shift, lo_mask, hi_shift, hi_mask, hi_scale, scale,
    /// offset]`: how the bindings hand a plan to JS.
    ///
    /// ```
    /// let plan = idmint_core::Layout::preset("twitter")?.word_plan().unwrap();
    /// assert_eq!(plan[3].as_numbers(), [0.0, 4095.0, 0.0, 0.0, 0.0, 1.0, 0.0]); // the sequence
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn as_numbers(&self) -> [f64; 7] {
        [
            self.lo_shift as f64,
            self.lo_mask as f64,
            self.hi_shift as f64,
            self.hi_mask as f64,
            self.hi_scale,
            self.scale,
            self.offset,
        ]
    }

    fn of(shift: u32, bits: u32, scale: f64, offset: f64) -> WordSlot {
        let mask = |n: u32| if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        let end = shift + bits;
        let (lo_shift, lo_mask) = if shift < 32 {
            (shift, mask(end.min(32) - shift))
        } else {
            (0, 0)
        };
        let (hi_shift, hi_mask, hi_scale) = if end > 32 {
            let from = shift.max(32);
            (from - 32, mask(end - from), (1u64 << (from - shift)) as f64)
        } else {
            (0, 0, 0.0)
        };
        WordSlot {
            lo_shift,
            lo_mask,
            hi_shift,
            hi_mask,
            hi_scale,
            scale,
            offset,
        }
    }
}

/// The names of the preset layouts a generator mints with as they are (each at most 63 bits),
/// in the order they are documented.
///
/// ```
/// assert!(idmint_core::PRESETS.contains(&"leaf"));
/// ```
pub const PRESETS: &[&str] = &["twitter", "sonyflake", "redis-lua", "baidu", "leaf"];

/// The presets of 64-bit IDs other systems mint, `unsigned` layouts: they read and compose such
/// IDs; a generator takes them only when told to (see the [module docs](crate::layout)).
///
/// ```
/// use idmint_core::{Layout, UNSIGNED_PRESETS};
/// for name in UNSIGNED_PRESETS {
///     let layout = Layout::preset(name)?;
///     assert_eq!((layout.total_bits(), layout.is_unsigned()), (64, true));
/// }
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub const UNSIGNED_PRESETS: &[&str] = &["discord", "instagram", "mastodon", "tsid"];

const RESERVED: &[&str] = &["time", "sequence", "seq", "id", "time_ms", "epoch"];

/// What a field below the time field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// A node identity (datacenter, worker, shard, machine): fixed for a generator.
    Node,
    /// The per-tick counter.
    Sequence,
}

/// One field of a layout below the time field.
///
/// ```
/// let layout = idmint_core::Layout::preset("twitter").unwrap();
/// let worker = &layout.fields()[1];
/// assert_eq!((worker.name(), worker.bits(), worker.shift(), worker.max()), ("worker", 5, 12, 31));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    name: String,
    bits: u8,
    shift: u8,
    kind: FieldKind,
}

impl Field {
    /// The field's name (`sequence` for the sequence).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Its width in bits.
    pub fn bits(&self) -> u32 {
        self.bits as u32
    }
    /// How many bits lie below it.
    pub fn shift(&self) -> u32 {
        self.shift as u32
    }
    /// Whether it is a node field or the sequence.
    pub fn kind(&self) -> FieldKind {
        self.kind
    }
    /// The largest value it holds.
    pub fn max(&self) -> u64 {
        (1u64 << self.bits) - 1
    }
}

/// A snowflake bit layout: a time field, node fields and a sequence, and an epoch.
///
/// ```
/// use idmint_core::Layout;
///
/// let twitter = Layout::preset("twitter")?;
/// assert_eq!(twitter.to_string(), "time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657");
///
/// let custom: Layout = "time:40@10ms,sequence:8,region:3,machine:12,epoch=2024-01-01T00:00:00Z".parse()?;
/// assert_eq!(custom.total_bits(), 63);
/// assert_eq!(custom.exhausts_at(), "2372-06-03T06:57:57.760Z");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    preset: Option<&'static str>,
    time_bits: u8,
    tick_ms: u64,
    epoch_ms: u64,
    fields: Vec<Field>,
    seq: usize,
    unsigned: bool,
}

/// The decomposition of an ID: its time, each node field by name, and its sequence.
///
/// ```
/// let layout = idmint_core::Layout::preset("redis-lua")?;
/// let parts = layout.decompose(5981966696448054276)?;
/// assert_eq!(parts.time_ms, 1426212000000);
/// assert_eq!(parts.node("shard"), Some(53));
/// assert_eq!(parts.sequence, 4);
/// assert_eq!(parts.time(), "2015-03-13T02:00:00.000Z");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Parts {
    /// The start of the ID's tick, in unix milliseconds.
    pub time_ms: u64,
    /// Each node field's name and value, in layout order.
    pub nodes: Vec<(String, u64)>,
    /// The sequence number within the tick.
    pub sequence: u64,
}

impl Parts {
    /// The value of the node field `name`.
    pub fn node(&self, name: &str) -> Option<u64> {
        self.nodes.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// The time as RFC 3339 UTC with milliseconds.
    pub fn time(&self) -> String {
        format_time_ms(self.time_ms)
    }
}

/// Builds a [`Layout`] field by field; [`Layout::parse`] reads the same from text.
///
/// ```
/// use idmint_core::Layout;
///
/// let layout = Layout::builder()
///     .time(39, 10)
///     .sequence(8)
///     .node("machine", 16)
///     .epoch_ms(1409529600000)
///     .build()?;
/// assert_eq!(layout, Layout::preset("sonyflake")?.without_preset_name());
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LayoutBuilder {
    time: Option<(u32, u64)>,
    fields: Vec<(String, u32, FieldKind)>,
    epoch_ms: u64,
    unsigned: bool,
}

impl LayoutBuilder {
    /// The time field: `bits` wide, counting ticks of `tick_ms` milliseconds.
    pub fn time(mut self, bits: u32, tick_ms: u64) -> Self {
        self.time = Some((bits, tick_ms));
        self
    }
    /// Append a node field below the fields given so far.
    pub fn node(mut self, name: &str, bits: u32) -> Self {
        self.fields.push((name.to_string(), bits, FieldKind::Node));
        self
    }
    /// Append the sequence below the fields given so far.
    pub fn sequence(mut self, bits: u32) -> Self {
        self.fields
            .push(("sequence".to_string(), bits, FieldKind::Sequence));
        self
    }
    /// The epoch in unix milliseconds (default 0, the Unix epoch).
    pub fn epoch_ms(mut self, epoch_ms: u64) -> Self {
        self.epoch_ms = epoch_ms;
        self
    }
    /// Let the fields fill all 64 bits (and leave out node fields): the spec's `unsigned`, for
    /// IDs read as unsigned 64-bit values (see the [module docs](crate::layout)).
    ///
    /// ```
    /// use idmint_core::Layout;
    /// let b = Layout::builder().time(42, 1).node("worker", 10).sequence(12);
    /// assert!(b.clone().build().unwrap_err().to_string().contains("unsigned"));
    /// let layout = b.unsigned().build()?;
    /// assert_eq!(layout.spec(), "time:42@1ms,worker:10,sequence:12,unsigned,epoch=0");
    /// assert_eq!(layout.decompose(u64::MAX)?.sequence, 4095);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn unsigned(mut self) -> Self {
        self.unsigned = true;
        self
    }
    /// Check and build.
    pub fn build(self) -> Result<Layout> {
        let spec = self.describe();
        let (time_bits, tick_ms) = self.time.ok_or_else(|| invalid(&spec, "no time field"))?;
        Layout::new(
            &spec,
            time_bits,
            tick_ms,
            self.fields,
            self.epoch_ms,
            self.unsigned,
        )
    }

    fn describe(&self) -> String {
        let mut items = Vec::new();
        if let Some((bits, tick)) = self.time {
            items.push(format!("time:{bits}@{tick}ms"));
        }
        for (name, bits, _) in &self.fields {
            items.push(format!("{name}:{bits}"));
        }
        if self.unsigned {
            items.push("unsigned".to_string());
        }
        items.push(format!("epoch={}", self.epoch_ms));
        items.join(",")
    }
}

fn invalid(spec: &str, reason: impl Into<String>) -> Error {
    Error::InvalidLayout {
        spec: spec.to_string(),
        reason: reason.into(),
    }
}

fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
        && name.len() <= 32
}

#[cfg_attr(idmint_optimize_size, optimize(size))]
fn parse_tick(spec: &str, text: &str) -> Result<u64> {
    let (digits, unit_ms) = if let Some(d) = text.strip_suffix("ms") {
        (d, 1)
    } else if let Some(d) = text.strip_suffix('s') {
        (d, 1000)
    } else {
        return Err(invalid(
            spec,
            format!(
                "tick `{text}` needs a unit: a whole number of ms or s, such as 1ms, 10ms or 1s"
            ),
        ));
    };
    let n: u64 = digits
        .parse()
        .ok()
        .filter(|n| *n > 0 && !digits.starts_with('+'))
        .ok_or_else(|| {
            invalid(
                spec,
                format!("tick `{text}` must be a positive whole number of ms or s, such as 1ms, 10ms or 1s"),
            )
        })?;
    n.checked_mul(unit_ms)
        .filter(|ms| *ms <= MAX_TIME_MS)
        .ok_or_else(|| invalid(spec, format!("tick `{text}` is too long")))
}

#[cfg_attr(idmint_optimize_size, optimize(size))]
fn parse_bits(spec: &str, name: &str, text: &str) -> Result<u32> {
    text.parse::<u32>()
        .ok()
        .filter(|_| text.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            invalid(
                spec,
                format!("field `{name}` needs a bit count 1..=62, got `{text}`"),
            )
        })
}

impl Layout {
    /// The preset of a generator or parser given no layout: `twitter`.
    ///
    /// ```
    /// use idmint_core::{Layout, PRESETS};
    /// assert_eq!(Layout::DEFAULT_PRESET, PRESETS[0]);
    /// assert!(Layout::preset(Layout::DEFAULT_PRESET).is_ok());
    /// ```
    pub const DEFAULT_PRESET: &'static str = "twitter";

    /// One of the [`PRESETS`], exactly as the projects they come from define them:
    ///
    /// | name | fields, most significant first | tick | epoch |
    /// |---|---|---|---|
    /// | `twitter` | time 41, datacenter 5, worker 5, sequence 12 | 1 ms | 1288834974657 (2010-11-04T01:42:54.657Z) |
    /// | `sonyflake` | time 39, sequence 8, machine 16 | 10 ms | 2014-09-01T00:00:00Z |
    /// | `redis-lua` | time 41, shard 12, sequence 10 | 1 ms | Unix epoch |
    /// | `baidu` | time 28, worker 22, sequence 13 | 1 s | 2016-05-20T00:00:00Z |
    /// | `leaf` | time 41, worker 10, sequence 12 | 1 ms | 1288834974657 (Twitter's) |
    ///
    /// `leaf` is Meituan Leaf's snowflake (`SnowflakeIDGenImpl`: its `twepoch`, 10 worker bits,
    /// 12 sequence bits), the layout of the workers the ZooKeeper lease store shares with Leaf
    /// (`zk://…?leaf_name=…`) and of `idmint serve`'s `/decodeSnowflakeId`.
    ///
    /// and the [`UNSIGNED_PRESETS`], the 64-bit layouts of IDs other systems mint:
    ///
    /// | name | fields, most significant first | tick | epoch | source |
    /// |---|---|---|---|---|
    /// | `discord` | time 42, worker 5, process 5, sequence 12 | 1 ms | 1420070400000 (2015-01-01) | Discord developer docs, "Snowflakes" (the increment is the sequence) |
    /// | `instagram` | time 41, shard 13, sequence 10 | 1 ms | 1314220021721 (2011-08-24T21:07:01.721Z) | "Sharding & IDs at Instagram" (`our_epoch`) |
    /// | `mastodon` | time 48, sequence 16 | 1 ms | Unix epoch | Mastodon's `lib/mastodon/snowflake.rb` (the hashed "sequence data") |
    /// | `tsid` | time 42, node 10, sequence 12 | 1 ms | 2020-01-01T00:00:00Z | tsid-creator's default: 10 node bits, 12 counter bits |
    ///
    /// `baidu`'s time field ran out on 2024-11-20: IDs from it still parse, but a generator
    /// needs a later epoch ([`Layout::with_epoch_ms`]).
    ///
    /// ```
    /// let baidu = idmint_core::Layout::preset("baidu")?;
    /// assert_eq!(baidu.exhausts_at(), "2024-11-20T21:24:16.000Z");
    /// assert_eq!(idmint_core::Layout::preset("twiter").unwrap_err().kind(), "invalid_layout");
    /// // Discord's own example, from its developer docs.
    /// let parts = idmint_core::Layout::preset("discord")?.decompose(175928847299117063)?;
    /// assert_eq!(parts.time(), "2016-04-30T11:18:25.796Z");
    /// assert_eq!((parts.node("worker"), parts.node("process"), parts.sequence), (Some(1), Some(0), 7));
    /// // Leaf's own example (its README's `decodeSnowflakeId`).
    /// let parts = idmint_core::Layout::preset("leaf")?.decompose(1195926540542107700)?;
    /// assert_eq!((parts.time_ms, parts.node("worker"), parts.sequence), (1573966081162, Some(918), 52));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub fn preset(name: &str) -> Result<Layout> {
        let b = Layout::builder();
        let (name, b) = match name {
            "twitter" => (
                "twitter",
                b.time(41, 1)
                    .node("datacenter", 5)
                    .node("worker", 5)
                    .sequence(12)
                    .epoch_ms(1_288_834_974_657),
            ),
            "sonyflake" => (
                "sonyflake",
                b.time(39, 10)
                    .sequence(8)
                    .node("machine", 16)
                    .epoch_ms(1_409_529_600_000),
            ),
            "redis-lua" => (
                "redis-lua",
                b.time(41, 1).node("shard", 12).sequence(10).epoch_ms(0),
            ),
            "baidu" => (
                "baidu",
                b.time(28, 1000)
                    .node("worker", 22)
                    .sequence(13)
                    .epoch_ms(1_463_702_400_000),
            ),
            "leaf" => (
                "leaf",
                b.time(41, 1)
                    .node("worker", 10)
                    .sequence(12)
                    .epoch_ms(1_288_834_974_657),
            ),
            "discord" => (
                "discord",
                b.time(42, 1)
                    .node("worker", 5)
                    .node("process", 5)
                    .sequence(12)
                    .epoch_ms(1_420_070_400_000)
                    .unsigned(),
            ),
            "instagram" => (
                "instagram",
                b.time(41, 1)
                    .node("shard", 13)
                    .sequence(10)
                    .epoch_ms(1_314_220_021_721)
                    .unsigned(),
            ),
            "mastodon" => (
                "mastodon",
                b.time(48, 1).sequence(16).epoch_ms(0).unsigned(),
            ),
            "tsid" => (
                "tsid",
                b.time(42, 1)
                    .node("node", 10)
                    .sequence(12)
                    .epoch_ms(1_577_836_800_000)
                    .unsigned(),
            ),
            other => {
                return Err(invalid(
                    other,
                    format!(
                        "unknown preset: the presets are {}, and for 64-bit IDs {}; or write a spec such as time:41,worker:10,sequence:12",
                        PRESETS.join(", "),
                        UNSIGNED_PRESETS.join(", ")
                    ),
                ))
            }
        };
        let mut layout = b.build()?;
        layout.preset = Some(name);
        Ok(layout)
    }

    /// Start a [`LayoutBuilder`].
    pub fn builder() -> LayoutBuilder {
        LayoutBuilder::default()
    }

    /// Read a preset name or a layout spec (see the [module docs](crate::layout)).
    ///
    /// ```
    /// use idmint_core::Layout;
    /// let l = Layout::parse(" time:41 , worker:10 , seq:12 ")?;
    /// assert_eq!(l.to_string(), "time:41@1ms,worker:10,sequence:12,epoch=0");
    /// let err = Layout::parse("time:41,worker:10,sequence:13").unwrap_err();
    /// assert!(err.to_string().contains("64 bits"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub fn parse(spec: &str) -> Result<Layout> {
        let spec = spec.trim_ascii();
        if PRESETS.contains(&spec) || !(spec.contains(':') || spec.contains(',')) {
            return Layout::preset(spec);
        }
        let items: Vec<&str> = spec.split(',').map(str::trim_ascii).collect();
        let mut time = None;
        let mut fields = Vec::new();
        let mut epoch_ms = 0;
        let mut unsigned = false;
        for (i, item) in items.iter().enumerate() {
            if *item == "unsigned" && i > 0 {
                // A flag, not a field: it may stand anywhere after the time field, and a field
                // after it is still read as a field (the canonical spec puts it last but epoch).
                unsigned = true;
                continue;
            }
            if let Some(e) = item.strip_prefix("epoch=") {
                // Only the `unsigned` flag may follow it (appended to a spec, as the error for a
                // 64-bit spec without it suggests).
                if items[i + 1..].iter().any(|item| *item != "unsigned") {
                    return Err(invalid(spec, "`epoch=` must be the last item"));
                }
                epoch_ms =
                    parse_time_ms("epoch", e).map_err(|err| invalid(spec, err.to_string()))?;
                continue;
            }
            let (name, rest) = item.split_once(':').ok_or_else(|| {
                invalid(
                    spec,
                    format!("item `{item}` is not NAME:BITS (or time:BITS@TICK, epoch=EPOCH)"),
                )
            })?;
            let name = name.trim_ascii();
            let rest = rest.trim_ascii();
            if name == "time" {
                if i != 0 {
                    return Err(invalid(spec, "the time field must come first"));
                }
                let (bits, tick) = match rest.split_once('@') {
                    Some((b, t)) => (b.trim_ascii(), parse_tick(spec, t.trim_ascii())?),
                    None => (rest, 1),
                };
                time = Some((parse_bits(spec, "time", bits)?, tick));
            } else if i == 0 {
                return Err(invalid(
                    spec,
                    "the first item must be the time field, e.g. time:41@1ms",
                ));
            } else {
                let kind = if name == "sequence" || name == "seq" {
                    FieldKind::Sequence
                } else {
                    FieldKind::Node
                };
                let name = if kind == FieldKind::Sequence {
                    "sequence"
                } else {
                    name
                };
                fields.push((name.to_string(), parse_bits(spec, name, rest)?, kind));
            }
        }
        let (time_bits, tick_ms) = time.ok_or_else(|| invalid(spec, "no time field"))?;
        Layout::new(spec, time_bits, tick_ms, fields, epoch_ms, unsigned)
    }

    /// [`Layout::parse`], then an epoch override given as text (unix ms or RFC 3339), the form
    /// the CLI and the bindings take options in.
    ///
    /// ```
    /// let l = idmint_core::Layout::parse_with_epoch("baidu", Some("2025-01-01T00:00:00Z"))?;
    /// assert_eq!(l.epoch_ms(), 1735689600000);
    /// assert_eq!(idmint_core::Layout::parse_with_epoch("twitter", None)?.preset_name(), Some("twitter"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub fn parse_with_epoch(spec: &str, epoch: Option<&str>) -> Result<Layout> {
        let layout = Layout::parse(spec)?;
        match epoch {
            Some(e) => layout.with_epoch_ms(parse_time_ms("epoch", e)?),
            None => Ok(layout),
        }
    }

    #[cfg_attr(idmint_optimize_size, optimize(size))]
    fn new(
        spec: &str,
        time_bits: u32,
        tick_ms: u64,
        given: Vec<(String, u32, FieldKind)>,
        epoch_ms: u64,
        unsigned: bool,
    ) -> Result<Layout> {
        if tick_ms == 0 {
            return Err(invalid(spec, "the tick must be at least 1 ms"));
        }
        let seqs = given.iter().filter(|f| f.2 == FieldKind::Sequence).count();
        if seqs != 1 {
            return Err(invalid(
                spec,
                format!("a layout needs exactly one sequence field, found {seqs}"),
            ));
        }
        // An unsigned layout may describe IDs minted elsewhere by a single counter (Mastodon's);
        // a generator refuses it, so no two of them can mint the same IDs.
        if !unsigned && !given.iter().any(|f| f.2 == FieldKind::Node) {
            return Err(invalid(
                spec,
                "a layout needs at least one node field (datacenter, worker, shard, machine, ...)",
            ));
        }
        let mut total = time_bits as u64;
        for (i, (name, bits, kind)) in given.iter().enumerate() {
            if *kind == FieldKind::Node {
                if RESERVED.contains(&name.as_str()) {
                    return Err(invalid(
                        spec,
                        format!("`{name}` is reserved; choose another field name"),
                    ));
                }
                if !valid_name(name) {
                    return Err(invalid(
                        spec,
                        format!("field name `{name}` must be 1 to 32 of a-z, 0-9, _ and start with a letter"),
                    ));
                }
            }
            if given[..i].iter().any(|g| &g.0 == name) {
                return Err(invalid(spec, format!("field `{name}` appears twice")));
            }
            if *bits == 0 {
                return Err(invalid(
                    spec,
                    format!("field `{name}` has 0 bits; give it 1 or more"),
                ));
            }
            total += *bits as u64;
        }
        if time_bits == 0 {
            return Err(invalid(
                spec,
                "the time field has 0 bits; give it 1 or more",
            ));
        }
        if total > 64 {
            return Err(invalid(
                spec,
                format!("fields take {total} bits; an ID has at most 64 (63 unless `unsigned`)"),
            ));
        }
        if total > 63 && !unsigned {
            return Err(invalid(
                spec,
                format!(
                    "fields take {total} bits; at most 63 fit a positive signed 64-bit ID (SQL BIGINT, Java long), \
                     and JSON numbers lose digits above 2^53: add `unsigned` to the spec \
                     (LayoutBuilder::unsigned) to read IDs of all 64 bits"
                ),
            ));
        }
        if epoch_ms > MAX_TIME_MS {
            return Err(invalid(
                spec,
                format!("epoch {epoch_ms} ms is past the year 9999"),
            ));
        }
        let end = epoch_ms as u128 + ((1u128 << time_bits) * tick_ms as u128);
        // An unsigned layout describes IDs as another system defines them (Mastodon's 48 bits
        // of milliseconds run to the year 10889): its IDs past the year 9999 are refused one by
        // one instead ([`Layout::decompose`]). 64 bits of whole ticks cannot pass u128.
        if end > MAX_TIME_MS as u128 + 1 && !unsigned {
            return Err(invalid(
                spec,
                format!(
                    "a {time_bits}-bit time field of {tick_ms} ms ticks reaches past the year 9999; use fewer time bits or a shorter tick"
                ),
            ));
        }
        let mut shift = total as u32 - time_bits;
        let mut fields = Vec::with_capacity(given.len());
        for (name, bits, kind) in given {
            shift -= bits;
            fields.push(Field {
                name,
                bits: bits as u8,
                shift: shift as u8,
                kind,
            });
        }
        let seq = fields
            .iter()
            .position(|f| f.kind == FieldKind::Sequence)
            .unwrap_or(0);
        Ok(Layout {
            preset: None,
            time_bits: time_bits as u8,
            tick_ms,
            epoch_ms,
            fields,
            seq,
            unsigned,
        })
    }

    /// The same layout from another epoch (unix ms). A preset given a new epoch is no longer
    /// that preset, and prints as a spec.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("baidu")?.with_epoch_ms(1735689600000)?;
    /// assert_eq!(l.exhausts_at(), "2033-07-04T21:24:16.000Z");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn with_epoch_ms(&self, epoch_ms: u64) -> Result<Layout> {
        let given = self
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.bits as u32, f.kind))
            .collect();
        let mut spec = self.without_preset_name();
        spec.epoch_ms = epoch_ms;
        Layout::new(
            &spec.to_string(),
            self.time_bits as u32,
            self.tick_ms,
            given,
            epoch_ms,
            self.unsigned,
        )
    }

    /// The same layout, printed as a spec even when it came from a preset.
    pub fn without_preset_name(&self) -> Layout {
        Layout {
            preset: None,
            ..self.clone()
        }
    }

    /// The preset this layout is, if it came from one unchanged.
    pub fn preset_name(&self) -> Option<&'static str> {
        self.preset
    }

    /// The canonical spec, even for a preset.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("redis-lua")?;
    /// assert_eq!(l.spec(), "time:41@1ms,shard:12,sequence:10,epoch=0");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub fn spec(&self) -> String {
        let mut s = format!("time:{}@{}ms", self.time_bits, self.tick_ms);
        for f in &self.fields {
            s.push_str(&format!(",{}:{}", f.name, f.bits));
        }
        if self.unsigned {
            s.push_str(",unsigned");
        }
        s.push_str(&format!(",epoch={}", self.epoch_ms));
        s
    }

    /// Whether the layout is `unsigned`: its IDs may use all 64 bits, read as unsigned values
    /// (see the [module docs](crate::layout)).
    ///
    /// ```
    /// use idmint_core::Layout;
    /// assert!(!Layout::preset("twitter")?.is_unsigned());
    /// assert!(Layout::parse("time:48,sequence:16,unsigned")?.is_unsigned());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn is_unsigned(&self) -> bool {
        self.unsigned
    }

    /// The largest ID of any layout with this one's signedness: 2^64-1 when
    /// [`Layout::is_unsigned`], else 2^63-1.
    fn id_limit(&self) -> u64 {
        if self.unsigned {
            u64::MAX
        } else {
            i64::MAX as u64
        }
    }

    /// Bits of the time field.
    pub fn time_bits(&self) -> u32 {
        self.time_bits as u32
    }
    /// Length of one tick of the time field, in ms.
    pub fn tick_ms(&self) -> u64 {
        self.tick_ms
    }
    /// The epoch, in unix ms.
    pub fn epoch_ms(&self) -> u64 {
        self.epoch_ms
    }
    /// The fields below the time field, most significant first.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }
    /// The node fields, most significant first.
    pub fn node_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.kind == FieldKind::Node)
    }
    /// The sequence field.
    pub fn sequence_field(&self) -> &Field {
        &self.fields[self.seq]
    }
    /// Bits used in all; IDs are below `2^total_bits`.
    pub fn total_bits(&self) -> u32 {
        self.time_bits as u32 + self.fields.iter().map(|f| f.bits as u32).sum::<u32>()
    }
    /// The largest ID this layout can hold.
    pub fn max_id(&self) -> u64 {
        // Shifted down from all ones: `1 << 64` would overflow for a 64-bit layout.
        u64::MAX >> (64 - self.total_bits())
    }
    /// The largest value of the time field.
    pub fn max_time_value(&self) -> u64 {
        (1u64 << self.time_bits) - 1
    }
    /// How many IDs one generator can mint per second at most.
    ///
    /// ```
    /// assert_eq!(idmint_core::Layout::preset("twitter")?.ids_per_second_cap(), 4_096_000.0);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn ids_per_second_cap(&self) -> f64 {
        (self.sequence_field().max() + 1) as f64 * 1000.0 / self.tick_ms as f64
    }

    /// The first instant (unix ms) the time field cannot hold: minting stops there.
    pub fn exhausts_at_ms(&self) -> u64 {
        // Saturating: an unsigned layout's time field may reach past what a u64 of ms holds.
        (1u64 << self.time_bits)
            .saturating_mul(self.tick_ms)
            .saturating_add(self.epoch_ms)
    }

    /// [`Layout::exhausts_at_ms`] as RFC 3339.
    pub fn exhausts_at(&self) -> String {
        format_time_ms(self.exhausts_at_ms().min(MAX_TIME_MS))
    }

    /// Whether the time field has run out at `now_ms`.
    pub fn is_exhausted_at(&self, now_ms: u64) -> bool {
        now_ms >= self.exhausts_at_ms()
    }

    /// The time left at `now_ms` (unix ms) until the time field runs out; zero once it has.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("twitter")?;
    /// let left = l.remaining_at(l.exhausts_at_ms() - 86_400_000);
    /// assert_eq!(left.as_secs(), 86_400);
    /// assert!(l.remaining_at(l.exhausts_at_ms() + 1).is_zero());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn remaining_at(&self, now_ms: u64) -> std::time::Duration {
        std::time::Duration::from_millis(self.exhausts_at_ms().saturating_sub(now_ms))
    }

    /// The warning a generator of this layout gives when it starts at `now_ms` with less than
    /// [`LIFETIME_WARNING`] left (five years: time to plan and roll out a successor with
    /// `idmint plan` and `idmint layouts check-migration`); `None` with more left. The packages
    /// and `idmint serve` raise it in their ecosystem's way (a Python warning, a Node process
    /// warning, a JVM logger, a log line).
    ///
    /// ```
    /// let l: idmint_core::Layout = "time:41@1ms,worker:10,sequence:12,epoch=1288834974657".parse()?;
    /// assert_eq!(l.lifetime_warning(1_700_000_000_000), None); // 2023: 16 years left
    /// let w = l.lifetime_warning(l.exhausts_at_ms() - 400 * 86_400_000).unwrap();
    /// assert!(w.starts_with("layout `time:41@1ms"), "{w}");
    /// assert!(w.contains("runs out at 2080-07-10T17:30:30.209Z, in 400 days"), "{w}");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn lifetime_warning(&self, now_ms: u64) -> Option<String> {
        let left = self.remaining_at(now_ms);
        (left < LIFETIME_WARNING).then(|| {
            format!(
                "layout `{}` runs out at {}, in {} days: less than the {} years idmint warns \
                 below; plan its successor (`idmint plan`, `idmint layouts check-migration`)",
                self.spec(),
                self.exhausts_at(),
                left.as_secs() / 86_400,
                LIFETIME_WARNING.as_secs() / (365 * 86_400)
            )
        })
    }

    /// The error a generator gives once the time field has run out.
    pub(crate) fn exhausted_error(&self) -> Error {
        Error::LayoutExhausted {
            end_ms: self.exhausts_at_ms(),
            end: self.exhausts_at(),
        }
    }

    /// Split an ID into its parts.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("twitter")?;
    /// let p = l.decompose(1_541_815_603_606_036_480)?;
    /// assert_eq!((p.time_ms, p.node("datacenter"), p.node("worker"), p.sequence), (1656432460105, Some(11), Some(26), 0));
    /// assert_eq!(l.decompose(u64::MAX).unwrap_err().kind(), "invalid_id");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn decompose(&self, id: u64) -> Result<Parts> {
        self.check_fits(id)?;
        let time_value = id >> (self.total_bits() - self.time_bits as u32);
        let time_ms = self.time_ms_of(id, time_value)?;
        let mut nodes = Vec::with_capacity(self.fields.len() - 1);
        let mut sequence = 0;
        for f in &self.fields {
            let v = (id >> f.shift) & f.max();
            match f.kind {
                FieldKind::Node => nodes.push((f.name.clone(), v)),
                FieldKind::Sequence => sequence = v,
            }
        }
        Ok(Parts {
            time_ms,
            nodes,
            sequence,
        })
    }

    /// How to split an ID of this layout held as two 32-bit halves (`lo` = bits 0-31, `hi` =
    /// bits 32-63), for bindings whose fast integers are 32 bits wide (JavaScript): slot 0 gives
    /// the time in unix ms, then one slot per field below the time field, in layout order (as
    /// [`Layout::fields`]). Each slot reads `(((lo >> lo_shift) & lo_mask) + ((hi >> hi_shift) &
    /// hi_mask) * hi_scale) * scale + offset`, exact in an f64. It applies to IDs in
    /// `0..=max_id()` only: others go to [`Layout::decompose`], which reports them.
    ///
    /// `None` when a value may not be exact in an f64 (a field wider than 53 bits, or times past
    /// 2^53 ms); the binding then calls [`Layout::decompose`].
    ///
    /// ```
    /// use idmint_core::Layout;
    /// let l = Layout::preset("twitter")?;
    /// let plan = l.word_plan().unwrap();
    /// let id = 1_541_815_603_606_036_480u64;
    /// let (lo, hi) = (id as u32, (id >> 32) as u32);
    /// let read = |s: &idmint_core::WordSlot| {
    ///     (((lo >> s.lo_shift) & s.lo_mask) as f64 + ((hi >> s.hi_shift) & s.hi_mask) as f64 * s.hi_scale)
    ///         * s.scale + s.offset
    /// };
    /// let values: Vec<f64> = plan.iter().map(read).collect();
    /// assert_eq!(values, [1656432460105.0, 11.0, 26.0, 0.0]); // time, datacenter, worker, sequence
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn word_plan(&self) -> Option<Vec<WordSlot>> {
        const EXACT: u64 = 1 << 53;
        let last_ms = self
            .max_time_value()
            .checked_mul(self.tick_ms)?
            .checked_add(self.epoch_ms)?;
        if last_ms > EXACT || self.fields.iter().any(|f| f.bits() > 53) {
            return None;
        }
        let time_shift = self.total_bits() - self.time_bits as u32;
        let mut plan = Vec::with_capacity(self.fields.len() + 1);
        plan.push(WordSlot::of(
            time_shift,
            self.time_bits as u32,
            self.tick_ms as f64,
            self.epoch_ms as f64,
        ));
        plan.extend(
            self.fields
                .iter()
                .map(|f| WordSlot::of(f.shift(), f.bits(), 1.0, 0.0)),
        );
        Some(plan)
    }

    /// [`Layout::decompose`] without allocating, for hot paths in bindings: writes the node
    /// fields' values into `nodes` (one per node field, in layout order) and returns
    /// `(time_ms, sequence)`.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("twitter")?;
    /// let mut nodes = [0u64; 2];
    /// let (time_ms, seq) = l.decompose_into(1_541_815_603_606_036_480, &mut nodes)?;
    /// assert_eq!((time_ms, nodes, seq), (1656432460105, [11, 26], 0));
    /// assert_eq!(l.decompose_into(1, &mut [0; 3]).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn decompose_into(&self, id: u64, nodes: &mut [u64]) -> Result<(u64, u64)> {
        let wanted = self.fields.len() - 1;
        if nodes.len() != wanted {
            return Err(Error::InvalidArgument {
                name: "nodes".into(),
                value: format!("a buffer of {} values", nodes.len()),
                expected: format!("one value per node field: {wanted}"),
            });
        }
        self.check_fits(id)?;
        let mut sequence = 0;
        let mut slots = nodes.iter_mut();
        for f in &self.fields {
            let v = (id >> f.shift) & f.max();
            match f.kind {
                FieldKind::Node => {
                    if let Some(slot) = slots.next() {
                        *slot = v;
                    }
                }
                FieldKind::Sequence => sequence = v,
            }
        }
        let time_value = id >> (self.total_bits() - self.time_bits as u32);
        Ok((self.time_ms_of(id, time_value)?, sequence))
    }

    /// The unix ms of a time field's value; past the year 9999 (only an `unsigned` layout's
    /// time field reaches there) an error, since no time idmint prints is later.
    fn time_ms_of(&self, id: u64, time_value: u64) -> Result<u64> {
        let time_ms = (time_value as u128 * self.tick_ms as u128) + self.epoch_ms as u128;
        if time_ms > MAX_TIME_MS as u128 {
            return Err(Error::invalid_id(
                id,
                "its time is past the year 9999, the last idmint represents",
            ));
        }
        Ok(time_ms as u64)
    }

    fn check_fits(&self, id: u64) -> Result<()> {
        if id > self.id_limit() {
            return Err(id_too_large(id));
        }
        if id > self.max_id() {
            return Err(Error::invalid_id(
                id,
                format!(
                    "uses bits above this layout's {} bits: IDs are 0..={}",
                    self.total_bits(),
                    self.max_id()
                ),
            ));
        }
        Ok(())
    }

    /// [`Layout::decompose`] for IDs from languages with wider or signed integers.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("twitter")?;
    /// assert!(l.decompose_wide(-1).unwrap_err().to_string().contains("negative"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn decompose_wide(&self, id: i128) -> Result<Parts> {
        self.decompose(check_id_wide(id, self.id_limit())?)
    }

    /// [`Layout::decompose`] for an ID in decimal text.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("redis-lua")?;
    /// assert_eq!(l.decompose_str("5981966696448054276")?.sequence, 4);
    /// assert_eq!(l.decompose_str("12a").unwrap_err().kind(), "invalid_id");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub fn decompose_str(&self, id: &str) -> Result<Parts> {
        self.decompose(self.parse_id(id)?)
    }

    /// Read a decimal ID as this layout takes them: [`parse_id`]'s rules, with IDs up to
    /// 2^64-1 for an `unsigned` layout.
    ///
    /// ```
    /// use idmint_core::Layout;
    /// assert_eq!(Layout::preset("discord")?.parse_id("18446744073709551615")?, u64::MAX);
    /// assert_eq!(Layout::preset("twitter")?.parse_id("9223372036854775808").unwrap_err().kind(), "invalid_id");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn parse_id(&self, text: &str) -> Result<u64> {
        if self.unsigned {
            parse_u64(text)
        } else {
            parse_id(text)
        }
    }

    /// Put parts together into an ID; the inverse of [`Layout::decompose`].
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("redis-lua")?;
    /// let parts = l.decompose(5981966696448054276)?;
    /// assert_eq!(l.compose(&parts)?, 5981966696448054276);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn compose(&self, parts: &Parts) -> Result<u64> {
        self.compose_values(
            parts.time_ms as i128,
            parts.nodes.iter().map(|(n, v)| (n.as_str(), *v as i128)),
            parts.sequence as i128,
        )
    }

    /// Compose from values of any sign and width, checking each: a time before the epoch or
    /// past the end, a value that does not fit its field, an unknown or missing node field are
    /// typed errors. A time between two ticks is floored to its tick.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("redis-lua")?;
    /// assert_eq!(l.compose_values(1426212000000, [("shard", 53)], 4)?, 5981966696448054276);
    /// let err = l.compose_values(1426212000000, [("shard", 4096)], 4).unwrap_err();
    /// assert_eq!(err.to_string(), "shard value 4096 is out of range: valid values are 0..=4095");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub fn compose_values<'a>(
        &self,
        time_ms: i128,
        nodes: impl IntoIterator<Item = (&'a str, i128)>,
        sequence: i128,
    ) -> Result<u64> {
        let time_value = self.time_value(time_ms)?;
        let seq = self.sequence_field();
        let sequence = check_value(seq, sequence)?;
        let node_bits = self.node_bits(nodes)?;
        Ok(self.assemble(time_value, node_bits, sequence))
    }

    /// The smallest ID whose time field is the tick holding `time_ms` (unix ms; a time between
    /// two ticks is floored to its tick, as [`Layout::compose_values`] does): every node field
    /// and the sequence 0. With [`Layout::max_id_at`] it bounds a time-range query on an
    /// indexed ID column, `id BETWEEN min_id_at(from) AND max_id_at(to)`, with no column of
    /// its own for the time. A time before the epoch or past the time field's end is
    /// `time_out_of_range`, naming the time and the layout's range.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("twitter")?;
    /// let id = l.min_id_at(1656432460105)?;
    /// assert_eq!(id, 1541815603604488192);
    /// assert_eq!(l.decompose(id)?.time_ms, 1656432460105);
    /// assert_eq!(l.decompose(id - 1)?.time_ms, 1656432460104); // the tick before
    /// let err = l.min_id_at(0).unwrap_err();
    /// assert_eq!(err.kind(), "time_out_of_range");
    /// assert_eq!(err.to_string(), "time 0 ms is out of range for this layout: valid times are 1288834974657..3487858230209 ms (unix)");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn min_id_at(&self, time_ms: i128) -> Result<u64> {
        let time_value = self.time_value(time_ms)?;
        Ok(time_value << self.low_bits())
    }

    /// The largest ID whose time field is the tick holding `time_ms` (unix ms, floored to its
    /// tick): every bit below the time field set. The upper bound of a time-range query (see
    /// [`Layout::min_id_at`]); the same `time_out_of_range` outside the layout's range.
    ///
    /// ```
    /// let l = idmint_core::Layout::preset("sonyflake")?; // 10 ms ticks
    /// let id = l.max_id_at(1700000000005)?;
    /// assert_eq!(l.decompose(id)?.time_ms, 1700000000000);
    /// assert_eq!(l.decompose(id + 1)?.time_ms, 1700000000010); // the next tick
    /// assert_eq!(id - l.min_id_at(1700000000000)?, (1 << 24) - 1);
    /// assert_eq!(l.max_id_at(l.exhausts_at_ms() as i128).unwrap_err().kind(), "time_out_of_range");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn max_id_at(&self, time_ms: i128) -> Result<u64> {
        let low = self.low_bits();
        // The low bits all set; shifted down from all ones, as `max_id`, so 64 bits cannot overflow.
        let below = if low == 0 { 0 } else { u64::MAX >> (64 - low) };
        Ok(self.min_id_at(time_ms)? | below)
    }

    /// Bits below the time field.
    fn low_bits(&self) -> u32 {
        self.total_bits() - self.time_bits as u32
    }

    pub(crate) fn time_value(&self, time_ms: i128) -> Result<u64> {
        let end = self.exhausts_at_ms().min(MAX_TIME_MS + 1);
        if time_ms < self.epoch_ms as i128 || time_ms >= end as i128 {
            return Err(Error::TimeOutOfRange {
                time_ms,
                min_ms: self.epoch_ms,
                end_ms: end,
            });
        }
        Ok((time_ms as u64 - self.epoch_ms) / self.tick_ms)
    }

    /// The node fields' values placed at their shifts, all checked.
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    pub(crate) fn node_bits<'a>(
        &self,
        nodes: impl IntoIterator<Item = (&'a str, i128)>,
    ) -> Result<u64> {
        let mut bits = 0u64;
        let mut seen = vec![false; self.fields.len()];
        for (name, value) in nodes {
            let idx = self
                .fields
                .iter()
                .position(|f| f.name == name && f.kind == FieldKind::Node)
                .ok_or_else(|| Error::UnknownField {
                    field: name.to_string(),
                    valid: self
                        .node_fields()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            let f = &self.fields[idx];
            let v = check_value(f, value)?;
            bits = (bits & !(f.max() << f.shift)) | (v << f.shift);
            seen[idx] = true;
        }
        if let Some(f) = self
            .fields
            .iter()
            .zip(&seen)
            .find(|(f, s)| f.kind == FieldKind::Node && !**s)
        {
            return Err(Error::MissingField {
                field: f.0.name.clone(),
            });
        }
        Ok(bits)
    }

    #[inline]
    pub(crate) fn assemble(&self, time_value: u64, node_bits: u64, sequence: u64) -> u64 {
        (time_value << (self.total_bits() - self.time_bits as u32))
            | node_bits
            | (sequence << self.sequence_field().shift)
    }
}

fn check_value(f: &Field, value: i128) -> Result<u64> {
    if value < 0 || value > f.max() as i128 {
        return Err(Error::ValueOutOfRange {
            field: f.name.clone(),
            value,
            max: f.max(),
        });
    }
    Ok(value as u64)
}

fn id_negative(id: impl ToString, limit: u64) -> Error {
    if limit == u64::MAX {
        Error::invalid_id(id, "negative; IDs are 0..=18446744073709551615")
    } else {
        Error::invalid_id(id, "negative; IDs are 0..=9223372036854775807")
    }
}

fn id_too_large(id: impl ToString) -> Error {
    Error::invalid_id(
        id,
        "above 2^63-1 (9223372036854775807), the largest positive signed 64-bit value",
    )
}

fn above_u64(id: impl ToString) -> Error {
    Error::invalid_id(
        id,
        "above 2^64-1 (18446744073709551615), the largest unsigned 64-bit value",
    )
}

fn check_id_wide(id: i128, limit: u64) -> Result<u64> {
    if id < 0 {
        return Err(id_negative(Wide(id), limit));
    }
    if id > limit as i128 {
        return Err(if limit == u64::MAX {
            above_u64(Wide(id))
        } else {
            id_too_large(Wide(id))
        });
    }
    Ok(id as u64)
}

/// Read an ID written in decimal: digits only, no sign, no spaces, at most 2^63-1.
///
/// ```
/// use idmint_core::parse_id;
/// assert_eq!(parse_id("9223372036854775807")?, i64::MAX as u64);
/// assert_eq!(parse_id("9223372036854775808").unwrap_err().kind(), "invalid_id");
/// assert_eq!(parse_id("-1").unwrap_err().kind(), "invalid_id");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn parse_id(text: &str) -> Result<u64> {
    parse_decimal(text, i64::MAX as u64)
}

/// [`parse_id`] for unsigned 64-bit IDs: digits only, at most 2^64-1.
///
/// ```
/// use idmint_core::layout::parse_u64;
/// assert_eq!(parse_u64("18446744073709551615")?, u64::MAX);
/// assert!(parse_u64("18446744073709551616").unwrap_err().to_string().contains("above 2^64-1"));
/// assert_eq!(parse_u64("-1").unwrap_err().kind(), "invalid_id");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn parse_u64(text: &str) -> Result<u64> {
    parse_decimal(text, u64::MAX)
}

/// Decimal text of `0..=limit`, where `limit` is 2^63-1 or 2^64-1 (the messages name one of
/// the two).
fn parse_decimal(text: &str, limit: u64) -> Result<u64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid_id(
            quoted(text),
            if limit == u64::MAX {
                "not a decimal integer: give digits only, 0..=18446744073709551615"
            } else {
                "not a decimal integer: give digits only, 0..=9223372036854775807"
            },
        ));
    }
    let negative = digits.len() != text.len();
    let value = if negative {
        None
    } else {
        digits.parse::<u64>().ok()
    };
    match value {
        Some(v) if v <= limit => Ok(v),
        _ if negative => Err(id_negative(text, limit)),
        _ if limit == u64::MAX => Err(above_u64(text)),
        _ => Err(id_too_large(text)),
    }
}

impl fmt::Display for Layout {
    /// The canonical spec ([`Layout::spec`]); [`Layout::preset_name`] tells a preset's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec())
    }
}

impl FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Layout> {
        Layout::parse(s)
    }
}

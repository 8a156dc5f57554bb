//! Order numbers: `Template`, its daily counters (in memory or shared in a store) and
//! `OrderNumbers`.

use std::fmt;
use std::sync::Arc;

use idmint_core as core;

use crate::convert::*;
use crate::errors::*;
use crate::layout::*;
use crate::snowflake::*;

/// The parts of an order number ([`idmint_core::TemplateParts`]); a part the template lacks is
/// none.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TemplateParts {
    /// The year.
    pub year: Option<i32>,
    /// The month, 1-12.
    pub month: Option<i32>,
    /// The day of the month.
    pub day: Option<i32>,
    /// The hour, 0-23.
    pub hour: Option<i32>,
    /// The minute.
    pub minute: Option<i32>,
    /// The second.
    pub second: Option<i32>,
    /// The label as it appears.
    pub label: Option<String>,
    /// The sequence.
    pub sequence: i64,
    /// The check digits, verified.
    pub check: Option<String>,
}

/// An order-number template ([`idmint_core::Template`]).
#[derive(Debug, uniffi::Object)]
pub struct Template(core::Template);

#[uniffi::export]
impl Template {
    /// Read `pattern`, then apply the UTC offset (`Z`, `+08:00`, ...), the check digits (`none`,
    /// `luhn`, `mod97`) and the label, each if given.
    #[uniffi::constructor]
    pub fn new(
        pattern: String,
        offset: Option<String>,
        check: Option<String>,
        label: Option<String>,
    ) -> Result<Arc<Self>> {
        let mut t = core::Template::new(&pattern).ffi()?;
        if let Some(offset) = offset {
            t = t.offset(&offset).ffi()?;
        }
        if let Some(check) = check {
            t = t.check_digit(check.parse().ffi()?);
        }
        if let Some(label) = label {
            t = t.label(&label).ffi()?;
        }
        Ok(Arc::new(Template(t)))
    }

    /// The order number for `time_ms` (unix ms) and `sequence`.
    pub fn format(&self, time_ms: i64, sequence: i64) -> Result<String> {
        let (ms, ms_given) = stand_in(time_ms);
        let (seq, seq_given) = stand_in(sequence);
        self.0.format(ms, seq).map_err(|e| match e {
            e @ core::Error::TimeOutOfRange { .. } => ffi_error(e.with_given(ms_given)),
            e => ffi_error(e.with_given(seq_given)),
        })
    }

    /// The order number of snowflake ID `id` of `layout`: its time, and the whole ID as sequence.
    pub fn format_snowflake(&self, layout: Arc<Layout>, id: i64) -> Result<String> {
        self.0.format_snowflake(&layout.0, java_id(id)?).ffi()
    }

    /// Read an order number back, verifying its check digits.
    pub fn parse(&self, text: String) -> Result<TemplateParts> {
        let p = self.0.parse(&text).ffi()?;
        Ok(TemplateParts {
            year: p.year,
            month: p.month.map(i32::from),
            day: p.day.map(i32::from),
            hour: p.hour.map(i32::from),
            minute: p.minute.map(i32::from),
            second: p.second.map(i32::from),
            label: p.label,
            sequence: to_long(p.sequence)?,
            check: p.check,
        })
    }

    /// The day of `time_ms` in the template's offset, as `yyyymmdd`.
    pub fn day_of(&self, time_ms: i64) -> Result<i32> {
        let (ms, ms_given) = stand_in(time_ms);
        let day = self
            .0
            .day_of(ms)
            .map_err(|e| ffi_error(e.with_given(ms_given)))?;
        Ok(day as i32)
    }

    /// The template as given.
    pub fn pattern(&self) -> String {
        self.0.pattern().to_string()
    }

    /// The UTC offset of the date parts, seconds.
    pub fn offset_seconds(&self) -> i32 {
        self.0.offset_s()
    }

    /// The check digits: `none`, `luhn` or `mod97`.
    pub fn check(&self) -> String {
        self.0.check().to_string()
    }

    /// The sequence's width in digits.
    pub fn sequence_width(&self) -> i32 {
        self.0.sequence_width() as i32
    }

    /// The largest sequence that fits; `Long.MAX_VALUE` for widths of 19 (every `long` fits).
    pub fn capacity(&self) -> i64 {
        count(self.0.capacity())
    }

    /// Whether the template tells days apart (year, month and day).
    pub fn has_full_date(&self) -> bool {
        self.0.has_full_date()
    }
}

/// Where a daily counter resumes: its next value on `day`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CounterStart {
    /// The day, `yyyymmdd` in the template's offset.
    pub day: i32,
    /// The next value that day (1 or more).
    pub first: i64,
}

pub(crate) type Counter = Arc<dyn core::DailyCounter>;

/// A shared daily counter: its URL, name and step, as the Java builder sets them.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct SharedCounter {
    /// `memory:`, `sqlite:PATH`, `postgres://…`, `mysql://…` or `redis://…`; `None` for none.
    pub url: Option<String>,
    /// The counter's name (default `orders`); only with `url`.
    pub name: Option<String>,
    /// The step of day tags in SQL stores (default 100); only with `url`.
    pub step: Option<i64>,
}

/// The counter of `start` (an in-memory counter resuming there) or `shared` (a URL, name and
/// step), as the core's [`idmint_core::CounterArgs`] opens it and refuses mixes.
pub(crate) fn daily_counter(
    start: Option<CounterStart>,
    shared: Option<SharedCounter>,
) -> Result<Counter> {
    let shared = shared.unwrap_or(SharedCounter {
        url: None,
        name: None,
        step: None,
    });
    core::CounterArgs {
        url: shared.url,
        name: shared.name,
        step: shared.step.map(i128::from),
        start: start.map(|s| (i128::from(s.day), i128::from(s.first))),
        memory: None,
    }
    .open()
    .ffi()
}

/// Daily order numbers ([`idmint_core::OrderNumbers`]) over an in-memory or a shared daily
/// counter.
#[derive(uniffi::Object)]
pub struct OrderNumbers(core::OrderNumbers<Counter, core::AnyClock>);

impl fmt::Debug for OrderNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[uniffi::export]
impl OrderNumbers {
    /// Order numbers of `template` from a fresh [`idmint_core::MemoryDailyCounter`], one
    /// [`idmint_core::MemoryDailyCounter::starting_at`] `start`, or the `shared` counter that
    /// [`idmint_core::segment::open_daily_counter`] opens; on `clock`, or the default monotonic
    /// clock.
    #[uniffi::constructor]
    pub fn new(
        template: Arc<Template>,
        clock: Option<Arc<ManualClock>>,
        start: Option<CounterStart>,
        shared: Option<SharedCounter>,
    ) -> Result<Arc<Self>> {
        let counter = daily_counter(start, shared)?;
        let template = template.0.clone();
        Ok(Arc::new(OrderNumbers(
            core::OrderNumbers::new(template, counter, any_clock(clock)).ffi()?,
        )))
    }

    /// The next order number.
    pub fn next(&self) -> Result<String> {
        self.0.next().ffi()
    }
}

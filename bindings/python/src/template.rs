//! `idmint.Template`, `idmint.TemplateParts`, `idmint.OrderNumbers` and
//! `idmint.MemoryDailyCounter`: order numbers from a template with check digits.

use std::sync::Arc;

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyType};

use idmint_core as core;
use idmint_core::{AnyClock, CheckDigit, CounterArgs, DailyCounter};

use crate::convert::{fit, int_value, time_value, u64_or_digits};
use crate::errors::{invalid_argument, to_py, wrong_type, IntoPy};
use crate::layout::layout_arg;
use crate::snowflake::clock_arg;

static TIMEZONE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TIMEDELTA: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TZINFO: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Apply `tz` to a template: a str the core reads (`Z`, `UTC`, `+08:00`, `-0530`, ...), a
/// fixed-offset `datetime.timezone` or a `timedelta`. A tzinfo without a fixed offset (a
/// `zoneinfo.ZoneInfo`) is handed to the core by name, which explains why it is refused.
fn with_tz(t: core::Template, tz: &Bound<'_, PyAny>) -> PyResult<core::Template> {
    let py = tz.py();
    if let Ok(s) = tz.cast::<PyString>() {
        return t.offset(s.to_str()?).py();
    }
    let delta = if tz.is_instance(TIMEDELTA.import(py, "datetime", "timedelta")?)? {
        tz.clone()
    } else if tz.is_instance(TZINFO.import(py, "datetime", "tzinfo")?)? {
        let offset = tz.call_method1("utcoffset", (py.None(),))?;
        if offset.is_none() {
            return t.offset(tz.str()?.to_str()?).py();
        }
        offset
    } else {
        return Err(wrong_type(
            "tz",
            "a UTC offset str (\"+08:00\"), a datetime.timezone or a timedelta",
            tz,
        ));
    };
    let days: i64 = delta.getattr("days")?.extract()?;
    let seconds: i64 = delta.getattr("seconds")?.extract()?;
    let micros: i64 = delta.getattr("microseconds")?.extract()?;
    let total = days * 86_400 + seconds;
    let given = || tz.repr().map(|r| r.to_string()).unwrap_or_default();
    if micros != 0 {
        return Err(invalid_argument(
            "tz",
            given(),
            "a whole number of minutes within ±23:59",
        ));
    }
    // Beyond i32, pass a value the core refuses and show the offset as given.
    let stand_in = i32::try_from(total).unwrap_or(i32::MAX);
    t.offset_seconds(stand_in)
        .map_err(|e| match e {
            core::Error::InvalidArgument { name, expected, .. } => core::Error::InvalidArgument {
                name,
                value: total.to_string(),
                expected,
            },
            other => other,
        })
        .py()
}

/// A time for the core's `u64` unix ms: one that does not fit is passed as `u64::MAX`, which
/// the core refuses as out of range, and put back into the core's error as given.
fn time_ms(time: &Bound<'_, PyAny>) -> PyResult<(u64, Option<i128>)> {
    let v = time_value("time", time)?;
    Ok(match u64::try_from(v) {
        Ok(ms) => (ms, None),
        Err(_) => (u64::MAX, Some(v)),
    })
}

/// The core's error for a time passed as a stand-in, naming the time as given.
fn time_given(e: core::Error, given: Option<i128>) -> core::Error {
    match e {
        e @ core::Error::TimeOutOfRange { .. } => e.with_given(given),
        e => e,
    }
}

/// `+08:00` for a template's offset (its display in `repr`).
fn offset_text(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let a = seconds.unsigned_abs();
    format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}

/// An order-number template such as `%L%Y%M%D%m%5S`, with its time zone (a fixed UTC offset),
/// check digits and node label. Immutable.
#[pyclass(frozen, module = "idmint", name = "Template")]
#[derive(Clone)]
pub struct Template {
    inner: core::Template,
}

#[pymethods]
impl Template {
    /// `tz`: a UTC offset (`"+08:00"`, `"Z"`, a `datetime.timezone` or a `timedelta`; default
    /// UTC); `check`: `"none"`, `"luhn"` or `"mod97"`; `label`: the node label for `%L`.
    #[new]
    #[pyo3(signature = (pattern, *, tz = None, check = None, label = None))]
    fn new(
        pattern: &str,
        tz: Option<&Bound<'_, PyAny>>,
        check: Option<&str>,
        label: Option<&str>,
    ) -> PyResult<Self> {
        let mut t = core::Template::new(pattern).py()?;
        if let Some(tz) = tz {
            t = with_tz(t, tz)?;
        }
        if let Some(check) = check {
            t = t.check_digit(check.parse::<CheckDigit>().py()?);
        }
        if let Some(label) = label {
            t = t.label(label).py()?;
        }
        Ok(Template { inner: t })
    }

    /// The order number for `time` (int unix ms, RFC 3339 str or aware datetime) and
    /// `sequence` (an int of at most the template's width).
    fn format(&self, time: &Bound<'_, PyAny>, sequence: &Bound<'_, PyAny>) -> PyResult<String> {
        let (ms, time_given_as) = time_ms(time)?;
        let (seq, seq_given) = fit("sequence", sequence, u64::MAX)?;
        self.inner
            .format(ms, seq)
            .map_err(|e| match e {
                core::Error::ValueOutOfRange { ref field, .. } if field == "sequence" => {
                    e.with_given(seq_given)
                }
                e => time_given(e, time_given_as),
            })
            .py()
    }

    /// The order number of a snowflake ID of `layout` (default `"twitter"`): its own time, and
    /// the whole ID as the sequence, which needs a sequence wide enough for the layout.
    #[pyo3(signature = (id, layout = None))]
    fn format_snowflake(
        &self,
        id: &Bound<'_, PyAny>,
        layout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let layout = layout_arg(layout, None)?;
        match u64_or_digits("id", id)? {
            Ok(v) => self.inner.format_snowflake(&layout, v).py(),
            // The core checks the template first, then refuses the ID by its digits.
            Err(digits) => match self.inner.format_snowflake(&layout, u64::MAX) {
                Err(e @ core::Error::InvalidTemplate { .. }) => Err(to_py(e)),
                _ => core::parse_id(&digits).map(|_| String::new()).py(),
            },
        }
    }

    /// Read an order number back into its parts, verifying its check digits
    /// (`CheckDigitMismatch`) and its shape (`InvalidId`, naming the position).
    fn parse(&self, text: &str) -> PyResult<TemplateParts> {
        Ok(TemplateParts {
            inner: self.inner.parse(text).py()?,
        })
    }

    /// The day of `time` in the template's time zone as `yyyymmdd`: a daily counter's key.
    fn day_of(&self, time: &Bound<'_, PyAny>) -> PyResult<u32> {
        let (ms, given) = time_ms(time)?;
        self.inner.day_of(ms).map_err(|e| time_given(e, given)).py()
    }

    /// The template as given.
    #[getter]
    fn pattern(&self) -> &str {
        self.inner.pattern()
    }

    /// The time zone of the date parts, a fixed-offset `datetime.timezone`.
    #[getter]
    fn tz<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let delta = TIMEDELTA
            .import(py, "datetime", "timedelta")?
            .call1((0, self.inner.offset_s()))?;
        TIMEZONE.import(py, "datetime", "timezone")?.call1((delta,))
    }

    /// The UTC offset of the date parts, in seconds.
    #[getter]
    fn offset_seconds(&self) -> i32 {
        self.inner.offset_s()
    }

    /// `"none"`, `"luhn"` or `"mod97"`.
    #[getter]
    fn check(&self) -> &'static str {
        self.inner.check().name()
    }

    /// The sequence's width in digits.
    #[getter]
    fn sequence_width(&self) -> u32 {
        self.inner.sequence_width()
    }

    /// The largest sequence that fits: 10^width - 1.
    #[getter]
    fn capacity(&self) -> u64 {
        self.inner.capacity()
    }

    /// Whether the template tells days apart (year, month and day), as `OrderNumbers` needs.
    #[getter]
    fn has_full_date(&self) -> bool {
        self.inner.has_full_date()
    }

    /// `Template('%Y%M%D%5S', tz='+08:00', check='luhn')` (the label is not shown: the core
    /// keeps it to itself).
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Template({}, tz='{}', check='{}')",
            PyString::new(py, self.inner.pattern()).repr()?,
            offset_text(self.inner.offset_s()),
            self.inner.check().name()
        ))
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<Template>() else {
            return Ok(py.NotImplemented());
        };
        let same = self.inner == other.get().inner;
        Ok(match op {
            CompareOp::Eq => same.into_pyobject(py)?.to_owned().into_any().unbind(),
            CompareOp::Ne => (!same).into_pyobject(py)?.to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }
}

/// The parts of an order number, as `Template.parse` reads them: a part the template does not
/// have is None. Immutable.
#[pyclass(frozen, module = "idmint", name = "TemplateParts")]
pub struct TemplateParts {
    inner: core::TemplateParts,
}

#[pymethods]
impl TemplateParts {
    /// The year (`%Y`, or 2000 + `%y`).
    #[getter]
    fn year(&self) -> Option<i32> {
        self.inner.year
    }

    #[getter]
    fn month(&self) -> Option<u8> {
        self.inner.month
    }

    #[getter]
    fn day(&self) -> Option<u8> {
        self.inner.day
    }

    #[getter]
    fn hour(&self) -> Option<u8> {
        self.inner.hour
    }

    #[getter]
    fn minute(&self) -> Option<u8> {
        self.inner.minute
    }

    #[getter]
    fn second(&self) -> Option<u8> {
        self.inner.second
    }

    /// The label as it appears (padding included).
    #[getter]
    fn label(&self) -> Option<&str> {
        self.inner.label.as_deref()
    }

    #[getter]
    fn sequence(&self) -> u64 {
        self.inner.sequence
    }

    /// The check digits, already verified.
    #[getter]
    fn check(&self) -> Option<&str> {
        self.inner.check.as_deref()
    }

    /// The parts the template has, as a dict (year, month, day, hour, minute, second, label,
    /// sequence, check; those it lacks are left out).
    fn asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.inner;
        let d = PyDict::new(py);
        if let Some(y) = p.year {
            d.set_item("year", y)?;
        }
        for (name, v) in [
            ("month", p.month),
            ("day", p.day),
            ("hour", p.hour),
            ("minute", p.minute),
            ("second", p.second),
        ] {
            if let Some(v) = v {
                d.set_item(name, v)?;
            }
        }
        if let Some(l) = &p.label {
            d.set_item("label", l)?;
        }
        d.set_item("sequence", p.sequence)?;
        if let Some(c) = &p.check {
            d.set_item("check", c)?;
        }
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let d = self.asdict(py)?;
        let mut s = String::from("TemplateParts(");
        for (i, (k, v)) in d.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&format!("{}={}", k.str()?, v.repr()?));
        }
        s.push(')');
        Ok(s)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<TemplateParts>() else {
            return Ok(py.NotImplemented());
        };
        let same = self.inner == other.get().inner;
        Ok(match op {
            CompareOp::Eq => same.into_pyobject(py)?.to_owned().into_any().unbind(),
            CompareOp::Ne => (!same).into_pyobject(py)?.to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }
}

/// A daily counter in memory (the core's `MemoryDailyCounter`): 1 on a day's first call, then
/// 2, 3, ...; lock-free. One process only: several processes need a shared counter or a
/// distinct label each.
#[pyclass(frozen, module = "idmint", name = "MemoryDailyCounter")]
pub struct MemoryDailyCounter {
    inner: Arc<core::MemoryDailyCounter>,
}

/// A `yyyymmdd` day for the core's `u32`, checked by the core.
fn day_arg(day: &Bound<'_, PyAny>) -> PyResult<u32> {
    core::args::day(int_value("day", day)?).py()
}

#[pymethods]
impl MemoryDailyCounter {
    #[new]
    fn new() -> Self {
        MemoryDailyCounter {
            inner: Arc::new(core::MemoryDailyCounter::new()),
        }
    }

    /// A counter whose next value on `day` (`yyyymmdd`) is `first`, e.g. to resume after a
    /// restart from a number stored elsewhere.
    #[staticmethod]
    fn starting_at(day: &Bound<'_, PyAny>, first: &Bound<'_, PyAny>) -> PyResult<Self> {
        let inner =
            core::MemoryDailyCounter::starting_at(day_arg(day)?, int_value("first", first)?);
        Ok(MemoryDailyCounter {
            inner: Arc::new(inner.py()?),
        })
    }

    /// The next value for `day` (`yyyymmdd`); an earlier day than one counted raises
    /// `ClockMovedBackwards`.
    fn next(&self, day: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.inner.next(day_arg(day)?).py()
    }

    fn __repr__(&self) -> String {
        "MemoryDailyCounter()".to_string()
    }
}

type Counter = Arc<dyn DailyCounter>;

/// The counter of `OrderNumbers(counter=...)`, and the `MemoryDailyCounter` it is, if one: a
/// `MemoryDailyCounter` (default: a new one), or a URL; the core's `CounterArgs`
/// opens it and refuses `name` and `step` without a URL.
fn counter_arg(
    py: Python<'_>,
    counter: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
    step: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Counter, Option<Arc<core::MemoryDailyCounter>>)> {
    let url = match counter {
        Some(c) => match c.cast::<PyString>() {
            Ok(s) => Some(s.to_str()?.to_string()),
            Err(_) => None,
        },
        None => None,
    };
    let memory = match (counter, &url) {
        (Some(c), None) => match c.cast::<MemoryDailyCounter>() {
            Ok(m) => Some(m.get().inner.clone()),
            Err(_) => {
                return Err(wrong_type(
                    "counter",
                    "an idmint.MemoryDailyCounter or a counter URL str",
                    c,
                ))
            }
        },
        // Made here rather than by the core, so `.counter` can show it.
        (None, None) => Some(Arc::new(core::MemoryDailyCounter::new())),
        (_, Some(_)) => None,
    };
    let args = CounterArgs {
        url,
        name: name.map(str::to_string),
        step: step.map(|s| int_value("step", s)).transpose()?,
        start: None,
        memory: memory.clone(),
    };
    // Opening connects (SQLite opens its file, servers are dialled): without the GIL.
    let counter = py.detach(|| args.open()).py()?;
    Ok((counter, memory))
}

/// Daily order numbers: a `Template` filled from a clock and a daily counter that restarts at
/// 1 each day (in the template's time zone). Thread-safe.
#[pyclass(frozen, module = "idmint", name = "OrderNumbers")]
pub struct OrderNumbers {
    orders: core::OrderNumbers<Counter, AnyClock>,
    memory: Option<Arc<core::MemoryDailyCounter>>,
}

#[pymethods]
impl OrderNumbers {
    /// `template`: a `Template` (or a pattern str, in UTC without check digits); `counter`: a
    /// `MemoryDailyCounter` (default: a new one) or a shared counter's URL (`memory:`,
    /// `sqlite:PATH`, `postgres://...`, `mysql://...`, `redis://...`) with its `name` (default
    /// `orders`) and, in SQL stores, `step`; `clock`: as for `Snowflake`.
    #[new]
    #[pyo3(signature = (template, *, counter = None, name = None, step = None, clock = None))]
    fn new(
        template: &Bound<'_, PyAny>,
        counter: Option<&Bound<'_, PyAny>>,
        name: Option<&str>,
        step: Option<&Bound<'_, PyAny>>,
        clock: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let template_py = template.py();
        let template = if let Ok(t) = template.cast::<Template>() {
            t.get().inner.clone()
        } else if let Ok(s) = template.cast::<PyString>() {
            core::Template::new(s.to_str()?).py()?
        } else {
            return Err(wrong_type(
                "template",
                "an idmint.Template or a pattern str",
                template,
            ));
        };
        let (c, memory) = counter_arg(template_py, counter, name, step)?;
        let orders = core::OrderNumbers::new(template, c, clock_arg(clock)?).py()?;
        Ok(OrderNumbers { orders, memory })
    }

    /// The next order number; `CounterOverflow` once the day's numbers pass the sequence width.
    /// A shared counter's store is asked without the GIL.
    fn next(&self, py: Python<'_>) -> PyResult<String> {
        match self.memory {
            Some(_) => self.orders.next(),
            None => py.detach(|| self.orders.next()),
        }
        .py()
    }

    #[getter]
    fn template(&self) -> Template {
        Template {
            inner: self.orders.template().clone(),
        }
    }

    /// The `MemoryDailyCounter` in use; `None` with a counter URL.
    #[getter]
    fn counter(&self) -> Option<MemoryDailyCounter> {
        self.memory.as_ref().map(|inner| MemoryDailyCounter {
            inner: inner.clone(),
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("OrderNumbers({})", self.template().__repr__(py)?))
    }
}

//! `idmint.Snowflake`, `idmint.Stats` and `idmint.ManualClock`.

use std::sync::Arc;

use arc_swap::ArcSwapOption;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use idmint_core as core;
#[cfg(feature = "stores")]
use idmint_core::lease::LeaseOptions;
/// A build without stores makes no lease options: [`LeaseArgs::options`] refuses a URL first.
#[cfg(not(feature = "stores"))]
type LeaseOptions = std::convert::Infallible;
use idmint_core::metrics::{observe_snowflake, Observation};
use idmint_core::{AnyClock, OnExhausted, OnRollback};

use crate::closing::closing;
use crate::convert::{self, int_value, time_value, u64_or_digits};
use crate::errors::{invalid_argument, to_py, wrong_type, IntoPy};
use crate::layout::{compose, layout_arg, merge, Layout, Parts};

/// A clock that moves only when told to (the core's `ManualClock`), for deterministic tests of
/// code that mints IDs. Sleeping moves it forward to the target and is counted.
#[pyclass(frozen, module = "idmint", name = "ManualClock")]
pub struct ManualClock {
    pub inner: Arc<core::ManualClock>,
}

#[pymethods]
impl ManualClock {
    #[new]
    fn new(now: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(ManualClock {
            inner: Arc::new(core::ManualClock::new(clock_ms("now", now)?)),
        })
    }

    /// The reading, unix ms.
    #[getter]
    fn now_ms(&self) -> u64 {
        use core::Clock;
        self.inner.now_ms()
    }

    /// Set the reading, forwards or backwards (int unix ms, str or aware datetime).
    fn set(&self, now: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set_ms(clock_ms("now", now)?);
        Ok(())
    }

    /// Move the reading forward by `ms` milliseconds.
    fn advance(&self, ms: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = int_value("ms", ms)?;
        let v = u64::try_from(v)
            .map_err(|_| invalid_argument("ms", v.to_string(), "milliseconds >= 0"))?;
        self.inner.advance_ms(v);
        Ok(())
    }

    /// Total milliseconds generators spent "sleeping" on this clock.
    #[getter]
    fn slept_ms(&self) -> u64 {
        self.inner.slept_ms()
    }

    fn __repr__(&self) -> String {
        use core::Clock;
        format!("ManualClock({})", self.inner.now_ms())
    }
}

fn clock_ms(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    let v = time_value(name, obj)?;
    u64::try_from(v).map_err(|_| {
        invalid_argument(
            name,
            v.to_string(),
            "a time at or after 1970-01-01T00:00:00Z",
        )
    })
}

/// `clock=None | "monotonic" | "wall" | ManualClock`, as the core's [`AnyClock`].
pub fn clock_arg(clock: Option<&Bound<'_, PyAny>>) -> PyResult<AnyClock> {
    let expected = "None, \"monotonic\", \"wall\" or an idmint.ManualClock";
    let Some(c) = clock else {
        return Ok(AnyClock::default());
    };
    if let Ok(m) = c.cast::<ManualClock>() {
        return Ok(AnyClock::Manual(m.get().inner.clone()));
    }
    if let Ok(s) = c.cast::<PyString>() {
        let name = s.to_str()?;
        return AnyClock::from_name(name)
            .ok_or_else(|| invalid_argument("clock", format!("{name:?}"), expected));
    }
    Err(wrong_type("clock", expected, c))
}

/// Counters of a generator at one moment.
#[pyclass(frozen, module = "idmint", name = "Stats")]
pub struct Stats {
    /// IDs issued.
    #[pyo3(get)]
    issued: u64,
    /// Times a caller waited (next tick, borrowed lead, clock catching up).
    #[pyo3(get)]
    waits: u64,
    /// Rollback events seen.
    #[pyo3(get)]
    rollbacks: u64,
    /// How far the last issued time is ahead of the clock now, in ms.
    #[pyo3(get)]
    lead_ms: u64,
    /// The largest lead seen when issuing, in ms.
    #[pyo3(get)]
    max_lead_ms: u64,
}

#[pymethods]
impl Stats {
    fn asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("issued", self.issued)?;
        d.set_item("waits", self.waits)?;
        d.set_item("rollbacks", self.rollbacks)?;
        d.set_item("lead_ms", self.lead_ms)?;
        d.set_item("max_lead_ms", self.max_lead_ms)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Stats(issued={}, waits={}, rollbacks={}, lead_ms={}, max_lead_ms={})",
            self.issued, self.waits, self.rollbacks, self.lead_ms, self.max_lead_ms
        )
    }
}

/// A snowflake ID generator for one node: thread-safe, lock-free, strictly increasing.
///
/// `close()` (or leaving a `with` block) drops the core generator, which releases its lease and
/// lowers its high-water mark; garbage collection does the same. The generator sits behind an
/// `ArcSwapOption` so that `close()` can take it from under running calls: a call in flight
/// keeps it alive until it returns, and every later one raises `Closed`.
// weakref: idmint/otel.py observes generators without keeping them alive.
#[pyclass(frozen, weakref, module = "idmint", name = "Snowflake")]
pub struct Snowflake {
    gen: ArcSwapOption<Gen>,
}

type Gen = core::Snowflake<AnyClock>;

fn closed() -> PyErr {
    to_py(core::Error::Closed {
        what: "snowflake generator".into(),
    })
}

impl Snowflake {
    /// `f` on the generator, or `Closed`.
    #[inline]
    fn with<R>(&self, f: impl FnOnce(&Gen) -> PyResult<R>) -> PyResult<R> {
        match self.gen.load().as_deref() {
            Some(g) => f(g),
            None => Err(closed()),
        }
    }
}

impl crate::metrics::Source for Snowflake {
    /// A closed generator has nothing left to report.
    fn observations(&self) -> Vec<Observation> {
        self.gen
            .load()
            .as_deref()
            .map(observe_snowflake)
            .unwrap_or_default()
    }
}

impl Drop for Snowflake {
    fn drop(&mut self) {
        // Garbage collection releases a lease too, a store round trip: without the GIL (when
        // the interpreter is shutting down, `try_attach` declines and the closure, with the
        // generator, is simply dropped).
        if let Some(gen) = self.gen.swap(None) {
            Python::try_attach(move |py| py.detach(move || drop(gen)));
        }
    }
}

/// The lease options of `Snowflake(lease=URL, lease_range=..., ...)`, or `None` without a URL;
/// lease options given without one are refused, never dropped silently.
struct LeaseArgs<'a, 'py> {
    url: Option<&'a str>,
    range: Option<&'a Bound<'py, PyAny>>,
    ttl: Option<&'a Bound<'py, PyAny>>,
    freeze: Option<&'a Bound<'py, PyAny>>,
    holder: Option<&'a str>,
}

impl LeaseArgs<'_, '_> {
    /// The core's options, and the first range value as given when it does not fit a `u64`.
    fn options(&self) -> PyResult<(Option<LeaseOptions>, Option<i128>)> {
        let Some(url) = self.url else {
            let stray = [
                ("lease_range", self.range.is_some()),
                ("lease_ttl", self.ttl.is_some()),
                ("lease_freeze", self.freeze.is_some()),
                ("lease_holder", self.holder.is_some()),
            ];
            if let Some((name, _)) = stray.iter().find(|(_, given)| *given) {
                return Err(invalid_argument(name, "given", "only with lease=URL"));
            }
            return Ok((None, None));
        };
        // Not the URL itself: it may carry credentials.
        #[cfg(not(feature = "stores"))]
        {
            let _ = url;
            Err(to_py(idmint_core::addon::missing("Snowflake(lease=...)")))
        }
        #[cfg(feature = "stores")]
        self.lease_options(url)
    }

    /// The core's lease options of `url` with the other lease arguments (the stores' build).
    #[cfg(feature = "stores")]
    fn lease_options(&self, url: &str) -> PyResult<(Option<LeaseOptions>, Option<i128>)> {
        use crate::convert::{fit, opt_duration};
        use pyo3::types::PyTuple;
        let mut o = LeaseOptions::url(url);
        let mut given = None;
        if let Some(r) = self.range {
            let pair = r
                .cast::<PyTuple>()
                .ok()
                .filter(|t| t.len() == 2)
                .ok_or_else(|| wrong_type("lease_range", "a (first, last) tuple of ints", r))?;
            // A value beyond u64 becomes u64::MAX, which the core refuses as above the
            // layout's node values; the value as given goes back into its error.
            let (first, g1) = fit::<u64>("lease_range", &pair.get_item(0)?, u64::MAX)?;
            let (last, g2) = fit::<u64>("lease_range", &pair.get_item(1)?, u64::MAX)?;
            given = g1.or(g2);
            o = o.range(first, last);
        }
        if let Some(d) = opt_duration("lease_ttl", self.ttl)? {
            o = o.ttl(d);
        }
        if let Some(d) = opt_duration("lease_freeze", self.freeze)? {
            o = o.freeze(d);
        }
        if let Some(h) = self.holder {
            o = o.holder(h);
        }
        Ok((Some(o), given))
    }
}

closing!(Snowflake, {
    #[new]
    #[pyo3(signature = (
        layout = None, *, epoch = None, nodes = None, random_nodes = false,
        lease = None, lease_range = None, lease_ttl = None, lease_freeze = None,
        lease_holder = None, high_water_mark = None, resume_after = None, start_above = None,
        on_exhausted = None, on_rollback = None, clock = None, unsigned = false, **node_fields
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        layout: Option<&Bound<'_, PyAny>>,
        epoch: Option<&Bound<'_, PyAny>>,
        nodes: Option<&Bound<'_, PyDict>>,
        random_nodes: bool,
        lease: Option<&str>,
        lease_range: Option<&Bound<'_, PyAny>>,
        lease_ttl: Option<&Bound<'_, PyAny>>,
        lease_freeze: Option<&Bound<'_, PyAny>>,
        lease_holder: Option<&str>,
        high_water_mark: Option<std::path::PathBuf>,
        resume_after: Option<&Bound<'_, PyAny>>,
        start_above: Option<&Bound<'_, PyAny>>,
        on_exhausted: Option<&str>,
        on_rollback: Option<&str>,
        clock: Option<&Bound<'_, PyAny>>,
        unsigned: bool,
        node_fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let layout = layout_arg(layout, epoch)?;
        let on_exhausted = on_exhausted
            .map(str::parse::<OnExhausted>)
            .transpose()
            .py()?;
        let on_rollback = on_rollback.map(str::parse::<OnRollback>).transpose().py()?;
        let mut given: Vec<(String, i128)> = Vec::new();
        if let Some(all) = merge(py, nodes, node_fields)? {
            for (k, v) in all.iter() {
                let name: String = k.extract()?;
                let value = int_value(&name, &v)?;
                given.push((name, value));
            }
        }
        let (lease, range_given) = LeaseArgs {
            url: lease,
            range: lease_range,
            ttl: lease_ttl,
            freeze: lease_freeze,
            holder: lease_holder,
        }
        .options()?;
        let pairs = given.iter().map(|(n, v)| (n.as_str(), *v));
        // Each node field's value is given, random or leased: the core applies the rule
        // (a missing field, a lease with anything else) and says what is wrong.
        // An ID to resume after is read as the layout reads IDs (up to 2^64-1 when `unsigned`).
        let resume_after = match resume_after.map(|r| u64_or_digits("resume_after", r)) {
            None => None,
            Some(r) => Some(match r? {
                Ok(v) => v,
                Err(digits) => layout.parse_id(&digits).py()?,
            }),
        };
        let mut b = core::Snowflake::with_clock(layout, clock_arg(clock)?).nodes(pairs);
        if unsigned {
            b = b.unsigned();
        }
        if random_nodes {
            b = b.random_nodes();
        }
        if let Some(o) = lease {
            #[cfg(feature = "stores")]
            {
                b = b.lease(o);
            }
            #[cfg(not(feature = "stores"))]
            match o {}
        }
        if let Some(path) = high_water_mark {
            b = b.high_water_mark(path);
        }
        if let Some(last) = resume_after {
            b = b.resume_after(last);
        }
        // An ID of another layout, up to 2^64-1 (an unsigned layout's).
        if let Some(above) = start_above {
            b = b.start_above(crate::convert::any_u64("start_above", above)?);
        }
        let b = b
            .on_exhausted(on_exhausted.unwrap_or_default())
            .on_rollback(on_rollback.unwrap_or_default());
        // Leasing and reading the high-water mark wait on a store or the disk: without the GIL.
        let gen = py.detach(|| b.build()).map_err(|e| match e {
            // The stand-in of a range value beyond u64 is refused here: show the value given.
            core::Error::InvalidArgument { ref name, .. } if name == "lease range" => {
                to_py(e.with_given(range_given))
            }
            e => to_py(e),
        })?;
        // A layout near its end: the core's words, through Python's warning filters.
        if let Some(w) = gen.lifetime_warning() {
            let category = py.import("idmint._errors")?.getattr("LayoutWarning")?;
            let text = std::ffi::CString::new(w).unwrap_or_default();
            PyErr::warn(py, &category, &text, 1)?;
        }
        Ok(Snowflake {
            gen: ArcSwapOption::from_pointee(gen),
        })
    }

    /// The next ID. Holds the GIL: it waits at most one tick, and only when the tick's
    /// sequence is used up.
    #[inline]
    fn next_id(&self) -> PyResult<u64> {
        self.with(|g| g.next_id().py())
    }

    /// `n` increasing IDs, minted with the GIL released (it may wait for ticks).
    fn next_ids<'py>(
        &self,
        py: Python<'py>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let count = core::args::count("n", int_value("n", n)?).py()?;
        let gen = self.gen.load_full().ok_or_else(closed)?;
        let ids = py.detach(|| gen.next_ids(count)).py()?;
        PyList::new(py, ids)
    }

    /// Drops the generator: its lease is released and its high-water mark lowered to the last
    /// ID issued. Later calls raise `Closed`; closing twice is harmless.
    fn close(&self, py: Python<'_>) {
        let gen = self.gen.swap(None);
        // Releasing a lease is a store round trip.
        py.detach(move || drop(gen));
    }

    /// Split an ID of this layout (int or decimal str) into its parts.
    fn parse(&self, id: &Bound<'_, PyAny>) -> PyResult<Parts> {
        self.with(|g| convert::decompose(g.layout(), id).map(Parts::from))
    }

    /// Put an ID together; node fields not given are this generator's.
    #[pyo3(signature = (time, *, sequence = None, fields = None, **kwargs))]
    fn compose(
        &self,
        py: Python<'_>,
        time: &Bound<'_, PyAny>,
        sequence: Option<&Bound<'_, PyAny>>,
        fields: Option<&Bound<'_, PyDict>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<u64> {
        let all = merge(py, fields, kwargs)?;
        let zero = 0i32.into_pyobject(py)?.into_any();
        self.with(|g| {
            let nodes = g.nodes();
            compose(
                g.layout(),
                time,
                sequence.unwrap_or(&zero),
                all.as_ref(),
                &nodes,
            )
        })
    }

    /// The counters now.
    #[getter]
    fn stats(&self) -> PyResult<Stats> {
        self.with(|g| {
            let s = g.stats();
            Ok(Stats {
                issued: s.issued,
                waits: s.waits,
                rollbacks: s.rollbacks,
                lead_ms: s.lead_ms,
                max_lead_ms: s.max_lead_ms,
            })
        })
    }

    /// The core's metrics of this generator now (`idmint_core::metrics::observe_snowflake`):
    /// `(metric, value, attributes)` tuples.
    fn observe(&self) -> PyResult<Vec<crate::metrics::Observed>> {
        self.with(|g| Ok(crate::metrics::observed(observe_snowflake(g))))
    }

    #[getter]
    fn layout(&self) -> PyResult<Layout> {
        self.with(|g| {
            Ok(Layout {
                inner: g.layout().clone(),
            })
        })
    }

    /// This generator's node values, name -> value, in layout order.
    #[getter]
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.with(|g| {
            let d = PyDict::new(py);
            for (n, v) in g.nodes().iter() {
                d.set_item(n, v)?;
            }
            Ok(d)
        })
    }

    #[getter]
    fn on_exhausted(&self) -> PyResult<String> {
        self.with(|g| Ok(g.on_exhausted().to_string()))
    }

    #[getter]
    fn on_rollback(&self) -> PyResult<String> {
        self.with(|g| Ok(g.on_rollback().to_string()))
    }

    /// `"monotonic"`, `"wall"` or `"manual"`.
    #[getter]
    fn clock(&self) -> PyResult<&'static str> {
        self.with(|g| Ok(g.clock().name()))
    }

    /// True once `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.gen.load().is_none()
    }

    fn __repr__(&self) -> String {
        let Some(g) = self.gen.load_full() else {
            return "Snowflake(<closed>)".to_string();
        };
        let layout = g
            .layout()
            .preset_name()
            .map(|p| format!("{p:?}"))
            .unwrap_or_else(|| format!("{:?}", g.layout().spec()));
        let nodes: String = g
            .nodes()
            .iter()
            .map(|(n, v)| format!(", {n}={v}"))
            .collect();
        format!(
            "Snowflake({layout}{nodes}, on_exhausted={:?}, on_rollback={:?})",
            g.on_exhausted().to_string(),
            g.on_rollback().to_string()
        )
    }
});

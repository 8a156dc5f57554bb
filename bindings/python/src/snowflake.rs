//! `idmint.Snowflake`, `idmint.Stats` and `idmint.ManualClock`.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use idmint_core as core;
use idmint_core::{AnyClock, OnExhausted, OnRollback};

use crate::convert::{self, int_value, time_value};
use crate::errors::{invalid_argument, wrong_type, IntoPy};
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
#[pyclass(frozen, module = "idmint", name = "Snowflake")]
pub struct Snowflake {
    gen: core::Snowflake<AnyClock>,
}

#[pymethods]
impl Snowflake {
    #[new]
    #[pyo3(signature = (
        layout = None, *, epoch = None, nodes = None, random_nodes = false,
        on_exhausted = None, on_rollback = None, clock = None, **node_fields
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        layout: Option<&Bound<'_, PyAny>>,
        epoch: Option<&Bound<'_, PyAny>>,
        nodes: Option<&Bound<'_, PyDict>>,
        random_nodes: bool,
        on_exhausted: Option<&str>,
        on_rollback: Option<&str>,
        clock: Option<&Bound<'_, PyAny>>,
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
        let pairs = given.iter().map(|(n, v)| (n.as_str(), *v));
        let b = core::Snowflake::with_clock(layout, clock_arg(clock)?).nodes(pairs);
        let b = if random_nodes { b.random_nodes() } else { b };
        let gen = b
            .on_exhausted(on_exhausted.unwrap_or_default())
            .on_rollback(on_rollback.unwrap_or_default())
            .build()
            .py()?;
        Ok(Snowflake { gen })
    }

    /// The next ID. Holds the GIL: it waits at most one tick, and only when the tick's
    /// sequence is used up.
    #[inline]
    fn next_id(&self) -> PyResult<u64> {
        self.gen.next_id().py()
    }

    /// `n` increasing IDs, minted with the GIL released (it may wait for ticks).
    fn next_ids<'py>(
        &self,
        py: Python<'py>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let count = core::args::count("n", int_value("n", n)?).py()?;
        let ids = py.detach(|| self.gen.next_ids(count)).py()?;
        PyList::new(py, ids)
    }

    /// Split an ID of this layout (int or decimal str) into its parts.
    fn parse(&self, id: &Bound<'_, PyAny>) -> PyResult<Parts> {
        convert::decompose(self.gen.layout(), id).map(Parts::from)
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
        compose(
            self.gen.layout(),
            time,
            sequence.unwrap_or(&zero),
            all.as_ref(),
            &self.gen.nodes(),
        )
    }

    /// The counters now.
    #[getter]
    fn stats(&self) -> Stats {
        let s = self.gen.stats();
        Stats {
            issued: s.issued,
            waits: s.waits,
            rollbacks: s.rollbacks,
            lead_ms: s.lead_ms,
            max_lead_ms: s.max_lead_ms,
        }
    }

    #[getter]
    fn layout(&self) -> Layout {
        Layout {
            inner: self.gen.layout().clone(),
        }
    }

    /// This generator's node values, name -> value, in layout order.
    #[getter]
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, v) in self.gen.nodes() {
            d.set_item(n, v)?;
        }
        Ok(d)
    }

    #[getter]
    fn on_exhausted(&self) -> String {
        self.gen.on_exhausted().to_string()
    }

    #[getter]
    fn on_rollback(&self) -> String {
        self.gen.on_rollback().to_string()
    }

    /// `"monotonic"`, `"wall"` or `"manual"`.
    #[getter]
    fn clock(&self) -> &'static str {
        self.gen.clock().name()
    }

    fn __repr__(&self) -> String {
        let (layout, nodes) = (
            self.gen
                .layout()
                .preset_name()
                .map(|p| format!("{p:?}"))
                .unwrap_or_else(|| format!("{:?}", self.gen.layout().spec())),
            self.gen
                .nodes()
                .iter()
                .map(|(n, v)| format!(", {n}={v}"))
                .collect::<String>(),
        );
        format!(
            "Snowflake({layout}{nodes}, on_exhausted={:?}, on_rollback={:?})",
            self.on_exhausted(),
            self.on_rollback()
        )
    }
}

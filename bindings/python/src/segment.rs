//! `idmint.SegmentClient`, `idmint.Tag` and `idmint.TagMetrics`: the core's segment client.
//!
//! Every call that may wait on the store (connecting, loading a tag, a refill the caller has to
//! wait for, creating a tag, closing) runs with the GIL released. The hot path, an ID already in
//! memory, is the core's `try_next_id` with the GIL held: one atomic step, no thread switch.
//! The `*_async` methods and `SegmentClient.connect` never block the asyncio loop: an ID in
//! memory is returned as a finished future, anything else runs in the loop's default executor.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyRange, PyType};
use pyo3::IntoPyObjectExt;

use idmint_core::segment::{self as core, check_step_wide, IdRange, TagSpec};
use idmint_core::Error;

use crate::aio::{in_executor, ready};
use crate::closing::closing;
use crate::convert::{fit, int_value, opt_duration};
use crate::errors::{to_py, IntoPy};

/// A client drawing segment IDs for any number of tags from one store, refilled in the
/// background. Thread-safe; a context manager (sync and async) that closes it.
// weakref: idmint/otel.py observes clients without keeping them alive.
#[pyclass(frozen, weakref, module = "idmint", name = "SegmentClient")]
pub struct SegmentClient {
    inner: core::SegmentClient,
}

closing!(SegmentClient, async, {
    /// Opens the store at `url` (blocking, without the GIL). Options not given keep the core's
    /// defaults; durations are seconds (`int`/`float`) or `datetime.timedelta`.
    #[new]
    #[pyo3(signature = (
        url, *, refill_at = None, max_step = None, default_step = None, auto_create = None,
        default_tag = None, max_wait = None, op_timeout = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        url: &str,
        refill_at: Option<&Bound<'_, PyAny>>,
        max_step: Option<&Bound<'_, PyAny>>,
        default_step: Option<&Bound<'_, PyAny>>,
        auto_create: Option<bool>,
        default_tag: Option<&str>,
        max_wait: Option<&Bound<'_, PyAny>>,
        op_timeout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut b = core::SegmentClient::builder().store_url(url);
        // refill_at first: the builder reports its first bad option, so a stand-in for a value
        // beyond u8 is this one's, and the core's error gets the value as given back.
        let mut refill_given = None;
        if let Some(r) = refill_at {
            let (v, given) = fit::<u8>("refill_at", r, u8::MAX)?;
            refill_given = given;
            b = b.refill_at(v);
        }
        if let Some(s) = max_step {
            b = b.max_step(step_arg("max_step", s)?);
        }
        if let Some(s) = default_step {
            b = b.default_step(step_arg("default_step", s)?);
        }
        if let Some(a) = auto_create {
            b = b.auto_create(a);
        }
        if let Some(t) = default_tag {
            b = b.default_tag(t);
        }
        if let Some(d) = opt_duration("max_wait", max_wait)? {
            b = b.max_wait(d);
        }
        if let Some(d) = opt_duration("op_timeout", op_timeout)? {
            b = b.op_timeout(d);
        }
        let inner = py
            .detach(|| b.connect_blocking())
            .map_err(|e| to_py(e.with_given(refill_given)))?;
        Ok(SegmentClient { inner })
    }

    /// `await SegmentClient.connect(url, **options)`: the constructor, run in the loop's
    /// executor.
    #[classmethod]
    #[pyo3(signature = (url, **options))]
    fn connect<'py>(
        cls: &Bound<'py, PyType>,
        url: &str,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(
            cls.as_any(),
            vec![url.into_bound_py_any(cls.py())?],
            options,
        )
    }

    /// The handle of `tag`, loaded from the store on first use (without the GIL), then cached.
    fn tag(&self, py: Python<'_>, tag: &str) -> PyResult<Tag> {
        let h = py.detach(|| self.inner.tag(tag)).py()?;
        Ok(Tag { h })
    }

    /// `await client.tag_async(tag)`.
    fn tag_async<'py>(slf: &Bound<'py, Self>, tag: &str) -> PyResult<Bound<'py, PyAny>> {
        in_executor(
            &slf.getattr("tag")?,
            vec![tag.into_bound_py_any(slf.py())?],
            None,
        )
    }

    /// Creates `tag` with its first ID (`start`), step and description; True if created, False
    /// if it existed (then nothing changes).
    #[pyo3(signature = (tag, *, start = None, step = None, description = None))]
    fn create_tag(
        &self,
        py: Python<'_>,
        tag: &str,
        start: Option<&Bound<'_, PyAny>>,
        step: Option<&Bound<'_, PyAny>>,
        description: Option<&str>,
    ) -> PyResult<bool> {
        let mut spec = TagSpec::new(tag).py()?;
        if let Some(s) = start {
            // 0 is refused by the core as a start, as is any value beyond u64: it gets the value
            // as given back.
            let (v, given) = fit::<u64>("start", s, 0)?;
            spec = spec.start(v).map_err(|e| to_py(e.with_given(given)))?;
        }
        if let Some(s) = step {
            spec = spec.step(step_arg("step", s)?).py()?;
        }
        if let Some(d) = description {
            spec = spec.description(d).py()?;
        }
        py.detach(|| self.inner.create_tag(&spec)).py()
    }

    /// `await client.create_tag_async(tag, start=..., step=..., description=...)`.
    #[pyo3(signature = (tag, **options))]
    fn create_tag_async<'py>(
        slf: &Bound<'py, Self>,
        tag: &str,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(
            &slf.getattr("create_tag")?,
            vec![tag.into_bound_py_any(slf.py())?],
            options,
        )
    }

    /// Metrics of every tag this client has loaded, sorted by tag.
    #[getter]
    fn metrics(&self) -> Vec<TagMetrics> {
        self.inner
            .metrics()
            .into_iter()
            .map(TagMetrics::from)
            .collect()
    }

    /// The core's metrics of every tag served now (`idmint_core::metrics::observe_segments`):
    /// `(metric, value, attributes)` tuples.
    fn observe(&self) -> Vec<crate::metrics::Observed> {
        use crate::metrics::Source;
        crate::metrics::observed(self.observations())
    }

    /// The store, as kind and address (no credentials).
    #[getter]
    fn store(&self) -> &str {
        self.inner.store()
    }

    /// Stops the background refills, gives the unused tails of the buffered ranges back to the
    /// store where nobody allocated after them (waits at most the op timeout), and closes the
    /// store's connections; other IDs left in memory are never handed out, and every later call
    /// raises `Closed`.
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.inner.close());
    }

    /// `await client.close_async()`.
    fn close_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        in_executor(&slf.getattr("close")?, vec![], None)
    }

    fn __repr__(&self) -> String {
        format!("SegmentClient({:?})", self.inner.store())
    }
});

impl crate::metrics::Source for SegmentClient {
    fn observations(&self) -> Vec<idmint_core::metrics::Observation> {
        idmint_core::metrics::observe_segments(&self.inner)
    }
}

/// A step or count argument, checked by the core's rule (1..=2^40) as the whole number given.
fn step_arg(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    check_step_wide(name, int_value(name, obj)?).py()
}

/// A tag of a `SegmentClient`: `next_id()` returns from memory in one atomic step while the
/// buffered ranges last.
#[pyclass(frozen, module = "idmint", name = "Tag")]
pub struct Tag {
    h: core::TagHandle,
}

impl Tag {
    /// From memory with the GIL held; only when that would wait, again without the GIL.
    #[inline]
    fn take(&self, py: Python<'_>, n: u64) -> PyResult<IdRange> {
        match self.h.try_next_ids(n) {
            Err(Error::WouldBlock { .. }) => py.detach(|| self.h.next_ids(n)).py(),
            other => other.py(),
        }
    }
}

fn range(py: Python<'_>, r: IdRange) -> PyResult<Bound<'_, PyRange>> {
    // IDs are at most 2^63-1, so they fit isize on the 64-bit platforms the wheel is built for.
    PyRange::new(py, r.start as isize, r.end as isize)
}

#[pymethods]
impl Tag {
    /// The next ID.
    #[inline]
    fn next_id(&self, py: Python<'_>) -> PyResult<u64> {
        match self.h.try_next_id() {
            Err(Error::WouldBlock { .. }) => py.detach(|| self.h.next_id()).py(),
            other => other.py(),
        }
    }

    /// `n` contiguous IDs (1..=2^40), as a `range`.
    fn next_ids<'py>(
        &self,
        py: Python<'py>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyRange>> {
        let n = step_arg("n", n)?;
        range(py, self.take(py, n)?)
    }

    /// `await tag.next_id_async()`: from memory at once, else from the executor.
    fn next_id_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        match slf.get().h.try_next_id() {
            Err(Error::WouldBlock { .. }) => in_executor(&slf.getattr("next_id")?, vec![], None),
            other => ready(slf.py(), other.py()),
        }
    }

    /// `await tag.next_ids_async(n)`.
    fn next_ids_async<'py>(
        slf: &Bound<'py, Self>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let count = match step_arg("n", n) {
            Ok(c) => c,
            Err(e) => return ready::<u64>(py, Err(e)),
        };
        match slf.get().h.try_next_ids(count) {
            Err(Error::WouldBlock { .. }) => {
                in_executor(&slf.getattr("next_ids")?, vec![n.clone()], None)
            }
            other => ready(py, other.py().and_then(|r| range(py, r))),
        }
    }

    /// The tag as stored (the default tag's name when this tag falls back to it).
    #[getter]
    fn tag(&self) -> &str {
        self.h.tag()
    }

    /// The tag's counters now.
    #[getter]
    fn metrics(&self) -> TagMetrics {
        self.h.metrics().into()
    }

    fn __repr__(&self) -> String {
        format!("Tag({:?})", self.h.tag())
    }
}

/// Counters of one tag of a `SegmentClient` at one moment; latencies are `timedelta`s.
#[pyclass(frozen, module = "idmint", name = "TagMetrics")]
pub struct TagMetrics {
    m: core::TagMetrics,
}

impl From<core::TagMetrics> for TagMetrics {
    fn from(m: core::TagMetrics) -> Self {
        TagMetrics { m }
    }
}

#[pymethods]
impl TagMetrics {
    /// The tag as stored.
    #[getter]
    fn tag(&self) -> &str {
        &self.m.tag
    }
    /// IDs left in memory: the rest of the current range plus the next one, if fetched.
    #[getter]
    fn remaining(&self) -> u64 {
        self.m.remaining
    }
    /// The step of the last range fetched.
    #[getter]
    fn step(&self) -> u64 {
        self.m.step
    }
    /// Ranges fetched from the store.
    #[getter]
    fn refills(&self) -> u64 {
        self.m.refills
    }
    /// Time of the last successful refill, from request to answer.
    #[getter]
    fn last_refill_latency(&self) -> std::time::Duration {
        self.m.last_refill_latency
    }
    /// The slowest successful refill.
    #[getter]
    fn max_refill_latency(&self) -> std::time::Duration {
        self.m.max_refill_latency
    }
    /// Mean time of successful refills.
    #[getter]
    fn mean_refill_latency(&self) -> std::time::Duration {
        self.m.mean_refill_latency
    }
    /// Failed store calls (each retry counts).
    #[getter]
    fn store_errors(&self) -> u64 {
        self.m.store_errors
    }
    /// The last store error, if any.
    #[getter]
    fn last_error(&self) -> Option<&str> {
        self.m.last_error.as_deref()
    }

    fn asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("tag", &self.m.tag)?;
        d.set_item("remaining", self.m.remaining)?;
        d.set_item("step", self.m.step)?;
        d.set_item("refills", self.m.refills)?;
        d.set_item("last_refill_latency", self.m.last_refill_latency)?;
        d.set_item("max_refill_latency", self.m.max_refill_latency)?;
        d.set_item("mean_refill_latency", self.m.mean_refill_latency)?;
        d.set_item("store_errors", self.m.store_errors)?;
        d.set_item("last_error", self.m.last_error.as_deref())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "TagMetrics(tag={:?}, remaining={}, step={}, refills={}, store_errors={})",
            self.m.tag, self.m.remaining, self.m.step, self.m.refills, self.m.store_errors
        )
    }
}

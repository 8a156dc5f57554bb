//! `idmint.RedisSnowflake`: the core's snowflake IDs minted on Redis.
//!
//! Every call that may wait on a server (connecting, a run of IDs, a buffer refill, closing)
//! runs with the GIL released. The `*_async` methods and `RedisSnowflake.connect` never block
//! the asyncio loop: they run in the loop's default executor, as the segment client's do.

use std::sync::Arc;

use arc_swap::ArcSwapOption;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyType};

use idmint_core::{Error, RedisSnowflake as Gen, RedisSnowflakeBuilder};

use crate::aio::{in_executor, ready};
use crate::closing::closing;
use crate::convert::{fit, opt_duration};
use crate::errors::{invalid_argument, to_py, wrong_type, IntoPy};
use crate::layout::{layout_arg, Layout};

/// Snowflake IDs minted on Redis (layout `redis-lua` by default): thread-safe; a context
/// manager (sync and async) that closes it. The generator sits behind an `ArcSwapOption` so
/// that `close()` can take it from under running calls: later calls raise `Closed`.
#[pyclass(frozen, module = "idmint", name = "RedisSnowflake")]
pub struct RedisSnowflake {
    gen: ArcSwapOption<Gen>,
}

fn closed() -> PyErr {
    to_py(Error::Closed {
        what: "Redis snowflake generator".into(),
    })
}

/// An integer option, and the value as given when it does not fit the core's type (then the
/// core is given `stand_in`, a value it refuses for the same reason).
struct IntOpt {
    name: &'static str,
    value: u64,
    given: Option<i128>,
}

fn int_opt(
    name: &'static str,
    obj: Option<&Bound<'_, PyAny>>,
    stand_in: u64,
) -> PyResult<Option<IntOpt>> {
    obj.map(|o| {
        let (value, given) = fit::<u64>(name, o, stand_in)?;
        Ok(IntOpt { name, value, given })
    })
    .transpose()
}

fn apply(b: RedisSnowflakeBuilder, o: &IntOpt) -> RedisSnowflakeBuilder {
    match o.name {
        "shard" => b.shard(o.value),
        "batch" => b.batch(o.value),
        "counter_ttl_secs" => b.counter_ttl_secs(o.value),
        _ => b.resume_after_ms(o.value),
    }
}

/// The core's error for option `o`, with the value as given put back (only into the error
/// about `o`: the core reports the first bad option, which may be another).
fn given_back(e: Error, o: &IntOpt) -> Error {
    let about_o = match &e {
        Error::InvalidArgument { name, .. } => name == o.name,
        Error::ValueOutOfRange { .. } => o.name == "shard",
        _ => false,
    };
    if about_o {
        e.with_given(o.given)
    } else {
        e
    }
}

impl RedisSnowflake {
    /// The generator, or `Closed`.
    fn gen(&self) -> PyResult<Arc<Gen>> {
        self.gen.load_full().ok_or_else(closed)
    }
}

impl Drop for RedisSnowflake {
    fn drop(&mut self) {
        // Dropping the generator stops its runtime without waiting; still, not under the GIL
        // (when the interpreter is shutting down, `try_attach` declines and it is just dropped).
        if let Some(gen) = self.gen.swap(None) {
            Python::try_attach(move |py| py.detach(move || drop(gen)));
        }
    }
}

/// A shard or a count, as the core's `u64`; beyond it, a stand-in the core refuses and the
/// value as given for its error.
fn u64_arg(name: &str, obj: &Bound<'_, PyAny>, stand_in: u64) -> PyResult<(u64, Option<i128>)> {
    fit::<u64>(name, obj, stand_in)
}

closing!(RedisSnowflake, async, {
    /// Connects to the servers (blocking, without the GIL): `urls` is a comma-separated `str`
    /// or a list of URLs, in the same order on every client. Options not given keep the
    /// core's defaults; durations are seconds (`int`/`float`) or `datetime.timedelta`.
    #[new]
    #[pyo3(signature = (
        urls, *, tag = None, shard = None, layout = None, prefix = None, batch = None,
        op_timeout = None, max_wait = None, retry_after = None, max_ahead = None,
        counter_ttl_secs = None, resume_after_ms = None, test_clock_key = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        urls: &Bound<'_, PyAny>,
        tag: Option<&str>,
        shard: Option<&Bound<'_, PyAny>>,
        layout: Option<&Bound<'_, PyAny>>,
        prefix: Option<&str>,
        batch: Option<&Bound<'_, PyAny>>,
        op_timeout: Option<&Bound<'_, PyAny>>,
        max_wait: Option<&Bound<'_, PyAny>>,
        retry_after: Option<&Bound<'_, PyAny>>,
        max_ahead: Option<&Bound<'_, PyAny>>,
        counter_ttl_secs: Option<&Bound<'_, PyAny>>,
        resume_after_ms: Option<&Bound<'_, PyAny>>,
        test_clock_key: Option<&str>,
    ) -> PyResult<Self> {
        let mut b = Gen::builder();
        if let Ok(s) = urls.cast::<PyString>() {
            b = b.urls(s.to_str()?);
        } else if let Ok(list) = urls.try_iter() {
            for u in list {
                let u = u?;
                let s = u
                    .cast::<PyString>()
                    .map_err(|_| wrong_type("urls", "a str or a list of str (Redis URLs)", &u))?;
                b = b.url(s.to_str()?);
            }
        } else {
            return Err(wrong_type(
                "urls",
                "a str or a list of str (Redis URLs)",
                urls,
            ));
        }
        // Without one, the core's default (`redis-lua`), not layout_arg's (`twitter`).
        if layout.is_some() {
            b = b.layout(layout_arg(layout, None)?);
        }
        let ints = [
            int_opt("shard", shard, u64::MAX)?,
            int_opt("batch", batch, 0)?,
            int_opt("counter_ttl_secs", counter_ttl_secs, 0)?,
            int_opt("resume_after_ms", resume_after_ms, u64::MAX)?,
        ];
        // A value beyond u64: the core's error for its stand-in, with the value as given.
        if let Some(o) = ints.iter().flatten().find(|o| o.given.is_some()) {
            let given = o.given.unwrap_or_default().to_string();
            return match py.detach(|| apply(b, o).connect_blocking()) {
                Err(e) => Err(to_py(given_back(e, o))),
                // Not reached: the stand-in is refused before any server is met.
                Ok(_) => Err(invalid_argument(o.name, given, "0..=2^64-1")),
            };
        }
        for o in ints.iter().flatten() {
            b = apply(b, o);
        }
        if let Some(t) = tag {
            b = b.tag(t);
        }
        if let Some(p) = prefix {
            b = b.prefix(p);
        }
        if let Some(d) = opt_duration("op_timeout", op_timeout)? {
            b = b.op_timeout(d);
        }
        if let Some(d) = opt_duration("max_wait", max_wait)? {
            b = b.max_wait(d);
        }
        if let Some(d) = opt_duration("retry_after", retry_after)? {
            b = b.retry_after(d);
        }
        if let Some(d) = opt_duration("max_ahead", max_ahead)? {
            b = b.max_ahead(d);
        }
        if let Some(k) = test_clock_key {
            b = b.test_clock_key(k);
        }
        let gen = py.detach(|| b.connect_blocking()).py()?;
        Ok(RedisSnowflake {
            gen: ArcSwapOption::from_pointee(gen),
        })
    }

    /// `await RedisSnowflake.connect(urls, **options)`: the constructor, run in the loop's
    /// executor.
    #[classmethod]
    #[pyo3(signature = (urls, **options))]
    fn connect<'py>(
        cls: &Bound<'py, PyType>,
        urls: &Bound<'py, PyAny>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(cls.as_any(), vec![urls.clone()], options)
    }

    /// The next ID of the generator's shard, from its buffer (a round trip per `batch` IDs).
    fn next_id(&self, py: Python<'_>) -> PyResult<u64> {
        let gen = self.gen()?;
        py.detach(|| gen.next_id()).py()
    }

    /// The next ID of `shard` (e.g. `user_id % 4096`), from that shard's buffer.
    fn next_id_for(&self, py: Python<'_>, shard: &Bound<'_, PyAny>) -> PyResult<u64> {
        let (shard, given) = u64_arg("shard", shard, u64::MAX)?;
        let gen = self.gen()?;
        py.detach(|| gen.next_id_for(shard))
            .map_err(|e| to_py(e.with_given(given)))
    }

    /// `k` increasing IDs of the generator's shard (1..=2^20), in one round trip, as a list.
    fn next_ids<'py>(
        &self,
        py: Python<'py>,
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (k, given) = u64_arg("k", k, 0)?;
        let gen = self.gen()?;
        let ids = py
            .detach(|| gen.next_ids(k))
            .map_err(|e| to_py(e.with_given(given)))?;
        PyList::new(py, ids)
    }

    /// `k` increasing IDs of `shard`, as `next_ids`.
    fn next_ids_for<'py>(
        &self,
        py: Python<'py>,
        shard: &Bound<'py, PyAny>,
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (shard, shard_given) = u64_arg("shard", shard, u64::MAX)?;
        let (k, k_given) = u64_arg("k", k, 0)?;
        let gen = self.gen()?;
        let ids = py.detach(|| gen.next_ids_for(shard, k)).map_err(|e| {
            // The core checks the shard first.
            let given = match e {
                Error::ValueOutOfRange { .. } => shard_given,
                _ => k_given,
            };
            to_py(e.with_given(given))
        })?;
        PyList::new(py, ids)
    }

    /// `await gen.next_id_async()`.
    fn next_id_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        in_executor(&slf.getattr("next_id")?, vec![], None)
    }

    /// `await gen.next_id_for_async(shard)`.
    fn next_id_for_async<'py>(
        slf: &Bound<'py, Self>,
        shard: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(&slf.getattr("next_id_for")?, vec![shard.clone()], None)
    }

    /// `await gen.next_ids_async(k)`.
    fn next_ids_async<'py>(
        slf: &Bound<'py, Self>,
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(&slf.getattr("next_ids")?, vec![k.clone()], None)
    }

    /// `await gen.next_ids_for_async(shard, k)`.
    fn next_ids_for_async<'py>(
        slf: &Bound<'py, Self>,
        shard: &Bound<'py, PyAny>,
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(
            &slf.getattr("next_ids_for")?,
            vec![shard.clone(), k.clone()],
            None,
        )
    }

    /// The layout of the IDs.
    #[getter]
    fn layout(&self) -> PyResult<Layout> {
        Ok(Layout {
            inner: self.gen()?.layout().clone(),
        })
    }

    /// The servers, in order, without credentials.
    #[getter]
    fn servers(&self) -> PyResult<Vec<String>> {
        Ok(self.gen()?.servers())
    }

    /// Round trips and server failures so far: `{"round_trips": ..., "node_failures": ...}`.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.gen()?.stats();
        let d = PyDict::new(py);
        d.set_item("round_trips", s.round_trips)?;
        d.set_item("node_failures", s.node_failures)?;
        Ok(d)
    }

    /// True once closed.
    #[getter]
    fn closed(&self) -> bool {
        self.gen.load().is_none()
    }

    /// Drops the generator and its connections; buffered IDs are never handed out, and every
    /// later call raises `Closed`. Closing twice is harmless.
    fn close(&self, py: Python<'_>) {
        let gen = self.gen.swap(None);
        py.detach(move || drop(gen));
    }

    /// `await gen.close_async()`.
    fn close_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.get().close(slf.py());
        ready(slf.py(), Ok(slf.py().None()))
    }

    fn __repr__(&self) -> String {
        match self.gen.load().as_deref() {
            Some(g) => format!("RedisSnowflake({:?})", g.servers().join(",")),
            None => "RedisSnowflake(closed)".into(),
        }
    }
});

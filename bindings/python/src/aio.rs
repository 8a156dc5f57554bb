//! The asyncio side of the calls that may wait on a store: an answer already in hand becomes a
//! finished future of the running loop, and a call that may wait runs in the loop's default
//! executor (a thread, where the blocking call releases the GIL), so the loop never blocks.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};

static GET_RUNNING_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static PARTIAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn running_loop(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    GET_RUNNING_LOOP
        .import(py, "asyncio", "get_running_loop")?
        .call0()
}

/// A future of the running loop that is already done with `result`.
pub fn ready<'py, T: IntoPyObject<'py>>(
    py: Python<'py>,
    result: PyResult<T>,
) -> PyResult<Bound<'py, PyAny>> {
    let fut = running_loop(py)?.call_method0("create_future")?;
    match result {
        Ok(v) => fut.call_method1("set_result", (v,))?,
        Err(e) => fut.call_method1("set_exception", (e.value(py),))?,
    };
    Ok(fut)
}

/// `loop.run_in_executor(None, func(*args, **kwargs))`: an awaitable of the call, made in a
/// thread of the loop's default executor.
pub fn in_executor<'py>(
    func: &Bound<'py, PyAny>,
    args: Vec<Bound<'py, PyAny>>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = func.py();
    let call = match kwargs {
        Some(kw) if !kw.is_empty() => PARTIAL
            .import(py, "functools", "partial")?
            .call(
                PyTuple::new(py, prepend(vec![func.clone()], args))?,
                Some(kw),
            )?
            .into_any(),
        _ => {
            let all = prepend(vec![py.None().into_bound(py), func.clone()], args);
            return running_loop(py)?.call_method1("run_in_executor", PyTuple::new(py, all)?);
        }
    };
    running_loop(py)?.call_method1("run_in_executor", (py.None(), call))
}

fn prepend<'py>(
    mut head: Vec<Bound<'py, PyAny>>,
    rest: Vec<Bound<'py, PyAny>>,
) -> Vec<Bound<'py, PyAny>> {
    head.extend(rest);
    head
}

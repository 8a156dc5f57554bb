//! `idmint.lease_list` and `idmint.LeaseInfo`: the worker leases a store holds. Generators
//! take leases through `Snowflake(lease=...)` (see `snowflake`).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use idmint_core::lease;

use crate::convert::opt_duration;
use crate::errors::IntoPy;

/// One value of a lease store: who holds it and until when.
#[pyclass(frozen, module = "idmint", name = "LeaseInfo")]
pub struct LeaseInfo {
    i: lease::LeaseInfo,
}

#[pymethods]
impl LeaseInfo {
    /// The leased node value.
    #[getter]
    fn value(&self) -> u64 {
        self.i.value
    }
    /// `"held"`, `"frozen"` (expired, not yet free) or `"free"`.
    #[getter]
    fn state(&self) -> &'static str {
        self.i.state()
    }
    /// The holder's name, empty when released.
    #[getter]
    fn holder(&self) -> &str {
        &self.i.holder
    }
    /// Milliseconds until the holder's lease ends (negative: ended that long ago).
    #[getter]
    fn expires_in_ms(&self) -> i64 {
        self.i.expires_in_ms
    }
    /// Milliseconds until others may take the value (0 when they may now).
    #[getter]
    fn free_in_ms(&self) -> i64 {
        self.i.free_in_ms
    }
    /// The fence: IDs of this value so far carry times up to this (unix ms).
    #[getter]
    fn last_time_ms(&self) -> u64 {
        self.i.last_time_ms
    }

    fn asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("value", self.i.value)?;
        d.set_item("state", self.i.state())?;
        d.set_item("holder", &self.i.holder)?;
        d.set_item("expires_in_ms", self.i.expires_in_ms)?;
        d.set_item("free_in_ms", self.i.free_in_ms)?;
        d.set_item("last_time_ms", self.i.last_time_ms)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "LeaseInfo(value={}, state={:?}, holder={:?}, expires_in_ms={}, free_in_ms={})",
            self.i.value,
            self.i.state(),
            self.i.holder,
            self.i.expires_in_ms,
            self.i.free_in_ms
        )
    }
}

/// The leases of the store at `url`, in value order, read without the GIL within `timeout`
/// (seconds or `timedelta`; default the default lease TTL).
#[pyfunction]
#[pyo3(signature = (url, *, timeout = None))]
pub fn lease_list(
    py: Python<'_>,
    url: &str,
    timeout: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<LeaseInfo>> {
    let timeout = opt_duration("timeout", timeout)?.unwrap_or(lease::DEFAULT_LIST_TIMEOUT);
    let infos = py.detach(|| lease::list_leases(url, timeout)).py()?;
    Ok(infos.into_iter().map(|i| LeaseInfo { i }).collect())
}

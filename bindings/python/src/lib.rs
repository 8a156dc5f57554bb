//! `idmint._idmint`, the native module of the `idmint` Python package.
//!
//! Conversion only: Python values become core values (`convert`), core errors become the
//! exceptions of `idmint/_errors.py` (`errors`), and each class wraps one core type. Every
//! behaviour (layouts, generation, policies, validation, encodings, obfuscation, UUIDv7,
//! templates and check digits) is `idmint-core`'s.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

#[cfg(feature = "stores")]
mod aio;
mod closing;
mod convert;
mod errors;
mod formats;
mod layout;
#[cfg(feature = "stores")]
mod lease;
mod metrics;
mod obfuscate;
mod objectid;
mod observe;
mod plan;
#[cfg(feature = "stores")]
mod redis_snowflake;
#[cfg(feature = "stores")]
mod segment;
mod shortid;
mod snowflake;
mod template;
mod uuid7;

#[pymodule(gil_used = false)]
fn _idmint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    idmint_core::addon::register(idmint_core::addon::Package::Python);
    m.add_function(wrap_pyfunction!(layout::parse, m)?)?;
    m.add_class::<layout::Layout>()?;
    m.add_class::<layout::Field>()?;
    m.add_class::<layout::Parts>()?;
    m.add_class::<formats::Decoded>()?;
    m.add_function(wrap_pyfunction!(formats::guess, m)?)?;
    m.add_class::<snowflake::Snowflake>()?;
    m.add_class::<snowflake::Stats>()?;
    m.add_class::<snowflake::ManualClock>()?;
    #[cfg(feature = "stores")]
    {
        m.add_class::<segment::SegmentClient>()?;
        m.add_class::<segment::Tag>()?;
        m.add_class::<segment::TagMetrics>()?;
        m.add_class::<redis_snowflake::RedisSnowflake>()?;
        m.add_class::<lease::LeaseInfo>()?;
        m.add_function(wrap_pyfunction!(lease::lease_list, m)?)?;
    }
    // Whether this build has the stores; idmint/__init__.py puts stand-ins that raise
    // `_stores_missing(...)` where their classes would be.
    // Not in `__all__` (setattr, not add).
    m.setattr("_STORES", cfg!(feature = "stores"))?;
    m.setattr("_stores_missing", wrap_pyfunction!(stores_missing, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::metric_definitions, m)?)?;
    m.add_function(wrap_pyfunction!(observe::observe_all, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::health, m)?)?;
    m.add_class::<metrics::Health>()?;
    m.add_class::<objectid::ObjectId>()?;
    m.add_class::<objectid::ObjectIdGenerator>()?;
    m.add_function(wrap_pyfunction!(shortid::encode, m)?)?;
    m.add_function(wrap_pyfunction!(shortid::decode, m)?)?;
    m.add("ENCODINGS", PyTuple::new(py, shortid::names())?)?;
    m.add_class::<obfuscate::Key>()?;
    m.add_class::<obfuscate::Keyring>()?;
    m.add_function(wrap_pyfunction!(obfuscate::split_tagged, m)?)?;
    m.add_function(wrap_pyfunction!(uuid7::uuid7, m)?)?;
    m.add_function(wrap_pyfunction!(uuid7::parse_uuid7, m)?)?;
    m.add_class::<uuid7::Uuid7>()?;
    m.add_class::<uuid7::Uuid7Generator>()?;
    m.add_function(wrap_pyfunction!(plan::plan, m)?)?;
    m.add_function(wrap_pyfunction!(plan::check_migration, m)?)?;
    m.add_class::<plan::PlannedLayout>()?;
    m.add_class::<plan::Migration>()?;
    m.add_class::<plan::TypeId>()?;
    m.add_class::<plan::TypeIdGenerator>()?;
    m.add_class::<template::Template>()?;
    m.add_class::<template::TemplateParts>()?;
    m.add_class::<template::MemoryDailyCounter>()?;
    m.add_class::<template::OrderNumbers>()?;
    m.add("PRESETS", PyTuple::new(py, idmint_core::PRESETS)?)?;
    m.add(
        "UNSIGNED_PRESETS",
        PyTuple::new(py, idmint_core::UNSIGNED_PRESETS)?,
    )?;
    m.add("ERROR_KINDS", PyTuple::new(py, idmint_core::Error::KINDS)?)?;
    // Not in `__all__`: idmint/_errors.py builds one exception class per row.
    m.setattr("_ERROR_TABLE", errors::table(py)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The core's `stores_not_installed` error of `what` (`SegmentClient`, `lease_list`), for the
/// stand-ins of a build without stores to raise.
#[pyfunction]
#[pyo3(name = "_stores_missing")]
fn stores_missing(what: &str) -> PyErr {
    errors::to_py(idmint_core::addon::missing(what))
}

//! Python values to core values and back: IDs, integers, times and epochs.
//!
//! Nothing here decides what is valid: every value reaches the core as given (or, for an
//! integer too large even for `i128`, saturated so that the core still reports it as out of
//! range), and the core's typed error becomes the exception.

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyInt, PyString, PyType};

use idmint_core::{parse_time_ms, Layout, Parts};

use crate::errors::{invalid_argument, wrong_type, IntoPy};

static DATETIME: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TIMEDELTA: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static UNIX_EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ONE_MS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn unix_epoch(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    UNIX_EPOCH
        .get_or_try_init(py, || {
            let m = py.import("datetime")?;
            let utc = m.getattr("timezone")?.getattr("utc")?;
            Ok::<_, PyErr>(
                m.getattr("datetime")?
                    .call1((1970, 1, 1, 0, 0, 0, 0, utc))?
                    .unbind(),
            )
        })
        .map(|e| e.bind(py))
}

fn one_ms(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    ONE_MS
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                TIMEDELTA
                    .import(py, "datetime", "timedelta")?
                    .call1((0, 0, 1000))?
                    .unbind(),
            )
        })
        .map(|e| e.bind(py))
}

/// An aware UTC `datetime` for unix milliseconds (exact: no float on the way).
pub fn datetime_from_ms(py: Python<'_>, ms: u64) -> PyResult<Bound<'_, PyAny>> {
    let delta =
        TIMEDELTA
            .import(py, "datetime", "timedelta")?
            .call1((0, ms / 1000, (ms % 1000) * 1000))?;
    unix_epoch(py)?.add(delta)
}

fn is_datetime(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(DATETIME.import(obj.py(), "datetime", "datetime")?)
}

/// Unix milliseconds of an aware `datetime`, floored; a naive one is an `InvalidArgument`.
fn datetime_ms(name: &str, dt: &Bound<'_, PyAny>) -> PyResult<i128> {
    let py = dt.py();
    if dt.call_method0("utcoffset")?.is_none() {
        return Err(invalid_argument(
            name,
            dt.repr()?.to_string(),
            "an aware datetime: a naive one has no defined instant; add tzinfo, e.g. datetime(2024, 1, 1, tzinfo=timezone.utc)",
        ));
    }
    dt.sub(unix_epoch(py)?)?.floor_div(one_ms(py)?)?.extract()
}

/// An integer argument as `i128`: `bool` and non-integers are a `TypeError`; an integer beyond
/// `i128` saturates (keeping its sign) so the core reports it out of range.
pub fn int_value(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<i128> {
    if obj.is_instance_of::<PyBool>() {
        return Err(wrong_type(name, "an int", obj));
    }
    // Integer-likes (numpy integers, anything with __index__) as their int.
    let int = if obj.is_instance_of::<PyInt>() {
        obj.clone()
    } else {
        obj.call_method0("__index__")
            .ok()
            .filter(|i| i.is_instance_of::<PyInt>())
            .ok_or_else(|| wrong_type(name, "an int", obj))?
    };
    match int.extract::<i128>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            Ok(if int.lt(0)? { i128::MIN } else { i128::MAX })
        }
        Err(_) => Err(wrong_type(name, "an int", obj)),
    }
}

/// A time argument (compose, clocks) as unix ms: int (unix ms), str (digits or RFC 3339, read
/// by the core) or an aware `datetime`.
pub fn time_value(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<i128> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(parse_time_ms(name, s.to_str()?).py()? as i128);
    }
    if is_datetime(obj)? {
        return datetime_ms(name, obj);
    }
    int_value(name, obj).map_err(|_| {
        wrong_type(
            name,
            "an int (unix ms), a str (RFC 3339 or unix ms digits) or an aware datetime",
            obj,
        )
    })
}

/// An epoch argument as the text form the core reads (`Layout::parse_with_epoch`).
pub fn epoch_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_str()?.to_string());
    }
    if is_datetime(obj)? {
        return Ok(datetime_ms("epoch", obj)?.to_string());
    }
    // Any integer (int, numpy integers: anything with __index__ but bool), as its digits; the
    // core says what is wrong with a negative or too large one.
    let ms = int_value("epoch", obj).map_err(|_| {
        wrong_type(
            "epoch",
            "an int (unix ms), a str (RFC 3339 or unix ms digits) or an aware datetime",
            obj,
        )
    })?;
    if ms == i128::MAX || ms == i128::MIN {
        // saturated: give the core the exact digits, so its message shows the value given
        return exact_digits(obj);
    }
    Ok(ms.to_string())
}

/// Decompose an ID given as an int (any size, any sign) or as decimal text.
#[inline]
pub fn decompose(layout: &Layout, id: &Bound<'_, PyAny>) -> PyResult<Parts> {
    if let Ok(v) = id.extract::<u64>() {
        if !id.is_instance_of::<PyBool>() {
            return layout.decompose(v).py();
        }
    }
    decompose_slow(layout, id)
}

#[cold]
fn decompose_slow(layout: &Layout, id: &Bound<'_, PyAny>) -> PyResult<Parts> {
    if let Ok(s) = id.cast::<PyString>() {
        return layout.decompose_str(s.to_str()?).py();
    }
    let v = int_value("id", id).map_err(|_| wrong_type("id", "an int or a decimal str", id))?;
    if v == i128::MAX || v == i128::MIN {
        // Too large even for i128: the core reads its digits and says why it is invalid.
        return layout.decompose_str(&exact_digits(id)?).py();
    }
    layout.decompose_wide(v).py()
}

/// The decimal digits of an integer-like (`int`, or anything with `__index__`).
fn exact_digits(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let int = if obj.is_instance_of::<PyInt>() {
        obj.clone()
    } else {
        obj.call_method0("__index__")?
    };
    Ok(int.str()?.to_str()?.to_string())
}

/// An integer argument for a core entry point that takes `u64`: `Ok(value)` when it fits,
/// else `Err` with its exact decimal digits, so the caller can have the core (or, where the
/// core has no wider entry point, the message) report the value as given.
#[inline]
pub fn u64_or_digits(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Result<u64, String>> {
    if !obj.is_instance_of::<PyBool>() {
        if let Ok(v) = obj.extract::<u64>() {
            return Ok(Ok(v));
        }
    }
    let v = int_value(name, obj)?;
    Ok(Err(if v == i128::MAX || v == i128::MIN {
        exact_digits(obj)?
    } else {
        v.to_string()
    }))
}

/// An ID argument for a core entry point that takes IDs in `0..=2^63-1` as `u64`: an integer
/// outside `u64` is refused by the core's own decimal reader (`parse_id`), so the error is the
/// core's, with the value as given.
#[inline]
pub fn id63(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    match u64_or_digits(name, obj)? {
        Ok(v) => Ok(v),
        Err(digits) => idmint_core::parse_id(&digits).py(),
    }
}

/// An integer argument as `i128` and whether it fits `T`: `(fitted, None)` when it does, else
/// `(stand_in, Some(value))`. The core is then called with `stand_in`, a value it refuses for
/// the same reason, and the caller puts `value` back into the core's error.
pub fn fit<T: TryFrom<i128>>(
    name: &str,
    obj: &Bound<'_, PyAny>,
    stand_in: T,
) -> PyResult<(T, Option<i128>)> {
    let v = int_value(name, obj)?;
    Ok(match T::try_from(v) {
        Ok(t) => (t, None),
        Err(_) => (stand_in, Some(v)),
    })
}

// Only the store classes (segments, leases, Redis snowflakes) take durations.
#[cfg(feature = "stores")]
/// A duration argument (timeouts, waits, TTLs): a `datetime.timedelta`, or seconds as an `int`
/// or `float`; the core checks its range (`args::duration_secs`).
pub fn duration_arg(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<std::time::Duration> {
    let py = obj.py();
    let secs: f64 = if obj.is_instance(TIMEDELTA.import(py, "datetime", "timedelta")?)? {
        obj.call_method0("total_seconds")?.extract()?
    } else if obj.is_instance_of::<pyo3::types::PyFloat>()
        || (obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>())
    {
        obj.extract()?
    } else {
        return Err(wrong_type(
            name,
            "a datetime.timedelta or seconds as an int or float",
            obj,
        ));
    };
    idmint_core::args::duration_secs(name, secs).py()
}

#[cfg(feature = "stores")]
/// [`duration_arg`] for an optional argument.
pub fn opt_duration(
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<std::time::Duration>> {
    obj.map(|o| duration_arg(name, o)).transpose()
}

/// `__richcmp__` of a type with equality only: `==` and `!=` by `same`; ordering, and another
/// type (`same` is None), are NotImplemented, so Python tries the other side.
pub fn eq_only(
    py: Python<'_>,
    same: Option<bool>,
    op: pyo3::basic::CompareOp,
) -> PyResult<Py<PyAny>> {
    use pyo3::basic::CompareOp;
    Ok(match (same, op) {
        (Some(same), CompareOp::Eq) => same.into_pyobject(py)?.to_owned().into_any().unbind(),
        (Some(same), CompareOp::Ne) => (!same).into_pyobject(py)?.to_owned().into_any().unbind(),
        _ => py.NotImplemented(),
    })
}

/// An ID of any layout, up to 2^64-1 (an unsigned layout's): the core's reader refuses the rest.
pub fn any_u64(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    match u64_or_digits(name, obj)? {
        Ok(v) => Ok(v),
        Err(digits) => idmint_core::layout::parse_u64(&digits).py(),
    }
}

//! Checks of the whole-number arguments bindings receive, once for every language: a binding
//! reads its language's integer as an `i128` (which holds every one of them) and the core
//! checks it here, so the error and its text are the same everywhere.
//!
//! The other numbers are checked where their rule lives: the `day` and `first` a daily counter
//! starts at by [`MemoryDailyCounter::starting_at`](crate::MemoryDailyCounter::starting_at),
//! a `step` by [`CounterArgs`](crate::CounterArgs) (feature `orders`), times by
//! [`parse_time_ms`](crate::parse_time_ms).

use std::time::Duration;

use crate::{Error, Result};

/// The most IDs one call mints into a list (`next_ids(n)`, `next_uuids(n)`): 2^24 =
/// 16,777,216, 128 MiB of 64-bit IDs (a Python list of them is about 700 MB). A larger count is
/// surely a mistake, and honouring it would end the process: the allocation fails, or the
/// system kills it for memory, before a caller could be told. Mint more in several calls (each
/// call's IDs are greater than the last call's).
pub const MAX_COUNT: usize = 1 << 24;

/// A value written in decimal, `0..=2^64-1`: digits only, no sign or spaces (the `idmint encode`
/// input, any unsigned 64-bit value). Anything else is [`Error::InvalidId`] showing it escaped.
///
/// ```
/// use idmint_core::args::decimal_u64;
/// assert_eq!(decimal_u64("18446744073709551615")?, u64::MAX);
/// assert_eq!(decimal_u64("+1").unwrap_err().kind(), "invalid_id");
/// assert!(decimal_u64("1\t").unwrap_err().to_string().starts_with("invalid id `1\\t`"));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn decimal_u64(text: &str) -> Result<u64> {
    text.parse::<u64>()
        .ok()
        .filter(|_| text.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            Error::invalid_id(
                crate::error::escaped(text),
                "expected a decimal number in 0..=18446744073709551615 (digits only)",
            )
        })
}

/// A count of IDs to mint at once (`next_ids(n)`): any whole number `0..=MAX_COUNT`.
///
/// ```
/// use idmint_core::args::count;
/// assert_eq!(count("n", 3)?, 3);
/// assert_eq!(count("n", -1).unwrap_err().to_string(), "invalid argument `n` = -1: a count 0..=16777216");
/// assert_eq!(count("n", 10i64.pow(12)).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn count(name: &str, value: impl Into<i128>) -> Result<usize> {
    count_up_to(name, value, MAX_COUNT)
}

/// A count of IDs to mint at once in a language whose counts stop at `max` (Java's `int`):
/// `0..=max`, and never above [`MAX_COUNT`].
///
/// ```
/// use idmint_core::args::count_up_to;
/// let max = i32::MAX as usize;
/// assert_eq!(count_up_to("n", 3, max)?, 3);
/// let err = count_up_to("n", -1, max).unwrap_err();
/// assert_eq!(err.to_string(), "invalid argument `n` = -1: a count 0..=16777216");
/// assert_eq!(count_up_to("n", 9, 8).unwrap_err().to_string(), "invalid argument `n` = 9: a count 0..=8");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn count_up_to(name: &str, value: impl Into<i128>, max: usize) -> Result<usize> {
    let value = value.into();
    let max = max.min(MAX_COUNT);
    match usize::try_from(value) {
        Ok(n) if n <= max => Ok(n),
        _ => Err(count_error(name, value, format!("a count 0..={max}"))),
    }
}

/// The `count` a service request asks for (`idmint serve`'s `?count=`): absent means 1; else
/// `1..=max` (and never above [`MAX_COUNT`]). A request for no IDs is refused rather than
/// answered with an empty list, so a client's off-by-one shows at once.
///
/// ```
/// use idmint_core::args::request_count;
/// assert_eq!(request_count(None, 1000)?, 1);
/// assert_eq!(request_count(Some(1000), 1000)?, 1000);
/// assert_eq!(request_count(Some(0), 1000).unwrap_err().to_string(), "invalid argument `count` = 0: a count 1..=1000");
/// assert_eq!(request_count(Some(1001), 1000).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn request_count(value: Option<u64>, max: usize) -> Result<usize> {
    let max = max.min(MAX_COUNT);
    match value {
        None => Ok(1),
        Some(n) if n >= 1 && n <= max as u64 => Ok(n as usize),
        Some(n) => Err(count_error("count", n.into(), format!("a count 1..={max}"))),
    }
}

/// How a stream of IDs is cut into messages (`idmint serve`'s gRPC `StreamIds`): `count` IDs
/// in all, or with 0 as many as the caller reads until it cancels; messages of `batch` IDs (0:
/// [`StreamPlan::DEFAULT_BATCH`], at most the server's `max`), the last one shorter when
/// `count` is not a multiple.
///
/// ```
/// use idmint_core::args::StreamPlan;
/// let plan = StreamPlan::new(2500, 0, 100_000)?;
/// assert_eq!((plan.batch(0), plan.batch(1000), plan.batch(2000), plan.batch(2500)), (Some(1000), Some(1000), Some(500), None));
/// let forever = StreamPlan::new(0, 64, 100_000)?;
/// assert_eq!(forever.batch(u64::MAX - 1), Some(64));
/// assert_eq!(StreamPlan::new(1, 100_001, 100_000).unwrap_err().to_string(), "invalid argument `batch` = 100001: a count 1..=100000 (0: 1000)");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamPlan {
    /// IDs in all; `None`: until the caller cancels.
    pub total: Option<u64>,
    /// IDs per message.
    pub batch: usize,
}

impl StreamPlan {
    /// The batch of a request that names none: big enough that a message's framing is lost in
    /// its IDs, small enough that the first arrives at once.
    pub const DEFAULT_BATCH: usize = 1000;

    /// The plan of a request (`count` 0: unbounded; `batch` 0: the default, capped at `max`).
    pub fn new(count: u64, batch: u64, max: usize) -> Result<StreamPlan> {
        let max = max.clamp(1, MAX_COUNT);
        let batch = match batch {
            0 => Self::DEFAULT_BATCH.min(max),
            b if b <= max as u64 => b as usize,
            b => {
                return Err(count_error(
                    "batch",
                    b.into(),
                    format!("a count 1..={max} (0: {})", Self::DEFAULT_BATCH.min(max)),
                ))
            }
        };
        Ok(StreamPlan {
            total: (count != 0).then_some(count),
            batch,
        })
    }

    /// The size of the message after `sent` IDs, `None` once the stream is complete.
    pub fn batch(&self, sent: u64) -> Option<usize> {
        match self.total {
            None => Some(self.batch),
            Some(total) if sent >= total => None,
            Some(total) => Some((total - sent).min(self.batch as u64) as usize),
        }
    }
}

/// A list of `n` copies of `zero` for a call to fill with IDs: `n` checked by [`count`] (the
/// error names the argument `n`), and allocated fallibly, so a count the process cannot hold
/// is an error, never an abort.
pub(crate) fn id_list<T: Clone>(n: usize, zero: T) -> Result<Vec<T>> {
    let n = count("n", n as u64)?;
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|e| Error::InvalidArgument {
            name: "n".into(),
            value: n.to_string(),
            expected: format!("a count of IDs this process has the memory for ({e})"),
        })?;
    out.resize(n, zero);
    Ok(out)
}

/// A duration given in whole milliseconds (a Java `Duration`'s `toMillis()`, a JavaScript
/// number of ms): any whole number from 0. What the duration is for (a timeout, a TTL) checks
/// its own range where that rule lives; this only refuses what is no duration at all.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::args::duration_ms;
/// assert_eq!(duration_ms("max_wait", 1500)?, Duration::from_millis(1500));
/// let err = duration_ms("max_wait", -1).unwrap_err();
/// assert_eq!(err.to_string(), "invalid argument `max_wait` = -1 ms: a duration >= 0 ms");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn duration_ms(name: &str, value: impl Into<i128>) -> Result<std::time::Duration> {
    let value = value.into();
    u64::try_from(value)
        .map(std::time::Duration::from_millis)
        .map_err(|_| Error::InvalidArgument {
            name: name.into(),
            value: format!("{value} ms"),
            expected: "a duration >= 0 ms".into(),
        })
}

fn count_error(name: &str, value: i128, expected: String) -> Error {
    Error::InvalidArgument {
        name: name.into(),
        value: crate::error::Wide(value).to_string(),
        expected,
    }
}

/// The day of [`DailyCounter::next`](crate::DailyCounter::next) (`yyyymmdd`) from any whole
/// number: one that is not a `u32` is `value_out_of_range` for the field `day`.
///
/// ```
/// use idmint_core::args::day;
/// assert_eq!(day(20240522)?, 20240522);
/// assert_eq!(day(-1).unwrap_err().kind(), "value_out_of_range");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn day(value: impl Into<i128>) -> Result<u32> {
    let value = value.into();
    u32::try_from(value).map_err(|_| Error::ValueOutOfRange {
        field: "day".into(),
        value,
        max: u32::MAX as u64,
    })
}

/// The largest whole number a double (a JavaScript `number`) holds exactly: 2^53-1.
pub const MAX_EXACT_DOUBLE: u64 = (1 << 53) - 1;

/// An ID handed to a language whose numbers are doubles (JavaScript's `number`): the ID when
/// it is at most 2^53-1, else `value_out_of_range` naming it (a larger ID would silently
/// become another number).
///
/// ```
/// use idmint_core::args::exact_double;
/// assert_eq!(exact_double("id", 42)?, 42.0);
/// let err = exact_double("id", 1 << 53).unwrap_err();
/// assert_eq!(err.kind(), "value_out_of_range");
/// assert_eq!(
///     err.to_string(),
///     "id as a number value 9007199254740992 is out of range: valid values are 0..=9007199254740991"
/// );
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn exact_double(name: &str, id: u64) -> Result<f64> {
    if id <= MAX_EXACT_DOUBLE {
        Ok(id as f64)
    } else {
        Err(Error::ValueOutOfRange {
            field: format!("{name} as a number"),
            value: id.into(),
            max: MAX_EXACT_DOUBLE,
        })
    }
}

/// An ID as SQL's `BIGINT` (a signed 64-bit integer) holds it: `0..=i64::MAX`. Above that it
/// would come back negative, so it is refused, never wrapped.
///
/// ```
/// use idmint_core::args::bigint;
/// assert_eq!(bigint("id", 42)?, 42);
/// let err = bigint("id", 1 << 63).unwrap_err();
/// assert_eq!(err.kind(), "value_out_of_range");
/// assert_eq!(
///     err.to_string(),
///     "id as a bigint value 9223372036854775808 is out of range: valid values are 0..=9223372036854775807"
/// );
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn bigint(name: &str, id: u64) -> Result<i64> {
    i64::try_from(id).map_err(|_| Error::ValueOutOfRange {
        field: format!("{name} as a bigint"),
        value: id.into(),
        max: i64::MAX as u64,
    })
}

/// A duration given in seconds (a timeout, a TTL, a wait) by a language whose natural unit is a
/// float of seconds (Python's `float`, or its `timedelta.total_seconds()`): finite, at least 0
/// and at most [`MAX_DURATION_SECS`] (a bit over 31 years: longer is surely a unit mistake, and
/// every runtime timer accepts it).
///
/// ```
/// use std::time::Duration;
/// use idmint_core::args::duration_secs;
/// assert_eq!(duration_secs("max_wait", 0.25)?, Duration::from_millis(250));
/// let err = duration_secs("max_wait", -1.0).unwrap_err();
/// assert_eq!(err.to_string(), "invalid argument `max_wait` = -1: a duration in seconds, 0..=1000000000");
/// assert_eq!(duration_secs("ttl", f64::NAN).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn duration_secs(name: &str, secs: f64) -> Result<Duration> {
    if secs.is_finite() && (0.0..=MAX_DURATION_SECS as f64).contains(&secs) {
        return Ok(Duration::from_secs_f64(secs));
    }
    Err(Error::InvalidArgument {
        name: name.into(),
        value: secs.to_string(),
        expected: format!("a duration in seconds, 0..={MAX_DURATION_SECS}"),
    })
}

/// The longest duration [`duration_secs`] accepts, in seconds.
pub const MAX_DURATION_SECS: u64 = 1_000_000_000;

/// Node values written as one setting, `NAME=VALUE` pairs separated by commas
/// (`datacenter=1,worker=7`, PostgreSQL's `idmint.node`): the pairs, in order; whether each
/// name is a node field of the layout and its value in range is the generator's to say. An
/// empty text is no pairs. Anything else is [`Error::InvalidArgument`] naming `setting` and the
/// pair.
///
/// ```
/// use idmint_core::args::node_pairs;
/// assert_eq!(node_pairs("idmint.node", "datacenter=1, worker=7")?, [("datacenter".to_string(), 1), ("worker".to_string(), 7)]);
/// assert!(node_pairs("idmint.node", "")?.is_empty());
/// let err = node_pairs("idmint.node", "worker:7").unwrap_err();
/// assert_eq!(err.kind(), "invalid_argument");
/// assert!(err.to_string().contains("`worker:7`"));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn node_pairs(setting: &str, text: &str) -> Result<Vec<(String, i128)>> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            item.split_once('=')
                .and_then(|(n, v)| Some((n.trim().to_string(), v.trim().parse::<i128>().ok()?)))
                .ok_or_else(|| Error::InvalidArgument {
                    name: setting.into(),
                    value: format!("`{item}`"),
                    expected: "NAME=VALUE pairs separated by commas, e.g. datacenter=1,worker=7"
                        .into(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_stop_at_the_limit() {
        assert_eq!(count("n", MAX_COUNT as u64).unwrap(), MAX_COUNT);
        for bad in [
            MAX_COUNT as i128 + 1,
            u64::MAX as i128,
            i128::MAX,
            -1,
            i128::MIN,
        ] {
            let e = count("n", bad).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument");
            assert!(e.to_string().contains(&bad.to_string()), "{e}");
        }
        assert_eq!(id_list(3, 0u64).unwrap(), vec![0, 0, 0]);
        assert_eq!(
            id_list(usize::MAX, 0u64).unwrap_err().kind(),
            "invalid_argument"
        );
    }

    #[test]
    fn durations_outside_the_range_name_the_value() {
        assert_eq!(duration_secs("t", 0.0).unwrap(), Duration::ZERO);
        assert_eq!(
            duration_secs("t", MAX_DURATION_SECS as f64).unwrap(),
            Duration::from_secs(MAX_DURATION_SECS)
        );
        for bad in [-0.001, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e10] {
            let e = duration_secs("op_timeout", bad).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument");
            assert!(e.to_string().contains("`op_timeout`"), "{e}");
        }
    }
}

//! Checks of the whole-number arguments bindings receive, once for every language: a binding
//! reads its language's integer as an `i128` (which holds every one of them) and the core
//! checks it here, so the error and its text are the same everywhere.
//!
//! The other numbers are checked where their rule lives: the `day` and `first` a daily counter
//! starts at by [`MemoryDailyCounter::starting_at`](crate::MemoryDailyCounter::starting_at),
//! a `step` by [`CounterArgs`](crate::segment::CounterArgs), times by
//! [`parse_time_ms`](crate::parse_time_ms).

use crate::{Error, Result};

/// A count of IDs to mint at once (`next_ids(n)`): any whole number from 0.
///
/// ```
/// use idmint_core::args::count;
/// assert_eq!(count("n", 3)?, 3);
/// assert_eq!(count("n", -1).unwrap_err().to_string(), "invalid argument `n` = -1: a count >= 0");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn count(name: &str, value: impl Into<i128>) -> Result<usize> {
    let value = value.into();
    usize::try_from(value).map_err(|_| count_error(name, value, "a count >= 0".into()))
}

/// A count of IDs to mint at once in a language whose counts stop at `max` (Java's `int`):
/// `0..=max`.
///
/// ```
/// use idmint_core::args::count_up_to;
/// let max = i32::MAX as usize;
/// assert_eq!(count_up_to("n", 3, max)?, 3);
/// let err = count_up_to("n", -1, max).unwrap_err();
/// assert_eq!(err.to_string(), "invalid argument `n` = -1: a count 0..=2147483647");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn count_up_to(name: &str, value: impl Into<i128>, max: usize) -> Result<usize> {
    let value = value.into();
    match usize::try_from(value) {
        Ok(n) if n <= max => Ok(n),
        _ => Err(count_error(name, value, format!("a count 0..={max}"))),
    }
}

fn count_error(name: &str, value: i128, expected: String) -> Error {
    Error::InvalidArgument {
        name: name.into(),
        value: value.to_string(),
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

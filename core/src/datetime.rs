//! Unix milliseconds to and from RFC 3339, the one text form of time idmint prints and reads.
//!
//! Written out here rather than through the `time` crate: these few routines are all the
//! snowflake, ObjectId and parse paths need, and the browser's main module (bindings/wasm) then
//! carries no date library. They read exactly what `time`'s `Rfc3339` parser reads; a test
//! (`tests/datetime.rs`) checks them against it.

use crate::error::quoted;
use crate::{Error, Result};

/// The latest instant idmint represents: 9999-12-31T23:59:59.999Z, so every time has a
/// four-digit year in RFC 3339 and fits a JavaScript `Date`.
pub const MAX_TIME_MS: u64 = 253_402_300_799_999;

const MS_PER_DAY: u64 = 86_400_000;

/// Format unix milliseconds as RFC 3339 UTC with milliseconds, e.g. `2015-03-13T02:00:00.000Z`.
///
/// ```
/// assert_eq!(idmint_core::format_time_ms(1426212000000), "2015-03-13T02:00:00.000Z");
/// ```
pub fn format_time_ms(ms: u64) -> String {
    let ms = ms.min(MAX_TIME_MS);
    let mut out = date_time(ms / 1000);
    out.push('.');
    push_digits(&mut out, ms % 1000, 3);
    out.push('Z');
    out
}

/// Format unix seconds as RFC 3339 UTC without fraction, e.g. `2015-03-13T02:00:00Z`.
///
/// ```
/// assert_eq!(idmint_core::format_time_s(0), "1970-01-01T00:00:00Z");
/// ```
pub fn format_time_s(s: u64) -> String {
    // Beyond year 9999 there is no four-digit year: such a time prints as the epoch.
    let s = if s > MAX_TIME_MS / 1000 { 0 } else { s };
    let mut out = date_time(s);
    out.push('Z');
    out
}

/// `yyyy-mm-ddThh:mm:ss` of unix seconds (at most year 9999).
fn date_time(s: u64) -> String {
    let (y, m, d) = civil_from_days((s * 1000 / MS_PER_DAY) as i64);
    let secs = s % 86_400;
    let mut out = String::with_capacity(24);
    push_digits(&mut out, y as u64, 4);
    out.push('-');
    push_digits(&mut out, m as u64, 2);
    out.push('-');
    push_digits(&mut out, d as u64, 2);
    out.push('T');
    push_digits(&mut out, secs / 3600, 2);
    out.push(':');
    push_digits(&mut out, secs / 60 % 60, 2);
    out.push(':');
    push_digits(&mut out, secs % 60, 2);
    out
}

/// `v` as exactly `width` decimal digits (it has at most that many).
fn push_digits(out: &mut String, v: u64, width: u32) {
    for i in (0..width).rev() {
        out.push(char::from(b'0' + (v / 10u64.pow(i) % 10) as u8));
    }
}

/// Year, month and day of a count of days since 1970-01-01 (proleptic Gregorian; Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097) as u64; // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March first
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe as i64 + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a (valid) proleptic Gregorian date: the inverse of
/// [`civil_from_days`].
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400); // [0, 399]
    let mp = i64::from((m + 9) % 12); // March is 0
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1; // [0, 365]
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Unix nanoseconds of an RFC 3339 date-time, or `None` where `time`'s `Rfc3339` parser fails:
/// `yyyy-mm-dd`, any one byte, `hh:mm:ss`, an optional fraction of one or more digits (those
/// beyond nanoseconds dropped), then `Z`/`z` or `±hh:mm` (hours at most 23); second 60 only
/// as a leap second, the last second of a month in UTC, read as its last nanosecond.
#[cfg_attr(idmint_optimize_size, optimize(size))]
fn parse_rfc3339_ns(text: &[u8]) -> Option<i128> {
    // Checked against one shape rather than field by field: the same rules in less code (the
    // browser's main module carries this). `0` is a digit, `?` any byte, `+` a sign.
    fn shaped(text: &[u8], at: usize, shape: &[u8]) -> Option<()> {
        let part = text.get(at..at + shape.len())?;
        part.iter()
            .zip(shape)
            .all(|(&c, &s)| match s {
                b'0' => c.is_ascii_digit(),
                b'?' => true,
                b'+' => c == b'+' || c == b'-',
                _ => c == s,
            })
            .then_some(())
    }
    fn num(text: &[u8], at: usize, n: usize) -> u32 {
        text[at..at + n]
            .iter()
            .fold(0, |v, &c| v * 10 + u32::from(c - b'0'))
    }
    shaped(text, 0, b"0000-00-00?00:00:00")?;
    let year = i64::from(num(text, 0, 4));
    let [month, day, hour, minute, mut second] = [5, 8, 11, 14, 17].map(|at| num(text, at, 2));
    let mut at = 19;
    let mut nanos = 0u32;
    if text.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        let mut scale = 100_000_000;
        while let Some(c) = text.get(at).filter(|c| c.is_ascii_digit()) {
            nanos += u32::from(c - b'0') * scale;
            scale /= 10;
            at += 1;
        }
        if at == start {
            return None;
        }
    }
    let offset_s: i64 = if matches!(text.get(at), Some(b'Z' | b'z')) {
        at += 1;
        0
    } else {
        shaped(text, at, b"+00:00")?;
        let (h, m) = (num(text, at + 1, 2), num(text, at + 4, 2));
        if h > 23 || m > 59 {
            return None;
        }
        let s = i64::from(h * 3600 + m * 60);
        at += 6;
        if text[at - 6] == b'-' {
            -s
        } else {
            s
        }
    };
    if at != text.len() {
        return None;
    }
    let leap = second == 60;
    if leap {
        second = 59;
        nanos = 999_999_999;
    }
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let utc_s = days_from_civil(year, month, day) * 86_400
        + i64::from(hour * 3600 + minute * 60 + second)
        - offset_s;
    if leap {
        let (y, m, d) = civil_from_days(utc_s.div_euclid(86_400));
        if utc_s.rem_euclid(86_400) != 86_399 || d != days_in_month(y, m) {
            return None;
        }
    }
    Some(i128::from(utc_s) * 1_000_000_000 + i128::from(nanos))
}

/// Read a time given as unix milliseconds (digits) or as an RFC 3339 date-time.
///
/// `what` names the argument in the error (`epoch`, `time`).
///
/// ```
/// use idmint_core::parse_time_ms;
/// assert_eq!(parse_time_ms("epoch", "1288834974657").unwrap(), 1288834974657);
/// assert_eq!(parse_time_ms("epoch", "2014-09-01T00:00:00Z").unwrap(), 1409529600000);
/// assert_eq!(parse_time_ms("epoch", "yesterday").unwrap_err().kind(), "invalid_argument");
/// ```
#[cfg_attr(idmint_optimize_size, optimize(size))]
pub fn parse_time_ms(what: &str, text: &str) -> Result<u64> {
    let text = text.trim_ascii();
    let bad = |expected: &str| Error::InvalidArgument {
        name: what.to_string(),
        value: quoted(text),
        expected: expected.to_string(),
    };
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let ms: u64 = text
            .parse()
            .map_err(|_| bad("unix milliseconds must be at most 253402300799999 (year 9999)"))?;
        if ms > MAX_TIME_MS {
            return Err(bad(
                "unix milliseconds must be at most 253402300799999 (year 9999)",
            ));
        }
        return Ok(ms);
    }
    let ns = parse_rfc3339_ns(text.as_bytes()).ok_or_else(|| {
        bad("unix milliseconds (digits) or an RFC 3339 date-time such as 2020-01-01T00:00:00Z")
    })?;
    // Truncated toward zero, as before: half a millisecond before 1970 still reads as 0.
    let ms = ns / 1_000_000;
    if ms < 0 {
        return Err(bad("a time at or after 1970-01-01T00:00:00Z"));
    }
    Ok(ms as u64)
}

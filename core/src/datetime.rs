//! Unix milliseconds to and from RFC 3339, the one text form of time idmint prints and reads.

use crate::{Error, Result};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// The latest instant idmint represents: 9999-12-31T23:59:59.999Z, so every time has a
/// four-digit year in RFC 3339 and fits a JavaScript `Date`.
pub const MAX_TIME_MS: u64 = 253_402_300_799_999;

/// Format unix milliseconds as RFC 3339 UTC with milliseconds, e.g. `2015-03-13T02:00:00.000Z`.
///
/// ```
/// assert_eq!(idmint_core::format_time_ms(1426212000000), "2015-03-13T02:00:00.000Z");
/// ```
pub fn format_time_ms(ms: u64) -> String {
    let (date, millis) = split(ms.min(MAX_TIME_MS) as i128 * 1_000_000);
    format!("{date}.{millis:03}Z")
}

/// Format unix seconds as RFC 3339 UTC without fraction, e.g. `2015-03-13T02:00:00Z`.
///
/// ```
/// assert_eq!(idmint_core::format_time_s(0), "1970-01-01T00:00:00Z");
/// ```
pub fn format_time_s(s: u64) -> String {
    let (date, _) = split(s as i128 * 1_000_000_000);
    format!("{date}Z")
}

fn split(unix_ns: i128) -> (String, u32) {
    let t =
        OffsetDateTime::from_unix_timestamp_nanos(unix_ns).unwrap_or(OffsetDateTime::UNIX_EPOCH);
    let date = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    (date, t.millisecond() as u32)
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
pub fn parse_time_ms(what: &str, text: &str) -> Result<u64> {
    let text = text.trim();
    let bad = |expected: &str| Error::InvalidArgument {
        name: what.to_string(),
        value: format!("{text:?}"),
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
    let t = OffsetDateTime::parse(text, &Rfc3339).map_err(|_| {
        bad("unix milliseconds (digits) or an RFC 3339 date-time such as 2020-01-01T00:00:00Z")
    })?;
    let ms = t.unix_timestamp_nanos() / 1_000_000;
    if ms < 0 {
        return Err(bad("a time at or after 1970-01-01T00:00:00Z"));
    }
    Ok(ms as u64)
}

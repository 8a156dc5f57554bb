//! Order-number templates and their parse-back: a template that is read formats a time and a
//! sequence into text that parses back to that sequence, label, month and day (check digits
//! verified); text that is no order number of it is an error, never a panic.
//! Input lines: pattern, label, UTC offset, check (none, luhn, mod97), time in ms, sequence,
//! then a text to parse.

use idmint_core::{CheckDigit, Template, MAX_TIME_MS};

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.split('\n');
    let mut line = || lines.next().unwrap_or("");
    let (pattern, label, offset, check) = (line(), line(), line(), line());
    let (time_ms, sequence, other) = (line(), line(), line());
    let Ok(mut t) = Template::new(pattern) else {
        return;
    };
    if !label.is_empty() {
        match t.clone().label(label) {
            Ok(l) => t = l,
            Err(_) => return,
        }
    }
    if !offset.is_empty() {
        match t.clone().offset(offset) {
            Ok(o) => t = o,
            Err(_) => return,
        }
    }
    if let Ok(c) = check.parse::<CheckDigit>() {
        t = t.check_digit(c);
    }
    let _ = t.parse(other);
    let time_ms = time_ms.parse::<u64>().unwrap_or(1_716_309_000_000) % (MAX_TIME_MS + 1);
    let sequence = sequence.parse::<u64>().unwrap_or(42);
    let Ok(formatted) = t.format(time_ms, sequence) else {
        return;
    };
    let parts = t.parse(&formatted).unwrap_or_else(|e| {
        panic!("{pattern:?} {label:?}: {formatted:?} does not parse back: {e}")
    });
    assert_eq!(parts.sequence, sequence, "{pattern:?}: {formatted:?}");
    if !label.is_empty() && parts.label.is_some() {
        assert_eq!(
            parts.label.as_deref().unwrap().trim_start_matches('0'),
            label.trim_start_matches('0')
        );
    }
    if let (Some(m), Some(d), Ok(day)) = (parts.month, parts.day, t.day_of(time_ms)) {
        if t.has_full_date() {
            assert_eq!(
                u32::from(m) * 100 + u32::from(d),
                day % 10_000,
                "{pattern:?}: {formatted:?}"
            );
        }
    }
}

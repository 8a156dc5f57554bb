//! idmint's own RFC 3339 reader and writer (core/src/datetime.rs) against the `time` crate's,
//! which they replaced so the browser's main module carries no date library: the same text is
//! read to the same instant or refused, and every instant prints the same.

use idmint_core::{format_time_ms, format_time_s, parse_time_ms, MAX_TIME_MS};
use proptest::prelude::*;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// What `parse_time_ms` returned before, with `time` reading the RFC 3339 form.
fn reference(text: &str) -> Option<u64> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<u64>().ok().filter(|&ms| ms <= MAX_TIME_MS);
    }
    let ms = OffsetDateTime::parse(text, &Rfc3339)
        .ok()?
        .unix_timestamp_nanos()
        / 1_000_000;
    u64::try_from(ms).ok()
}

fn reference_format_ms(ms: u64) -> String {
    let t = OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).unwrap();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

fn same(text: &str) {
    let ours = parse_time_ms("time", text);
    match (reference(text), &ours) {
        (Some(want), Ok(got)) => assert_eq!(*got, want, "{text:?}"),
        (None, Err(e)) => assert_eq!(e.kind(), "invalid_argument", "{text:?}"),
        (want, got) => panic!("{text:?}: time reads {want:?}, idmint {got:?}"),
    }
}

/// Date-times built field by field, each field sometimes out of range or malformed.
fn date_time() -> impl Strategy<Value = String> {
    let num = |max: u32, width: usize| {
        prop_oneof![
            4 => (0..=max).prop_map(move |v| format!("{v:0width$}")),
            1 => "[0-9]{0,5}",
            1 => "[0-9a-z:+ .-]{0,3}",
        ]
    };
    (
        prop_oneof![4 => (1960u32..=2110).prop_map(|y| format!("{y:04}")), 1 => num(9999, 4)],
        num(13, 2),
        num(32, 2),
        prop_oneof!["T", "t", " ", "_", "", "é"],
        num(24, 2),
        num(60, 2),
        prop_oneof![8 => num(59, 2), 1 => Just("60".to_string())],
        prop_oneof!["", "\\.[0-9]{1,12}", "\\.", "\\.x"],
        prop_oneof![
            "Z",
            "z",
            "[+-](0[0-9]|1[0-9]|2[0-5]):[0-6][0-9]",
            "[+-][0-9]{1,3}:?[0-9]{0,3}",
            "",
            "ZZ",
        ],
    )
        .prop_map(|(y, mo, d, sep, h, mi, s, frac, off)| {
            format!("{y}-{mo}-{d}{sep}{h}:{mi}:{s}{frac}{off}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn reads_what_time_reads(text in date_time()) {
        same(&text);
    }

    #[test]
    fn reads_any_text_as_time_does(text in "[0-9TZ:+. -]{0,30}") {
        same(&text);
    }

    #[test]
    fn prints_what_time_printed(ms in 0..=MAX_TIME_MS) {
        prop_assert_eq!(format_time_ms(ms), reference_format_ms(ms));
        let s = ms / 1000;
        prop_assert_eq!(format_time_s(s), reference_format_ms(s * 1000).replace(".000Z", "Z"));
        prop_assert_eq!(parse_time_ms("t", &format_time_ms(ms)).unwrap(), ms);
    }
}

#[test]
fn edges() {
    for text in [
        "1970-01-01T00:00:00Z",
        "1969-12-31T23:59:59.9995Z",
        "1969-12-31T23:59:59.999Z",
        "1970-01-01T00:00:00+00:01",
        "1970-01-01T00:00:00-00:00",
        "2016-12-31T23:59:60Z",
        "2016-12-31T23:59:60.5Z",
        "2016-12-30T23:59:60Z",
        "2017-01-01T00:59:60+01:00",
        "2000-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2100-02-29T00:00:00Z",
        "2024-02-29T23:59:59.123456789123Z",
        "9999-12-31T23:59:59.999Z",
        "9999-12-31T23:59:59.999-23:59",
        "0000-01-01T00:00:00Z",
        "2020-01-01T00:00:00+24:00",
        "2020-01-01T00:00:00+23:60",
        "2020-01-01T00:00:00",
        "  2020-01-01T00:00:00Z  ",
        "253402300799999",
        "253402300800000",
        "",
        "2020-01-01",
    ] {
        same(text);
    }
    assert_eq!(format_time_ms(u64::MAX), "9999-12-31T23:59:59.999Z");
    assert_eq!(format_time_s(u64::MAX), "1970-01-01T00:00:00Z");
    assert_eq!(format_time_s(u32::MAX as u64), "2106-02-07T06:28:15Z");
}

//! Order-number templates: the vectors, parse-back of random parts, the daily counter.

use std::collections::HashSet;
use std::sync::Arc;

use idmint_core::{
    CheckDigit, DailyCounter, ManualClock, MemoryDailyCounter, OrderNumbers, Template,
};
use proptest::prelude::*;
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn template_of(case: &Value) -> Template {
    let mut t = Template::new(case["template"].as_str().unwrap())
        .unwrap()
        .offset(case["offset"].as_str().unwrap())
        .unwrap()
        .check_digit(case["check"].as_str().unwrap().parse().unwrap());
    if let Some(label) = case["label"].as_str() {
        t = t.label(label).unwrap();
    }
    t
}

#[test]
fn vectors_format_and_parse_back() {
    let v = load("template.json");
    for case in v["valid"].as_array().unwrap() {
        let t = template_of(case);
        let seq: u64 = case["sequence"].as_str().unwrap().parse().unwrap();
        let text = t.format(case["time_ms"].as_u64().unwrap(), seq).unwrap();
        assert_eq!(
            text,
            case["formatted"].as_str().unwrap(),
            "{}",
            case["name"]
        );
        let parts = t.parse(&text).unwrap();
        let want = &case["parts"];
        assert_eq!(parts.sequence, seq);
        assert_eq!(parts.year.map(i64::from), want["year"].as_i64());
        for (got, key) in [
            (parts.month, "month"),
            (parts.day, "day"),
            (parts.hour, "hour"),
            (parts.minute, "minute"),
            (parts.second, "second"),
        ] {
            assert_eq!(
                got.map(u64::from),
                want[key].as_u64(),
                "{}: {key}",
                case["name"]
            );
        }
        assert_eq!(parts.label.as_deref(), want["label"].as_str());
        assert_eq!(parts.check.as_deref(), want["check"].as_str());
    }
    for case in v["invalid_templates"].as_array().unwrap() {
        let err = Template::new(case["template"].as_str().unwrap()).unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
    for case in v["invalid_parse"].as_array().unwrap() {
        let err = template_of(case)
            .parse(case["text"].as_str().unwrap())
            .unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}: {err}",
            case["name"]
        );
    }
    for case in v["invalid_format"].as_array().unwrap() {
        let seq: u64 = case["sequence"].as_str().unwrap().parse().unwrap();
        let err = template_of(case)
            .format(case["time_ms"].as_u64().unwrap(), seq)
            .unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
    for case in v["daily"].as_array().unwrap() {
        let times = case["times_ms"].as_array().unwrap();
        let clock = ManualClock::new(times[0].as_u64().unwrap());
        let orders =
            OrderNumbers::new(template_of(case), MemoryDailyCounter::new(), &clock).unwrap();
        for (t, want) in times.iter().zip(case["formatted"].as_array().unwrap()) {
            clock.set_ms(t.as_u64().unwrap());
            assert_eq!(
                orders.next().unwrap(),
                want.as_str().unwrap(),
                "{}",
                case["name"]
            );
        }
    }
}

#[test]
fn parse_errors_say_where_and_what() {
    let t = Template::new("%L%Y%M%D%m%5S").unwrap().label("7").unwrap();
    let err = t.parse("7202413223000042").unwrap_err();
    assert!(
        err.to_string().contains("month 13 is not in 01..=12"),
        "{err}"
    );
    let err = t.parse("72024052230x0042").unwrap_err();
    assert!(err.to_string().contains("position 11"), "{err}");
    let err = Template::new("%Y%M%D%5S")
        .unwrap()
        .check_digit(CheckDigit::Luhn)
        .parse("2024052200001")
        .unwrap_err();
    assert!(err.to_string().contains("where the sequence"), "{err}");
}

#[test]
fn daily_counter_overflow_is_typed_and_names_the_day() {
    let clock = ManualClock::new(1_716_309_000_000);
    let t = Template::new("%y%M%D%2S")
        .unwrap()
        .offset("+08:00")
        .unwrap();
    let orders = OrderNumbers::new(t, MemoryDailyCounter::new(), &clock).unwrap();
    let got: Vec<String> = (0..99).map(|_| orders.next().unwrap()).collect();
    assert_eq!(got.iter().collect::<HashSet<_>>().len(), 99);
    assert_eq!(got[98], "24052299");
    let err = orders.next().unwrap_err();
    assert_eq!(err.kind(), "counter_overflow");
    assert!(err.to_string().contains("2024-05-22 (+08:00)"), "{err}");
    assert!(err.to_string().contains("99"), "{err}");
    // The next day starts over.
    clock.advance_ms(86_400_000);
    assert_eq!(orders.next().unwrap(), "24052301");
}

#[test]
fn daily_counter_needs_a_full_date() {
    let t = Template::new("%H%m%5S").unwrap();
    let err = OrderNumbers::new(t, MemoryDailyCounter::new(), ManualClock::new(0)).unwrap_err();
    assert_eq!(err.kind(), "invalid_template");
}

#[test]
fn memory_counter_is_shared_by_threads_without_repeats() {
    let counter = Arc::new(MemoryDailyCounter::new());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let c = Arc::clone(&counter);
            std::thread::spawn(move || {
                (0..50_000)
                    .map(|_| c.next(20240522).unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all = HashSet::new();
    for h in handles {
        for v in h.join().unwrap() {
            assert!(all.insert(v));
        }
    }
    assert_eq!(all.len(), 200_000);
    assert_eq!(all.iter().max(), Some(&200_000));
}

#[test]
fn a_day_already_passed_is_refused_by_the_counter() {
    let c = MemoryDailyCounter::new();
    c.next(20240523).unwrap();
    let err = c.next(20240522).unwrap_err();
    assert_eq!(err.kind(), "clock_moved_backwards");
}

proptest! {
    #[test]
    fn formatted_numbers_parse_back_to_their_parts(
        time_ms in 0u64..=253_402_300_799_999 - 86_400_000,
        width in 1u32..=19,
        seq_frac in 0.0f64..1.0,
        label in "[0-9A-Za-z]{1,6}",
        offset_min in -1439i32..=1439,
        check in prop_oneof![Just(CheckDigit::None), Just(CheckDigit::Luhn), Just(CheckDigit::Mod97)],
    ) {
        let pattern = format!("ORD-%L-%Y%M%D%H%m%s-%{width}S");
        let t = Template::new(&pattern).unwrap()
            .label(&label).unwrap()
            .offset_seconds(offset_min * 60).unwrap()
            .check_digit(check);
        let seq = (seq_frac * t.capacity() as f64) as u64;
        let text = t.format(time_ms, seq).unwrap();
        let p = t.parse(&text).unwrap();
        prop_assert_eq!(p.sequence, seq);
        prop_assert_eq!(p.label.as_deref(), Some(label.as_str()));
        // The parts are the local time at the offset.
        let local = time::OffsetDateTime::from_unix_timestamp_nanos(time_ms as i128 * 1_000_000).unwrap()
            .to_offset(time::UtcOffset::from_whole_seconds(offset_min * 60).unwrap());
        prop_assert_eq!(p.year, Some(local.year()));
        prop_assert_eq!(p.month, Some(u8::from(local.month())));
        prop_assert_eq!(p.day, Some(local.day()));
        prop_assert_eq!(p.hour, Some(local.hour()));
        prop_assert_eq!(p.minute, Some(local.minute()));
        prop_assert_eq!(p.second, Some(local.second()));
        prop_assert_eq!(t.day_of(time_ms).unwrap(),
            local.year() as u32 * 10_000 + u8::from(local.month()) as u32 * 100 + local.day() as u32);
    }

    #[test]
    fn a_single_changed_digit_is_caught(seq in 0u64..=99_999_999, pos in 0usize..16, delta in 1u8..=9) {
        for check in [CheckDigit::Luhn, CheckDigit::Mod97] {
            let t = Template::new("%Y%M%D%8S").unwrap().check_digit(check);
            let text = t.format(1_716_309_000_000, seq).unwrap();
            let mut b = text.into_bytes();
            b[pos] = b'0' + (b[pos] - b'0' + delta) % 10;
            let typo = String::from_utf8(b).unwrap();
            prop_assert!(t.parse(&typo).is_err());
        }
    }
}

//! UUIDv7: the RFC 9562 vector, the vectors, monotonicity under load and across threads.

use std::collections::HashSet;
use std::sync::Arc;

use idmint_core::{ManualClock, Uuid7, Uuid7Generator};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn rfc9562_appendix_a6() {
    let u: Uuid7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F".parse().unwrap();
    assert_eq!(u.time_ms(), 0x017F22E279B0);
    assert_eq!(u.time(), "2022-02-22T19:22:22.000Z");
    assert_eq!(u.rand_a(), 0xCC3);
    assert_eq!(u.rand_b(), 0x18C4DC0C0C07398F);
    // Independent check with the uuid crate.
    let other = uuid::Uuid::parse_str("017F22E2-79B0-7CC3-98C4-DC0C0C07398F").unwrap();
    assert_eq!(other.get_version_num(), 7);
    assert_eq!(other.as_u128(), u.as_u128());
    let (secs, nanos) = other.get_timestamp().unwrap().to_unix();
    assert_eq!(secs * 1000 + nanos as u64 / 1_000_000, u.time_ms());
}

#[test]
fn vectors() {
    let v = load("uuid7.json");
    for case in v["valid"].as_array().unwrap() {
        let text = case["uuid"].as_str().unwrap();
        let u = Uuid7::parse_str(text).unwrap();
        assert_eq!(u.to_string(), text);
        assert_eq!(u.time_ms(), case["time_ms"].as_u64().unwrap());
        assert_eq!(u.time(), case["time"].as_str().unwrap());
        assert_eq!(u.rand_a() as u64, case["rand_a"].as_u64().unwrap());
        assert_eq!(
            format!("{:016x}", u.rand_b()),
            case["rand_b"].as_str().unwrap()
        );
        assert_eq!(u.to_ulid(), case["ulid"].as_str().unwrap());
        assert_eq!(Uuid7::parse_ulid(&u.to_ulid()).unwrap(), u);
        assert_eq!(
            Uuid7::from_parts(u.time_ms(), u.rand_a(), u.rand_b()).unwrap(),
            u
        );
        assert_eq!(Uuid7::from_bytes(u.to_bytes()).unwrap(), u);
    }
    for case in v["forms"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let u = if case["ulid"].as_bool() == Some(true) {
            Uuid7::parse_ulid(text)
        } else {
            Uuid7::parse_str(text)
        }
        .unwrap();
        assert_eq!(u.to_string(), case["uuid"].as_str().unwrap());
    }
    for case in v["invalid"].as_array().unwrap() {
        let err = Uuid7::parse_str(case["text"].as_str().unwrap()).unwrap_err();
        assert_eq!(err.kind(), case["error"].as_str().unwrap(), "{case}");
    }
    for case in v["invalid_ulids"].as_array().unwrap() {
        let err = Uuid7::parse_ulid(case["text"].as_str().unwrap()).unwrap_err();
        assert_eq!(err.kind(), case["error"].as_str().unwrap(), "{case}");
    }
}

#[test]
fn one_million_strictly_increasing_and_valid() {
    let gen = Uuid7Generator::new();
    let ids = gen.next_uuids(1_000_000).unwrap();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    for u in ids.iter().step_by(997) {
        let parsed = uuid::Uuid::from_u128(u.as_u128());
        assert_eq!(parsed.get_version_num(), 7);
        assert_eq!(parsed.get_variant(), uuid::Variant::RFC4122);
        assert_eq!(Uuid7::parse_str(&parsed.to_string()).unwrap(), *u);
    }
    // One at a time too.
    let mut last = gen.next_uuid().unwrap();
    assert!(last > ids[ids.len() - 1]);
    for _ in 0..200_000 {
        let u = gen.next_uuid().unwrap();
        assert!(u > last);
        last = u;
    }
}

#[test]
fn counter_carries_into_the_timestamp_on_a_frozen_clock() {
    let clock = ManualClock::new(1_700_000_000_000);
    let gen = Uuid7Generator::with_clock(&clock);
    let ids = gen.next_uuids(10_000).unwrap();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert!(ids[0].rand_a() < 2048, "seeded with the top bit clear");
    // 10 000 IDs need at least 3 ms of counter space: the timestamp ran ahead.
    let last = ids[ids.len() - 1];
    assert!(last.time_ms() >= 1_700_000_000_002, "{}", last.time_ms());
    // Once the clock passes the lead, the counter is reseeded in the new millisecond.
    clock.set_ms(last.time_ms() + 5);
    let next = gen.next_uuid().unwrap();
    assert_eq!(next.time_ms(), last.time_ms() + 5);
    assert!(next.rand_a() < 2048);
}

#[test]
fn a_clock_stepping_back_does_not_break_order() {
    let clock = ManualClock::new(1_700_000_000_000);
    let gen = Uuid7Generator::with_clock(&clock);
    let a = gen.next_uuid().unwrap();
    clock.set_ms(1_600_000_000_000);
    let b = gen.next_uuid().unwrap();
    assert!(b > a);
    assert_eq!(b.time_ms(), a.time_ms());
}

#[test]
fn time_past_48_bits_is_refused() {
    let clock = ManualClock::new(1 << 48);
    let err = Uuid7Generator::with_clock(&clock).next_uuid().unwrap_err();
    assert_eq!(err.kind(), "time_out_of_range");
}

#[test]
fn threads_share_one_increasing_sequence() {
    let gen = Arc::new(Uuid7Generator::new());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let g = Arc::clone(&gen);
            std::thread::spawn(move || {
                let v: Vec<Uuid7> = (0..100_000).map(|_| g.next_uuid().unwrap()).collect();
                assert!(v.windows(2).all(|w| w[0] < w[1]));
                v
            })
        })
        .collect();
    let mut all = HashSet::new();
    for h in handles {
        for u in h.join().unwrap() {
            // The (ms, counter) prefix alone is unique within a generator.
            assert!(all.insert(u.as_u128() >> 64));
        }
    }
    assert_eq!(all.len(), 400_000);
}

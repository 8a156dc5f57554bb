//! Runs `tests/vectors/start_above.json`: a generator of a new layout told to start above an ID
//! of an old one, on a manual clock under each rollback policy — its first ID, or the refusal
//! naming the time — and that `plan::check_migration` names the same time for the same ID.

use idmint_core::plan::{check_migration, first_above_ms};
use idmint_core::{Layout, ManualClock, Snowflake};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let path = format!(
        "{}/../tests/vectors/start_above.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["cases"].as_array().unwrap().clone()
}

#[test]
fn generator_starts_above_the_id_or_refuses_naming_when() {
    let cases = cases();
    assert!(cases.len() >= 10);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let layout = Layout::parse(case["layout"].as_str().unwrap()).unwrap();
        let above: u64 = case["above"].as_str().unwrap().parse().unwrap();
        let clock = ManualClock::new(case["clock_ms"].as_u64().unwrap());
        let mut b = Snowflake::with_clock(layout, &clock)
            .start_above(above)
            .on_rollback(case["on_rollback"].as_str().unwrap().parse().unwrap());
        for (field, value) in case["nodes"].as_object().unwrap() {
            b = b.node(field, value.as_u64().unwrap());
        }
        let got = b.build().and_then(|g| Ok((g.next_id()?, g.next_id()?)));
        match (&case["first_id"], got) {
            (Value::String(first), Ok((a, b))) => {
                assert_eq!(a.to_string(), *first, "{name}");
                assert!(a > above && b > a, "{name}");
            }
            (Value::Null, Err(e)) => {
                assert_eq!(e.kind(), case["error"].as_str().unwrap(), "{name}");
                let said = e.to_string();
                assert!(
                    said.contains(case["above"].as_str().unwrap()),
                    "{name}: {said}"
                );
                match case["from"].as_str() {
                    Some(from) => assert!(said.contains(from), "{name}: {said}"),
                    None => assert!(said.contains("never pass it"), "{name}: {said}"),
                }
            }
            (want, got) => panic!("{name}: want {want}, got {got:?}"),
        }
    }
}

#[test]
fn check_migration_names_the_time_start_above_starts() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let to = Layout::parse(case["layout"].as_str().unwrap()).unwrap();
        let above: u64 = case["above"].as_str().unwrap().parse().unwrap();
        let clock = case["clock_ms"].as_u64().unwrap();
        let from_ms = case["from_ms"].as_u64();
        assert_eq!(first_above_ms(&to, above), from_ms, "{name}");
        let m = check_migration(&to, &to, Some(above), clock).unwrap();
        assert_eq!(m.safe_from_ms, from_ms, "{name}");
        assert_eq!(m.safe_from.as_deref(), case["from"].as_str(), "{name}");
        // Safe now exactly when a generator under `error` would start now.
        assert_eq!(m.safe, from_ms.is_some_and(|f| f <= clock), "{name}");
    }
}

//! Runs `tests/vectors/typeid.json`: TypeID's own spec vectors (copied as data from
//! jetify-com/typeid's spec v0.3.0), every valid one both ways, every invalid one refused.

use idmint_core::typeid::{TypeId, TypeIdGenerator};
use serde_json::Value;

fn load() -> Value {
    let path = format!(
        "{}/../tests/vectors/typeid.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn every_valid_vector_decodes_and_encodes() {
    let v = load();
    let valid = v["valid"].as_array().unwrap();
    assert!(valid.len() >= 9);
    for case in valid {
        let text = case["typeid"].as_str().unwrap();
        let t = TypeId::parse(text).unwrap_or_else(|e| panic!("{}: {e}", case["name"]));
        assert_eq!(
            t.prefix(),
            case["prefix"].as_str().unwrap(),
            "{}",
            case["name"]
        );
        assert_eq!(t.uuid(), case["uuid"].as_str().unwrap(), "{}", case["name"]);
        let hex = case["uuid"].as_str().unwrap().replace('-', "");
        let back = TypeId::new(t.prefix(), u128::from_str_radix(&hex, 16).unwrap()).unwrap();
        assert_eq!(back.to_string(), text, "{}", case["name"]);
    }
}

#[test]
fn every_invalid_vector_is_refused_with_its_kind() {
    let v = load();
    for case in v["invalid"].as_array().unwrap() {
        let text = case["typeid"].as_str().unwrap();
        let e = TypeId::parse(text).expect_err(case["name"].as_str().unwrap());
        assert_eq!(
            e.kind(),
            case["error"].as_str().unwrap(),
            "{}: {e}",
            case["name"]
        );
    }
}

#[test]
fn minted_typeids_round_trip_and_increase() {
    let gen = TypeIdGenerator::new("order_line").unwrap();
    let ids: Vec<TypeId> = (0..10_000).map(|_| gen.next_id().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    for t in &ids {
        assert_eq!(TypeId::parse(&t.to_string()).unwrap(), *t);
        // A UUIDv7: version 7, RFC 9562 variant.
        assert_eq!((t.uuid_value() >> 76) & 0xF, 7);
        assert_eq!((t.uuid_value() >> 62) & 0b11, 0b10);
    }
}

//! Runs every case of `tests/vectors/`, the contract every language's tests share.

use idmint_core::{Layout, ObjectId};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn cases<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    let list = v[key].as_array().unwrap_or_else(|| panic!("no list {key}"));
    assert!(!list.is_empty(), "{key} is empty");
    list
}

fn layout(case: &Value) -> Layout {
    Layout::parse(case["layout"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", case["name"]))
}

#[test]
fn snowflake_valid_cases_decompose_and_compose() {
    let v = load("snowflake.json");
    for case in cases(&v, "valid") {
        let name = &case["name"];
        let l = layout(case);
        let id: u64 = case["id"].as_str().unwrap().parse().unwrap();
        let parts = l.decompose_str(case["id"].as_str().unwrap()).unwrap();
        assert_eq!(parts.time_ms, case["time_ms"].as_u64().unwrap(), "{name}");
        assert_eq!(parts.time(), case["time"].as_str().unwrap(), "{name}");
        assert_eq!(parts.sequence, case["sequence"].as_u64().unwrap(), "{name}");
        let fields = case["fields"].as_object().unwrap();
        assert_eq!(parts.nodes.len(), fields.len(), "{name}");
        for (field, value) in fields {
            assert_eq!(parts.node(field), value.as_u64(), "{name}: {field}");
        }
        assert_eq!(l.compose(&parts).unwrap(), id, "{name}");
        let composed = l
            .compose_values(
                case["time_ms"].as_i64().unwrap() as i128,
                fields
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_i64().unwrap() as i128)),
                case["sequence"].as_i64().unwrap() as i128,
            )
            .unwrap();
        assert_eq!(composed, id, "{name}");
    }
}

#[test]
fn snowflake_invalid_ids_are_refused() {
    let v = load("snowflake.json");
    for case in cases(&v, "invalid_ids") {
        let err = layout(case)
            .decompose_str(case["id"].as_str().unwrap())
            .unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
}

#[test]
fn snowflake_invalid_parts_are_refused() {
    let v = load("snowflake.json");
    for case in cases(&v, "invalid_parts") {
        let p = &case["parts"];
        let err = layout(case)
            .compose_values(
                p["time_ms"].as_i64().unwrap() as i128,
                p["fields"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_i64().unwrap() as i128)),
                p["sequence"].as_i64().unwrap() as i128,
            )
            .unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}: {err}",
            case["name"]
        );
    }
}

#[test]
fn snowflake_invalid_layouts_are_refused() {
    let v = load("snowflake.json");
    for case in cases(&v, "invalid_layouts") {
        let err = Layout::parse(case["layout"].as_str().unwrap()).unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
}

#[test]
fn presets_run_out_when_the_vectors_say() {
    let v = load("snowflake.json");
    for case in cases(&v, "exhausts_at") {
        let l = layout(case);
        assert_eq!(l.exhausts_at_ms(), case["exhausts_at_ms"].as_u64().unwrap());
        assert_eq!(l.exhausts_at(), case["exhausts_at"].as_str().unwrap());
    }
}

#[test]
fn objectid_cases() {
    let v = load("objectid.json");
    for case in cases(&v, "valid") {
        let hex = case["hex"].as_str().unwrap();
        let oid = ObjectId::parse_str(hex).unwrap();
        assert_eq!(oid.to_hex(), hex);
        assert_eq!(oid.timestamp() as u64, case["time_s"].as_u64().unwrap());
        assert_eq!(oid.time(), case["time"].as_str().unwrap());
        assert_eq!(hex::encode(oid.random()), case["random"].as_str().unwrap());
        assert_eq!(oid.counter() as u64, case["counter"].as_u64().unwrap());
        let rebuilt = ObjectId::from_parts(
            oid.timestamp(),
            oid.random(),
            case["counter"].as_u64().unwrap() as u32,
        )
        .unwrap();
        assert_eq!(rebuilt, oid);
        assert_eq!(ObjectId::from_slice(&oid.bytes()).unwrap(), oid);
    }
    for case in cases(&v, "uppercase_input") {
        let oid = ObjectId::parse_str(case["hex"].as_str().unwrap()).unwrap();
        assert_eq!(oid.to_hex(), case["canonical"].as_str().unwrap());
    }
    for case in cases(&v, "invalid") {
        let err = ObjectId::parse_str(case["hex"].as_str().unwrap()).unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
}

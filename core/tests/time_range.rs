//! Runs `tests/vectors/time_range.json`: the smallest and largest ID of the tick holding an
//! instant (`Layout::min_id_at`, `Layout::max_id_at`), and the refusal outside the layout.

use idmint_core::Layout;
use serde_json::Value;

fn load() -> Value {
    let path = format!(
        "{}/../tests/vectors/time_range.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn cases<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    let list = v[key].as_array().unwrap();
    assert!(!list.is_empty(), "{key} is empty");
    list
}

#[test]
fn min_and_max_ids_of_an_instant_match_the_oracle() {
    let v = load();
    for case in cases(&v, "valid") {
        let name = &case["name"];
        let layout = Layout::parse(case["layout"].as_str().unwrap()).unwrap();
        let t = case["time_ms"].as_i64().unwrap() as i128;
        let min = layout.min_id_at(t).unwrap();
        let max = layout.max_id_at(t).unwrap();
        assert_eq!(min.to_string(), case["min_id"].as_str().unwrap(), "{name}");
        assert_eq!(max.to_string(), case["max_id"].as_str().unwrap(), "{name}");
        let tick = case["tick_ms"].as_u64().unwrap();
        assert_eq!(layout.decompose(min).unwrap().time_ms, tick, "{name}");
        assert_eq!(layout.decompose(max).unwrap().time_ms, tick, "{name}");
    }
}

#[test]
fn instants_outside_the_layout_are_refused_with_the_range() {
    let v = load();
    for case in cases(&v, "invalid") {
        let name = &case["name"];
        let layout = Layout::parse(case["layout"].as_str().unwrap()).unwrap();
        let t = case["time_ms"].as_i64().unwrap();
        let want = format!(
            "time {t} ms is out of range for this layout: valid times are {}..{} ms (unix)",
            case["min_ms"], case["end_ms"]
        );
        for err in [
            layout.min_id_at(t as i128).unwrap_err(),
            layout.max_id_at(t as i128).unwrap_err(),
        ] {
            assert_eq!(err.kind(), case["error"].as_str().unwrap(), "{name}");
            assert_eq!(err.to_string(), want, "{name}");
        }
    }
}

//! Runs `tests/vectors/plan.json`: every need the planner must meet, with every layout that
//! meets it, and the needs it must refuse (generate.py's oracle computed both).

use idmint_core::plan::{plan, Need, Planned, Width};
use idmint_core::{Layout, ManualClock, Snowflake};
use serde_json::{json, Value};

fn load() -> Value {
    let path = format!("{}/../tests/vectors/plan.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn need(case: &Value) -> Need {
    let n = &case["need"];
    let width = match n["width"].as_str().unwrap() {
        "bigint" => Width::Bigint,
        "unsigned" => Width::Unsigned,
        "js-safe" => Width::JsSafe,
        w => panic!("width {w}"),
    };
    let num = |k: &str| n[k].as_u64().unwrap();
    Need::new(num("nodes"), num("rate"), num("years"))
        .unwrap()
        .start_ms(num("start_ms"))
        .width(width)
}

/// A planned layout in the vector's form (written out here, so the test does not lean on the
/// feature-gated serde derive).
fn as_json(p: &Planned) -> Value {
    json!({
        "spec": p.spec, "tick_ms": p.tick_ms, "time_bits": p.time_bits, "node_bits": p.node_bits,
        "sequence_bits": p.sequence_bits, "nodes": p.nodes, "cap_per_second": p.cap_per_second,
        "end_ms": p.end_ms, "end": p.end, "beyond_2_53_ms": p.beyond_2_53_ms,
    })
}

#[test]
fn planner_meets_every_need_as_the_oracle_does() {
    let v = load();
    let cases = v["valid"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let got = plan(&need(case)).unwrap_or_else(|e| panic!("{}: {e}", case["name"]));
        let got: Vec<Value> = got.iter().map(as_json).collect();
        assert_eq!(
            Value::from(got.clone()),
            case["layouts"],
            "{}",
            case["name"]
        );
        // Each spec is a layout core reads back, with the end the plan names, and a generator
        // mints with it (its last node value; a 64-bit layout with the opt-in; one node too).
        for l in &got {
            let layout = Layout::parse(l["spec"].as_str().unwrap()).unwrap();
            assert_eq!(layout.exhausts_at_ms(), l["end_ms"].as_u64().unwrap());
            let last = l["nodes"].as_u64().unwrap() - 1;
            let clock = ManualClock::new(layout.epoch_ms() + 1); // epochs ahead of today's clock
            let mut b = Snowflake::with_clock(layout.clone(), &clock).node("worker", last);
            if layout.is_unsigned() {
                b = b.unsigned();
            }
            let g = b.build().unwrap_or_else(|e| panic!("{}: {e}", l["spec"]));
            let id = g.next_id().unwrap();
            assert_eq!(g.decompose(id).unwrap().node("worker"), Some(last));
        }
    }
}

#[test]
fn planner_refuses_what_no_layout_holds_naming_the_bound() {
    let v = load();
    for case in v["impossible"].as_array().unwrap() {
        let e = plan(&need(case)).unwrap_err();
        assert_eq!(
            e.kind(),
            case["error"].as_str().unwrap(),
            "{}",
            case["name"]
        );
        let bound = format!("= {} bits", case["bound_bits"].as_str().unwrap());
        assert!(e.to_string().contains(&bound), "{}: {e}", case["name"]);
    }
}

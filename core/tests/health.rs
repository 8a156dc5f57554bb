//! Runs `tests/vectors/health.json`: the health rule over observations, as the Python, Node
//! and JVM packages run the same file.

use idmint_core::health::{health, Health};
use idmint_core::metrics::Observation;
use serde_json::{json, Value};

fn load() -> Value {
    let path = format!(
        "{}/../tests/vectors/health.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The case's observations read back as the packages do (`Observation::parse`).
fn observations(case: &Value) -> idmint_core::Result<Vec<Observation>> {
    case["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let attrs = o["attributes"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()));
            Observation::parse(
                o["metric"].as_str().unwrap(),
                o["value"].as_f64().unwrap(),
                attrs,
            )
        })
        .collect()
}

/// The health in the vector's form (written out here, so the test does not lean on the
/// feature-gated serde derive; `serialized_form` in src/health.rs checks that one).
fn as_json(h: &Health) -> Value {
    json!({
        "status": h.status.as_str(),
        "reasons": h.reasons,
        "lease": h.lease.as_ref().map(|l| json!({
            "held": l.held,
            "fence_s": l.fence_s,
            "renew_failures": l.renew_failures,
        })),
        "tags": h.tags.iter().map(|t| json!({
            "tag": t.tag,
            "remaining": t.remaining,
            "store_errors": t.store_errors,
            "starved": t.starved,
        })).collect::<Vec<_>>(),
    })
}

/// JSON numbers compared as numbers: the oracle writes a whole fence as `1700000060`, the
/// core's `f64` as `1700000060.0`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn health_vectors() {
    let v = load();
    let valid = v["valid"].as_array().unwrap();
    assert!(valid.len() >= 15);
    let mut down = 0;
    for case in valid {
        let h = health(observations(case).unwrap());
        let got = as_json(&h);
        assert!(
            same(&got, &case["expected"]),
            "{}:\n got  {got}\n want {}",
            case["name"],
            case["expected"]
        );
        down += usize::from(!h.is_up());
    }
    // Both answers are exercised, not one by accident.
    assert!(down >= 5 && down + 5 <= valid.len(), "{down} down");
    for case in v["invalid"].as_array().unwrap() {
        let err = observations(case).unwrap_err();
        assert_eq!(
            err.kind(),
            case["error"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
}

/// With feature `serde`, the derive gives the vector's form itself.
#[cfg(feature = "serde")]
#[test]
fn health_vectors_serialized() {
    for case in load()["valid"].as_array().unwrap() {
        let got = serde_json::to_value(health(observations(case).unwrap())).unwrap();
        assert!(same(&got, &case["expected"]), "{}", case["name"]);
    }
}

/// `layout_remaining`: a generator on a manual clock observes the time left in its layout, its
/// health alone is the vector's, and it warns at start exactly where the vector says.
#[test]
fn layout_remaining_vectors() {
    use idmint_core::metrics::observe_snowflake;
    use idmint_core::{Layout, ManualClock, Snowflake};
    let cases = load()["layout_remaining"].as_array().unwrap().clone();
    assert!(cases.len() >= 4);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let clock = ManualClock::new(case["clock_ms"].as_u64().unwrap());
        let nodes: Vec<(String, i128)> = case["nodes"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_i64().unwrap().into()))
            .collect();
        let mut b = Snowflake::with_clock(
            Layout::preset(case["layout"].as_str().unwrap()).unwrap(),
            clock,
        );
        for (k, v) in &nodes {
            b = b.node(k, *v);
        }
        let g = b.build().unwrap();
        let observed = observe_snowflake(&g);
        let remaining = observed
            .iter()
            .find(|o| o.metric == "idmint.layout.remaining")
            .unwrap();
        assert_eq!(
            remaining.value,
            case["remaining_s"].as_f64().unwrap(),
            "{name}"
        );
        assert_eq!(
            health(observed).status.as_str(),
            case["status"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            g.lifetime_warning().is_some(),
            case["warns"].as_bool().unwrap(),
            "{name}: {:?}",
            g.lifetime_warning()
        );
    }
}

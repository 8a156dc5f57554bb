//! What the plain-SQL tests (sql_postgres.rs, sql_mysql.rs) share: the vectors they check, by
//! layout, since each database loads one layout's functions at a time.

use std::collections::BTreeMap;

use serde_json::Value;

pub fn vectors(name: &str) -> Value {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Every case of time_range.json (valid, invalid) and snowflake.json (valid, invalid_ids), by
/// layout spec.
pub fn cases_by_layout() -> BTreeMap<String, Vec<Value>> {
    let mut by_layout: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let (range, snow) = (vectors("time_range.json"), vectors("snowflake.json"));
    for (file, key) in [
        (&range, "valid"),
        (&range, "invalid"),
        (&snow, "valid"),
        (&snow, "invalid_ids"),
    ] {
        for case in file[key].as_array().unwrap() {
            by_layout
                .entry(case["layout"].as_str().unwrap().into())
                .or_default()
                .push(case.clone());
        }
    }
    by_layout
}

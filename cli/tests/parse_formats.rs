//! `idmint parse` on every format it recognises: each format's published examples from
//! `tests/vectors/formats.json` in core's one JSON shape, the 64-bit presets, `--guess`,
//! `--format` and `--ids`.

use std::process::{Command, Output};

use serde_json::Value;

fn idmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(args)
        .output()
        .expect("run idmint")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("utf-8 stderr")
}

/// `idmint parse ARGS…`: its one line of JSON, and its stderr.
fn parse(args: &[&str]) -> (Value, String) {
    let mut all = vec!["parse"];
    all.extend_from_slice(args);
    let out = idmint(&all);
    assert!(out.status.success(), "{all:?}: {}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    (serde_json::from_str(&text).expect("JSON"), stderr(&out))
}

/// `idmint parse ARGS…` failing with `code`: its stderr.
fn failure(args: &[&str], code: i32) -> String {
    let mut all = vec!["parse"];
    all.extend_from_slice(args);
    let out = idmint(&all);
    assert_eq!(out.status.code(), Some(code), "{all:?}: {}", stderr(&out));
    assert!(out.stdout.is_empty());
    stderr(&out)
}

fn vectors() -> Value {
    let path = format!(
        "{}/../tests/vectors/formats.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The line `idmint parse` prints for a vector of the `decode` list: core's one shape, with
/// the ID's 64-bit integers as `ids` says (`value` a string, and any part above 2^53 - 1, by
/// default; numbers with `--ids number`).
fn expected(case: &Value, numbers: bool) -> Value {
    let big = |v: &Value| v.as_u64().is_some_and(|n| n > (1 << 53) - 1);
    let parts: serde_json::Map<String, Value> = case["parts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| match (numbers, big(v)) {
            (false, true) => (k.clone(), Value::from(v.to_string())),
            _ => (k.clone(), v.clone()),
        })
        .collect();
    let value = match (&case["value"], numbers) {
        (Value::String(v), true) => Value::from(v.parse::<u64>().unwrap()),
        (v, _) => v.clone(),
    };
    serde_json::json!({
        "format": case["format"],
        "id": case["id"],
        "value": value,
        "time_ms": case["time_ms"],
        "time": case["time"],
        "layout": case["layout"],
        "parts": parts,
    })
}

#[test]
fn published_examples_of_every_format() {
    let v = vectors();
    for case in v["decode"].as_array().unwrap() {
        let name = &case["name"];
        let text = case["text"].as_str().unwrap();
        for numbers in [false, true] {
            let mut args = vec![];
            if numbers {
                args.extend(["--ids", "number"]);
            }
            if let Some(l) = case["layout"].as_str() {
                args.extend(["--layout", l]);
            }
            args.push(text);
            let (json, err) = parse(&args);
            assert_eq!(err, "", "{name}");
            assert_eq!(json, expected(case, numbers), "{name} ({args:?})");
        }
        // The line itself: core's keys in core's order, the parts in the order of the ID's
        // bits (as core lists them), and the same line when the format is named.
        let layout = case["layout"].as_str();
        let mut args = vec!["parse"];
        if let Some(l) = layout {
            args.extend(["--layout", l]);
        }
        args.push(text);
        let line = String::from_utf8(idmint(&args).stdout).unwrap();
        let layout = layout.map(|l| idmint_core::Layout::parse(l).unwrap());
        let decoded = idmint_core::formats::decode(text, layout.as_ref()).unwrap();
        let keys = [
            "format", "id", "value", "time_ms", "time", "layout", "parts",
        ];
        let names = keys
            .iter()
            .map(|k| k.to_string())
            .chain(decoded.parts.iter().map(|(n, _)| n.clone()));
        let mut at = 0;
        for key in names {
            let found = line[at..]
                .find(&format!("\"{key}\":"))
                .unwrap_or_else(|| panic!("{name}: {key} out of order in {line}"));
            at += found + key.len();
        }
        args.splice(1..1, ["--format", case["format"].as_str().unwrap()]);
        let named = String::from_utf8(idmint(&args).stdout).unwrap();
        assert_eq!(named, line, "{name}");
    }
}

#[test]
fn discords_documented_example() {
    let out = idmint(&["parse", "--layout", "discord", "175928847299117063"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8(out.stdout.clone()).unwrap(),
        "{\"format\":\"snowflake\",\"id\":\"175928847299117063\",\"value\":\"175928847299117063\",\"time_ms\":1462015105796,\"time\":\"2016-04-30T11:18:25.796Z\",\"layout\":\"discord\",\"parts\":{\"worker\":1,\"process\":0,\"sequence\":7}}\n"
    );
    assert_eq!(stderr(&out), "");
    let (json, _) = parse(&["--layout", "discord", "175928847299117063"]);
    // The same spec by hand needs `unsigned`, and the error says so.
    let spec = "time:42,worker:5,process:5,sequence:12,epoch=1420070400000";
    let err = failure(&["--layout-spec", spec, "175928847299117063"], 2);
    assert!(err.contains("add `unsigned`"), "{err}");
    let (same, _) = parse(&[
        "--layout-spec",
        &format!("{spec},unsigned"),
        "175928847299117063",
    ]);
    // The same reading, named by its spec rather than the preset's name.
    assert_eq!(same["parts"], json["parts"]);
    assert_eq!(same["time"], json["time"]);
    let normal = idmint_core::Layout::parse(&format!("{spec},unsigned"))
        .unwrap()
        .spec();
    assert_eq!(same["layout"], normal);
}

#[test]
fn a_top_bit_id_reads_with_a_64_bit_layout_only() {
    let id = "18446744073709551615";
    let (json, _) = parse(&["--ids", "number", "--layout", "instagram", id]);
    assert_eq!(json["value"].as_u64(), Some(u64::MAX));
    assert_eq!(json["id"], id);
    assert_eq!(
        (
            json["parts"]["shard"].as_u64(),
            json["parts"]["sequence"].as_u64()
        ),
        (Some(8191), Some(1023))
    );
    let err = failure(&["--layout", "twitter", id], 1);
    assert!(err.contains("above 2^63-1"), "{err}");
}

#[test]
fn a_decimal_without_a_layout_is_a_64_bit_integer() {
    // No preset is picked for it: a reading needs --layout (or --guess for every preset's).
    let (json, err) = parse(&["175928847299117063"]);
    assert_eq!(err, "");
    assert_eq!(json["format"], "integer", "{json}");
    assert_eq!(json["value"], "175928847299117063");
    assert_eq!(json["layout"], Value::Null, "{json}");
    assert_eq!(json["parts"], serde_json::json!({"bits": 58}), "{json}");
    let (json, _) = parse(&["--layout", "discord", "175928847299117063"]);
    assert_eq!(json["parts"]["worker"], 1, "{json}");
}

#[test]
fn guess_lists_every_presets_reading() {
    let (json, err) = parse(&["--guess", "175928847299117063"]);
    assert_eq!(err, "");
    assert_eq!(json["format"], "integer");
    assert_eq!(json["parts"]["bits"], 58);
    let readings = json["readings"].as_array().unwrap();
    let discord = readings
        .iter()
        .find(|r| r["layout"] == "discord")
        .expect("a discord reading");
    assert_eq!(discord["time"], "2016-04-30T11:18:25.796Z");
    assert_eq!(
        discord["parts"],
        serde_json::json!({"worker": 1, "process": 0, "sequence": 7})
    );
    // Each reading is what `--layout` of its preset prints.
    let (alone, _) = parse(&["--layout", "discord", "175928847299117063"]);
    assert_eq!(discord, &alone);
    let layouts: Vec<&str> = readings
        .iter()
        .map(|r| r["layout"].as_str().unwrap())
        .collect();
    assert_eq!(
        layouts,
        [
            "twitter",
            "sonyflake",
            "redis-lua",
            "baidu",
            "leaf",
            "discord",
            "instagram",
            "mastodon",
            "tsid"
        ]
    );
    // Above 2^63-1 only the 64-bit presets can hold it; Java would read it as a negative long.
    let (json, _) = parse(&["--guess", "18446744073709551615"]);
    assert_eq!(json["parts"]["as_signed"], "-1");
    assert_eq!(json["readings"].as_array().unwrap().len(), 3); // mastodon's time is past 9999
                                                               // Text that is not decimal reads as its format: nothing is left to guess.
    let (json, _) = parse(&["--guess", "01ARZ3NDEKTSV4RRFFQ69G5FAV"]);
    assert_eq!(json["format"], "ulid");
    let err = failure(&["--guess", "--layout", "discord", "1"], 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn format_reads_a_text_as_the_format_named() {
    // 13 digits read as a decimal; named, they are a TSID.
    let (json, _) = parse(&["--layout", "twitter", "0123456789012"]);
    assert_eq!(json["format"], "snowflake");
    let (json, _) = parse(&["--format", "tsid", "0123456789012"]);
    assert_eq!(json["format"], "tsid");
    assert_eq!(json["time"], "2020-04-15T22:31:02.458Z");
    let err = failure(&["--format", "guid", "1"], 2);
    assert!(err.contains("snowflake, integer, objectid"), "{err}");
    let err = failure(&["--format", "ulid", "0123456789012"], 1);
    assert!(err.contains("not a valid ULID"), "{err}");
}

#[test]
fn unrecognised_text_fails_naming_the_formats_tried() {
    let v = vectors();
    for case in v["invalid"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        // The integer's errors are those of `--guess`, which reads without a layout.
        let err = failure(&["--guess", text], 1);
        assert!(err.starts_with("error: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let err = failure(&["hello"], 1);
    for format in [
        "decimal", "ObjectId", "UUID", "ULID", "KSUID", "xid", "TSID",
    ] {
        assert!(err.contains(format), "{format}: {err}");
    }
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `idmint snowflake` mints with a 64-bit layout only with `--unsigned`; what it mints then
/// parses back with the layout, the top bit's IDs included.
#[test]
fn snowflake_mints_64_bit_layouts_only_with_unsigned() {
    let args = [
        "snowflake",
        "--layout",
        "discord",
        "--node",
        "worker=31",
        "--node",
        "process=31",
        "--count",
        "3",
    ];
    let refused = idmint(&args);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("64 bits"), "{}", stderr(&refused));

    let mut opted = args.to_vec();
    opted.push("--unsigned");
    let out = idmint(&opted);
    assert!(out.status.success(), "{}", stderr(&out));
    let ids: Vec<u64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().expect("an unsigned decimal"))
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    for id in ids {
        let (v, _) = parse(&["--layout", "discord", &id.to_string()]);
        assert_eq!(v["parts"]["worker"], 31, "{v}");
        assert_eq!(v["parts"]["process"], 31, "{v}");
    }
}

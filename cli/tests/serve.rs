//! `idmint serve` end to end: a real server process on loopback, driven over HTTP.

mod serve_util;

use serve_util::Served;

#[test]
fn mints_every_kind_on_the_embedded_default() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n");
    let http = reqwest::blocking::Client::new();
    let body: serde_json::Value = http
        .post(format!("{}/v1/segment/orders?count=3", s.url()))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(body["ids"], serde_json::json!(["1", "2", "3"]), "{body}");
    let r = http
        .post(format!("{}/v1/segment/orders?count=0", s.url()))
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: serde_json::Value = r.json().unwrap();
    assert_eq!(body["error"]["kind"], "invalid_argument", "{body}");
}

/// `tests/vectors/formats.json`, the vectors of every ID format core reads.
fn format_vectors() -> serde_json::Value {
    let path = format!(
        "{}/../tests/vectors/formats.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("formats.json")).expect("JSON")
}

/// The arguments that read `text` the same way on both sides: the vector's layout, if any, and
/// `integer` for a decimal read without one (the server reads decimals with its own layout by
/// default, `idmint parse` as a 64-bit integer).
fn reading(text: &str, layout: Option<&str>) -> Vec<(&'static str, String)> {
    let mut args = Vec::new();
    if let Some(l) = layout {
        args.push(("layout", l.to_string()));
    } else if !text.is_empty()
        && text
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        args.push(("format", "integer".to_string()));
    }
    args
}

#[test]
fn idmint_parse_and_v1_parse_print_the_same_json_for_every_vector() {
    let s = Served::start("store = \"memory:\"\n");
    let http = reqwest::blocking::Client::new();
    let v = format_vectors();
    let mut compared = 0;
    for case in v["decode"].as_array().unwrap() {
        let name = &case["name"];
        let text = case["text"].as_str().unwrap();
        for ids in ["string", "number"] {
            let mut query = reading(text, case["layout"].as_str());
            query.push(("ids", ids.to_string()));
            let mut args = vec!["parse".to_string()];
            for (k, v) in &query {
                args.extend([format!("--{k}"), v.clone()]);
            }
            args.push(text.to_string());
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_idmint"))
                .args(&args)
                .output()
                .expect("run idmint parse");
            let cli = String::from_utf8(out.stdout).unwrap();
            assert!(out.status.success(), "{name}: {args:?}: {cli}");
            query.push(("id", text.to_string()));
            let r = http
                .get(format!("{}/v1/parse", s.url()))
                .query(&query)
                .send()
                .expect("GET /v1/parse");
            assert_eq!(r.status(), 200, "{name}: {query:?}");
            assert_eq!(
                r.headers()["content-type"],
                "application/json",
                "{name}: {query:?}"
            );
            let body = r.text().unwrap();
            // Byte for byte: the same keys in the same order, the same numbers and strings.
            assert_eq!(cli, format!("{body}\n"), "{name}: {query:?}");
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(json["format"], case["format"], "{name}");
            assert_eq!(json["id"], case["id"], "{name}");
            assert_eq!(json["time"], case["time"], "{name}");
            compared += 1;
        }
    }
    assert_eq!(compared, 2 * v["decode"].as_array().unwrap().len());
    // Text no format reads: the same error, as the CLI's line and the server's message.
    for case in v["invalid"].as_array().unwrap() {
        let name = &case["name"];
        let text = case["text"].as_str().unwrap();
        let mut query = reading(text, None);
        let mut args = vec!["parse".to_string()];
        for (k, v) in &query {
            args.extend([format!("--{k}"), v.clone()]);
        }
        args.extend(["--".to_string(), text.to_string()]);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_idmint"))
            .args(&args)
            .output()
            .expect("run idmint parse");
        assert_eq!(out.status.code(), Some(1), "{name}");
        query.push(("id", text.to_string()));
        let r = http
            .get(format!("{}/v1/parse", s.url()))
            .query(&query)
            .send()
            .expect("GET /v1/parse");
        assert_eq!(r.status(), 400, "{name}");
        let body: serde_json::Value = r.json().unwrap();
        assert_eq!(body["error"]["kind"], case["error"], "{name}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("error: {}\n", body["error"]["message"].as_str().unwrap()),
            "{name}"
        );
    }
}

#[test]
fn v1_parse_reads_a_decimal_with_the_servers_layout_unless_told() {
    let s = Served::start("store = \"memory:\"\n[snowflake]\nlayout = \"sonyflake\"\n");
    let get = |query: &str| -> serde_json::Value {
        reqwest::blocking::get(format!("{}/v1/parse?{query}", s.url()))
            .and_then(|r| r.json())
            .expect("GET /v1/parse")
    };
    let own = get("id=175928847299117063");
    assert_eq!(
        (&own["format"], &own["layout"]),
        (&"snowflake".into(), &"sonyflake".into()),
        "{own}"
    );
    let named = get("id=175928847299117063&layout=discord");
    assert_eq!(named["parts"]["worker"], 1, "{named}");
    let integer = get("id=175928847299117063&format=integer");
    assert_eq!(
        integer["parts"],
        serde_json::json!({"bits": 58}),
        "{integer}"
    );
    // A digits-only TSID reads as decimal unless named.
    let tsid = get("id=0123456789012&format=tsid");
    assert_eq!(tsid["time"], "2020-04-15T22:31:02.458Z", "{tsid}");
    let bad = get("id=1&format=guid");
    assert_eq!(bad["error"]["kind"], "invalid_argument", "{bad}");
}

/// A layout near its end: `idmint serve` warns at start (the core's words), `/readyz` stays 200
/// and names the degraded health, and `/metrics` publishes the time left by the server's clock.
#[test]
fn a_layout_near_its_end_warns_is_degraded_and_publishes_its_time_left() {
    let now_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    };
    // 38 time bits of 1 ms (about 8.7 years), ending 100 days from now.
    let end_ms = now_ms() + 100 * 86_400_000;
    let epoch = end_ms - (1u64 << 38);
    let layout = format!("time:38@1ms,worker:10,sequence:12,epoch={epoch}");
    let s = Served::start(&format!(
        "store = \"memory:\"\n[snowflake]\nlayout = \"{layout}\"\n"
    ));
    assert!(
        s.wait_log("runs out at", std::time::Duration::from_secs(60)),
        "{}",
        s.log()
    );
    assert!(
        s.log().contains("in 99 days") || s.log().contains("in 100 days"),
        "{}",
        s.log()
    );
    let ready = reqwest::blocking::get(format!("{}/readyz", s.admin_url())).unwrap();
    assert_eq!(ready.status(), 200);
    let body = ready.text().unwrap();
    assert!(
        body.starts_with("ready, degraded: the snowflake layout runs out in 99 days"),
        "{body}"
    );
    let before = now_ms();
    let metrics = reqwest::blocking::get(format!("{}/metrics", s.admin_url()))
        .unwrap()
        .text()
        .unwrap();
    let after = now_ms();
    let left: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("idmint_layout_remaining_seconds "))
        .unwrap_or_else(|| panic!("no time left in /metrics:\n{metrics}"))
        .parse()
        .unwrap();
    // Read between the two clock readings: exactly bounded, whatever the machine's speed.
    let (lo, hi) = (
        (end_ms - after) as f64 / 1000.0,
        (end_ms - before) as f64 / 1000.0,
    );
    assert!(lo <= left && left <= hi, "{lo} <= {left} <= {hi}");
}

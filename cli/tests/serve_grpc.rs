//! `idmint serve`'s gRPC API end to end: a Python grpcio client, generated from
//! server/proto/idmint/v1/idmint.proto, draws IDs and a lease, takes every ID of
//! tests/vectors/formats.json apart, and checks the errors, the token scopes and server
//! reflection (tests/server/grpc_client.py) against a real server process.
//!
//! The interpreter is `IDMINT_PYTHON` (a venv with `grpcio grpcio-tools grpcio-reflection`,
//! set by tests/run.sh). Unset: the test fails when `IDMINT_REQUIRE_SERVERS=1`, else skips
//! with a note.

mod serve_util;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serve_util::Served;

/// Tokens of the authorized run (SHA-256 of `grpc-full-secret` and of `grpc-uuid-secret`).
const TOKENS: &str = r#"
[[tokens]]
name = "grpc-all"
sha256 = "dd166e6a7bd03d68e74ee3fd08e09c0b03880b009049b7b4b7b7573a9d1b8ab9"
scopes = ["mint", "lease"]

[[tokens]]
name = "grpc-uuid"
sha256 = "71f3765d3a5b512e868b49b49276944326dfc5373b9676fd126f4cbcb6574a85"
scopes = ["mint:uuid7"]
"#;

fn python() -> Option<String> {
    match std::env::var("IDMINT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            assert!(
                std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "IDMINT_PYTHON is not set but IDMINT_REQUIRE_SERVERS=1"
            );
            eprintln!(
                "skipped: IDMINT_PYTHON is not set (a Python with grpcio grpcio-tools grpcio-reflection; tests/run.sh sets it)"
            );
            None
        }
    }
}

/// Runs the client against `s`; panics with its output and the server's log on failure.
fn run_client(python: &str, s: &Served, args: &[&str]) -> serde_json::Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/server/grpc_client.py");
    let out = Command::new(python)
        .arg(&script)
        .arg("--target")
        .arg(format!("127.0.0.1:{}", s.port))
        .args(args)
        .output()
        .expect("run the Python gRPC client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "grpc_client.py exited with {}:\n{stdout}\n{stderr}\nserver log:\n{}",
        out.status,
        s.log()
    );
    let summary: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("grpc_client.py's summary is not JSON ({e}):\n{stdout}"));
    assert_eq!(summary["ok"], true, "{summary}");
    summary
}

#[test]
fn python_grpc_client_draws_ids_and_a_lease() {
    let Some(python) = python() else { return };
    let s = Served::start("store = \"sqlite:./idmint.db\"\n");
    let admin = s.admin_url().trim_start_matches("http://").to_string();
    let summary = run_client(&python, &s, &["--admin", &admin]);
    let settled = summary["paused_reader"]["settled_at"].as_u64().unwrap_or(0);
    assert!((1000..=50_000_000).contains(&settled), "{summary}");
    assert_eq!(summary["segment"]["count"], 1000, "{summary}");
    assert_eq!(summary["snowflake"]["count"], 1000, "{summary}");
    assert_eq!(
        summary["bad_count"]["kind"], "invalid_argument",
        "{summary}"
    );
    let services = summary["reflection"]["services"].to_string();
    assert!(services.contains("\"idmint.v1.Ids\""), "{summary}");
    // Parse took every vector of tests/vectors/formats.json apart as core does.
    let of = summary["parse"]["of"].as_u64().unwrap_or(0);
    assert!(of > 0, "{summary}");
    assert_eq!(summary["parse"]["vectors"], of, "{summary}");

    assert_eq!(
        summary["stream"]["messages"],
        serde_json::json!([1000, 1000, 500]),
        "{summary}"
    );
    assert_eq!(summary["stream"]["until_cancelled"], 20000, "{summary}");

    // The calls are counted in the metrics under their gRPC paths.
    let metrics = reqwest::blocking::get(format!("{}/metrics", s.admin_url()))
        .and_then(|r| r.text())
        .expect("GET /metrics");
    for route in [
        "/idmint.v1.Ids/Segment",
        "/idmint.v1.Ids/Parse",
        "/idmint.v1.Ids/StreamIds",
        "/idmint.v1.Leases/Release",
    ] {
        assert!(
            metrics.contains(route),
            "{route} not in /metrics:\n{metrics}"
        );
    }
}

#[test]
fn python_grpc_client_with_tokens() {
    let Some(python) = python() else { return };
    let s = Served::start(&format!("store = \"sqlite:./idmint.db\"\n{TOKENS}"));
    let summary = run_client(
        &python,
        &s,
        &[
            "--token",
            "grpc-full-secret",
            "--narrow-token",
            "grpc-uuid-secret",
        ],
    );
    assert_eq!(summary["no_token"]["code"], "UNAUTHENTICATED", "{summary}");
    assert_eq!(
        summary["wrong_scope"]["code"], "PERMISSION_DENIED",
        "{summary}"
    );
}

/// A stream until cancelled, open when the server is told to stop (SIGTERM): the server ends
/// it with UNAVAILABLE (`shutting_down`) after the IDs already sent, so the client reconnects
/// elsewhere, and still drains and exits 0 — an open stream does not hold the stop up to the
/// grace period.
#[test]
fn sigterm_ends_an_open_stream_with_unavailable() {
    use std::io::BufRead;
    let Some(python) = python() else { return };
    // A grace period longer than any wait below: an exit within it is the stream ending, not
    // the grace running out.
    let mut s =
        Served::start("store = \"sqlite:./idmint.db\"\n[limits]\nshutdown_grace_ms = 600000\n");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/server/grpc_client.py");
    let mut client = Command::new(python)
        .arg(&script)
        .arg("--target")
        .arg(format!("127.0.0.1:{}", s.port))
        .arg("--drain-stream")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run the Python gRPC client");
    let mut lines = std::io::BufReader::new(client.stdout.take().expect("piped")).lines();
    let first = lines.next().and_then(Result::ok);
    assert_eq!(
        first.as_deref(),
        Some("streaming"),
        "server log:\n{}",
        s.log()
    );
    let code = s.term(Duration::from_secs(300));
    let last = lines.next().and_then(Result::ok).unwrap_or_default();
    let _ = client.wait();
    assert_eq!(code, Some(0), "exit after SIGTERM; log:\n{}", s.log());
    let end: serde_json::Value = serde_json::from_str(&last)
        .unwrap_or_else(|e| panic!("the client's last line is not JSON ({e}): {last}"));
    assert_eq!(end["code"], "UNAVAILABLE", "{end}\n{}", s.log());
    assert_eq!(end["kind"], "shutting_down", "{end}");
    assert!(end["ids"].as_u64().unwrap_or(0) >= 100, "{end}");
    assert_eq!(end["ids"], end["distinct"], "{end}");
    assert_eq!(end["increasing"], true, "{end}");
}

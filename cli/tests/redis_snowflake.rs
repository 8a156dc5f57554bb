//! `idmint snowflake --redis` against the test Redis (`IDMINT_TEST_REDIS_URL`, started by
//! tests/servers.sh; skipped without it unless `IDMINT_REQUIRE_SERVERS=1`).

use std::process::{Command, Output, Stdio};

fn redis() -> Option<String> {
    match std::env::var("IDMINT_TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "IDMINT_TEST_REDIS_URL is not set but IDMINT_REQUIRE_SERVERS=1"
            );
            eprintln!("skipped: IDMINT_TEST_REDIS_URL is not set (tests/servers.sh starts Redis)");
            None
        }
    }
}

fn idmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(args)
        .output()
        .unwrap()
}

fn prefix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("cli_{}_{}", std::process::id(), nanos % 1_000_000_000_000)
}

#[test]
fn processes_at_once_mint_unique_ids_of_their_shard() {
    let Some(url) = redis() else { return };
    let prefix = prefix();
    let children: Vec<_> = (0..3)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_idmint"))
                .args([
                    "snowflake",
                    "--redis",
                    &url,
                    "--redis-prefix",
                    &prefix,
                    "--tag",
                    "orders",
                    "--shard",
                    "53",
                    "--count",
                    "20000",
                ])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids: Vec<u64> = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        ids.extend(
            String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(|l| l.parse::<u64>().unwrap()),
        );
    }
    assert_eq!(ids.len(), 60_000);
    let parts = idmint(&["parse", "--layout", "redis-lua", &ids[0].to_string()]);
    let parts: serde_json::Value = serde_json::from_slice(&parts.stdout).unwrap();
    assert_eq!(parts["parts"]["shard"], 53, "{parts}");
    ids.sort_unstable();
    let dups = ids.windows(2).filter(|w| w[0] == w[1]).count();
    assert_eq!(dups, 0);
}

#[test]
fn resume_after_keeps_new_ids_above_a_time() {
    let Some(url) = redis() else { return };
    let prefix = prefix();
    // Half a second ahead of now: within the 1 s the script may run ahead of the clock.
    let floor = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 500;
    let out = idmint(&[
        "snowflake",
        "--redis",
        &url,
        "--redis-prefix",
        &prefix,
        "--resume-after",
        &floor.to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = String::from_utf8(out.stdout).unwrap();
    let parts = idmint(&["parse", "--layout", "redis-lua", id.trim()]);
    let parts: serde_json::Value = serde_json::from_slice(&parts.stdout).unwrap();
    assert!(parts["time_ms"].as_u64().unwrap() > floor, "{parts}");
    let out = idmint(&["snowflake", "--redis", &url, "--resume-after", "soon"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_server_in_another_place_is_refused() {
    let Some(url) = redis() else { return };
    let prefix = prefix();
    let mint = |urls: &str| idmint(&["snowflake", "--redis", urls, "--redis-prefix", &prefix]);
    assert!(mint(&url).status.success());
    // The same server listed twice: refused before anything is minted.
    let out = mint(&format!("{url},{url}"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("same Redis server"), "{err}");
}

#[test]
fn redis_options_need_redis_and_one_node_field() {
    let out = idmint(&["snowflake", "--shard", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let out = idmint(&[
        "snowflake",
        "--redis",
        "redis://127.0.0.1:1",
        "--node",
        "worker=1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = idmint(&[
        "snowflake",
        "--redis",
        "redis://127.0.0.1:1",
        "--layout",
        "twitter",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exactly one node field"), "{err}");
    let out = idmint(&[
        "snowflake",
        "--redis",
        "redis://127.0.0.1:1",
        "--shard",
        "4096",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("0..=4095"), "{err}");
}

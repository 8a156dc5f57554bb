//! The plain-SQL script of `idmint_core::sql_script` (what `idmint sql --dialect postgres`
//! prints) loaded into a real PostgreSQL (tests/servers.sh's, through `IDMINT_TEST_POSTGRES_URL`
//! and `psql`): every vector of `tests/vectors/` answered exactly as core answers it, errors
//! included, and the minting function counted for duplicates under concurrent connections.
//! Unset URL: fails when `IDMINT_REQUIRE_SERVERS=1`, else skips.

mod sql_util;

use std::collections::HashSet;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use idmint_core::sql_script::SqlScript;
use idmint_core::Layout;
use serde_json::Value;
use sql_util::cases_by_layout;

fn server() -> Option<String> {
    match std::env::var("IDMINT_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "IDMINT_TEST_POSTGRES_URL is not set but IDMINT_REQUIRE_SERVERS=1"
            );
            eprintln!("skipped: IDMINT_TEST_POSTGRES_URL is not set (tests/servers.sh starts it)");
            None
        }
    }
}

/// A schema of its own for each script, so layouts and tests do not meet.
fn schema(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `psql` on `url` with `schema` first on the search path.
fn psql(url: &str, schema: &str, sql: &str) -> Output {
    Command::new("psql")
        .args([url, "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .env("PGOPTIONS", format!("-c search_path={schema}"))
        .output()
        .expect("psql runs")
}

fn psql_ok(url: &str, schema: &str, sql: &str) -> String {
    let out = psql(url, schema, sql);
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The error psql printed: (message, kind from DETAIL).
fn psql_err(url: &str, schema: &str, sql: &str) -> (String, String) {
    let out = psql(url, schema, sql);
    assert!(!out.status.success(), "{sql} succeeded");
    let err = String::from_utf8(out.stderr).unwrap();
    let message = err
        .lines()
        .find_map(|l| l.strip_prefix("ERROR:  "))
        .unwrap_or_else(|| panic!("{sql}: {err}"));
    let kind = err
        .lines()
        .find_map(|l| l.strip_prefix("DETAIL:  kind: "))
        .unwrap_or_else(|| panic!("{sql}: no kind in {err}"));
    (message.to_string(), kind.to_string())
}

/// A new schema holding core's script of `layout` (minting with `nodes` when given).
fn load(url: &str, prefix: &str, layout: &str, nodes: &[(&str, i128)], max_wait_ms: u64) -> String {
    let mut script = SqlScript::new(Layout::parse(layout).unwrap())
        .unwrap()
        .max_wait_ms(max_wait_ms);
    if !nodes.is_empty() {
        script = script.minting(nodes.iter().copied()).unwrap();
    }
    let s = schema(prefix);
    psql_ok(url, "public", &format!("CREATE SCHEMA {s}"));
    let mut child = Command::new("psql")
        .args([url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-"])
        .env("PGOPTIONS", format!("-c search_path={s}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.postgres().as_bytes())
        .unwrap();
    assert!(
        child.wait().unwrap().success(),
        "loading the script of {layout}"
    );
    s
}

fn ts(ms: i64) -> String {
    format!("(timestamptz '1970-01-01 00:00:00+00' + ({ms})::bigint * interval '1 millisecond')")
}

#[test]
fn the_sql_functions_answer_every_vector_as_core_does() {
    let Some(url) = server() else { return };
    let by_layout = cases_by_layout();
    let (mut checked, mut refused_layouts) = (0, 0);
    for (spec, cases) in &by_layout {
        let layout = Layout::parse(spec).unwrap();
        if layout.total_bits() > 63 {
            // bigint cannot hold them: refused, with the reason.
            let err = SqlScript::new(layout).unwrap_err();
            assert!(err.to_string().contains("at most 63 bits"), "{spec}: {err}");
            refused_layouts += 1;
            continue;
        }
        let s = load(&url, "vec", spec, &[], 1000);
        for case in cases {
            let name = &case["name"];
            if let Some(t) = case["time_ms"]
                .as_i64()
                .filter(|_| case.get("min_id").is_some())
            {
                let got = psql_ok(
                    &url,
                    &s,
                    &format!(
                        "SELECT idmint_min_id({0}) || ' ' || idmint_max_id({0})",
                        ts(t)
                    ),
                );
                let want = format!(
                    "{} {}",
                    layout.min_id_at(t as i128).unwrap(),
                    layout.max_id_at(t as i128).unwrap()
                );
                assert_eq!(got.trim(), want, "{name}");
                assert_eq!(
                    want,
                    format!(
                        "{} {}",
                        case["min_id"].as_str().unwrap(),
                        case["max_id"].as_str().unwrap()
                    )
                );
            } else if case["error"] == "time_out_of_range" {
                let t = case["time_ms"].as_i64().unwrap();
                let want = layout.min_id_at(t as i128).unwrap_err();
                for f in ["idmint_min_id", "idmint_max_id"] {
                    let (message, kind) = psql_err(&url, &s, &format!("SELECT {f}({})", ts(t)));
                    assert_eq!(
                        (message.as_str(), kind.as_str()),
                        (want.to_string().as_str(), want.kind()),
                        "{name} {f}"
                    );
                }
            } else if case.get("fields").is_some() {
                let id = case["id"].as_str().unwrap();
                let parts = layout.decompose_str(id).unwrap();
                let got: Value = serde_json::from_str(&psql_ok(
                    &url,
                    &s,
                    &format!("SELECT idmint_decode({id})"),
                ))
                .unwrap();
                // As `idmint parse --layout … ID` prints it.
                let want =
                    serde_json::to_value(idmint_core::formats::decode(id, Some(&layout)).unwrap())
                        .unwrap();
                assert_eq!(got, want, "{name}");
                let time_ms = psql_ok(
                    &url,
                    &s,
                    &format!("SELECT (extract(epoch FROM idmint_time({id})) * 1000)::bigint"),
                );
                assert_eq!(time_ms.trim(), parts.time_ms.to_string(), "{name}");
            } else {
                let id = case["id"].as_str().unwrap();
                let Ok(value) = id.parse::<i64>() else {
                    continue; // not a bigint: PostgreSQL refuses it before any function runs
                };
                let want = layout.decompose_wide(value.into()).unwrap_err();
                let (message, kind) = psql_err(&url, &s, &format!("SELECT idmint_decode({id})"));
                assert_eq!(
                    (message.as_str(), kind.as_str()),
                    (want.to_string().as_str(), want.kind()),
                    "{name}"
                );
            }
            checked += 1;
        }
        psql_ok(&url, "public", &format!("DROP SCHEMA {s} CASCADE"));
    }
    // Every layout of the vectors but the 64-bit ones (discord, instagram, mastodon, tsid).
    assert_eq!(refused_layouts, 4);
    assert!(checked > 80, "{checked}");
}

/// `n` connections each inserting `per` IDs from `idmint_next_id()` into one table; the
/// duplicates among them counted.
fn mint_concurrently(url: &str, s: &str, n: usize, per: usize) -> (i64, i64) {
    psql_ok(url, s, "CREATE TABLE minted (id bigint NOT NULL)");
    let children: Vec<_> = (0..n)
        .map(|_| {
            Command::new("psql")
                .args([url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c"])
                .arg(format!(
                    "INSERT INTO minted SELECT idmint_next_id() FROM generate_series(1, {per})"
                ))
                .env("PGOPTIONS", format!("-c search_path={s}"))
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let got = psql_ok(
        url,
        s,
        "SELECT count(*) || ' ' || (count(*) - count(DISTINCT id)) FROM minted",
    );
    let (total, dups) = got.trim().split_once(' ').unwrap();
    (total.parse().unwrap(), dups.parse().unwrap())
}

#[test]
fn the_minting_function_never_repeats_under_concurrent_connections() {
    let Some(url) = server() else { return };
    let s = load(
        &url,
        "mint",
        "twitter",
        &[("datacenter", 3), ("worker", 9)],
        1000,
    );
    let (total, dups) = mint_concurrently(&url, &s, 8, 25_000);
    assert_eq!((total, dups), (200_000, 0));
    // Each ID decodes to the node it was given, and to a time no later than now.
    let wrong = psql_ok(
        &url,
        &s,
        "SELECT count(*) FROM minted WHERE idmint_decode(id)->'parts'->>'worker' <> '9' \
        OR idmint_decode(id)->'parts'->>'datacenter' <> '3' OR idmint_time(id) > clock_timestamp()",
    );
    assert_eq!(wrong.trim(), "0");
    psql_ok(&url, "public", &format!("DROP SCHEMA {s} CASCADE"));

    // 4 IDs a millisecond: the counter runs ahead of the clock all the time, callers wait for
    // its tick, and still no ID repeats.
    let s = load(
        &url,
        "mint",
        "time:41@1ms,worker:10,sequence:2",
        &[("worker", 1)],
        1000,
    );
    let (total, dups) = mint_concurrently(&url, &s, 8, 1_000);
    assert_eq!((total, dups), (8_000, 0));
    let future = psql_ok(
        &url,
        &s,
        "SELECT count(*) FROM minted WHERE idmint_time(id) > clock_timestamp()",
    );
    assert_eq!(future.trim(), "0");
    psql_ok(&url, "public", &format!("DROP SCHEMA {s} CASCADE"));
}

#[test]
fn the_minting_function_refuses_past_the_per_tick_limit_rather_than_repeat() {
    let Some(url) = server() else { return };
    // Ticks of 100000 s (27 hours) and 4 IDs each: a fifth ID in this tick would repeat the
    // first, so with no wait allowed it is refused, with core's message and kind.
    let spec = "time:20@100000s,worker:1,sequence:2";
    let s = load(&url, "cap", spec, &[("worker", 1)], 0);
    let ids: Vec<i64> = psql_ok(
        &url,
        &s,
        "SELECT idmint_next_id() FROM generate_series(1, 4)",
    )
    .lines()
    .map(|l| l.parse().unwrap())
    .collect();
    let layout = Layout::parse(spec).unwrap();
    let seqs: HashSet<u64> = ids
        .iter()
        .map(|id| layout.decompose(*id as u64).unwrap().sequence)
        .collect();
    assert_eq!(seqs, HashSet::from([0, 1, 2, 3]));
    let (message, kind) = psql_err(&url, &s, "SELECT idmint_next_id()");
    assert_eq!(kind, "clock_moved_backwards");
    assert!(
        message.starts_with("clock moved backwards: it is ")
            && message.ends_with("ms behind the last issued time (policy allows 0 ms)"),
        "{message}"
    );
    psql_ok(&url, "public", &format!("DROP SCHEMA {s} CASCADE"));
}

//! The MySQL/MariaDB script of `idmint_core::sql_script` (what `idmint sql --dialect mysql`
//! prints) loaded into a real MariaDB (tests/servers.sh's, through `IDMINT_TEST_MYSQL_URL` and
//! the `mysql` client): every vector of `tests/vectors/` answered exactly as core answers it,
//! errors included (message and SQLSTATE). Unset URL: fails when `IDMINT_REQUIRE_SERVERS=1`,
//! else skips.

mod sql_util;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use idmint_core::sql_script::{sqlstate, SqlScript};
use idmint_core::Layout;
use serde_json::Value;
use sql_util::cases_by_layout;

/// `mysql://USER:PASSWORD@HOST:PORT/DATABASE` as the `mysql` client's arguments.
fn server() -> Option<Vec<String>> {
    let url = match std::env::var("IDMINT_TEST_MYSQL_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => {
            assert!(
                std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "IDMINT_TEST_MYSQL_URL is not set but IDMINT_REQUIRE_SERVERS=1"
            );
            eprintln!("skipped: IDMINT_TEST_MYSQL_URL is not set (tests/servers.sh starts it)");
            return None;
        }
    };
    let rest = url.strip_prefix("mysql://").expect("a mysql:// URL");
    let (auth, rest) = rest.split_once('@').unwrap();
    let (user, password) = auth.split_once(':').unwrap();
    let (addr, db) = rest.split_once('/').unwrap();
    let (host, port) = addr.split_once(':').unwrap();
    Some(
        [
            format!("--host={host}"),
            format!("--port={port}"),
            format!("--user={user}"),
            format!("--password={password}"),
            "--batch".into(),
            "--skip-column-names".into(),
            "--raw".into(),
            db.split('?').next().unwrap().into(),
        ]
        .into(),
    )
}

fn mysql(args: &[String], sql: &str) -> Output {
    let mut child = Command::new("mysql")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mysql client runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn mysql_ok(args: &[String], sql: &str) -> String {
    let out = mysql(args, sql);
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The error the client printed: (SQLSTATE, message).
fn mysql_err(args: &[String], sql: &str) -> (String, String) {
    let out = mysql(args, sql);
    assert!(!out.status.success(), "{sql} succeeded");
    let err = String::from_utf8(out.stderr).unwrap();
    // ERROR 1644 (22003) at line 1: MESSAGE
    let line = err
        .lines()
        .find(|l| l.starts_with("ERROR "))
        .unwrap_or_else(|| panic!("{sql}: {err}"));
    let state = line.split_once('(').unwrap().1[..5].to_string();
    let message = line.split_once(": ").unwrap().1.to_string();
    (state, message)
}

/// `ms` as a DATETIME(3) literal (UTC).
fn datetime(ms: i64) -> String {
    format!(
        "TIMESTAMPADD(MICROSECOND, {}, '1970-01-01 00:00:00')",
        ms * 1000
    )
}

/// Checks a refusal: core's message whole (and short enough for MySQL 8's 128-character
/// MESSAGE_TEXT), and its kind's SQLSTATE.
fn assert_refused(db: &[String], sql: &str, want: &idmint_core::Error, name: &Value) {
    let (state, message) = mysql_err(db, sql);
    assert_eq!(
        (state.as_str(), message.as_str()),
        (sqlstate(want), want.to_string().as_str()),
        "{name}: {sql}"
    );
    assert!(message.chars().count() <= 128, "{name}: {message}");
}

#[test]
fn the_mysql_functions_answer_every_vector_as_core_does() {
    let Some(db) = server() else { return };
    let by_layout = cases_by_layout();
    let (mut checked, mut refused_layouts) = (0, 0);
    // One layout at a time: the functions have fixed names in the test database.
    for (spec, cases) in &by_layout {
        let layout = Layout::parse(spec).unwrap();
        let Ok(script) = SqlScript::new(layout.clone()) else {
            assert!(layout.total_bits() > 63, "{spec}");
            refused_layouts += 1;
            continue;
        };
        mysql_ok(&db, &script.mysql().unwrap());
        assert_eq!(
            mysql_ok(&db, "SELECT idmint_layout()").trim(),
            layout.spec()
        );
        for case in cases {
            let name = &case["name"];
            if let Some(t) = case["time_ms"]
                .as_i64()
                .filter(|_| case.get("min_id").is_some())
            {
                let want = format!(
                    "{} {}",
                    case["min_id"].as_str().unwrap(),
                    case["max_id"].as_str().unwrap()
                );
                assert_eq!(
                    want,
                    format!(
                        "{} {}",
                        layout.min_id_at(t as i128).unwrap(),
                        layout.max_id_at(t as i128).unwrap()
                    )
                );
                let got = mysql_ok(
                    &db,
                    &format!(
                        "SELECT CONCAT(idmint_min_id_ms({t}), ' ', idmint_max_id_ms({t}), ' ', \
                         idmint_min_id({0}), ' ', idmint_max_id({0}))",
                        datetime(t)
                    ),
                );
                assert_eq!(got.trim(), format!("{want} {want}"), "{name}");
            } else if case["error"] == "time_out_of_range" {
                let t = case["time_ms"].as_i64().unwrap();
                let want = layout.min_id_at(t as i128).unwrap_err();
                for f in ["idmint_min_id_ms", "idmint_max_id_ms"] {
                    assert_refused(&db, &format!("SELECT {f}({t})"), &want, name);
                }
                // DATETIME holds years 1000..=9999.
                if (-30_610_224_000_000..253_402_300_800_000).contains(&t) {
                    for f in ["idmint_min_id", "idmint_max_id"] {
                        assert_refused(&db, &format!("SELECT {f}({})", datetime(t)), &want, name);
                    }
                }
            } else if case.get("fields").is_some() {
                let id = case["id"].as_str().unwrap();
                let parts = layout.decompose_str(id).unwrap();
                let got: Value =
                    serde_json::from_str(&mysql_ok(&db, &format!("SELECT idmint_decode({id})")))
                        .unwrap();
                // As `idmint parse --layout … ID` prints it.
                let want =
                    serde_json::to_value(idmint_core::formats::decode(id, Some(&layout)).unwrap())
                        .unwrap();
                assert_eq!(got, want, "{name}");
                let time = mysql_ok(
                    &db,
                    &format!(
                        "SELECT CONCAT(idmint_time_ms({id}), ' ', \
                         FLOOR(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', idmint_time({id})) / 1000))"
                    ),
                );
                let ms = parts.time_ms.to_string();
                assert_eq!(time.trim(), format!("{ms} {ms}"), "{name}");
            } else {
                let id = case["id"].as_str().unwrap();
                let Ok(value) = id.parse::<i64>() else {
                    continue; // not a BIGINT: the server refuses it before any function runs
                };
                let want = layout.decompose_wide(value.into()).unwrap_err();
                for f in ["idmint_decode", "idmint_time_ms", "idmint_time"] {
                    assert_refused(&db, &format!("SELECT {f}({id})"), &want, name);
                }
            }
            checked += 1;
        }
        assert_eq!(
            mysql_ok(
                &db,
                "SELECT idmint_decode(NULL) IS NULL, idmint_min_id_ms(NULL) IS NULL"
            )
            .trim(),
            "1\t1"
        );
    }
    // Every layout of the vectors but the 64-bit ones (discord, instagram, mastodon, tsid).
    assert_eq!(refused_layouts, 4);
    assert!(checked > 80, "{checked}");
}

#[test]
fn the_mysql_script_has_no_minting_function() {
    let layout = Layout::preset("twitter").unwrap();
    let err = SqlScript::new(layout)
        .unwrap()
        .minting([("datacenter", 1), ("worker", 7)])
        .unwrap()
        .mysql()
        .unwrap_err();
    assert_eq!(err.kind(), "invalid_argument");
    assert!(err.to_string().contains("no minting function"), "{err}");
}

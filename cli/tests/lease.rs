//! `idmint snowflake --lease` and `idmint lease list` on a SQLite file (no server needed).

use std::process::{Command, Output};

fn idmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(args)
        .output()
        .unwrap()
}

fn ok_lines(args: &[&str]) -> Vec<String> {
    let out = idmint(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A SQLite lease store in a directory of its own, removed when the test ends (it left one in
/// the temp directory per run before).
struct Store {
    dir: std::path::PathBuf,
    url: String,
}

impl Store {
    fn new() -> Store {
        let dir = std::env::temp_dir().join(format!(
            "idmint_cli_lease_{}_{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite:{}", dir.join("leases.db").display());
        Store { dir, url }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn sequential_runs_reuse_the_released_value_above_its_fence() {
    let store = Store::new();
    let url = store.url.clone();
    let mint = |n: &str| -> Vec<u64> {
        ok_lines(&[
            "snowflake",
            "--lease",
            &url,
            "--lease-range",
            "0..3",
            "--count",
            n,
        ])
        .iter()
        .map(|l| l.parse().unwrap())
        .collect()
    };
    let first = mint("5000");
    let second = mint("5000");
    assert_eq!(first.len(), 5000);
    assert!(second[0] > *first.last().unwrap());
    // Value 0 both times (the lowest free; released at exit, no freeze after a release).
    let parse = |id: u64| -> serde_json::Value {
        serde_json::from_str(&ok_lines(&["parse", "--layout", "twitter", &id.to_string()])[0])
            .unwrap()
    };
    for id in [first[0], second[0]] {
        let parts = &parse(id)["parts"];
        assert_eq!(parts["worker"], 0, "{parts}");
        assert_eq!(parts["datacenter"], 0, "{parts}");
    }

    let json = ok_lines(&["lease", "list", "--store", &url, "--json"]);
    assert_eq!(json.len(), 1, "{json:?}");
    let row: serde_json::Value = serde_json::from_str(&json[0]).unwrap();
    assert_eq!(row["value"], 0);
    assert_eq!(row["state"], "free");
    assert_eq!(row["holder"], "");
    // The fence is the time of the last ID the second run minted.
    let last_time = parse(*second.last().unwrap())["time_ms"].as_u64().unwrap();
    assert_eq!(row["last_time_ms"], last_time, "{row}");

    let table = ok_lines(&["lease", "list", "--store", &url]);
    assert_eq!(table.len(), 2, "{table:?}");
    assert!(table[0].contains("state") && table[0].contains("last_time"));
    let cells: Vec<_> = table[1].split_whitespace().collect();
    assert_eq!(cells[..2], ["0", "free"], "{table:?}");
    assert!(cells[5].ends_with('Z'), "{table:?}");
}

#[test]
fn lease_and_node_conflict_and_ranges_are_checked() {
    let store = Store::new();
    let url = store.url.clone();
    let out = idmint(&["snowflake", "--lease", &url, "--node", "worker=1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--node"));
    let out = idmint(&["snowflake", "--lease", &url, "--lease-range", "0..5000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1023"));
    let out = idmint(&["snowflake", "--lease-range", "0..3"]);
    assert_eq!(out.status.code(), Some(2), "--lease-range needs --lease");
    let out = idmint(&["lease", "list"]);
    assert_eq!(out.status.code(), Some(2), "--store is required");
}

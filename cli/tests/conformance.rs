//! The conformance runner of docs/spec.md (`tests/conformance/run.py`) against idmint's own
//! adapter, `idmint conformance`: every vector file, every op, every check must pass; and the
//! same runner against an adapter that answers one op wrong must fail, naming that op, so the
//! first test cannot pass by checking nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn python() -> String {
    std::env::var("IDMINT_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// `run.py --json [runner_args] -- [adapter...]`, its output and its closing summary object.
fn run(runner_args: &[&str], adapter: &[&str]) -> (Output, String, Value) {
    let out = Command::new(python())
        .arg(repo().join("tests/conformance/run.py"))
        .arg("--json")
        .args(runner_args)
        .arg("--")
        .args(adapter)
        .output()
        .expect("python3 runs (IDMINT_PYTHON names another interpreter)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let summary = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| {
            panic!(
                "no summary line\nstdout:\n{stdout}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    (out, stdout, summary)
}

const IDMINT: &str = env!("CARGO_BIN_EXE_idmint");

fn vector_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("tests/vectors"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

#[test]
fn idmint_passes_every_vector_of_every_file() {
    let (out, stdout, summary) = run(&[], &[IDMINT, "conformance"]);
    assert!(out.status.success(), "runner failed:\n{stdout}");
    assert_eq!(summary["failed"], 0, "{stdout}");
    // Every vector file is covered, and each of its groups ran checks.
    let files: Vec<String> = summary["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(files, vector_files());
    for g in summary["groups"].as_array().unwrap() {
        assert!(g["passed"].as_u64().unwrap() > 0, "{g} checked nothing");
    }
    // Every op of the adapter is exercised but `ops` and `template` (invalid templates
    // only: it answers errors) — and the runner's count is far from vacuous: the vectors
    // hold over 700 cases, several read both ways.
    let used: std::collections::BTreeSet<&str> = summary["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| {
            g["ops"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o.as_str().unwrap())
        })
        .collect();
    let answered = Command::new(IDMINT)
        .arg("conformance")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"{\"op\":\"ops\"}\n")?;
            child.wait_with_output()
        })
        .unwrap();
    let ops: Value = serde_json::from_slice(&answered.stdout).unwrap();
    for op in ops["ok"].as_array().unwrap() {
        let op = op.as_str().unwrap();
        assert!(op == "ops" || used.contains(op), "op {op} is not exercised");
    }
    let passed = summary["passed"].as_u64().unwrap();
    assert!(passed >= 900, "only {passed} checks ran:\n{stdout}");
}

#[test]
fn one_file_alone_with_only() {
    let (out, stdout, summary) = run(&["--only", "typeid.json"], &[IDMINT, "conformance"]);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(summary["files"], serde_json::json!(["typeid.json"]));
    // 9 valid cases read both ways, 19 invalid ones.
    assert!(
        summary["passed"].as_u64().unwrap() >= 9 * 2 + 19,
        "{stdout}"
    );
}

/// The runner against `tests/conformance/wrong.py`, which answers one op wrong and passes the
/// rest through to `idmint conformance`: the run fails, and exactly the groups of that op.
#[test]
fn a_wrong_answer_fails_the_run_and_names_its_op() {
    let wrong = repo().join("tests/conformance/wrong.py");
    let py = python();
    for (op, file) in [
        ("compose", "snowflake.json"),
        ("decode", "formats.json"),
        ("typeid_parse", "typeid.json"),
        ("health", "health.json"),
        ("plan", "plan.json"),
        ("shortid_decode", "shortid.json"),
    ] {
        let adapter = [
            py.as_str(),
            wrong.to_str().unwrap(),
            "--op",
            op,
            "--",
            IDMINT,
            "conformance",
        ];
        let (out, stdout, summary) = run(&["--only", file], &adapter);
        assert!(
            !out.status.success(),
            "{op}: the runner passed a wrong adapter:\n{stdout}"
        );
        assert!(summary["failed"].as_u64().unwrap() > 0, "{op}: {stdout}");
        assert!(
            stdout.contains(&format!("[{op}]")),
            "{op}: mismatch not named:\n{stdout}"
        );
        for g in summary["groups"].as_array().unwrap() {
            let uses = g["ops"].as_array().unwrap().iter().any(|o| o == op);
            let failed = g["failed"].as_u64().unwrap();
            assert_eq!(failed > 0, uses, "{op}: {g}");
        }
    }
}

/// An adapter that exits at once fails the run instead of passing with nothing checked.
#[test]
fn an_adapter_that_answers_nothing_fails() {
    let out = Command::new(python())
        .arg(repo().join("tests/conformance/run.py"))
        .args(["--", "true"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("exited"), "{stdout}");
}

/// An unknown op is `invalid_argument`, as docs/spec.md says.
#[test]
fn unknown_op_is_invalid_argument() {
    use std::io::Write;
    let mut child = Command::new(IDMINT)
        .arg("conformance")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"op\":\"mint_everything\"}\nnot json\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    for l in &lines {
        assert_eq!(l["error"], "invalid_argument", "{l}");
    }
    assert!(lines[0]["message"]
        .as_str()
        .unwrap()
        .contains("mint_everything"));
}

/// docs/spec.md's table of error kinds lists every kind core has, in core's order.
#[test]
fn the_spec_lists_every_error_kind() {
    let spec = std::fs::read_to_string(repo().join("docs/spec.md")).unwrap();
    let listed: Vec<&str> = spec
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` | "))
        .filter(|(_, rest)| {
            ["InvalidValue", "OutOfRange", "State", "Store", "Lookup"]
                .iter()
                .any(|f| rest.starts_with(f))
        })
        .map(|(k, _)| k)
        .collect();
    assert_eq!(listed, idmint_core::Error::KINDS);
    assert!(spec.starts_with("# idmint spec 1.0"));
}

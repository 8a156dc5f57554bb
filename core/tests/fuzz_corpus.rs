//! Every committed seed of the fuzz targets (`fuzz/corpus/<target>/*`) through that target's own
//! assertions (`fuzz/fuzz_targets/checks/<target>.rs`, the very code the fuzz target runs), in
//! the stable test build. CI replays the corpus here, in `cargo test --workspace`, instead of
//! building the cargo-fuzz targets on nightly; the live libFuzzer runs, which look for new inputs,
//! are in the release matrix (`tests/packages.sh release`) and `tests/run.sh fuzz`
//! (fuzz/README.md).
//!
//! Its required features are the fuzz crate's (`fuzzing` for the URL readers, and the stores whose
//! URLs a driver parses); bindings/workspace-hack turns `fuzzing` on in the workspace build.

use std::collections::BTreeSet;
use std::fs;
use std::panic::{self, RefUnwindSafe};
use std::path::{Path, PathBuf};

#[path = "../../fuzz/fuzz_targets/checks"]
mod checks {
    pub mod common;
    pub mod counter_url;
    pub mod layout_spec;
    pub mod lease_url;
    pub mod obfuscate;
    pub mod objectid;
    pub mod parse_id;
    pub mod shortid;
    pub mod store_url;
    pub mod template;
    pub mod uuid7;
}

/// A target's assertions on one input: a panic is a failure.
type Check = fn(&[u8]);

/// Every fuzz target with its check: the name is its target, its file in `fuzz/fuzz_targets/`
/// and its corpus directory (`every_target_is_replayed` holds the list to them).
const TARGETS: [(&str, Check); 10] = [
    ("counter_url", checks::counter_url::check),
    ("layout_spec", checks::layout_spec::check),
    ("lease_url", checks::lease_url::check),
    ("obfuscate", checks::obfuscate::check),
    ("objectid", checks::objectid::check),
    ("parse_id", checks::parse_id::check),
    ("shortid", checks::shortid::check),
    ("store_url", checks::store_url::check),
    ("template", checks::template::check),
    ("uuid7", checks::uuid7::check),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn corpus(target: &str) -> PathBuf {
    root().join("fuzz/corpus").join(target)
}

/// A path as the failures show it: from the repository's root where it is inside it.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Runs `check` on every file in `dir`, each input under its own `catch_unwind`: the number of
/// inputs, or every failure, each naming the target and the file. A directory that is missing
/// or holds no file is a failure too, so that reading nothing never passes.
fn replay(
    target: &str,
    dir: &Path,
    check: impl Fn(&[u8]) + RefUnwindSafe,
) -> Result<usize, Vec<String>> {
    let listed = fs::read_dir(dir).and_then(|entries| {
        entries
            .map(|entry| entry.map(|e| e.path()))
            .collect::<std::io::Result<Vec<_>>>()
    });
    let mut files = match listed {
        Ok(paths) => paths,
        Err(e) => return Err(vec![format!("{target}: no corpus at {}: {e}", shown(dir))]),
    };
    files.retain(|f| f.is_file());
    files.sort();
    if files.is_empty() {
        return Err(vec![format!("{target}: no input in {}", shown(dir))]);
    }
    let mut failures = Vec::new();
    for file in &files {
        let data = match fs::read(file) {
            Ok(data) => data,
            Err(e) => {
                failures.push(format!("{target} {}: unreadable: {e}", shown(file)));
                continue;
            }
        };
        if let Err(payload) = panic::catch_unwind(|| check(&data)) {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(a panic without a message)");
            let message = message.replace('\n', "\n    ");
            failures.push(format!("{target} {}: {message}", shown(file)));
        }
    }
    if failures.is_empty() {
        Ok(files.len())
    } else {
        Err(failures)
    }
}

#[test]
fn every_seed_passes_its_targets_checks() {
    let mut failures = Vec::new();
    for (target, check) in TARGETS {
        match replay(target, &corpus(target), check) {
            Ok(inputs) => println!("{target}: {inputs} inputs replayed"),
            Err(found) => failures.extend(found),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing inputs (reproduce one with `cd fuzz && cargo +nightly fuzz run -s none \
         <target> <file>`):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn name(path: &Path) -> Option<String> {
    path.file_stem()?.to_str().map(str::to_owned)
}

/// The list above is every fuzz target (`fuzz/fuzz_targets/*.rs`) and every corpus: a new target
/// is replayed too, or this fails.
#[test]
fn every_target_is_replayed() {
    let names = |dir: &str, keep: fn(&Path) -> Option<String>| -> BTreeSet<String> {
        fs::read_dir(root().join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|entry| keep(&entry.unwrap().path()))
            .collect()
    };
    let listed: BTreeSet<String> = TARGETS.iter().map(|(t, _)| t.to_string()).collect();
    let sources = names("fuzz/fuzz_targets", |p| {
        let rust = p.is_file() && p.extension().is_some_and(|e| e == "rs");
        if rust {
            name(p)
        } else {
            None
        }
    });
    let corpora = names("fuzz/corpus", |p| if p.is_dir() { name(p) } else { None });
    assert_eq!(sources, listed, "the fuzz targets");
    assert_eq!(corpora, listed, "the corpus directories");
}

/// The harness can fail: an input that a check panics on is reported with its target and file
/// (and the other inputs still run), and a missing or empty corpus is a failure, not a pass.
#[test]
fn replay_reports_a_failing_input() {
    let dir = corpus("parse_id");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let bad = fs::read(&files[0]).unwrap();
    let failing = |data: &[u8]| {
        checks::parse_id::check(data);
        assert_ne!(data, &bad[..], "deliberately failing");
    };
    let failures = replay("parse_id", &dir, failing).expect_err("one input fails");
    let same: Vec<&PathBuf> = files
        .iter()
        .filter(|f| fs::read(f).unwrap() == bad)
        .collect();
    assert_eq!(failures.len(), same.len(), "{failures:#?}");
    let first = files[0].file_name().unwrap().to_str().unwrap();
    assert!(
        failures[0].starts_with("parse_id fuzz/corpus/parse_id/")
            && failures[0].contains(first)
            && failures[0].contains("deliberately failing"),
        "{failures:#?}"
    );
    assert_eq!(
        replay("parse_id", &dir, checks::parse_id::check),
        Ok(files.len())
    );

    let missing = root().join("fuzz/corpus/no-such-target");
    let failures = replay("no-such-target", &missing, |_| {}).expect_err("a missing corpus");
    assert!(failures[0].contains("no corpus at"), "{failures:#?}");
    let empty = std::env::temp_dir().join(format!("idmint-empty-corpus-{}", std::process::id()));
    fs::create_dir_all(&empty).unwrap();
    let result = replay("empty", &empty, |_| {});
    fs::remove_dir(&empty).unwrap();
    let failures = result.expect_err("an empty corpus");
    assert!(failures[0].contains("no input in"), "{failures:#?}");
}

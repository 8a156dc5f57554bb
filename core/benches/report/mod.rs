//! What the benches of idmint-core share: reading criterion's estimates back, and the Markdown
//! file a measuring run writes to `docs/bench/<name>.md`, the one place its figures are
//! published, with the date, the machine and the command on top.
//!
//! Each bench uses only some of these helpers, hence the allowances for unused ones.
#![allow(dead_code, unused_imports, unused_macros)]

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use criterion::Criterion;

/// Where criterion keeps its results; passed to criterion too, so writer and reader agree.
pub fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    // A relative CARGO_TARGET_DIR is relative to where cargo ran, not to this process's working
    // directory (the package), so only an absolute one can be used as is.
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        if dir.is_absolute() {
            return dir.join("criterion");
        }
    }
    // Cargo hands benches `<target-dir>/tmp`, which also follows a target-dir set in config.
    if let Some(parent) = option_env!("CARGO_TARGET_TMPDIR").and_then(|t| Path::new(t).parent()) {
        return parent.join("criterion");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion")
}

/// Run the benchmarks `benches` registers under criterion's command-line settings; where
/// criterion measured, the folder and start time to read this run's estimates with.
pub fn run_criterion(benches: impl FnOnce(&mut Criterion)) -> Option<(PathBuf, SystemTime)> {
    let started = SystemTime::now();
    let dir = criterion_dir();
    // `output_directory` is criterion's own setting, so the files read afterwards are the ones
    // it wrote; without it criterion asks `cargo metadata`, which this code cannot mirror.
    let mut c = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    benches(&mut c);
    c.final_summary();
    measuring().then_some((dir, started))
}

/// Whether criterion measures in this run; in test, list and profile runs it writes no
/// estimates, and a bench's long extra runs would only slow `cargo test --benches` down.
pub fn measuring() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| {
        args.iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
    };
    has("--bench") && !has("--test") && !has("--list") && !has("--profile-time")
}

/// Mean ns per ID of every benchmark criterion measured in this run, keyed `group/name`;
/// `per_iter` names the benchmarks to read and how many IDs one iteration makes.
///
/// Directory names are found through each benchmark's `benchmark.json` rather than
/// re-derived, since criterion rewrites `/` and other characters and de-duplicates names.
/// Results older than this run (filtered out, or `--discard-baseline`) are left out.
pub fn read_estimates(dir: &Path, since: SystemTime, per_iter: &HashMap<String, f64>) -> Results {
    let mut found = HashMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if !path.is_dir() {
                continue;
            }
            let new = path.join("new");
            let (Ok(meta), Ok(bench)) = (
                fs::metadata(new.join("estimates.json")),
                fs::read_to_string(new.join("benchmark.json")),
            ) else {
                stack.push(path);
                continue;
            };
            if meta.modified().map_or(true, |m| m < since) {
                continue;
            }
            let Some(full_id) = serde_json::from_str::<serde_json::Value>(&bench)
                .ok()
                .and_then(|v| v["full_id"].as_str().map(str::to_string))
            else {
                continue;
            };
            let mean = fs::read_to_string(new.join("estimates.json"))
                .ok()
                .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
                .and_then(|v| v["mean"]["point_estimate"].as_f64());
            if let (Some(mean), Some(n)) = (mean, per_iter.get(&full_id)) {
                found.insert(full_id, mean / n);
            }
        }
    }
    Results(found)
}

pub struct Results(HashMap<String, f64>);

impl Results {
    pub fn get(&self, group: &str, name: &str) -> Option<f64> {
        self.0.get(&format!("{group}/{name}")).copied()
    }
}

/// `println!` that also appends the line to a `String`, so the file holds what was printed.
macro_rules! tee {
    ($buf:expr) => {{
        println!();
        $buf.push('\n');
    }};
    ($buf:expr, $($arg:tt)*) => {{
        let line = format!($($arg)*);
        println!("{line}");
        $buf.push_str(&line);
        $buf.push('\n');
    }};
}
pub(crate) use tee;

/// Write `body` (the bench's Markdown tables, as printed) under a header to
/// `docs/bench/<name>.md`, unless `IDMINT_BENCH_WRITE=0`.
pub fn publish(name: &str, title: &str, body: &str) {
    if std::env::var("IDMINT_BENCH_WRITE").is_ok_and(|v| v == "0") {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("idmint-core sits in the repository's core/")
        .join("docs/bench")
        .join(format!("{name}.md"));
    let text = format!(
        "# {title}\n\n\
         - date: {}\n\
         - machine: {}\n\
         - runtime: {}\n\
         - command: `{}`\n\n\
         Written by the bench; running the command again replaces this file.\n\n{}\n",
        now_utc(),
        machine(),
        rustc_version(),
        command(),
        body.trim()
    );
    match fs::write(&path, text) {
        Ok(()) => println!("\nwrote {}", path.display()),
        Err(e) => eprintln!("could not write {}: {e}", path.display()),
    }
}

fn now_utc() -> String {
    let t = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute()
    )
}

/// OS, architecture, CPU model and count, and the load while the bench ran (a busy machine
/// depresses every figure, so a reader needs to know).
fn machine() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "CPU model unknown".to_string());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut text = format!(
        "{} {}, {cpu} × {cpus} CPUs",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    if let Ok(load) = fs::read_to_string("/proc/loadavg") {
        let load: Vec<&str> = load.split_whitespace().take(3).collect();
        text.push_str(&format!(", load average {}", load.join(" ")));
    }
    text
}

fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map_or_else(
            || "rustc (version unknown)".to_string(),
            |v| v.trim().to_string(),
        )
}

/// The cargo command that ran this bench, rebuilt from what the binary can see: the settings
/// read from the environment, the features it was compiled with, the profile (the name of the
/// folder cargo put the binary in) and the arguments after `--`.
fn command() -> String {
    let mut words: Vec<String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("IDMINT_BENCH_") && k != "IDMINT_BENCH_WRITE")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    words.sort();
    words.push("cargo bench -p idmint-core".to_string());
    let profile = std::env::current_exe().ok().and_then(|exe| {
        let dir = exe.parent()?.parent()?;
        Some(dir.file_name()?.to_string_lossy().into_owned())
    });
    if let Some(p) = profile.filter(|p| p != "release") {
        words.push(format!("--profile {p}"));
    }
    // The store features turn `segment` on themselves, so it is named only on its own.
    let stores = cfg!(any(
        feature = "sqlite",
        feature = "postgres",
        feature = "mysql",
        feature = "redis"
    ));
    let features: Vec<&str> = [
        ("segment", cfg!(feature = "segment") && !stores),
        ("sqlite", cfg!(feature = "sqlite")),
        ("postgres", cfg!(feature = "postgres")),
        ("mysql", cfg!(feature = "mysql")),
        ("redis", cfg!(feature = "redis")),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(f, _)| *f)
    .collect();
    if !features.is_empty() {
        words.push(format!("--features {}", features.join(",")));
    }
    let name = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|stem| stem.split('-').next().unwrap_or_default().to_string())
        .unwrap_or_default();
    words.push(format!("--bench {name}"));
    // Cargo adds `--bench` itself; everything else was given after `--`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if !args.is_empty() {
        words.push(format!("-- {}", args.join(" ")));
    }
    words.join(" ")
}

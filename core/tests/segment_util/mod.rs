//! Helpers of the segment tests: finding the test servers, unique names.
#![allow(dead_code)]

use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{SystemTime, UNIX_EPOCH};

#[path = "../temp_util/mod.rs"]
mod temp_util;
pub use temp_util::temp_path;

/// A new directory of this test process's own (`unique(name)`, under `temp_path`): removed at
/// exit with everything in it, a failed test's too.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = temp_path(&unique(name));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A two-worker runtime for the store tests' async calls.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A server's URL from `IDMINT_TEST_<NAME>_URL`. Unset: the test fails when
/// `IDMINT_REQUIRE_SERVERS=1` (CI, `tests/run.sh segment`), else it is skipped with a note.
pub fn server(name: &str) -> Option<String> {
    let var = format!("IDMINT_TEST_{}_URL", name.to_ascii_uppercase());
    match std::env::var(&var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "{var} is not set but IDMINT_REQUIRE_SERVERS=1: start the servers with tests/servers.sh"
            );
            eprintln!("skipped: {var} is not set (tests/servers.sh starts the servers)");
            None
        }
    }
}

/// A name no earlier run used: tables, Redis prefixes and tags of one test never meet another's.
pub fn unique(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{prefix}_{}_{}",
        std::process::id(),
        nanos % 1_000_000_000_000
    )
}

/// The store URLs to test: SQLite always (a temp file), the servers when their variable is set.
/// Each gets its own table (SQL) or key prefix (Redis, etcd, ZooKeeper); etcd with the feature
/// `etcd`, ZooKeeper with `zookeeper`.
pub fn store_urls() -> Vec<(String, String)> {
    let mut urls = Vec::new();
    let file = temp_path(&format!("{}.db", unique("idmint_seg")));
    urls.push((
        "sqlite".to_string(),
        format!("sqlite:{}?table={}", file.display(), unique("t")),
    ));
    if let Some(u) = server("postgres") {
        urls.push(("postgres".into(), format!("{u}?table={}", unique("t"))));
    }
    if let Some(u) = server("mysql") {
        urls.push(("mysql".into(), format!("{u}?table={}", unique("t"))));
    }
    if let Some(u) = server("redis") {
        urls.push(("redis".into(), format!("{u}?prefix={}", unique("p"))));
        urls.push((
            "redis-sharded".into(),
            format!("{u}?prefix={}&shards=3&shard_refill=100", unique("p")),
        ));
    }
    #[cfg(feature = "etcd")]
    if let Some(u) = server("etcd") {
        urls.push(("etcd".into(), format!("{u}?prefix={}", unique("p"))));
    }
    #[cfg(feature = "zookeeper")]
    if let Some(u) = server("zk") {
        urls.push(("zk".into(), format!("{u}?prefix={}", unique("p"))));
    }
    urls
}

/// The IDs a child process wrote to `path` (u64 little-endian, one after another).
pub fn read_ids(path: &std::path::Path) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Sorted IDs, and how many appear more than once.
pub fn duplicates(ids: &mut [u64]) -> usize {
    ids.sort_unstable();
    ids.windows(2).filter(|w| w[0] == w[1]).count()
}

/// Runs `tests/servers.sh` (e.g. `kill redis`, `start redis`), for tests that stop a server.
pub fn servers(args: &[&str]) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/servers.sh");
    let status = Command::new("bash")
        .arg(script)
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "tests/servers.sh {args:?} failed");
}

/// Whether the servers' state directory is known, so a test may stop and restart them. Unset:
/// the test fails when `IDMINT_REQUIRE_SERVERS=1`, else it is skipped with a note.
pub fn can_stop_servers() -> bool {
    if std::env::var("IDMINT_SERVERS_DIR").is_ok() {
        return true;
    }
    assert!(
        std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
        "IDMINT_SERVERS_DIR is not set: run through tests/run.sh segment"
    );
    eprintln!("skipped: IDMINT_SERVERS_DIR is not set");
    false
}

/// Runs the ignored test `name` of this test binary as a child process, with
/// `IDMINT_CHILD_URL` and `IDMINT_CHILD_OUT` set: the child draws IDs from the store and
/// writes them to the file ([`write_ids`]).
pub fn spawn_child(name: &str, url: &str, out: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            name,
            "--nocapture",
            "--test-threads=1",
        ])
        .env("IDMINT_CHILD_URL", url)
        .env("IDMINT_CHILD_OUT", out)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// The child's side: the IDs, as u64 little-endian, into the file.
pub fn write_ids(out: &Path, ids: impl IntoIterator<Item = u64>) {
    let mut w = BufWriter::new(std::fs::File::create(out).unwrap());
    for id in ids {
        w.write_all(&id.to_le_bytes()).unwrap();
    }
    w.flush().unwrap();
}

/// Waits for a child of [`spawn_child`] (which must succeed) and reads the IDs it wrote.
pub fn child_ids(mut child: Child, out: &Path, what: &str) -> Vec<u64> {
    assert!(child.wait().unwrap().success(), "{what}: a child failed");
    let mut bytes = Vec::new();
    std::fs::File::open(out)
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

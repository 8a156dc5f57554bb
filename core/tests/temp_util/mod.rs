//! One temp directory per test process, removed when the process exits: the tests' SQLite
//! files (with their `-wal` and `-shm`), marks and scratch directories leave nothing in the
//! machine's temp directory, failed tests included (libtest ends through `exit`, which runs
//! the handler), while a child process still sees every file until the parent is done.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;

static DIR: OnceLock<(u32, PathBuf)> = OnceLock::new();

/// `NAME` in this process's temp directory (`$TMPDIR/idmint-test-<pid>/NAME`), created on first
/// use and removed, with everything in it, when this process exits.
pub fn temp_path(name: &str) -> PathBuf {
    let (_, dir) = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("idmint-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // SAFETY: registers a plain function with no captured state; it touches only `DIR`.
        assert_eq!(
            unsafe { libc::atexit(remove_dir) },
            0,
            "atexit refused the cleanup"
        );
        (std::process::id(), dir)
    });
    dir.join(name)
}

extern "C" fn remove_dir() {
    // Only in the process that made it: a fork()ed child exits through the same handlers.
    if let Some((owner, dir)) = DIR.get() {
        if *owner == std::process::id() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

//! Running `idmint serve` in tests: a real process on loopback ports the OS picks (`:0`, read
//! back from the server's own ready file, so no port is chosen here and released for another
//! process to take), with its own temp directory, waited for until ready, stopped by PID
//! (SIGTERM, SIGKILL) and never left running.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Where the server writes the addresses it bound (`--ready-file`), in its directory.
pub const READY_FILE: &str = "ready.json";

/// A name no earlier run used.
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

/// A test server's URL from `IDMINT_TEST_<NAME>_URL` (tests/servers.sh). Unset: fails when
/// `IDMINT_REQUIRE_SERVERS=1`, else `None` and the test skips with a note.
pub fn store_server(name: &str) -> Option<String> {
    let var = format!("IDMINT_TEST_{}_URL", name.to_ascii_uppercase());
    match std::env::var(&var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "{var} is not set but IDMINT_REQUIRE_SERVERS=1"
            );
            eprintln!("skipped: {var} is not set (tests/servers.sh starts the servers)");
            None
        }
    }
}

/// One `idmint serve` process.
pub struct Served {
    child: Option<Child>,
    /// Its working directory (config.toml, the SQLite file, log.txt).
    pub dir: PathBuf,
    /// API port (0 until the first start has read it from the ready file).
    pub port: u16,
    /// Admin port (the same).
    pub admin_port: u16,
    config: String,
}

impl Served {
    /// Starts `idmint serve` with `config` (TOML without `listen`/`admin_listen`, which are
    /// added: port 0, the OS picks) in a fresh temp directory, reads the ports it bound from its
    /// ready file and waits until /readyz answers 200.
    pub fn start(config: &str) -> Served {
        let dir = std::env::temp_dir().join(unique("idmint-serve"));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Served::start_in(dir, config)
    }

    /// Starts the process in `dir` and returns at once, before it is ready (for a test that
    /// acts on the log itself).
    pub fn launch_in(dir: PathBuf, config: &str) -> Served {
        let mut s = Served {
            child: None,
            dir,
            port: 0,
            admin_port: 0,
            config: config.to_string(),
        };
        s.spawn();
        s
    }

    /// The same in `dir` (kept, so a restart finds its SQLite file again).
    pub fn start_in(dir: PathBuf, config: &str) -> Served {
        let mut s = Served {
            child: None,
            dir,
            port: 0,
            admin_port: 0,
            config: config.to_string(),
        };
        s.spawn();
        s.wait_ready(Duration::from_secs(60));
        s
    }

    fn write_config(&self) {
        let full = format!(
            "listen = \"127.0.0.1:{}\"\nadmin_listen = \"127.0.0.1:{}\"\n{}",
            self.port, self.admin_port, self.config
        );
        std::fs::write(self.dir.join("config.toml"), full).expect("config");
    }

    fn spawn(&mut self) {
        self.write_config();
        let _ = std::fs::remove_file(self.dir.join(READY_FILE));
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("log.txt"))
            .expect("log file");
        let child = Command::new(env!("CARGO_BIN_EXE_idmint"))
            .args([
                "serve",
                "--config",
                "config.toml",
                "--ready-file",
                READY_FILE,
            ])
            .current_dir(&self.dir)
            .env_remove("IDMINT_STORE")
            .env_remove("IDMINT_LISTEN")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .spawn()
            .expect("start idmint serve");
        self.child = Some(child);
    }

    /// Starts the process again on the same ports, directory and configuration (its clients
    /// keep their URLs). A port this process just let go can be taken meanwhile by another
    /// process's outgoing connection: then the start is tried again until the port is free.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "stop it first");
        let started = Instant::now();
        loop {
            self.spawn();
            match self.wait_started(Duration::from_secs(60)) {
                Ok(()) => break,
                Err(log) if log.contains("Address already in use") => {
                    assert!(
                        started.elapsed() < Duration::from_secs(120),
                        "ports {} and {} stayed taken:\n{log}",
                        self.port,
                        self.admin_port
                    );
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(log) => panic!("idmint serve did not start again:\n{log}"),
            }
        }
        self.wait_ready(Duration::from_secs(60));
    }

    /// Waits for the ready file the server writes once its listeners are bound and "ready" is
    /// logged, and takes its ports; Err(the log) when the process exited first.
    fn wait_started(&mut self, limit: Duration) -> Result<(), String> {
        let started = Instant::now();
        let path = self.dir.join(READY_FILE);
        loop {
            if let Ok(text) = std::fs::read_to_string(&path) {
                let bound: serde_json::Value =
                    serde_json::from_str(&text).expect("the ready file is JSON");
                let port = |key: &str| {
                    bound[key]
                        .as_str()
                        .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
                        .map(|a| a.port())
                        .unwrap_or_else(|| panic!("ready file without {key}: {text}"))
                };
                self.port = port("listen");
                self.admin_port = port("admin_listen");
                return Ok(());
            }
            if let Some(mut child) = self.child.take() {
                if child.try_wait().ok().flatten().is_some() {
                    return Err(self.log());
                }
                self.child = Some(child);
            }
            assert!(
                started.elapsed() < limit,
                "idmint serve wrote no ready file within {limit:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The API base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The admin base URL.
    pub fn admin_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.admin_port)
    }

    /// The process ID.
    pub fn pid(&self) -> i32 {
        self.child.as_ref().expect("running").id() as i32
    }

    /// Waits for the ready file, then until /readyz answers 200 (panics with the log after
    /// `limit`).
    pub fn wait_ready(&mut self, limit: Duration) {
        let started = Instant::now();
        if let Err(log) = self.wait_started(limit) {
            panic!("idmint serve exited before it was ready:\n{log}");
        }
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!("idmint serve exited with {status}:\n{}", self.log());
            }
            if http_status(self.admin_port, "/readyz") == Some(200) {
                return;
            }
            assert!(
                started.elapsed() < limit,
                "idmint serve not ready within {limit:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM, then waits for the exit (at most `limit`); returns its exit code.
    pub fn term(&mut self, limit: Duration) -> Option<i32> {
        self.signal(libc::SIGTERM);
        self.wait_exit(limit)
    }

    /// SIGKILL by PID, reaped.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends a signal (SIGHUP to reload).
    pub fn signal(&self, sig: i32) {
        unsafe { libc::kill(self.pid(), sig) };
    }

    /// Everything the process wrote.
    pub fn log(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(self.dir.join("log.txt")) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// The directory, for a path inside it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Rewrites config.toml with `config` (TOML as [`Served::start`] takes it: `listen` and
    /// `admin_listen` are added again), for a SIGHUP reload or the next restart.
    pub fn rewrite_config(&mut self, config: &str) {
        self.config = config.to_string();
        self.write_config();
    }

    /// Waits until the log contains `needle` (at most `limit`); false if it never does.
    pub fn wait_log(&self, needle: &str, limit: Duration) -> bool {
        let started = Instant::now();
        while started.elapsed() < limit {
            if self.log().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.log().contains(needle)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.kill();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The status of a plain `GET` to loopback `port` (None when nothing answers), without a
/// client library: for readiness polling.
pub fn http_status(port: u16, path: &str) -> Option<u16> {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// A file under `dir`.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// A fresh PostgreSQL database on the test server at `base` (`IDMINT_TEST_POSTGRES_URL`),
/// made with `psql`: its URL. A test's own database keeps its tags and its `idmint_workers`
/// leases apart from every other test's and every earlier run's (a store URL's `?table=`
/// would name the lease table too).
pub fn pg_database(base: &str, prefix: &str) -> String {
    let name = unique(prefix).to_ascii_lowercase();
    let out = Command::new("psql")
        .arg(base)
        .args(["-v", "ON_ERROR_STOP=1", "-q", "-c"])
        .arg(format!("CREATE DATABASE {name}"))
        .output()
        .expect("psql (tests/servers.sh install puts it on the PATH)");
    assert!(
        out.status.success(),
        "CREATE DATABASE {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (url, query) = base.split_once('?').map_or((base, ""), |(u, q)| (u, q));
    let (server, _) = url.rsplit_once('/').expect("a postgres://…/DB URL");
    if query.is_empty() {
        format!("{server}/{name}")
    } else {
        format!("{server}/{name}?{query}")
    }
}

impl Served {
    /// Starts `idmint serve` with `config` like [`Served::start`], but starts it again each
    /// time it exits before it is ready (a node lease not free yet), until ready or `limit`.
    /// Returns the server and how many starts it took.
    pub fn start_retrying(config: &str, limit: Duration) -> (Served, u32) {
        let dir = std::env::temp_dir().join(unique("idmint-serve"));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let mut s = Served {
            child: None,
            dir,
            port: 0,
            admin_port: 0,
            config: config.to_string(),
        };
        let started = Instant::now();
        let mut starts = 0;
        loop {
            // Each start asks the OS for ports again: one that exited let its ports go.
            (s.port, s.admin_port) = (0, 0);
            s.spawn();
            starts += 1;
            let left = limit.saturating_sub(started.elapsed());
            if s.wait_started(left).is_ok() {
                s.wait_ready(limit);
                return (s, starts);
            }
            s.child = None;
            assert!(
                started.elapsed() < limit,
                "idmint serve not ready within {limit:?} ({starts} starts):\n{}",
                s.log()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits for the process to exit by itself (after a signal sent with [`Served::signal`]),
    /// at most `limit`; its exit code. Panics with the log when it is still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let mut child = self.child.take().expect("running");
        let started = Instant::now();
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return status.code();
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "idmint serve did not exit within {limit:?}:\n{}",
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether the process is still running (false once it exited or was stopped).
    pub fn running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().ok().flatten().is_none())
    }
}

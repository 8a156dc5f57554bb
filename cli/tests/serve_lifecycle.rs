//! `idmint serve`'s life: SIGTERM drains and releases the node lease, SIGKILL's lease is
//! reclaimed after TTL + freeze behind the fence, configuration errors name the key, the limits
//! a slow or greedy client meets, and IDs above 2^53 written as strings unless asked.

mod serve_util;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use serve_util::{http_status, pg_database, store_server, unique, write, Served};

/// 16 IDs per millisecond: a batch of 16 000 takes a second, long enough to be in flight.
const SLOW_LAYOUT: &str = "time:41,worker:18,sequence:4";

fn ids_of(body: &serde_json::Value) -> Vec<u64> {
    body["ids"]
        .as_array()
        .unwrap_or_else(|| panic!("no ids in {body}"))
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("{v} is not a string"))
                .parse()
                .expect("decimal")
        })
        .collect()
}

/// `count` snowflake IDs from the server. A `lease_lost` refusal is asked again (for up to
/// two minutes): on a loaded machine a renewal can take longer than the lease allows, and the
/// server then refuses until it holds the lease again, which is its policy, not this test's
/// failure. Any other answer than 200 fails the test.
fn snowflakes(http: &reqwest::blocking::Client, s: &Served, count: u64) -> Vec<u64> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let r = http
            .post(format!("{}/v1/snowflake?count={count}", s.url()))
            .send()
            .expect("request");
        let status = r.status();
        let body: serde_json::Value = r.json().expect("JSON");
        if status == 409 && body["error"]["kind"] == "lease_lost" && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        }
        assert_eq!(status, 200, "{body}");
        return ids_of(&body);
    }
}

fn nodes(http: &reqwest::blocking::Client, s: &Served) -> serde_json::Value {
    let v: serde_json::Value = http
        .get(format!("{}/v1/layout", s.url()))
        .send()
        .expect("/v1/layout")
        .json()
        .expect("JSON");
    v["nodes"].clone()
}

#[test]
fn sigterm_drains_exits_0_and_releases_the_lease() {
    let Some(pg) = store_server("postgres") else {
        return;
    };
    let db = pg_database(&pg, "term");
    // A TTL far longer than the test: the second server gets value 0 only if it was released.
    let config = format!(
        "store = \"{db}\"\n[snowflake]\nlayout = \"{SLOW_LAYOUT}\"\nlease_range = \"0..0\"\n\
         lease_ttl_ms = 60000\n[limits]\nshutdown_grace_ms = 5000\n"
    );
    let mut a = Served::start(&config);
    let http = reqwest::blocking::Client::new();
    assert_eq!(nodes(&http, &a)["worker"], 0);
    let mut issued = snowflakes(&http, &a, 100);
    let slow = {
        let url = a.url();
        std::thread::spawn(move || {
            let started = Instant::now();
            let r = reqwest::blocking::Client::new()
                .post(format!("{url}/v1/snowflake?count=16000"))
                .send()
                .expect("the batch in flight at SIGTERM is answered");
            let status = r.status();
            let body: serde_json::Value = r.json().expect("a complete JSON body");
            (status, body, started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    assert!(!slow.is_finished(), "the slow batch ended before SIGTERM");
    let term_at = Instant::now();
    a.signal(libc::SIGTERM);
    // Readiness off as soon as the signal is handled (delivering it takes a moment, so the
    // first probes may still see 200), and once off never 200 again: 503, or no answer once
    // the admin port closed.
    let mut seen: Vec<Option<u16>> = Vec::new();
    let mut off_after = None;
    while !slow.is_finished() {
        let status = http_status(a.admin_port, "/readyz");
        if seen.last() != Some(&status) {
            seen.push(status);
        }
        if status == Some(200) {
            assert!(off_after.is_none(), "ready again after SIGTERM: {seen:?}");
        } else if off_after.is_none() {
            off_after = Some(term_at.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let off_after = off_after.expect("/readyz still 200 when the batch in flight ended");
    let (status, body, took) = slow.join().expect("the slow batch");
    assert_eq!(status, 200, "{body}");
    let batch = ids_of(&body);
    assert_eq!(batch.len(), 16000);
    assert!(batch.windows(2).all(|w| w[0] < w[1]), "not increasing");
    issued.extend(batch);
    let code = a.wait_exit(Duration::from_secs(60));
    let stopped = term_at.elapsed();
    assert_eq!(code, Some(0), "{}", a.log());
    eprintln!(
        "sigterm: /readyz after SIGTERM {seen:?}, off after {off_after:?}; batch took {took:?}; exited {stopped:?} after SIGTERM"
    );

    // The lease released: a server with the same single value starts at once.
    let since = Instant::now();
    let b = Served::start(&config);
    let startup = since.elapsed();
    assert_eq!(nodes(&http, &b)["worker"], 0);
    let max_a = issued.iter().copied().max().expect("IDs");
    let from_b = snowflakes(&http, &b, 1000);
    assert!(
        from_b.iter().all(|&id| id > max_a),
        "the second holder of value 0 issued an ID at or below the first's last ({max_a})"
    );
    eprintln!("sigterm: value 0 leased again, ready {startup:?} after the first stopped");
}

/// A signal sent the instant "idmint serve: ready" is logged, as Kubernetes or systemd may send
/// it: SIGTERM drains (exit 0, the lease released: the next start in the same store takes the
/// only value again) and SIGHUP reloads (the process lives on), every time. Runs
/// `IDMINT_SIGNAL_RACE_RUNS` times (default 20); the log is polled without a pause, so the
/// signal follows the line by microseconds.
#[test]
fn signals_the_instant_ready_is_logged_drain_or_reload() {
    let runs: usize = std::env::var("IDMINT_SIGNAL_RACE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    // One value and a TTL far longer than the test: a start finds it free only if the one
    // before released it.
    let config = "store = \"sqlite:./idmint.db\"\n[snowflake]\nlease_range = \"0..0\"\n\
                  lease_ttl_ms = 3600000\n[limits]\ndrain_delay_ms = 0\n";
    let dir = std::env::temp_dir().join(unique("idmint-signal-race"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let wait_for = |s: &Served, needle: &str, count: usize| {
        let started = Instant::now();
        while s.log().matches(needle).count() < count {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no {needle:?} (#{count}) within 60 s:\n{}",
                s.log()
            );
            std::hint::spin_loop();
        }
    };
    let mut hups = 0;
    for run in 1..=runs {
        let mut s = Served::launch_in(dir.clone(), config);
        wait_for(&s, "idmint serve: ready", run);
        if run % 2 == 0 {
            s.signal(libc::SIGHUP);
            hups += 1;
            wait_for(&s, "SIGHUP: tokens reloaded", hups);
        }
        s.signal(libc::SIGTERM);
        let code = s.wait_exit(Duration::from_secs(60));
        assert_eq!(code, Some(0), "run {run}: not drained:\n{}", s.log());
        wait_for(&s, "stopped", run);
        // Keep the directory (its store holds the lease) for the next run.
        std::mem::forget(s);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("signal race: {runs} starts, each signalled at its ready line: {runs} drains, {hups} reloads");
}

/// The strict form of readiness while draining: `/readyz` answers 503 (a balancer probing it
/// sees "not ready", not a dead process) while requests in flight finish.
#[test]
fn readyz_answers_503_while_draining() {
    let config = format!(
        "store = \"sqlite:./idmint.db\"\n[snowflake]\nlayout = \"{SLOW_LAYOUT}\"\n\
         [limits]\nshutdown_grace_ms = 5000\n"
    );
    let mut a = Served::start(&config);
    let slow = {
        let url = a.url();
        std::thread::spawn(move || {
            reqwest::blocking::Client::new()
                .post(format!("{url}/v1/snowflake?count=16000"))
                .send()
                .map(|r| r.status().as_u16())
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    a.signal(libc::SIGTERM);
    // 503 once the signal is handled (delivering it takes a moment), while the batch is still
    // in flight: the process answers, and says it is not ready.
    let term_at = Instant::now();
    let mut status = http_status(a.admin_port, "/readyz");
    while status == Some(200) && !slow.is_finished() {
        std::thread::sleep(Duration::from_millis(5));
        status = http_status(a.admin_port, "/readyz");
    }
    assert_eq!(status, Some(503), "{:?} after SIGTERM", term_at.elapsed());
    assert!(
        !slow.is_finished(),
        "the batch ended before readiness was seen off"
    );
    assert_eq!(slow.join().expect("batch").expect("answered"), 200);
    assert_eq!(a.wait_exit(Duration::from_secs(60)), Some(0));
}

#[test]
fn sigkill_lease_reclaimed_after_ttl_and_freeze_behind_the_fence() {
    // A TTL long enough that moving the fence (one store round trip, allowed TTL/4) does not
    // time out on a loaded CI machine (at 3 s, a renewal over 750 ms lost the lease once, on a
    // 2-core machine running the other lifecycle tests and the fuzz build beside it), short
    // enough to keep the test quick.
    const TTL_MS: u64 = 6000;
    let Some(pg) = store_server("postgres") else {
        return;
    };
    let db = pg_database(&pg, "kill");
    let config = format!(
        "store = \"{db}\"\n[snowflake]\nlease_range = \"0..0\"\nlease_ttl_ms = {TTL_MS}\n[log]\nlevel = \"warn\"\n"
    );
    let mut a = Served::start(&config);
    let http = reqwest::blocking::Client::new();
    let first_nodes = nodes(&http, &a);
    let mut issued = Vec::new();
    // Minting right up to the kill, over several lease renewals (every TTL/3).
    let until = Instant::now() + Duration::from_millis(TTL_MS * 3 / 2);
    while Instant::now() < until {
        issued.extend(snowflakes(&http, &a, 1000));
    }
    let killed_at = Instant::now();
    a.kill();
    let (b, starts) = Served::start_retrying(&config, Duration::from_millis(TTL_MS * 30));
    let reclaimed = killed_at.elapsed();
    assert_eq!(nodes(&http, &b), first_nodes, "the same single value");
    // Held until the last renewal + TTL (renewals every TTL/3), then frozen for the TTL.
    assert!(
        reclaimed >= Duration::from_millis(TTL_MS * 3 / 2),
        "value 0 leased again {reclaimed:?} after the kill: before TTL + freeze"
    );
    let max_a = issued.iter().copied().max().expect("IDs");
    let mut from_b = snowflakes(&http, &b, 1000);
    from_b.extend(snowflakes(&http, &b, 1));
    assert!(
        from_b.iter().all(|&id| id > max_a),
        "behind the fence: the new holder issued an ID at or below the killed one's last ({max_a})"
    );
    eprintln!(
        "sigkill: {} IDs from the killed server; value 0 ready again {reclaimed:?} after the kill ({starts} starts)",
        issued.len()
    );
}

fn serve_with(config: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(unique("idmint-badconf"));
    std::fs::create_dir_all(&dir).expect("dir");
    write(&dir, "bad.toml", config);
    let mut child = Command::new(env!("CARGO_BIN_EXE_idmint"))
        .args(["serve", "--config", "bad.toml"])
        .current_dir(&dir)
        .env_remove("IDMINT_STORE")
        .env_remove("IDMINT_LISTEN")
        .env_remove("IDMINT_ADMIN_LISTEN")
        .env_remove("IDMINT_CONFIG")
        .env_remove("IDMINT_LAYOUT")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("idmint serve");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("idmint serve with a bad configuration kept running:\n{config}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn configuration_errors_exit_2_naming_the_key() {
    let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    for (config, key) in [
        ("lisen = \"127.0.0.1:1\"\n".to_string(), "lisen"),
        (
            "[snowflake]\nlayout = \"time:41,worker:10,sequence:99\"\n".to_string(),
            "snowflake.layout",
        ),
        (
            format!(
                "[[tokens]]\nname = \"a\"\nsha256 = \"{hash}\"\nscopes = [\"mint\", \"mint:nope\"]\n"
            ),
            "tokens[0]",
        ),
        ("listen = \"0.0.0.0:0\"\n".to_string(), "`tokens`"),
    ] {
        let (code, stderr) = serve_with(&config);
        assert_eq!(code, Some(2), "{config}\n{stderr}");
        assert!(
            stderr.contains(key),
            "stderr does not name {key}:\n{config}\n{stderr}"
        );
        eprintln!("config error: {}", stderr.trim());
    }
}

/// Opens a connection and sends a request's headers one byte a second: the server must hang
/// up once `limits.header_read_timeout_ms` passed. Returns how long it took.
fn slow_headers(port: u16) -> Duration {
    let request = b"GET /v1/layout HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n\r\n";
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let connected = Instant::now();
    s.set_read_timeout(Some(Duration::from_secs(1)))
        .expect("timeout");
    let mut buf = [0u8; 512];
    for byte in request {
        if s.write_all(&[*byte]).is_err() {
            return connected.elapsed();
        }
        // A second's wait that also notices the server hanging up.
        loop {
            match s.read(&mut buf) {
                Ok(0) => return connected.elapsed(),
                Ok(_) => continue, // a 408 before the close: read on to the end
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    break
                }
                Err(_) => return connected.elapsed(),
            }
        }
        assert!(
            connected.elapsed() < Duration::from_secs(60),
            "still connected after {:?} of slow headers",
            connected.elapsed()
        );
    }
    panic!("the whole request was sent one byte a second without the server hanging up");
}

#[test]
fn limits_slow_headers_big_bodies_counts_methods_routes() {
    let s = Served::start(
        "store = \"sqlite:./idmint.db\"\nmax_count = 1000\n[limits]\nheader_read_timeout_ms = 500\nmax_body_bytes = 1024\n",
    );
    let http = reqwest::blocking::Client::new();

    let dropped = slow_headers(s.port);
    assert!(
        dropped >= Duration::from_millis(400),
        "slow client dropped after {dropped:?} (header_read_timeout_ms = 500)"
    );
    // The server still serves others.
    assert_eq!(
        http.get(format!("{}/v1/layout", s.url()))
            .send()
            .unwrap()
            .status(),
        200
    );

    let big = format!("{{\"holder\":\"{}\"}}", "x".repeat(2000));
    let r = http
        .post(format!("{}/v1/leases", s.url()))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .unwrap();
    assert_eq!(r.status(), 413, "{:?}", r.text());

    let r = http
        .post(format!("{}/v1/snowflake?count=1001", s.url()))
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: serde_json::Value = r.json().unwrap();
    assert_eq!(body["error"]["kind"], "invalid_argument", "{body}");
    let r = http
        .post(format!("{}/v1/snowflake?count=1000", s.url()))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);

    // (GET /v1/segment/{tag} is the tag's info, for http(s):// store clients.)
    for path in [
        "/v1/snowflake",
        "/v1/segment/a/range",
        "/v1/objectid",
        "/v1/uuid7",
    ] {
        let url = format!("{}{path}", s.url());
        assert_eq!(http.get(&url).send().unwrap().status(), 405, "GET {path}");
        assert_eq!(http.head(&url).send().unwrap().status(), 405, "HEAD {path}");
    }

    let r = http.get(format!("{}/v2/nothing", s.url())).send().unwrap();
    assert_eq!(r.status(), 404);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    let body: serde_json::Value = r.json().unwrap();
    assert!(body["error"]["kind"].is_string(), "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
    eprintln!("limits: slow headers dropped after {dropped:?}; 404 body {body}");
}

/// A body over `limits.max_body_bytes` without a Content-Length (chunked) is cut off while it
/// is read: 413 like the declared one.
#[test]
fn chunked_body_over_the_limit_is_413() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n[limits]\nmax_body_bytes = 1024\n");
    let big = format!("{{\"holder\":\"{}\"}}", "x".repeat(2000));
    let r = reqwest::blocking::Client::new()
        .post(format!("{}/v1/leases", s.url()))
        .header("content-type", "application/json")
        .body(reqwest::blocking::Body::new(std::io::Cursor::new(
            big.into_bytes(),
        )))
        .send()
        .unwrap();
    assert_eq!(r.status(), 413, "{:?}", r.text());
}

#[test]
fn ids_above_2_pow_53_are_strings_unless_numbers_asked() {
    let s = Served::start("store = \"sqlite:./idmint.db\"\n");
    let http = reqwest::blocking::Client::new();
    let text = |query: &str| {
        let r = http
            .post(format!("{}/v1/snowflake?count=3{query}", s.url()))
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        r.text().unwrap()
    };
    let items = |body: &str| -> Vec<String> {
        let list = body
            .strip_prefix("{\"ids\":[")
            .and_then(|b| b.strip_suffix("]}"))
            .unwrap_or_else(|| panic!("body {body}"));
        list.split(',').map(str::to_string).collect()
    };
    let default = text("");
    let strings = text("&ids=string");
    let numbers = text("&ids=number");
    for body in [&default, &strings] {
        for item in items(body) {
            let digits = item
                .strip_prefix('"')
                .and_then(|i| i.strip_suffix('"'))
                .unwrap_or_else(|| panic!("{item} is not a string in {body}"));
            assert!(digits.parse::<u64>().unwrap() > 1 << 53, "{body}");
        }
    }
    for item in items(&numbers) {
        assert!(
            item.bytes().all(|b| b.is_ascii_digit()),
            "{item} is not a bare number in {numbers}"
        );
        assert!(item.parse::<u64>().unwrap() > 1 << 53, "{numbers}");
    }
    eprintln!("2^53: default {default}; ?ids=number {numbers}");
}

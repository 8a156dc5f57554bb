//! `RedisSnowflake` against the original redis-id-generator script, per client: one thread, one
//! connection, against the test Redis (`IDMINT_TEST_REDIS_URL`, see tests/servers.sh). Rows:
//! the original (one `EVALSHA` per ID, the reply composed into an ID), idmint's runs of k = 100
//! (`next_ids(100)`, one round trip each) and `next_id` served from runs of 100. The table is
//! printed and, in a `cargo bench` run, written to `docs/bench/rust-redis-snowflake.md`
//! (`IDMINT_BENCH_WRITE=0` prints only).
//!
//! ```text
//! cargo bench -p idmint-core --features redis --bench redis_snowflake
//! IDMINT_BENCH_SECONDS=10 cargo bench -p idmint-core --features redis --bench redis_snowflake
//! ```

mod report;

use std::hint::black_box;
use std::time::{Duration, Instant};

use idmint_core::RedisSnowflake;
use report::tee;

const ORIGINAL: &str = include_str!("../tests/fixtures/redis-id-generator.lua");

/// IDs per second of each path, measured in turns of `slice` seconds for `secs` seconds in all
/// per path, so that a machine whose load changes during the run (other builds on shared
/// cores) weighs on every path alike. Each path returns how many IDs one call made.
fn rates(secs: f64, slice: f64, paths: &mut [&mut dyn FnMut() -> usize]) -> Vec<f64> {
    let mut ids = vec![0usize; paths.len()];
    let mut spent = vec![Duration::ZERO; paths.len()];
    for path in paths.iter_mut() {
        for _ in 0..20 {
            black_box(path());
        }
    }
    let turns = (secs / slice).ceil().max(1.0) as usize;
    for _ in 0..turns {
        for (i, path) in paths.iter_mut().enumerate() {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs_f64(slice) {
                ids[i] += path();
            }
            spent[i] += start.elapsed();
        }
    }
    ids.iter()
        .zip(&spent)
        .map(|(&n, t)| n as f64 / t.as_secs_f64())
        .collect()
}

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{prefix}_{}_{}",
        std::process::id(),
        nanos % 1_000_000_000_000
    )
}

/// A Redis without persistence on a free port below the ephemeral range, for the rows that
/// leave out the fsync the test server does on every write; stopped (by its PID, as our
/// child) when dropped.
struct ScratchRedis {
    child: std::process::Child,
    url: String,
    dir: std::path::PathBuf,
}

impl ScratchRedis {
    fn start() -> Option<ScratchRedis> {
        let port = port_below_ephemeral()?;
        let dir = std::env::temp_dir().join(unique("idmint_bench_redis"));
        std::fs::create_dir_all(&dir).ok()?;
        let child = std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
            ])
            .args(["--appendonly", "no", "--dir"])
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let url = format!("redis://127.0.0.1:{port}");
        let scratch = ScratchRedis { child, url, dir };
        let client = redis::Client::open(scratch.url.as_str()).ok()?;
        for _ in 0..100 {
            if client.get_connection().is_ok() {
                return Some(scratch);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

/// A free loopback port below the kernel's ephemeral range (redis-server cannot bind port 0
/// and say which it got): no outgoing connection is ever given such a port, so none can take
/// it between this pick and the server's bind (tests/servers.sh picks its nodes' ports alike).
fn port_below_ephemeral() -> Option<u16> {
    let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok()?;
    let low: u16 = range.split_whitespace().next()?.parse().ok()?;
    let span = low.checked_sub(10_000)?;
    let start = (std::process::id() % u32::from(span)) as u16;
    (0..span)
        .map(|i| 10_000 + (start + i) % span)
        .find(|&p| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok())
}

impl Drop for ScratchRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The three paths against one server: IDs/s of the original, of `next_ids(100)`, of `next_id`.
fn measure(url: &str, secs: f64) -> [f64; 3] {
    let client = redis::Client::open(url).expect("redis URL");
    let mut conn = client.get_connection().expect("redis connection");
    let script = redis::Script::new(ORIGINAL);
    let tag = unique("bench");
    let gen = RedisSnowflake::builder()
        .urls(url)
        .prefix(&unique("bench"))
        .shard(53)
        .connect_blocking()
        .expect("RedisSnowflake");
    let mut original = || {
        let (s, us, shard, seq): (u64, u64, u64, u64) = script
            .key(&tag)
            .key(53)
            .arg(0)
            .arg(3)
            .invoke(&mut conn)
            .expect("original script");
        black_box(((s * 1000 + us / 1000) << 22) + (shard << 10) + seq);
        1
    };
    let mut runs = || gen.next_ids(100).expect("next_ids").len();
    let mut single = || {
        black_box(gen.next_id().expect("next_id"));
        1
    };
    let r = rates(secs, 0.25, &mut [&mut original, &mut runs, &mut single]);
    [r[0], r[1], r[2]]
}

fn main() {
    let Ok(url) = std::env::var("IDMINT_TEST_REDIS_URL") else {
        println!("skipped: IDMINT_TEST_REDIS_URL is not set (tests/servers.sh starts Redis)");
        return;
    };
    // `cargo test --benches` runs this without --bench: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let secs = if quick {
        0.2
    } else {
        std::env::var("IDMINT_BENCH_SECONDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3.0)
    };
    let mut servers = vec![(
        "test Redis of tests/servers.sh (AOF, `appendfsync always`: an fsync per write)",
        measure(&url, secs),
    )];
    let scratch = ScratchRedis::start();
    match &scratch {
        Some(s) => servers.push((
            "Redis without persistence, started by the bench",
            measure(&s.url, secs),
        )),
        None => println!("no redis-server on PATH: only the test Redis is measured"),
    }
    drop(scratch);

    let mut body = String::new();
    tee!(
        body,
        "One client: one thread, one connection, Redis on loopback; the paths take turns of 0.25 s \
         ({secs} s each in all), so a change of load weighs on all of them."
    );
    tee!(body);
    tee!(body, "| server | path | IDs/s | vs the original |");
    tee!(body, "| --- | --- | --- | --- |");
    for (server, [original, runs, single]) in &servers {
        tee!(
            body,
            "| {server} | original redis-id-generator script, one `EVALSHA` per ID | {:.1} k/s | 1.0x |",
            original / 1e3
        );
        tee!(
            body,
            "| {server} | idmint `next_ids(100)`, one round trip per run | {:.0} k/s | {:.1}x |",
            runs / 1e3,
            runs / original
        );
        tee!(
            body,
            "| {server} | idmint `next_id()`, from runs of 100 | {:.0} k/s | {:.1}x |",
            single / 1e3,
            single / original
        );
    }
    if !quick {
        report::publish(
            "rust-redis-snowflake",
            "idmint-core `RedisSnowflake` benchmark",
            &body,
        );
    }
}

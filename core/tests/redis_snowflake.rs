//! `RedisSnowflake` against real Redis servers: 8 threads x 4 processes drawing 2,000,000 IDs on
//! one server and on three (one SIGKILLed and restarted mid-run), counted for duplicates; the
//! original redis-id-generator script (tests/fixtures/redis-id-generator.lua) driven the same
//! way, its duplicates reported beside idmint's; a server clock stepped back (through the
//! script's test clock key); and sets of servers configured inconsistently, refused.
//!
//! Needs `IDMINT_TEST_REDIS_URL`; the three-server tests start `redis2` and `redis3` with
//! tests/servers.sh (`IDMINT_SERVERS_DIR`).
#![cfg(feature = "redis")]

mod segment_util;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use idmint_core::{Layout, RedisSnowflake};
use segment_util::{can_stop_servers, duplicates, read_ids, server, servers, temp_dir, unique};

const ORIGINAL: &str = include_str!("fixtures/redis-id-generator.lua");

const PROCESSES: usize = 4;
const THREADS: usize = 8;
/// 2,000,000 IDs in all.
const PER_THREAD: usize = 2_000_000 / (PROCESSES * THREADS);
/// The original script takes one round trip per ID (and the test server an fsync per write): it
/// draws a fiftieth as many by default (40,000), so
/// the test stays within seconds (`IDMINT_ORIGINAL_IDS=2000000` for the full count).
fn original_per_thread() -> usize {
    std::env::var("IDMINT_ORIGINAL_IDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(PER_THREAD / 50, |n| n / (PROCESSES * THREADS))
}

fn port_file(name: &str) -> Option<String> {
    let dir = std::env::var("IDMINT_SERVERS_DIR").ok()?;
    std::fs::read_to_string(Path::new(&dir).join(format!("{name}.port")))
        .ok()
        .map(|p| format!("redis://127.0.0.1:{}", p.trim()))
}

/// The three servers: the test server and `redis2`, `redis3` (started if not running).
fn three_servers() -> Option<Vec<String>> {
    let first = server("redis")?;
    if !can_stop_servers() {
        return None;
    }
    servers(&["start", "redis2", "redis3"]);
    Some(vec![first, port_file("redis2")?, port_file("redis3")?])
}

fn redis_set(url: &str, key: &str, value: Option<u64>) {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_connection().unwrap();
    let _: () = match value {
        Some(v) => redis::cmd("SET").arg(key).arg(v).query(&mut conn).unwrap(),
        None => redis::cmd("DEL").arg(key).query(&mut conn).unwrap(),
    };
}

fn redis_keys(url: &str, pattern: &str) -> Vec<String> {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_connection().unwrap();
    redis::cmd("KEYS").arg(pattern).query(&mut conn).unwrap()
}

// ---- the child: one process of 8 threads ----

/// The original's client: one script call per ID, round robin over its nodes, moving to the
/// next node when one fails (as its Java client does), composing the ID from the reply.
struct OriginalClient {
    nodes: Vec<(redis::Client, Option<redis::Connection>)>,
    script: redis::Script,
    next: usize,
    tag: String,
}

impl OriginalClient {
    fn new(urls: &[String], tag: &str) -> OriginalClient {
        OriginalClient {
            nodes: urls
                .iter()
                .map(|u| (redis::Client::open(u.as_str()).unwrap(), None))
                .collect(),
            script: redis::Script::new(ORIGINAL),
            next: 0,
            tag: tag.to_string(),
        }
    }

    fn next_id(&mut self, shard: u64) -> u64 {
        let deadline = Instant::now() + Duration::from_secs(30);
        let step = self.nodes.len().max(3);
        loop {
            let i = self.next % self.nodes.len();
            self.next += 1;
            let (client, conn) = &mut self.nodes[i];
            if conn.is_none() {
                *conn = client
                    .get_connection_with_timeout(Duration::from_millis(300))
                    .ok();
                if let Some(c) = conn.as_mut() {
                    let _ = c.set_read_timeout(Some(Duration::from_secs(1)));
                }
            }
            if let Some(c) = conn.as_mut() {
                let reply: redis::RedisResult<(u64, u64, u64, u64)> = self
                    .script
                    .key(&self.tag)
                    .key(shard)
                    .arg(i)
                    .arg(step)
                    .invoke(c);
                match reply {
                    Ok((s, us, shard, seq)) => {
                        return ((s * 1000 + us / 1000) << 22) + (shard << 10) + seq
                    }
                    Err(_) => *conn = None,
                }
            }
            assert!(Instant::now() < deadline, "no node answered for 30 s");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Ignored in normal runs; the parent runs this binary with `--ignored --exact child_draw`.
/// Draws with 8 threads, writes the IDs (u64 LE) to IDMINT_CHILD_OUT and the server failures
/// it saw to `OUT.failures`. With IDMINT_CHILD_SYNC it writes `OUT.quarter` a quarter of the
/// way and waits there for the parent's `go` file (the parent kills a server first).
#[test]
#[ignore = "run by the multi-process tests"]
fn child_draw() {
    let (Ok(mode), Ok(urls), Ok(out)) = (
        std::env::var("IDMINT_CHILD_MODE"),
        std::env::var("IDMINT_CHILD_URLS"),
        std::env::var("IDMINT_CHILD_OUT"),
    ) else {
        return;
    };
    let tag = std::env::var("IDMINT_CHILD_TAG").unwrap();
    let prefix = std::env::var("IDMINT_CHILD_PREFIX").unwrap();
    let per_thread: usize = std::env::var("IDMINT_CHILD_PER_THREAD")
        .unwrap()
        .parse()
        .unwrap();
    let sync = std::env::var("IDMINT_CHILD_SYNC").ok().map(PathBuf::from);
    let urls: Vec<String> = urls.split(',').map(str::to_string).collect();
    let shard = 7;
    let quarter_reached = std::sync::Barrier::new(THREADS);
    let generator = (mode == "idmint").then(|| {
        RedisSnowflake::builder()
            .urls(&urls.join(","))
            .prefix(&prefix)
            .tag(&tag)
            .shard(shard)
            .op_timeout(Duration::from_millis(300))
            .retry_after(Duration::from_millis(300))
            .max_wait(Duration::from_secs(20))
            .connect_blocking()
            .unwrap()
    });
    let wait_for_go = |t: usize| {
        if let Some(dir) = &sync {
            quarter_reached.wait();
            if t == 0 {
                std::fs::write(format!("{out}.quarter"), b"").unwrap();
            }
            while !dir.join("go").exists() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    };
    let ids: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let generator = generator.clone();
                let (urls, tag, wait_for_go) = (&urls, &tag, &wait_for_go);
                s.spawn(move || {
                    let mut ids = Vec::with_capacity(per_thread);
                    let mut original = OriginalClient::new(urls, tag);
                    let mut synced = false;
                    while ids.len() < per_thread {
                        if !synced && ids.len() >= per_thread / 4 {
                            wait_for_go(t);
                            synced = true;
                        }
                        match &generator {
                            // Half the threads take runs of 100, half one ID at a time.
                            Some(g) if t % 2 == 1 && ids.len() + 100 <= per_thread => {
                                ids.extend(g.next_ids(100).unwrap())
                            }
                            Some(g) => ids.push(g.next_id().unwrap()),
                            None => ids.push(original.next_id(shard)),
                        }
                    }
                    ids
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut w = BufWriter::new(std::fs::File::create(&out).unwrap());
    for id in ids.into_iter().flatten() {
        w.write_all(&id.to_le_bytes()).unwrap();
    }
    w.flush().unwrap();
    let failures = generator.map_or(0, |g| g.stats().node_failures);
    std::fs::write(format!("{out}.failures"), failures.to_string()).unwrap();
}

struct Drawn {
    ids: usize,
    duplicates: usize,
    node_failures: u64,
    /// Printed for the reader, never asserted on.
    seconds: f64,
}

/// Runs 4 children of 8 threads; with `kill` set, SIGKILLs that server once every child is a
/// quarter of the way, lets them go on without it, and restarts it 500 ms later.
fn draw(mode: &str, urls: &[String], per_thread: usize, kill: Option<&str>) -> Drawn {
    let exe = std::env::current_exe().unwrap();
    let dir = temp_dir("idmint_rsf");
    let tag = unique("t");
    let prefix = unique("p");
    let started = Instant::now();
    let children: Vec<_> = (0..PROCESSES)
        .map(|i| {
            let out = dir.join(format!("{i}.bin"));
            let mut cmd = Command::new(&exe);
            cmd.args([
                "--ignored",
                "--exact",
                "child_draw",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("IDMINT_CHILD_MODE", mode)
            .env("IDMINT_CHILD_URLS", urls.join(","))
            .env("IDMINT_CHILD_TAG", &tag)
            .env("IDMINT_CHILD_PREFIX", &prefix)
            .env("IDMINT_CHILD_PER_THREAD", per_thread.to_string())
            .env("IDMINT_CHILD_OUT", &out)
            .stdout(std::process::Stdio::null());
            if kill.is_some() {
                cmd.env("IDMINT_CHILD_SYNC", &dir);
            }
            (cmd.spawn().unwrap(), out)
        })
        .collect();
    let mut children = children;
    if let Some(name) = kill {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !(0..PROCESSES).all(|i| dir.join(format!("{i}.bin.quarter")).exists()) {
            assert!(Instant::now() < deadline, "the children did not get going");
            for (child, _) in &mut children {
                assert!(
                    child.try_wait().unwrap().is_none(),
                    "{mode}: a child failed"
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        servers(&["kill", name]);
        std::fs::write(dir.join("go"), b"").unwrap();
        std::thread::sleep(Duration::from_millis(500));
        servers(&["start", name]);
    }
    let mut ids = Vec::with_capacity(PROCESSES * THREADS * per_thread);
    let mut node_failures = 0;
    for (mut child, out) in children {
        assert!(child.wait().unwrap().success(), "{mode}: a child failed");
        ids.extend(read_ids(&out));
        node_failures += std::fs::read_to_string(format!("{}.failures", out.display()))
            .unwrap()
            .parse::<u64>()
            .unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ids.len(), PROCESSES * THREADS * per_thread, "{mode}");
    let dups = duplicates(&mut ids);
    Drawn {
        ids: ids.len(),
        duplicates: dups,
        node_failures,
        seconds: started.elapsed().as_secs_f64(),
    }
}

fn report(what: &str, servers: usize, d: &Drawn) {
    eprintln!(
        "{what}: {} IDs from {PROCESSES} processes x {THREADS} threads on {servers} Redis server(s): {} duplicates ({} server failures seen, {:.1} s)",
        d.ids, d.duplicates, d.node_failures, d.seconds
    );
}

#[test]
fn one_server_2m_ids_no_duplicates_and_the_original_beside() {
    let Some(url) = server("redis") else { return };
    let urls = [url];
    let idmint = draw("idmint", &urls, PER_THREAD, None);
    report("idmint RedisSnowflake", 1, &idmint);
    let original = draw("original", &urls, original_per_thread(), None);
    report("original redis-id-generator script", 1, &original);
    assert_eq!(idmint.duplicates, 0, "idmint minted duplicate IDs");
}

#[test]
fn three_servers_one_killed_and_restarted_no_duplicates() {
    let Some(urls) = three_servers() else { return };
    let idmint = draw("idmint", &urls, PER_THREAD, Some("redis2"));
    report(
        "idmint RedisSnowflake, redis2 SIGKILLed and restarted",
        3,
        &idmint,
    );
    assert_eq!(idmint.duplicates, 0, "idmint minted duplicate IDs");
    assert!(
        idmint.node_failures > 0,
        "the children never noticed the killed server"
    );
    let original = draw("original", &urls, original_per_thread(), Some("redis2"));
    report(
        "original redis-id-generator script, redis2 SIGKILLed and restarted",
        3,
        &original,
    );
}

// ---- the clock of a server stepped back ----

fn connect(urls: &[&str], prefix: &str, clock: &str) -> RedisSnowflake {
    RedisSnowflake::builder()
        .urls(&urls.join(","))
        .prefix(prefix)
        .tag("orders")
        .shard(3)
        .test_clock_key(clock)
        .max_wait(Duration::from_millis(300))
        .op_timeout(Duration::from_millis(500))
        .connect_blocking()
        .unwrap()
}

#[test]
fn clock_stepped_back_reissues_nothing() {
    let Some(url) = server("redis") else { return };
    let prefix = unique("p");
    let clock = format!("{prefix}:clock");
    let gen = connect(&[&url], &prefix, &clock);
    let layout = Layout::preset("redis-lua").unwrap();
    let t0 = 1_900_000_000_000u64; // a fixed time the test controls
    let mut ids = Vec::new();
    // Draws n runs of 500; returns the time of the last ID.
    let draw = |ids: &mut Vec<u64>, n: usize| {
        for _ in 0..n {
            ids.extend(gen.next_ids(500).unwrap());
        }
        layout.decompose(*ids.last().unwrap()).unwrap().time_ms
    };

    redis_set(&url, &clock, Some(t0));
    let before_step = draw(&mut ids, 10); // 5,000 IDs: ~5 full milliseconds from t0 on
    assert!(before_step > t0, "a full millisecond moves on to the next");

    // Back by 400 ms (within max_ahead): goes on from the last millisecond, never below it.
    redis_set(&url, &clock, Some(t0 - 400));
    let n = ids.len();
    let last_ms = draw(&mut ids, 4);
    for &id in &ids[n..] {
        assert!(layout.decompose(id).unwrap().time_ms >= before_step);
    }

    // The state key lost (or a `last` written by an earlier version, which counted in keys
    // per millisecond) while the clock sits on the last millisecond: the script moves past it
    // instead of counting it from 0 again.
    let states = redis_keys(&url, &format!("{prefix}:*:seq"));
    assert!(!states.is_empty());
    for key in states {
        redis_set(&url, &key, None);
    }
    redis_set(&url, &clock, Some(last_ms));
    let last_ms = draw(&mut ids, 4);

    // Back by 10 s: beyond max_ahead this server refuses instead of reissuing.
    redis_set(&url, &clock, Some(t0 - 10_000));
    let err = gen.next_ids(10).unwrap_err();
    assert_eq!(err.kind(), "clock_moved_backwards", "{err}");

    // The clock back to normal: on from there.
    redis_set(&url, &clock, Some(last_ms + 5));
    draw(&mut ids, 2);

    let total = ids.len();
    let reissued = duplicates(&mut ids);
    eprintln!(
        "idmint, server clock stepped back 400 ms and 10 s: {total} IDs, {reissued} reissued"
    );
    assert_eq!(reissued, 0);
}

/// The original script under the same steps (its time source replaced by the same key), for
/// the note's side-by-side count. Reported, not asserted: the original's count depends on how
/// many of its milliseconds' counters expired in between.
#[test]
fn clock_stepped_back_original_for_comparison() {
    let Some(url) = server("redis") else { return };
    let prefix = unique("p");
    let clock = format!("{prefix}:clock");
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let script = redis::Script::new(ORIGINAL);
    let mut mint = |n: usize, ids: &mut Vec<u64>| {
        for _ in 0..n {
            let (s, us, shard, seq): (u64, u64, u64, u64) = script
                .key(&prefix)
                .key(3)
                .arg(0)
                .arg(3)
                .arg(&clock)
                .invoke(&mut conn)
                .unwrap();
            ids.push(((s * 1000 + us / 1000) << 22) + (shard << 10) + seq);
        }
    };
    let t0 = 1_900_000_000_000u64;
    let mut ids = Vec::new();
    redis_set(&url, &clock, Some(t0));
    mint(300, &mut ids);
    std::thread::sleep(Duration::from_millis(5)); // its counters live 1 ms
    redis_set(&url, &clock, Some(t0)); // the clock back at the same millisecond
    mint(300, &mut ids);
    let total = ids.len();
    let reissued = duplicates(&mut ids);
    eprintln!("original script, server clock stepped back: {total} IDs, {reissued} reissued");
}

#[test]
fn resume_after_is_a_floor() {
    let Some(url) = server("redis") else { return };
    let prefix = unique("p");
    let clock = format!("{prefix}:clock");
    let t0 = 1_900_000_000_000u64;
    redis_set(&url, &clock, Some(t0));
    let gen = RedisSnowflake::builder()
        .urls(&url)
        .prefix(&prefix)
        .shard(0)
        .test_clock_key(&clock)
        .resume_after_ms(t0 + 300)
        .connect_blocking()
        .unwrap();
    let first = gen.layout().decompose(gen.next_ids(1).unwrap()[0]).unwrap();
    assert_eq!(first.time_ms, t0 + 301, "after the floor, within max_ahead");
    let gen = RedisSnowflake::builder()
        .urls(&url)
        .prefix(&prefix)
        .shard(0)
        .test_clock_key(&clock)
        .resume_after_ms(t0 + 5_000)
        .max_wait(Duration::from_millis(100))
        .connect_blocking()
        .unwrap();
    let err = gen.next_ids(1).unwrap_err();
    assert_eq!(err.kind(), "clock_moved_backwards", "{err}");
}

#[test]
fn a_server_with_its_clock_behind_is_skipped_for_the_others() {
    let Some(urls) = three_servers() else { return };
    let prefix = unique("p");
    let clock = format!("{prefix}:clock");
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let gen = connect(&refs[..2], &prefix, &clock);
    let mut ids = gen.next_ids(1000).unwrap();
    // The first server's clock 1 hour back: its calls refuse, the second server mints.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    redis_set(&urls[0], &clock, Some(now - 3_600_000));
    for _ in 0..20 {
        ids.extend(gen.next_ids(100).unwrap());
    }
    assert!(gen.stats().node_failures > 0);
    redis_set(&urls[0], &clock, None);
    assert_eq!(duplicates(&mut ids), 0);
}

// ---- configuration ----

#[test]
fn servers_configured_inconsistently_are_refused() {
    let Some(urls) = three_servers() else { return };
    let (a, b, c) = (&urls[0], &urls[1], &urls[2]);
    let prefix = unique("p");
    let connect = |list: &[&String]| {
        RedisSnowflake::builder()
            .urls(
                &list
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            )
            .prefix(&prefix)
            .shard(1)
            .connect_blocking()
    };
    let err = connect(&[a, a]).unwrap_err();
    assert_eq!(err.kind(), "invalid_argument", "{err}");
    assert!(err.to_string().contains("same Redis server"), "{err}");

    let gen = connect(&[a, b]).unwrap();
    let ids = gen.next_ids(300).unwrap();
    // Each server's sequence numbers keep their residue mod 2.
    let layout = gen.layout();
    let residues: std::collections::BTreeSet<u64> = ids
        .iter()
        .map(|&id| layout.decompose(id).unwrap().sequence % 2)
        .collect();
    assert_eq!(residues.len(), 1, "one call, one server");
    assert!(connect(&[a, b]).is_ok(), "the same list again is fine");

    for wrong in [vec![b, a], vec![c, b], vec![a, b, c], vec![a]] {
        let err = connect(&wrong).unwrap_err();
        assert_eq!(err.kind(), "invalid_argument", "{wrong:?}: {err}");
    }
    // A refused client left no record: c alone is a set of its own.
    connect(&[c]).unwrap().next_ids(5).unwrap();
}

#[test]
fn arguments_are_checked() {
    let two_nodes = Layout::preset("twitter").unwrap();
    let err = RedisSnowflake::builder()
        .urls("redis://127.0.0.1:1")
        .layout(two_nodes)
        .connect_blocking()
        .unwrap_err();
    assert_eq!(err.kind(), "invalid_layout", "{err}");
    let err = RedisSnowflake::builder()
        .urls("redis://127.0.0.1:1")
        .shard(4096)
        .connect_blocking()
        .unwrap_err();
    assert_eq!(err.kind(), "value_out_of_range", "{err}");
    let err = RedisSnowflake::builder().connect_blocking().unwrap_err();
    assert_eq!(err.kind(), "invalid_argument", "{err}");
    let err = RedisSnowflake::builder()
        .urls("redis://127.0.0.1:1")
        .op_timeout(Duration::from_millis(100))
        .connect_blocking()
        .unwrap_err();
    assert_eq!(err.kind(), "store_unavailable", "{err}");

    let Some(url) = server("redis") else { return };
    let gen = RedisSnowflake::builder()
        .urls(&url)
        .prefix(&unique("p"))
        .connect_blocking()
        .unwrap();
    assert_eq!(gen.next_id().unwrap_err().kind(), "missing_field");
    assert_eq!(
        gen.next_ids_for(1, 0).unwrap_err().kind(),
        "invalid_argument"
    );
    assert_eq!(
        gen.next_id_for(4096).unwrap_err().kind(),
        "value_out_of_range"
    );
    let before = gen.stats().round_trips;
    let run = gen.next_ids_for(4095, 100).unwrap();
    assert_eq!(
        gen.stats().round_trips - before,
        1,
        "one round trip for 100"
    );
    assert!(run.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        gen.layout().decompose(run[0]).unwrap().node("shard"),
        Some(4095)
    );
}

#[test]
fn async_calls_on_the_callers_runtime() {
    let Some(url) = server("redis") else { return };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let gen = RedisSnowflake::builder()
            .urls(&url)
            .prefix(&unique("p"))
            .shard(2)
            .batch(10)
            .connect()
            .await
            .unwrap();
        let mut ids = Vec::new();
        for _ in 0..25 {
            ids.push(gen.next_id_async().await.unwrap());
        }
        ids.extend(gen.next_ids_async(50).await.unwrap());
        assert_eq!(gen.stats().round_trips, 4, "3 batches of 10, then 1 run");
        assert_eq!(duplicates(&mut ids), 0);
        // A blocking call from inside the runtime neither panics nor hangs.
        assert!(gen.next_ids(5).is_ok());
        // Nor does dropping a generator with a runtime of its own on an async thread.
        let own = RedisSnowflake::builder()
            .urls(&url)
            .prefix(&unique("p"))
            .shard(2)
            .connect_blocking()
            .unwrap();
        assert_eq!(own.next_ids(3).unwrap().len(), 3);
        tokio::spawn(async move { drop(own) }).await.unwrap();
    });
}

#[test]
fn try_next_id_never_waits_and_fills_in_the_background() {
    let Some(url) = server("redis") else { return };
    let gen = RedisSnowflake::builder()
        .urls(&url)
        .prefix(&unique("p"))
        .shard(6)
        .batch(10)
        .connect_blocking()
        .unwrap();
    assert_eq!(gen.try_next_id().unwrap_err().kind(), "would_block");
    assert_eq!(
        gen.try_next_id_for(4096).unwrap_err().kind(),
        "value_out_of_range",
        "a bad shard is said at once, not lost in the background"
    );
    let deadline = Instant::now() + Duration::from_secs(3);
    let first = loop {
        match gen.try_next_id() {
            Ok(id) => break id,
            Err(e) if e.kind() == "would_block" && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Err(e) => panic!("{e}"),
        }
    };
    // The background run was 10 IDs: 9 more without a round trip.
    let trips = gen.stats().round_trips;
    let mut ids = vec![first];
    for _ in 0..9 {
        ids.push(gen.try_next_id().unwrap());
    }
    assert_eq!(gen.stats().round_trips, trips);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        gen.layout().decompose(first).unwrap().node("shard"),
        Some(6)
    );
}

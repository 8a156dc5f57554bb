//! Redis Cluster and Sentinel under a failover: 4 processes draw segment IDs, leased-worker
//! snowflake IDs, daily-counter numbers and RedisSnowflake IDs while the master holding their
//! keys is killed with SIGKILL (by PID, through tests/servers.sh) and then started again as a
//! replica. Every kind: 0 duplicates, and IDs come again after the failover without any help
//! (the gap is measured). Needs `IDMINT_TEST_REDIS_CLUSTER_URL` / `_SENTINEL_URL` and
//! `IDMINT_SERVERS_DIR` (`tests/servers.sh start redis-cluster redis-sentinel`).
//!
//! `IDMINT_HA_REPLICAS=0` runs the same with `?replicas=0` (no `WAIT`), by hand, to see what the
//! `WAIT` is for: the duplicates a failover can then make are reported (and fail the test).
#![cfg(feature = "redis")]

mod segment_util;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use idmint_core::lease::LeaseOptions;
use idmint_core::segment::{
    open_store, DailyCounterOptions, RedisDailyCounter, SegmentClient, StoreOptions, TagSpec,
};
use idmint_core::{DailyCounter, Layout, RedisSnowflake, Snowflake};
use segment_util::{
    can_stop_servers, duplicates, server, servers, spawn_child, temp_dir, unique, write_ids,
};

const PROCESSES: usize = 4;

/// The cluster tests one at a time: one kills a master, the other needs every master.
static CLUSTER: Mutex<()> = Mutex::new(());
const KINDS: [&str; 4] = ["segment", "lease", "counter", "snowflake"];
/// The day every counter draws from (any day: the key is what matters).
const DAY: u32 = 20_261_123;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// What a child was given, in `IDMINT_CHILD_URL`: the URL and the names of each kind's keys,
/// space separated (a URL has no spaces).
struct Names {
    url: String,
    seg_tag: String,
    lease_prefix: String,
    counter_name: String,
    sf_tag: String,
}

impl Names {
    fn encode(&self) -> String {
        [
            &self.url,
            &self.seg_tag,
            &self.lease_prefix,
            &self.counter_name,
            &self.sf_tag,
        ]
        .map(String::as_str)
        .join(" ")
    }

    fn decode(s: &str) -> Names {
        let p: Vec<&str> = s.split(' ').collect();
        Names {
            url: p[0].into(),
            seg_tag: p[1].into(),
            lease_prefix: p[2].into(),
            counter_name: p[3].into(),
            sf_tag: p[4].into(),
        }
    }
}

/// Draws from `draw` until `stop` exists: the IDs into `out.<kind>`, and a line
/// `ids errors longest_gap_ms last_ok_unix_ms` into `out.<kind>.txt`. Errors (the failover)
/// are counted and the call tried again after a moment, as a service would.
fn draw_until(
    out: &Path,
    kind: &str,
    stop: &Path,
    mut draw: impl FnMut() -> idmint_core::Result<Vec<u64>>,
) {
    let (mut ids, mut errors, mut gap, mut last_ok) = (Vec::new(), 0u64, 0u64, 0u64);
    let mut first_error = None;
    let limit = Instant::now() + Duration::from_secs(90);
    while !stop.exists() && Instant::now() < limit {
        match draw() {
            Ok(got) => {
                let now = now_ms();
                if last_ok > 0 {
                    gap = gap.max(now - last_ok);
                }
                last_ok = now;
                ids.extend(got);
                thread::sleep(Duration::from_millis(2));
            }
            Err(e) => {
                errors += 1;
                first_error.get_or_insert_with(|| e.to_string());
                thread::sleep(Duration::from_millis(20));
            }
        }
    }
    if let Some(e) = first_error {
        eprintln!("{kind}: {errors} errors, the first: {e}");
    }
    let path = |ext: &str| out.with_extension(ext);
    std::fs::write(
        path(&format!("{kind}.txt")),
        format!("{} {errors} {gap} {last_ok}", ids.len()),
    )
    .unwrap();
    write_ids(&path(kind), ids);
}

/// One of the 4 processes: a thread per kind, all drawing until the parent writes `stop`.
#[test]
#[ignore = "a child process of the failover tests"]
fn child_failover() {
    let (Ok(given), Ok(out)) = (
        std::env::var("IDMINT_CHILD_URL"),
        std::env::var("IDMINT_CHILD_OUT"),
    ) else {
        return;
    };
    let n = Arc::new(Names::decode(&given));
    let out = Path::new(&out).to_path_buf();
    let stop = out.parent().unwrap().join("stop");
    let mut threads = Vec::new();
    for kind in KINDS {
        let (n, out, stop) = (n.clone(), out.clone(), stop.clone());
        threads.push(thread::spawn(move || match kind {
            "segment" => {
                // Small steps: hundreds of allocations in a run, some of them in the failover.
                let client = SegmentClient::builder()
                    .store_url(&with_query(&n.url, &format!("prefix={}", n.seg_tag)))
                    .default_step(100)
                    .max_step(200)
                    .op_timeout(Duration::from_secs(2))
                    .max_wait(Duration::from_secs(2))
                    .connect_blocking()
                    .unwrap();
                let h = client.tag(&n.seg_tag).unwrap();
                draw_until(&out, kind, &stop, || {
                    h.next_ids(20).map(|r| r.into_iter().collect())
                });
            }
            "lease" => {
                let g = Snowflake::builder(Layout::preset("twitter").unwrap())
                    .lease(
                        LeaseOptions::url(&with_query(
                            &n.url,
                            &format!("prefix={}", n.lease_prefix),
                        ))
                        .range(0, 15)
                        .ttl(Duration::from_secs(3)),
                    )
                    .build()
                    .unwrap();
                draw_until(&out, kind, &stop, || g.next_ids(20));
            }
            "counter" => {
                let opts = DailyCounterOptions::default()
                    .timeout(Duration::from_secs(2))
                    .unwrap();
                let c = RedisDailyCounter::connect(&n.url, &n.counter_name, &opts).unwrap();
                draw_until(&out, kind, &stop, || c.next(DAY).map(|v| vec![v]));
            }
            _ => {
                let g = RedisSnowflake::builder()
                    .urls(&n.url)
                    .tag(&n.sf_tag)
                    .shard(1)
                    .batch(20)
                    .connect_blocking()
                    .unwrap();
                draw_until(&out, kind, &stop, || g.next_ids(20));
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
}

fn conn(port: u16) -> redis::Connection {
    redis::Client::open(format!("redis://127.0.0.1:{port}"))
        .unwrap()
        .get_connection_with_timeout(Duration::from_secs(2))
        .unwrap()
}

/// `host:port` pairs of a cluster or sentinel URL.
fn ports(url: &str) -> Vec<u16> {
    let hosts = url.split("://").nth(1).unwrap().split('/').next().unwrap();
    hosts
        .split(',')
        .map(|h| h.rsplit(':').next().unwrap().parse().unwrap())
        .collect()
}

/// The name tests/servers.sh gave the node on `port` (its `NAME.port` file).
fn node_name(port: u16) -> String {
    let dir = std::env::var("IDMINT_SERVERS_DIR").unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "port")
            && std::fs::read_to_string(&path).unwrap().trim() == port.to_string()
        {
            return path.file_stem().unwrap().to_string_lossy().into_owned();
        }
    }
    panic!("no node on port {port}");
}

/// The master port serving `slot`, as the node on `via` sees it.
fn slot_master(via: u16, slot: i64) -> Option<u16> {
    let slots: Vec<redis::Value> = redis::cmd("CLUSTER")
        .arg("SLOTS")
        .query(&mut conn(via))
        .ok()?;
    for s in slots {
        let redis::Value::Array(parts) = s else {
            continue;
        };
        let (lo, hi): (i64, i64) = (
            redis::from_redis_value(&parts[0]).ok()?,
            redis::from_redis_value(&parts[1]).ok()?,
        );
        if (lo..=hi).contains(&slot) {
            // Each node: [ip, port, id, …].
            let master: Vec<redis::Value> = redis::from_redis_value(&parts[2]).ok()?;
            return redis::from_redis_value(master.get(1)?).ok();
        }
    }
    None
}

fn key_slot(via: u16, key: &str) -> i64 {
    redis::cmd("CLUSTER")
        .arg("KEYSLOT")
        .arg(key)
        .query(&mut conn(via))
        .unwrap()
}

fn sentinel_master(sentinel: u16) -> Option<u16> {
    let (_, port): (String, String) = redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg("idmint")
        .query(&mut conn(sentinel))
        .ok()?;
    port.parse().ok()
}

fn wait_until(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

/// `url` with one more query parameter.
fn with_query(url: &str, pair: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{pair}")
}

fn replica_in_sync(port: u16) -> bool {
    redis::cmd("INFO")
        .arg("replication")
        .query::<String>(&mut conn(port))
        .is_ok_and(|i| i.contains("role:slave") && i.contains("master_link_status:up"))
}

fn failover(which: &str) {
    let Some(mut url) = server(which) else { return };
    if !can_stop_servers() {
        return;
    }
    let nodes = ports(&url);
    if let Ok(n) = std::env::var("IDMINT_HA_REPLICAS") {
        url = with_query(&url, &format!("replicas={n}"));
    }
    let started = Instant::now();
    let base = unique("ha");
    // The keys of every kind on one master: the one holding the segment tag's slot (a cluster),
    // or the master (sentinel). The others' names are tried until their slot is on it too.
    let (victim, names) = if which == "redis_cluster" {
        let seg_tag = format!("{base}s");
        let victim = slot_master(nodes[0], key_slot(nodes[0], &seg_tag)).unwrap();
        let on_victim = |stem: &str, key: &dyn Fn(&str) -> String| {
            (0..)
                .map(|i| format!("{base}{stem}{i}"))
                .find(|name| slot_master(nodes[0], key_slot(nodes[0], &key(name))) == Some(victim))
                .unwrap()
        };
        let names = Names {
            url: url.clone(),
            lease_prefix: on_victim("l", &|p| p.to_string()),
            counter_name: on_victim("c", &|c| format!("idmint:day:{c}:{DAY:08}")),
            sf_tag: on_victim("f", &|t| format!("{t}:1")),
            seg_tag,
        };
        (victim, names)
    } else {
        let victim = sentinel_master(nodes[0]).unwrap();
        let names = Names {
            url: url.clone(),
            seg_tag: format!("{base}s"),
            lease_prefix: format!("{base}l"),
            counter_name: format!("{base}c"),
            sf_tag: format!("{base}f"),
        };
        (victim, names)
    };
    let name = node_name(victim);
    let dir = temp_dir("idmint_ha");
    let children: Vec<_> = (0..PROCESSES)
        .map(|i| {
            let out = dir.join(format!("{i}.out"));
            spawn_child("child_failover", &names.encode(), &out)
        })
        .collect();

    // The children connect and draw for a moment before the kill.
    thread::sleep(Duration::from_millis(1500));
    let killed = Instant::now();
    servers(&["kill", &name]);
    let survivor = *nodes.iter().find(|p| **p != victim).unwrap();
    let failed_over = if which == "redis_cluster" {
        let slot = key_slot(survivor, &names.seg_tag);
        wait_until("a replica promoted", Duration::from_secs(30), || {
            slot_master(survivor, slot).is_some_and(|m| m != victim)
        })
    } else {
        wait_until("a replica promoted", Duration::from_secs(30), || {
            sentinel_master(nodes[0]).is_some_and(|m| m != victim)
        })
    };
    // Back as a replica of the new master, so the WAIT for one replica can succeed again. A
    // cluster node finds its new place by itself; Sentinel would reconfigure the old master only
    // at its next INFO round (every 10 s), so the test points it at the new master, as
    // Sentinel does.
    servers(&["start", &name]);
    let master = (which == "redis_sentinel").then(|| sentinel_master(nodes[0]).unwrap());
    wait_until(
        "the old master back as a replica",
        Duration::from_secs(30),
        || {
            if let Some(master) = master {
                // Refused while the node still loads its data; Sentinel may also do it first.
                let _ = redis::cmd("REPLICAOF")
                    .arg("127.0.0.1")
                    .arg(master)
                    .query::<redis::Value>(&mut conn(victim));
            }
            replica_in_sync(victim)
        },
    );
    let rejoined = killed.elapsed();
    let recovered_ms = now_ms();
    // IDs again after the failover: 3 s, for a segment client's backoff (up to 2 s) and the
    // call it then makes.
    thread::sleep(Duration::from_millis(3000));
    std::fs::write(dir.join("stop"), "").unwrap();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "{which}: a child failed");
    }

    let mut report = Vec::new();
    let mut failures = Vec::new();
    for kind in KINDS {
        let (mut ids, mut errors, mut gap, mut last_ok) = (Vec::new(), 0, 0, u64::MAX);
        for i in 0..PROCESSES {
            let out = dir.join(format!("{i}.out"));
            ids.extend(segment_util::read_ids(&out.with_extension(kind)));
            let line = std::fs::read_to_string(out.with_extension(format!("{kind}.txt"))).unwrap();
            let f: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
            errors += f[1];
            gap = gap.max(f[2]);
            last_ok = last_ok.min(f[3]);
        }
        let total = ids.len();
        let dups = duplicates(&mut ids);
        report.push(format!(
            "{kind}: {total} IDs, {dups} duplicates, {errors} failed calls, longest gap {gap} ms, last ID {} ms after the recovery",
            last_ok as i64 - recovered_ms as i64
        ));
        if dups > 0 || total == 0 {
            failures.push(format!("{kind}: {dups} duplicates of {total} IDs"));
        }
        // Every process drew again after the failover, by itself.
        if last_ok <= recovered_ms {
            failures.push(format!("{kind}: a process drew nothing after the recovery"));
        }
    }
    eprintln!(
        "{which}: master {name} killed; replica promoted after {failed_over:?}, old master back as a replica after {rejoined:?}; test {:?}\n  {}",
        started.elapsed(),
        report.join("\n  ")
    );
    assert!(failures.is_empty(), "{which}: {failures:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cluster_master_killed_no_duplicates() {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    failover("redis_cluster");
}

/// On a Cluster, sharded mode's keys share a slot (its prefix goes in braces), and a write fewer
/// replicas acknowledged than `replicas=` asks (2, with one replica per master) is refused.
#[test]
fn cluster_sharded_mode_and_a_wait_that_fails() {
    let Some(url) = server("redis_cluster") else {
        return;
    };
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let sharded = with_query(
            &url,
            &format!("prefix={}&shards=3&shard_refill=10", unique("sh")),
        );
        let store = open_store(&sharded, &StoreOptions::default())
            .await
            .unwrap();
        let tags = ["a", "b", "c", "d"];
        for tag in tags {
            store.create_tag(&TagSpec::new(tag).unwrap()).await.unwrap();
        }
        let mut ids = Vec::new();
        for i in 0..40 {
            ids.extend(store.allocate(tags[i % 4], 7).await.unwrap());
        }
        assert_eq!(ids.len(), 280);
        assert_eq!(duplicates(&mut ids), 0);

        let strict = with_query(&url, &format!("prefix={}&replicas=2", unique("w")));
        let store = open_store(&strict, &StoreOptions::default()).await.unwrap();
        let err = store
            .create_tag(&TagSpec::new("x").unwrap())
            .await
            .unwrap_err();
        assert_eq!(err.kind(), "store_unavailable", "{err}");
        assert!(
            err.to_string().contains("of 2 replicas acknowledged"),
            "{err}"
        );
    });
}

#[test]
fn sentinel_master_killed_no_duplicates() {
    failover("redis_sentinel");
}

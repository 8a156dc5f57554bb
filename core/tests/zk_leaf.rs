//! Meituan Leaf's snowflake workers and idmint generators on one ZooKeeper path
//! (`zk://…?schema=leaf&leaf_name=…`): Leaf registrations made here the way Leaf's
//! `SnowflakeZookeeperHolder` writes them (a PERSISTENT_SEQUENTIAL node
//! `/snowflake/{leaf.name}/forever/{ip}:{port}-{10-digit sequence}` holding
//! `{"ip":…,"port":…,"timestamp":MS}`, rewritten while the worker runs; worker ID = sequence),
//! live ones kept reporting by a thread. Needs `IDMINT_TEST_ZK_URL` (tests/servers.sh).
#![cfg(feature = "zookeeper")]

mod segment_util;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use idmint_core::lease::{open_lease_store, LeaseOptions};
use idmint_core::{Layout, Snowflake};
use segment_util::{duplicates, rt, server, unique};
use zookeeper_client::{Acls, Client, CreateMode};

/// Leaf's layout (core's preset: 41 bits of milliseconds since Twitter's epoch, a 10-bit
/// worker ID, 12 bits of sequence).
fn leaf_layout() -> Layout {
    Layout::preset("leaf").unwrap()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn leaf_data(port: u16, timestamp: u64) -> Vec<u8> {
    format!(r#"{{"ip":"127.0.0.1","port":"{port}","timestamp":{timestamp}}}"#).into_bytes()
}

/// Registers a Leaf worker at `127.0.0.1:port` as Leaf does on its first start: a
/// PERSISTENT_SEQUENTIAL child of `forever` (parents created as needed). Its worker ID.
async fn leaf_register(zk: &Client, forever: &str, port: u16, timestamp: u64) -> u64 {
    let opts = CreateMode::PersistentSequential.with_acls(Acls::anyone_all());
    let dir = CreateMode::Persistent.with_acls(Acls::anyone_all());
    zk.mkdir(forever, &dir).await.unwrap();
    let (_, seq) = zk
        .create(
            &format!("{forever}/127.0.0.1:{port}-"),
            &leaf_data(port, timestamp),
            &opts,
        )
        .await
        .unwrap();
    seq.into_i64() as u64
}

fn worker_of(id: u64) -> u64 {
    leaf_layout().decompose(id).unwrap().node("worker").unwrap()
}

#[test]
fn leaf_workers_and_idmint_generators_share_the_worker_space() {
    let Some(base) = server("zk") else { return };
    let rt = rt();
    let name = unique("leaf");
    let forever = format!("/snowflake/{name}/forever");
    let url = format!("{base}?schema=leaf&leaf_name={name}&leaf_dead_after=2");
    let hosts = base.trim_start_matches("zk://").to_string();
    let zk = rt.block_on(Client::connect(&hosts)).unwrap();

    // Three live Leaf workers (reporting every 300 ms, as Leaf does every 3 s) and one that
    // stops at once, its clock a second ahead of the others: its last timestamp is later than
    // the server's time of its node.
    let dead_ts = now_ms() + 1000;
    let (live, dead, dead_port) = rt.block_on(async {
        let mut live = Vec::new();
        for port in [8081u16, 8082, 8083] {
            live.push((port, leaf_register(&zk, &forever, port, now_ms()).await));
        }
        let dead = leaf_register(&zk, &forever, 8084, dead_ts).await;
        (live, dead, 8084u16)
    });
    let live_values: Vec<u64> = live.iter().map(|(_, v)| *v).collect();
    assert_eq!(live_values, [0, 1, 2]);
    assert_eq!(dead, 3);
    let stop = Arc::new(AtomicBool::new(false));
    let reporter = {
        let (stop, zk, forever, live) = (stop.clone(), zk.clone(), forever.clone(), live.clone());
        let handle = rt.handle().clone();
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                handle.block_on(async {
                    for (port, seq) in &live {
                        let path = format!("{forever}/127.0.0.1:{port}-{seq:010}");
                        zk.set_data(&path, &leaf_data(*port, now_ms()), None)
                            .await
                            .unwrap();
                    }
                });
                thread::sleep(Duration::from_millis(300));
            }
        })
    };

    // Leaf's workers mint with their worker IDs (Leaf's layout, its worker ID as the node).
    let leaf_minters: Vec<Snowflake> = live_values
        .iter()
        .map(|v| {
            Snowflake::builder(leaf_layout())
                .node("worker", *v)
                .build()
                .unwrap()
        })
        .collect();

    let lease = || {
        LeaseOptions::url(&url)
            .range(0, 1023)
            .ttl(Duration::from_secs(5))
    };
    let build = || {
        Snowflake::builder(leaf_layout())
            .lease(lease())
            .build()
            .unwrap()
    };
    // Four generators while the stopped worker has not been silent for leaf_dead_after: new
    // numbers, marked as idmint's, none a Leaf worker's.
    let mut gens: Vec<Snowflake> = (0..4).map(|_| build()).collect();
    let mut values: Vec<u64> = gens
        .iter()
        .map(|g| worker_of(g.next_id().unwrap()))
        .collect();
    eprintln!("leaf: live workers {live_values:?}, stopped {dead}, idmint took {values:?}");
    assert_eq!(values, [4, 5, 6, 7]);

    // Once the stopped worker has been silent for 2 s past its last timestamp, the next
    // generator takes its number, behind that timestamp, and its node is gone.
    let dead_path = format!("{forever}/127.0.0.1:{dead_port}-{dead:010}");
    let silent_until = dead_ts + 2000;
    while now_ms() <= silent_until + 100 {
        thread::sleep(Duration::from_millis(50));
    }
    let reclaimer = build();
    let first = reclaimer.next_id().unwrap();
    assert_eq!(worker_of(first), dead, "the stopped worker's number");
    let parts = leaf_layout().decompose(first).unwrap();
    assert!(
        parts.time_ms > dead_ts,
        "an ID at {} is not behind the dead worker's last timestamp {dead_ts}",
        parts.time_ms
    );
    let (dead_node, children) = rt.block_on(async {
        (
            zk.check_stat(&dead_path).await.unwrap(),
            zk.list_children(&forever).await.unwrap(),
        )
    });
    assert!(
        dead_node.is_none(),
        "the reclaimed worker's node is deleted"
    );
    assert!(
        children.contains(&format!("idmint-{dead:010}")),
        "{children:?}"
    );
    let listed = rt
        .block_on(async { open_lease_store(&url).await?.list().await })
        .unwrap();
    let fence = listed
        .iter()
        .find(|i| i.value == dead)
        .unwrap()
        .last_time_ms;
    assert!(fence >= silent_until, "fence {fence} < {silent_until}");
    for (port, v) in &live {
        let info = listed.iter().find(|i| i.value == *v).unwrap();
        assert_eq!(info.holder, format!("leaf 127.0.0.1:{port}"));
        assert_eq!(info.state(), "held", "{info:?}");
    }
    gens.push(reclaimer);
    values.push(dead);

    // One more: the live workers' numbers are never reclaimed, however long they run.
    let one_more = build();
    let v = worker_of(one_more.next_id().unwrap());
    assert!(!live_values.contains(&v) && !values.contains(&v), "{v}");
    values.push(v);
    gens.push(one_more);

    // The stopped worker started again on its ip:port finds no node of its own and registers
    // anew, as Leaf does: a number nobody holds.
    let again = rt.block_on(leaf_register(&zk, &forever, dead_port, now_ms()));
    assert!(
        !values.contains(&again) && !live_values.contains(&again),
        "{again}"
    );

    // Everyone mints: no two share a worker value, no ID repeats.
    let mut all_values = values.clone();
    all_values.extend(&live_values);
    all_values.push(again);
    all_values.sort_unstable();
    let n = all_values.len();
    all_values.dedup();
    assert_eq!(
        all_values.len(),
        n,
        "duplicate worker values: {all_values:?}"
    );
    let again_minter = Snowflake::builder(leaf_layout())
        .node("worker", again)
        .build()
        .unwrap();
    let started = Instant::now();
    let mut ids = Vec::new();
    for g in gens.iter().chain(&leaf_minters).chain([&again_minter]) {
        ids.extend(g.next_ids(100_000).unwrap());
    }
    let total = ids.len();
    let dups = duplicates(&mut ids);
    eprintln!(
        "leaf: worker values {all_values:?}, {total} IDs from {} idmint generators and {} Leaf workers in {:?}, {dups} duplicates",
        gens.len(),
        leaf_minters.len() + 1,
        started.elapsed()
    );
    assert_eq!(dups, 0);
    stop.store(true, Ordering::Relaxed);
    reporter.join().unwrap();
}

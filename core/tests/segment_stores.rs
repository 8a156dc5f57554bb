//! Every store against a real server: the store contract, and 4 processes × 2 threads drawing
//! 250,000 IDs each from one tag, counted for duplicates. SQLite always runs (a temp file);
//! the others need `IDMINT_TEST_{POSTGRES,MYSQL,REDIS}_URL` (tests/servers.sh starts them), and
//! with the feature `etcd`, `IDMINT_TEST_ETCD_URL`, with `zookeeper`, `IDMINT_TEST_ZK_URL`.
#![cfg(all(
    feature = "sqlite",
    feature = "postgres",
    feature = "mysql",
    feature = "redis"
))]

mod segment_util;

use std::time::Duration;

use idmint_core::segment::{open_store, SegmentClient, StoreOptions, TagSpec, TagUpdate, MAX_ID};
use segment_util::{
    child_ids, duplicates, rt, server, spawn_child, store_urls, temp_dir, unique, write_ids,
};

#[test]
fn store_contract() {
    let rt = rt();
    for (name, url) in store_urls() {
        rt.block_on(async {
            let store = open_store(&url, &StoreOptions::default()).await.unwrap();
            assert!(
                !store.describe().contains("idmint:idmint@"),
                "no credentials"
            );
            let spec = TagSpec::new("orders")
                .unwrap()
                .start(1_000_001)
                .unwrap()
                .step(10)
                .unwrap()
                .description("migrated from the old table")
                .unwrap();
            assert!(store.create_tag(&spec).await.unwrap(), "{name}");
            assert!(
                !store
                    .create_tag(&TagSpec::new("orders").unwrap())
                    .await
                    .unwrap(),
                "{name}"
            );
            let info = store.tag_info("orders").await.unwrap().unwrap();
            assert_eq!((info.max_id, info.step), (1_000_000, 10), "{name}");
            let a = store.allocate("orders", 10).await.unwrap();
            let b = store.allocate("orders", 5).await.unwrap();
            assert_eq!(a.start, 1_000_001, "{name}");
            assert_eq!(a.len(), 10);
            assert!(b.start >= a.end, "{name}: {a} then {b}");
            assert_eq!(b.len(), 5);

            // Tags are case-sensitive everywhere (MySQL's default collation is not).
            assert!(
                store
                    .create_tag(&TagSpec::new("Orders").unwrap())
                    .await
                    .unwrap(),
                "{name}"
            );
            let sharded = name == "redis-sharded"; // all tags share one global counter there
            let first = store.allocate("Orders", 1).await.unwrap().start;
            assert!(first == 1 || sharded, "{name}: {first}");

            assert_eq!(
                store.allocate("missing", 1).await.unwrap_err().kind(),
                "unknown_tag",
                "{name}"
            );
            assert!(store.tag_info("missing").await.unwrap().is_none());
            for bad in ["x'; DROP TABLE t; --", "a\"b", "a`b", "k} 1", "a b"] {
                assert_eq!(
                    store.allocate(bad, 1).await.unwrap_err().kind(),
                    "invalid_tag",
                    "{name}: {bad:?}"
                );
            }
            // Allowed characters that mean something in SQL or Lua still travel as data.
            let odd = "a--b.c:d";
            store.create_tag(&TagSpec::new(odd).unwrap()).await.unwrap();
            let first = store.allocate(odd, 3).await.unwrap().start;
            assert!(first == 1 || sharded, "{name}: {first}");

            if name != "redis-sharded" {
                let top = TagSpec::new("top").unwrap().start(MAX_ID - 4).unwrap();
                store.create_tag(&top).await.unwrap();
                let last = store.allocate("top", 5).await.unwrap();
                assert_eq!(last.last(), MAX_ID, "{name}");
                let err = store.allocate("top", 1).await.unwrap_err();
                assert_eq!(err.kind(), "tag_exhausted", "{name}: {err}");
            } else {
                let err = store
                    .create_tag(&TagSpec::new("top").unwrap().start(1 << 60).unwrap())
                    .await
                    .unwrap_err();
                assert_eq!(err.kind(), "tag_exhausted", "{name}: {err}");
            }
        });
    }
}

/// The admin operations on every store: tags listed in byte order, step and description
/// tuned, the counter raised by `next_at_least` and never lowered, unknown tags refused.
/// A Redis Cluster too when `IDMINT_TEST_REDIS_CLUSTER_URL` is set (`tests/servers.sh start
/// redis-cluster`): its tags are listed from every master.
#[test]
fn list_and_update_tags() {
    let rt = rt();
    let mut urls = store_urls();
    if let Ok(u) = std::env::var("IDMINT_TEST_REDIS_CLUSTER_URL") {
        urls.push((
            "redis-cluster".into(),
            format!("{u}?prefix={}", unique("p")),
        ));
        urls.push((
            "redis-cluster-sharded".into(),
            format!("{u}?prefix={}&shards=3&shard_refill=100", unique("p")),
        ));
    }
    for (name, url) in urls {
        rt.block_on(async {
            let store = open_store(&url, &StoreOptions::default()).await.unwrap();
            // One global counter for every tag.
            let sharded = name.ends_with("sharded");
            assert!(store.list_tags().await.unwrap().is_empty(), "{name}");
            for (tag, step) in [("b", 20), ("a", 10), ("C", 30)] {
                let spec = TagSpec::new(tag).unwrap().step(step).unwrap();
                store.create_tag(&spec).await.unwrap();
            }
            let tags = store.list_tags().await.unwrap();
            let listed: Vec<_> = tags.iter().map(|t| (t.tag.as_str(), t.step)).collect();
            assert_eq!(
                listed,
                [("C", 30), ("a", 10), ("b", 20)],
                "{name}: byte order"
            );
            for t in &tags {
                assert_eq!(
                    Some(t),
                    store.tag_info(&t.tag).await.unwrap().as_ref(),
                    "{name}"
                );
            }

            let issued = store.allocate("a", 10).await.unwrap();
            let before = store.tag_info("a").await.unwrap().unwrap();
            let up = TagUpdate::new()
                .step(7)
                .unwrap()
                .description("alpha")
                .unwrap();
            let info = store.update_tag("a", &up).await.unwrap();
            assert_eq!(
                (info.tag.as_str(), info.step, info.description.as_str()),
                ("a", 7, "alpha"),
                "{name}"
            );
            assert_eq!(info.max_id, before.max_id, "{name}: the counter stays");
            assert_eq!(store.tag_info("a").await.unwrap().unwrap(), info, "{name}");
            // Only the fields asked for change.
            let info = store
                .update_tag("a", &TagUpdate::new().step(8).unwrap())
                .await
                .unwrap();
            assert_eq!((info.step, info.description.as_str()), (8, "alpha"));
            let info = store
                .update_tag("a", &TagUpdate::new().description("").unwrap())
                .await
                .unwrap();
            assert_eq!((info.step, info.description.as_str()), (8, ""));

            // Raising: the next ID is at least next_at_least.
            let raise = TagUpdate::new().next_at_least(1_000_001).unwrap();
            let info = store.update_tag("a", &raise).await.unwrap();
            assert!(info.max_id >= 1_000_000, "{name}: {info:?}");
            let next = store.allocate("a", 5).await.unwrap();
            if sharded {
                assert!(next.start >= 1_000_001, "{name}: {next}");
            } else {
                assert_eq!(info.max_id, 1_000_000, "{name}");
                assert_eq!(next.start, 1_000_001, "{name}");
            }
            // Lowering is a no-op: the counter stays, the next range is above all issued.
            let low = TagUpdate::new().next_at_least(issued.start).unwrap();
            let info = store.update_tag("a", &low).await.unwrap();
            assert!(info.max_id >= next.last() as i64, "{name}: {info:?}");
            let after = store.allocate("a", 5).await.unwrap();
            assert!(after.start > next.last(), "{name}: {next} then {after}");
            // A tag raised near the top of the range (sharded mode refuses past 2^53).
            let top = TagUpdate::new().next_at_least(MAX_ID - 1).unwrap();
            if sharded {
                let err = store.update_tag("b", &top).await.unwrap_err();
                assert_eq!(err.kind(), "invalid_argument", "{name}: {err}");
                assert!(err.to_string().contains("next_at_least"), "{err}");
            } else {
                assert_eq!(
                    store.update_tag("b", &top).await.unwrap().max_id,
                    (MAX_ID - 2) as i64
                );
                assert_eq!(
                    store.allocate("b", 2).await.unwrap().last(),
                    MAX_ID,
                    "{name}"
                );
                let err = store.allocate("b", 1).await.unwrap_err();
                assert_eq!(err.kind(), "tag_exhausted", "{name}: {err}");
                // Already past it: nothing to raise.
                let info = store.update_tag("b", &top).await.unwrap();
                assert_eq!(info.max_id, MAX_ID as i64, "{name}");
            }

            // An empty update reads the row back.
            let info = store.update_tag("C", &TagUpdate::new()).await.unwrap();
            assert_eq!(Some(info), store.tag_info("C").await.unwrap(), "{name}");
            for u in [TagUpdate::new(), up.clone(), raise.clone()] {
                let err = store.update_tag("missing", &u).await.unwrap_err();
                assert_eq!(err.kind(), "unknown_tag", "{name}: {err}");
            }
            assert!(store.tag_info("missing").await.unwrap().is_none(), "{name}");
            let err = store.update_tag("a b", &up).await.unwrap_err();
            assert_eq!(err.kind(), "invalid_tag", "{name}");
            assert_eq!(store.list_tags().await.unwrap().len(), 3, "{name}");
        });
    }
}

/// A client's update of a tag's step reaches its own state of the tag: the next refill
/// fetches the new step, and runs longer than it go to the store.
#[test]
fn client_takes_a_new_step() {
    for (name, url) in store_urls() {
        let client = SegmentClient::builder()
            .store_url(&url)
            .default_step(100)
            .max_step(100)
            // No dynamic growth, so every refill is the tag's step.
            .step_timing(Duration::ZERO, Duration::from_secs(3600))
            .connect_blocking()
            .unwrap();
        let h = client.tag("c").unwrap();
        let first = h.next_id().unwrap();
        assert_eq!(h.metrics().step, 100, "{name}");
        let info = client
            .update_tag("c", &TagUpdate::new().step(10).unwrap())
            .unwrap();
        assert_eq!(info.step, 10, "{name}");
        assert_eq!(h.metrics().step, 10, "{name}");
        assert!(h.cursor(11).is_err(), "{name}: the step bounds blocks");
        // Above the new step: straight from the store.
        let run = h.next_ids(50).unwrap();
        assert_eq!(run.len(), 50, "{name}");
        // The rest of the first range of 100, then ranges of 10.
        let mut last = first;
        for _ in 0..150 {
            let id = h.next_id().unwrap();
            assert!(id > last, "{name}");
            last = id;
        }
        let m = h.metrics();
        assert_eq!(m.step, 10, "{name}: {m:?}");
        assert!(m.remaining <= 20, "{name}: {m:?}");
        let listed = client.list_tags().unwrap();
        assert_eq!(listed.len(), 1, "{name}");
        assert_eq!(
            (listed[0].tag.as_str(), listed[0].step),
            ("c", 10),
            "{name}"
        );
        client.close();
    }
}

#[test]
fn bad_table_names_are_refused() {
    let rt = rt();
    for bad in ["t; DROP TABLE x", "t\"x", "1t", "a.b"] {
        let err = rt
            .block_on(open_store(
                &format!("sqlite::memory:?table={}", bad.replace(' ', "%20")),
                &StoreOptions::default(),
            ))
            .unwrap_err();
        assert_eq!(err.kind(), "invalid_tag", "{bad:?}");
        assert!(StoreOptions::default().table(bad).is_err());
    }
}

#[test]
fn redis_that_lost_its_state_is_refused() {
    let Some(url) = server("redis") else { return };
    let prefix = unique("p");
    let client = SegmentClient::builder()
        .store_url(&format!("{url}?prefix={prefix}"))
        .default_step(10)
        .max_step(10)
        .connect_blocking()
        .unwrap();
    let h = client.tag("t").unwrap();
    let first = h.next_id().unwrap();
    // What a restart without AOF does: the counter is gone (here: set back to 0).
    let rt = rt();
    rt.block_on(async {
        let c = redis::Client::open(url.as_str()).unwrap();
        let mut conn = c.get_multiplexed_async_connection().await.unwrap();
        let _: () = redis::cmd("SET")
            .arg(format!("{prefix}:{{t}}"))
            .arg(0)
            .query_async(&mut conn)
            .await
            .unwrap();
    });
    let err = loop {
        match h.next_id() {
            Ok(id) => assert!(id > first),
            Err(e) => break e,
        }
    };
    assert_eq!(err.kind(), "range_below_issued", "{err}");
}

// ---- 4 processes × 2 threads × 250,000 IDs per store ----

const PROCESSES: usize = 4;
const THREADS: usize = 2;
const PER_THREAD: usize = 250_000;

/// The child: draws IDs on 2 threads through one client and writes them (u64 LE) to a file.
/// Ignored in normal runs; the parent runs this binary with `--ignored --exact child_draw`.
#[test]
#[ignore = "run by the multi-process tests"]
fn child_draw() {
    let (Ok(url), Ok(out)) = (
        std::env::var("IDMINT_CHILD_URL"),
        std::env::var("IDMINT_CHILD_OUT"),
    ) else {
        return;
    };
    // Small steps (100 to 2000) so the 2,000,000 IDs take thousands of racing allocations.
    let client = SegmentClient::builder()
        .store_url(&url)
        .default_step(100)
        .max_step(2000)
        .max_wait(Duration::from_secs(20))
        .op_timeout(Duration::from_secs(20))
        .connect_blocking()
        .unwrap();
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let client = client.clone();
            std::thread::spawn(move || {
                let h = client.tag("shared").unwrap();
                let mut ids = Vec::with_capacity(PER_THREAD);
                while ids.len() < PER_THREAD {
                    if t == 1 && ids.len() % 10 == 0 && ids.len() + 5 <= PER_THREAD {
                        ids.extend(h.next_ids(5).unwrap());
                    } else {
                        ids.push(h.next_id().unwrap());
                    }
                }
                ids
            })
        })
        .collect();
    let ids: Vec<u64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    write_ids(std::path::Path::new(&out), ids);
    eprintln!("child metrics: {:?}", client.metrics());
}

fn multi_process(name: &str) {
    let Some((_, url)) = store_urls().into_iter().find(|(n, _)| n == name) else {
        return;
    };
    let dir = temp_dir("idmint_procs");
    let children: Vec<_> = (0..PROCESSES)
        .map(|i| {
            let out = dir.join(format!("{i}.bin"));
            (spawn_child("child_draw", &url, &out), out)
        })
        .collect();
    let mut ids = Vec::with_capacity(PROCESSES * THREADS * PER_THREAD);
    for (child, out) in children {
        ids.extend(child_ids(child, &out, name));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ids.len(), PROCESSES * THREADS * PER_THREAD, "{name}");
    let dups = duplicates(&mut ids);
    eprintln!(
        "{name}: {} IDs from {PROCESSES} processes x {THREADS} threads, {dups} duplicates, span {}..={}",
        ids.len(),
        ids[0],
        ids[ids.len() - 1]
    );
    assert_eq!(dups, 0, "{name}: duplicate IDs");
}

#[test]
fn processes_sqlite() {
    multi_process("sqlite");
}

#[test]
fn processes_postgres() {
    multi_process("postgres");
}

#[test]
fn processes_mysql() {
    multi_process("mysql");
}

#[test]
fn processes_redis() {
    multi_process("redis");
}

#[test]
fn processes_redis_sharded() {
    multi_process("redis-sharded");
}

/// etcd (feature `etcd`): every range a compare-and-swap on the tag key's mod revision, 8
/// drawers racing for it.
#[cfg(feature = "etcd")]
#[test]
fn processes_etcd() {
    multi_process("etcd");
}

/// ZooKeeper (feature `zookeeper`): every range a `setData` on the tag node's version, 8
/// drawers racing for it.
#[cfg(feature = "zookeeper")]
#[test]
fn processes_zookeeper() {
    multi_process("zk");
}

/// A sharded Redis tag whose fields were damaged so that its next ID is negative refuses to
/// allocate, as a damaged row does elsewhere: the store once read the negative first ID as 0
/// and handed out IDs from 0 up, which it had handed out before.
#[test]
fn redis_sharded_refuses_a_damaged_negative_first_id() {
    use idmint_core::segment::{RedisStore, SegmentStore};
    let Some(u) = server("redis") else { return };
    let prefix = unique("neg");
    let rt = rt();
    rt.block_on(async {
        let opts = StoreOptions::default()
            .key_prefix(&prefix)
            .unwrap()
            .redis_sharded(3, 100)
            .unwrap();
        let store = RedisStore::connect(&u, &opts).await.unwrap();
        assert!(store
            .create_tag(&TagSpec::new("orders").unwrap())
            .await
            .unwrap());
        assert!(store.allocate("orders", 10).await.unwrap().start > 0);
        // Written straight into Redis: the tag's floor and its shard's run made negative.
        let mut conn = redis::Client::open(u.as_str())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap();
        let meta = format!("{prefix}:{{orders}}:meta");
        let exists: i64 = redis::cmd("EXISTS")
            .arg(&meta)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(exists, 1, "the tag's meta hash is {meta}");
        let _: i64 = redis::cmd("HSET")
            .arg(&meta)
            .arg("start")
            .arg("-1000")
            .query_async(&mut conn)
            .await
            .unwrap();
        let _: i64 = redis::cmd("HSET")
            .arg(store.shard_key("orders"))
            .arg("min")
            .arg("-100")
            .arg("max")
            .arg("1000")
            .query_async(&mut conn)
            .await
            .unwrap();
        let err = store
            .allocate("orders", 10)
            .await
            .expect_err("a range from a damaged shard");
        assert_eq!(err.kind(), "store_unavailable", "{err}");
        assert!(
            err.to_string().contains("does not hold what idmint writes"),
            "{err}"
        );
    });
}

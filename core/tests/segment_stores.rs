//! Every store against a real server: the store contract, and 4 processes × 2 threads drawing
//! 250,000 IDs each from one tag, counted for duplicates. SQLite always runs (a temp file);
//! the others need `IDMINT_TEST_{POSTGRES,MYSQL,REDIS}_URL` (tests/servers.sh starts them).
#![cfg(all(
    feature = "sqlite",
    feature = "postgres",
    feature = "mysql",
    feature = "redis"
))]

mod segment_util;

use std::time::Duration;

use idmint_core::segment::{open_store, SegmentClient, StoreOptions, TagSpec, MAX_ID};
use segment_util::{child_ids, duplicates, server, spawn_child, store_urls, unique, write_ids};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

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
    let dir = std::env::temp_dir().join(unique("idmint_procs"));
    std::fs::create_dir_all(&dir).unwrap();
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

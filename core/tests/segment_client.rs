//! The segment client against the in-memory store: uniqueness under threads, background
//! refills, dynamic step, fault handling, guards, tags. Real stores: segment_stores.rs.
#![cfg(feature = "segment")]

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use idmint_core::segment::{MemoryStore, SegmentClient, SegmentStore, TagSpec};

fn client(store: &Arc<MemoryStore>) -> idmint_core::segment::SegmentClientBuilder {
    SegmentClient::builder().store(store.clone() as Arc<dyn SegmentStore>)
}

#[test]
fn threads_never_share_an_id() {
    let store = MemoryStore::new();
    // Two clients on one store, as two processes would be; small steps so ranges turn over
    // thousands of times while 8 threads draw.
    let a = client(&store)
        .max_step(64)
        .default_step(16)
        .connect_blocking()
        .unwrap();
    let b = client(&store)
        .max_step(64)
        .default_step(16)
        .connect_blocking()
        .unwrap();
    let mut joins = Vec::new();
    for i in 0..8 {
        let c = if i % 2 == 0 { a.clone() } else { b.clone() };
        joins.push(thread::spawn(move || {
            let h = c.tag("t").unwrap();
            let mut ids = Vec::with_capacity(100_000);
            if i >= 6 {
                // Two threads draw through cursors: blocks of 7 taken from the same ranges.
                let mut cursor = h.cursor(7).unwrap();
                ids.extend((0..100_000).map(|_| cursor.next_id().unwrap()));
            } else {
                for j in 0..100_000u32 {
                    if j % 7 == 0 {
                        ids.extend(h.next_ids(5).unwrap());
                    } else {
                        ids.push(h.next_id().unwrap());
                    }
                }
            }
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "a thread's IDs only grow"
            );
            ids
        }));
    }
    let mut all = HashSet::new();
    let mut n = 0;
    for j in joins {
        for id in j.join().unwrap() {
            n += 1;
            assert!(all.insert(id), "duplicate id {id}");
        }
    }
    assert_eq!(all.len(), n);
    let m = a.tag("t").unwrap().metrics();
    assert!(m.refills > 100, "{m:?}");
}

#[test]
fn next_range_is_fetched_in_the_background() {
    let store = MemoryStore::new();
    let c = client(&store)
        .default_step(100)
        .max_step(100)
        .connect_blocking()
        .unwrap();
    let h = c.tag("t").unwrap();
    assert_eq!(h.next_id().unwrap(), 1); // first range: the caller waits
                                         // Crossing 20% of the range starts the refill of the next one.
    for _ in 0..25 {
        h.next_id().unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while store.allocations() < 2 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(store.allocations(), 2);
    let m = h.metrics();
    assert_eq!(m.remaining, 100 - 26 + 100);
    // Drain both ranges with the store down: no caller needs it.
    store.set_down(true);
    for _ in 0..174 {
        h.next_id().unwrap();
    }
    store.set_down(false);
}

#[test]
fn dynamic_step_grows_and_shrinks() {
    let store = MemoryStore::new();
    let c = client(&store)
        .default_step(10)
        .max_step(80)
        .step_timing(Duration::from_millis(200), Duration::from_millis(400))
        .connect_blocking()
        .unwrap();
    let h = c.tag("t").unwrap();
    let mut steps = Vec::new();
    for _ in 0..6 {
        let r = h.next_ids(10).unwrap();
        let _ = r;
        // Use up the range quickly: each new range doubles the step up to 80.
        let before = h.metrics().refills;
        let deadline = Instant::now() + Duration::from_secs(5);
        while h.metrics().refills == before && Instant::now() < deadline {
            let _ = h.next_id().unwrap();
        }
        steps.push(h.metrics().step);
    }
    assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{steps:?}");
    assert_eq!(*steps.last().unwrap(), 80, "{steps:?}");
    // A range that lasts longer than shrink_above halves the next step.
    thread::sleep(Duration::from_millis(500));
    let before = h.metrics().refills;
    let deadline = Instant::now() + Duration::from_secs(5);
    while h.metrics().refills == before && Instant::now() < deadline {
        let _ = h.next_id().unwrap();
    }
    assert_eq!(h.metrics().step, 40);
}

#[test]
fn store_down_serves_buffers_then_errors_then_recovers() {
    let store = MemoryStore::new();
    let c = client(&store)
        .default_step(100)
        .max_step(100)
        .max_wait(Duration::from_millis(300))
        .retry_backoff(Duration::from_millis(10), Duration::from_millis(50))
        .connect_blocking()
        .unwrap();
    let h = c.tag("t").unwrap();
    h.next_id().unwrap();
    thread::sleep(Duration::from_millis(50));
    for _ in 0..30 {
        h.next_id().unwrap();
    }
    thread::sleep(Duration::from_millis(50)); // the next range arrives
    store.set_down(true);
    let mut served = 0;
    let started = Instant::now();
    let err = loop {
        match h.next_id() {
            Ok(_) => served += 1,
            Err(e) => break e,
        }
    };
    assert_eq!(served, 200 - 31, "both buffered ranges are served");
    assert_eq!(err.kind(), "store_unavailable");
    assert!(err.to_string().contains("max_wait"), "{err}");
    // Bounded: max_wait, with slack for a loaded machine (never an unbounded hang).
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(h.metrics().store_errors > 0);
    store.set_down(false);
    // Recovers by itself: the background refill keeps retrying.
    let deadline = Instant::now() + Duration::from_secs(10);
    let id = loop {
        match h.next_id() {
            Ok(id) => break id,
            Err(e) if Instant::now() < deadline => assert_eq!(e.kind(), "store_unavailable"),
            Err(e) => panic!("did not recover: {e}"),
        }
    };
    assert!(id > 200);
}

#[test]
fn a_store_that_went_backwards_is_refused() {
    let store = MemoryStore::new();
    let c = client(&store)
        .default_step(10)
        .max_step(10)
        .connect_blocking()
        .unwrap();
    let h = c.tag("t").unwrap();
    let first = h.next_id().unwrap();
    // The store "loses" its state, as Redis without AOF does on restart.
    store.set_max_id("t", 0);
    let mut last = first;
    let err = loop {
        match h.next_id() {
            Ok(id) => {
                assert!(id > last);
                last = id;
            }
            Err(e) => break e,
        }
    };
    assert_eq!(err.kind(), "range_below_issued", "{err}");
    assert!(err.to_string().contains("AOF"));
    // Sticky: never accepts the low range later either.
    assert_eq!(h.next_id().unwrap_err().kind(), "range_below_issued");
}

#[test]
fn unknown_tags_by_option() {
    let store = MemoryStore::new();
    let strict = client(&store)
        .auto_create(false)
        .connect_blocking()
        .unwrap();
    assert_eq!(strict.next_id("t").unwrap_err().kind(), "unknown_tag");
    assert!(strict
        .create_tag(
            &TagSpec::new("t")
                .unwrap()
                .start(500)
                .unwrap()
                .step(50)
                .unwrap()
        )
        .unwrap());
    assert!(!strict.create_tag(&TagSpec::new("t").unwrap()).unwrap());
    assert_eq!(strict.next_id("t").unwrap(), 500);
    assert_eq!(strict.tag("t").unwrap().metrics().step, 50);

    let auto = client(&store).default_step(7).connect_blocking().unwrap();
    assert_eq!(auto.next_id("new").unwrap(), 1);
    assert_eq!(auto.tag("new").unwrap().metrics().step, 7);

    let fallback = client(&store)
        .auto_create(false)
        .default_tag("t")
        .connect_blocking()
        .unwrap();
    let id = fallback.next_id("never_created").unwrap();
    assert!(id >= 550, "{id}: drawn from tag t");
    assert_eq!(fallback.tag("never_created").unwrap().tag(), "t");

    for bad in ["", "a b", "x'--", "a\"b", "a;b"] {
        assert_eq!(
            auto.next_id(bad).unwrap_err().kind(),
            "invalid_tag",
            "{bad:?}"
        );
    }
}

#[test]
fn next_ids_are_contiguous_and_large_runs_go_to_the_store() {
    let store = MemoryStore::new();
    let c = client(&store).default_step(100).connect_blocking().unwrap();
    let h = c.tag("t").unwrap();
    let mut seen = HashSet::new();
    for n in [1, 50, 100, 99, 3, 100, 250, 1000, 7] {
        let r = h.next_ids(n).unwrap();
        assert_eq!(r.len(), n);
        for id in r {
            assert!(seen.insert(id));
        }
    }
    assert_eq!(h.next_ids(1 << 41).unwrap_err().kind(), "invalid_argument");
}

#[test]
fn async_api_on_the_callers_runtime() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let store = MemoryStore::new();
    let ids = rt.block_on(async {
        let c = client(&store)
            .default_step(10)
            .max_step(20)
            .connect()
            .await
            .unwrap();
        let mut tasks = Vec::new();
        for _ in 0..4 {
            let c = c.clone();
            tasks.push(tokio::spawn(async move {
                let h = c.tag_async("t").await.unwrap();
                let mut v = Vec::new();
                for _ in 0..5000 {
                    v.push(h.next_id_async().await.unwrap());
                }
                v.extend(h.next_ids_async(5).await.unwrap());
                v
            }));
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        store.set_down(true);
        let h = c.tag_async("t").await.unwrap();
        let started = Instant::now();
        let err = loop {
            if let Err(e) = h.next_id_async().await {
                break e;
            }
        };
        assert_eq!(err.kind(), "store_unavailable");
        assert!(started.elapsed() < Duration::from_secs(10));
        all
    });
    let n = ids.len();
    let set: HashSet<_> = ids.into_iter().collect();
    assert_eq!(set.len(), n);
}

#[test]
fn dropping_the_client_stops_background_work() {
    let store = MemoryStore::new();
    let stop = Arc::new(AtomicBool::new(false));
    {
        let c = client(&store).connect_blocking().unwrap();
        store.set_down(true);
        let _ = c.tag("t"); // fails: down
        store.set_down(false);
        c.next_id("t").unwrap();
        stop.store(true, Ordering::SeqCst);
    }
    // Dropped inside a runtime too: must not panic.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = client(&store).connect_blocking();
        drop(c);
    });
    assert!(stop.load(Ordering::SeqCst));
}

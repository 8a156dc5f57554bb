//! Giving back the unused tail of a range on graceful close (issue 38, item 6), on every
//! store: the compare-and-set both ways, the buffered next range, and the restart loop of the
//! issue's "done when" (1,000 graceful restarts drawing 10 IDs each from a tag of step 1,000,
//! with a second client drawing all along: the IDs used against the IDs handed out, and no
//! duplicate). SQLite always runs (a temp file); the others need
//! `IDMINT_TEST_{POSTGRES,MYSQL,REDIS}_URL` (tests/servers.sh starts them).
#![cfg(all(
    feature = "sqlite",
    feature = "postgres",
    feature = "mysql",
    feature = "redis"
))]

mod segment_util;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use idmint_core::segment::{open_store, SegmentClient, StoreOptions, TagSpec};
use segment_util::{duplicates, rt, store_urls};

/// The store's compare-and-set: given back while the counter still ends at the range, not
/// once someone allocated after it; `next` outside the range refused.
#[test]
fn give_back_is_a_compare_and_set() {
    let rt = rt();
    for (name, url) in store_urls() {
        rt.block_on(async {
            let store = open_store(&url, &StoreOptions::default()).await.unwrap();
            let spec = TagSpec::new("gb").unwrap().step(1000).unwrap();
            store.create_tag(&spec).await.unwrap();
            let a = store.allocate("gb", 1000).await.unwrap();
            // 10 used: the tail goes back, and the next allocation starts right after them.
            assert!(
                store.give_back("gb", a, a.start + 10).await.unwrap(),
                "{name}"
            );
            let b = store.allocate("gb", 1000).await.unwrap();
            assert_eq!(b.start, a.start + 10, "{name}");
            // Someone allocated after `b`: nothing of `b` goes back, nothing changes.
            let c = store.allocate("gb", 1000).await.unwrap();
            assert!(!store.give_back("gb", b, b.start).await.unwrap(), "{name}");
            let d = store.allocate("gb", 10).await.unwrap();
            assert_eq!(d.start, c.end, "{name}: the counter did not move back");
            // Given back once: a second give-back of the same tail no longer matches.
            assert!(store.give_back("gb", d, d.start).await.unwrap(), "{name}");
            assert!(!store.give_back("gb", d, d.start).await.unwrap(), "{name}");
            // Nothing unused: false without a change.
            let e = store.allocate("gb", 10).await.unwrap();
            assert_eq!(e.start, d.start, "{name}");
            assert!(!store.give_back("gb", e, e.end).await.unwrap(), "{name}");
            for bad in [e.start - 1, e.end + 1] {
                let err = store.give_back("gb", e, bad).await.unwrap_err();
                assert_eq!(err.kind(), "invalid_argument", "{name}: {bad}");
                assert!(err.to_string().contains(&bad.to_string()), "{name}: {err}");
            }
            // A tag the store does not hold: nothing to give back.
            assert!(!store.give_back("gb-missing", e, e.start).await.unwrap());
        });
    }
}

/// A client closing with both ranges buffered gives back the later one, then the rest of the
/// current one: the next client carries on right after the last ID used.
#[test]
fn close_gives_back_the_buffered_next_range_too() {
    for (name, url) in store_urls() {
        let client = SegmentClient::builder()
            .store_url(&url)
            .max_step(100)
            .connect_blocking()
            .unwrap();
        client
            .create_tag(&TagSpec::new("buf").unwrap().step(100).unwrap())
            .unwrap();
        let tag = client.tag("buf").unwrap();
        let first = tag.next_id().unwrap();
        let used: Vec<u64> = (0..30).map(|_| tag.next_id().unwrap()).collect();
        // Past 20% of the range: the next one is fetched in the background.
        let deadline = Instant::now() + Duration::from_secs(30);
        while tag.metrics().remaining < 100 {
            assert!(Instant::now() < deadline, "{name}: no refill");
            std::thread::sleep(Duration::from_millis(5));
        }
        let last = *used.last().unwrap();
        client.close();
        let again = SegmentClient::builder()
            .store_url(&url)
            .connect_blocking()
            .unwrap();
        assert_eq!(
            again.next_id("buf").unwrap(),
            last + 1,
            "{name}: {first}..{last}"
        );
        again.close();

        // Someone allocated after this client's ranges: they stay gaps, never reissued.
        let client = SegmentClient::builder()
            .store_url(&url)
            .max_step(100)
            .connect_blocking()
            .unwrap();
        let held = client.next_id("buf").unwrap();
        let other = SegmentClient::builder()
            .store_url(&url)
            .max_step(100)
            .connect_blocking()
            .unwrap();
        let theirs = other.next_id("buf").unwrap();
        assert!(theirs > held + 98, "{name}: {held} then {theirs}");
        client.close();
        let third = SegmentClient::builder()
            .store_url(&url)
            .connect_blocking()
            .unwrap();
        let next = third.next_id("buf").unwrap();
        // `other` still holds its range: its tail is not the store's to hand out either.
        assert!(next > theirs + 98, "{name}: {held}, {theirs}, then {next}");
        // `other` closes last after `third` allocated: its give-back fails, no repeat.
        other.close();
        let fourth = SegmentClient::builder()
            .store_url(&url)
            .connect_blocking()
            .unwrap();
        assert!(fourth.next_id("buf").unwrap() > next, "{name}");
    }
}

/// How many graceful restarts the loop runs: `IDMINT_GIVE_BACK_RESTARTS`, else 1,000 on
/// SQLite and 200 on the network stores (each restart there opens a connection pool).
fn restarts(name: &str) -> usize {
    std::env::var("IDMINT_GIVE_BACK_RESTARTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if name == "sqlite" { 1000 } else { 200 })
}

/// The restart loop. Phase 1: `n` graceful restarts alone, 10 IDs each from a tag
/// of step 1,000: every tail goes back, so the IDs handed out are exactly the IDs used (Leaf
/// loses the 990 others of every range). Phase 2: the same with a second client drawing all
/// along: no ID twice, and the gap is what the compare-and-set leaves (a restart whose range
/// the other client allocated after keeps its tail as a gap); the figures are printed.
#[test]
fn restart_loop() {
    for (name, url) in store_urls() {
        let n = restarts(&name);
        let setup = SegmentClient::builder()
            .store_url(&url)
            .connect_blocking()
            .unwrap();
        setup
            .create_tag(&TagSpec::new("loop").unwrap().step(1000).unwrap())
            .unwrap();
        let base = max_id(&setup, "loop");
        setup.close();
        // Sharded mode counts in the global counter, which the other tests' tags share: the
        // loop's first ID is this tag's first.
        let base = if name == "redis-sharded" {
            restart_once(&url, "loop")[9]
        } else {
            base
        };

        let started = Instant::now();
        let mut ids = Vec::with_capacity(n * 10);
        for _ in 0..n {
            ids.extend(restart_once(&url, "loop"));
        }
        let alone = started.elapsed();
        assert_eq!(duplicates(&mut ids), 0, "{name}");
        // Every tail went back: each restart carried on right after the last ID used.
        assert_eq!(ids[ids.len() - 1] - ids[0] + 1, (n * 10) as u64, "{name}");
        assert_eq!(ids[0], base + 1, "{name}");
        let handed_out = handed_out_since(&name, &url, base, &ids);
        assert_eq!(
            handed_out,
            (n * 10) as u64,
            "{name}: every tail given back, so every ID handed out was used"
        );
        println!(
            "give-back {name}, {n} restarts alone: {} IDs used, {handed_out} handed out, gap 0 \
             (Leaf: {} lost), {:.1} s",
            ids.len(),
            (n as u64) * 990,
            alone.as_secs_f64()
        );

        // Phase 2: a second client draws the whole time, from the last ID of phase 1 on.
        let base = ids[ids.len() - 1];
        let stop = Arc::new(AtomicBool::new(false));
        let drawer = std::thread::spawn({
            let (url, stop) = (url.clone(), Arc::clone(&stop));
            move || {
                let other = SegmentClient::builder()
                    .store_url(&url)
                    .max_step(1000)
                    .connect_blocking()
                    .unwrap();
                let tag = other.tag("loop").unwrap();
                let mut ids = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    ids.push(tag.next_id().unwrap());
                    std::thread::sleep(Duration::from_micros(200));
                }
                other.close();
                ids
            }
        });
        let mut ids = Vec::with_capacity(n * 10);
        for _ in 0..n {
            ids.extend(restart_once(&url, "loop"));
        }
        stop.store(true, Ordering::Relaxed);
        let theirs = drawer.join().unwrap();
        let restarted = ids.len();
        ids.extend(&theirs);
        assert_eq!(duplicates(&mut ids), 0, "{name}: an ID handed out twice");
        let handed_out = handed_out_since(&name, &url, base, &ids);
        assert!(ids.iter().all(|&id| id > base), "{name}: below the start");
        assert!(ids.len() as u64 <= handed_out, "{name}");
        println!(
            "give-back {name}, {n} restarts with a second client drawing: {restarted} + {} IDs \
             used, {handed_out} handed out, gap {} ({:.1}% used)",
            theirs.len(),
            handed_out - ids.len() as u64,
            100.0 * ids.len() as f64 / handed_out as f64
        );
    }
}

/// One graceful restart: a fresh client draws 10 IDs and closes.
fn restart_once(url: &str, tag: &str) -> Vec<u64> {
    let client = SegmentClient::builder()
        .store_url(url)
        .max_step(1000)
        .connect_blocking()
        .unwrap();
    let handle = client.tag(tag).unwrap();
    let ids = (0..10).map(|_| handle.next_id().unwrap()).collect();
    client.close();
    ids
}

/// The IDs the store handed out since `base`: its counter, less `base`. In Redis sharded mode
/// the counter is the global one, which also holds the shards' spare blocks: there the IDs up
/// to the highest one used.
fn handed_out_since(name: &str, url: &str, base: u64, sorted: &[u64]) -> u64 {
    if name == "redis-sharded" {
        sorted[sorted.len() - 1] - base
    } else {
        max_id_of(url, "loop") - base
    }
}

fn max_id(client: &SegmentClient, tag: &str) -> u64 {
    let info = client.list_tags().unwrap();
    info.iter().find(|t| t.tag == tag).unwrap().max_id as u64
}

fn max_id_of(url: &str, tag: &str) -> u64 {
    let client = SegmentClient::builder()
        .store_url(url)
        .connect_blocking()
        .unwrap();
    let max = max_id(&client, tag);
    // Closed before it loaded the tag: nothing to give back, the counter stays.
    client.close();
    max
}

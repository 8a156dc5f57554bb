//! Daily counters in shared stores (a tag per day in SQLite/PostgreSQL/MariaDB, `INCR` per day in
//! Redis) and segment tags as order-number sequences, against real servers: several counters
//! (separate clients, as separate processes would be) × several threads never repeat a number
//! of a day, every counter restarts at 1 the next day, overflow is typed, Redis keys expire,
//! and a killed Redis gives `store_unavailable` within the timeout.
//! SQLite always runs (a temp file); the servers come from `IDMINT_TEST_*_URL` (tests/servers.sh).
#![cfg(all(
    feature = "sqlite",
    feature = "postgres",
    feature = "mysql",
    feature = "redis"
))]

mod segment_util;

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::thread;
use std::time::{Duration, Instant};

use idmint_core::segment::{
    open_daily_counter, DailyCounterOptions, MemoryStore, SegmentClient, SegmentDailyCounter,
    TagOrderNumbers,
};
use idmint_core::{DailyCounter, ManualClock, OrderNumbers, Template};
use segment_util::{can_stop_servers, duplicates, server, servers, store_urls, unique};

/// Tests take it shared; the one that kills Redis takes it alone, so no other test sees the
/// outage.
static SERVERS: RwLock<()> = RwLock::new(());

const DAY: u32 = 20240522;
const NEXT_DAY: u32 = 20240523;
/// 2024-05-22 00:30 at +08:00.
const DAY_MS: u64 = 1_716_309_000_000;

/// The counter URLs to test: the segment stores' (SQLite always) and Redis's, without the
/// segment-store options Redis counters do not read.
fn counter_urls() -> Vec<(String, String)> {
    store_urls()
        .into_iter()
        .filter(|(name, _)| name != "redis-sharded")
        .map(|(name, url)| match name.as_str() {
            "redis" => (name, url.split('?').next().unwrap_or("").to_string()),
            _ => (name, url),
        })
        .collect()
}

fn options(step: u64) -> DailyCounterOptions {
    DailyCounterOptions::default()
        .step(step)
        .unwrap()
        .redis_prefix(&format!("{}:", unique("d")))
        .unwrap()
        // Generous: these tests count duplicates, not speed; SQLite under a loaded 2-core CI
        // machine (several threads creating one tag) once took over 2 s to answer.
        .timeout(Duration::from_secs(60))
        .unwrap()
}

/// `counters` separate counters × `threads` threads each draw `per_thread` numbers of `day`.
fn draw(
    counters: &[Arc<dyn DailyCounter>],
    threads: usize,
    per_thread: usize,
    day: u32,
) -> Vec<u64> {
    let handles: Vec<_> = counters
        .iter()
        .flat_map(|c| (0..threads).map(move |_| Arc::clone(c)))
        .map(|c| {
            thread::spawn(move || {
                (0..per_thread)
                    .map(|_| c.next(day).unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect()
}

#[test]
fn no_duplicates_across_counters_and_restart_each_day() {
    let _shared = SERVERS.read().unwrap_or_else(|p| p.into_inner());
    for (store, url) in counter_urls() {
        let name = unique("orders");
        let opts = options(20);
        let counters: Vec<Arc<dyn DailyCounter>> = (0..3)
            .map(|_| open_daily_counter(&url, &name, &opts).unwrap())
            .collect();
        let mut ids = draw(&counters, 3, 150, DAY);
        assert_eq!(ids.len(), 1350);
        assert_eq!(duplicates(&mut ids), 0, "{store}: duplicates on {DAY}");
        assert!(ids[0] >= 1, "{store}");
        if store == "redis" {
            // One INCR per number: the day's numbers are exactly 1..=n.
            assert_eq!(ids, (1..=1350).collect::<Vec<u64>>(), "{store}");
        }
        // The next day starts again at 1, whichever counter gets there first.
        let first = counters[1].next(NEXT_DAY).unwrap();
        assert_eq!(first, 1, "{store}: the next day starts at 1");
        let mut next = draw(&counters, 2, 100, NEXT_DAY);
        next.push(first);
        assert_eq!(
            duplicates(&mut next),
            0,
            "{store}: duplicates on {NEXT_DAY}"
        );
        // An earlier day than the one counted is refused (OrderNumbers reads its clock again).
        if store != "redis" {
            let err = counters[1].next(DAY).unwrap_err();
            assert_eq!(err.kind(), "clock_moved_backwards", "{store}");
        }
    }
}

#[test]
fn overflow_is_typed() {
    let _shared = SERVERS.read().unwrap_or_else(|p| p.into_inner());
    for (store, url) in counter_urls() {
        let name = unique("small");
        let opts = options(10);
        let clock = ManualClock::new(DAY_MS);
        let template = Template::new("%Y%M%D-%2S")
            .unwrap()
            .offset("+08:00")
            .unwrap();
        let orders: Vec<_> = (0..2)
            .map(|_| {
                let counter = open_daily_counter(&url, &name, &opts).unwrap();
                OrderNumbers::new(template.clone(), counter, &clock).unwrap()
            })
            .collect();
        let mut seen = HashSet::new();
        for o in &orders {
            loop {
                match o.next() {
                    Ok(n) => assert!(seen.insert(n.clone()), "{store}: {n} twice"),
                    Err(e) => {
                        assert_eq!(e.kind(), "counter_overflow", "{store}: {e}");
                        assert!(e.to_string().contains("2024-05-22 (+08:00)"), "{e}");
                        break;
                    }
                }
                assert!(seen.len() <= 99, "{store}");
            }
        }
        // Each client may skip the rest of its range, but no more than that.
        assert!(
            seen.len() >= 99 - 2 * 10,
            "{store}: only {} numbers",
            seen.len()
        );
        clock.advance_ms(86_400_000);
        let n = orders[0].next().unwrap();
        assert_eq!(n, "20240523-01", "{store}");
    }
}

#[test]
fn redis_keys_expire() {
    let _shared = SERVERS.read().unwrap_or_else(|p| p.into_inner());
    let Some(url) = server("redis") else { return };
    let name = unique("ttl");
    let opts = options(1).ttl(Duration::from_secs(60)).unwrap();
    let counter = idmint_core::segment::RedisDailyCounter::connect(&url, &name, &opts).unwrap();
    assert_eq!(counter.next(DAY).unwrap(), 1);
    let mut conn = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let pttl: i64 = redis::cmd("PTTL")
        .arg(counter.key_of(DAY))
        .query(&mut conn)
        .unwrap();
    assert!(0 < pttl && pttl <= 60_000, "PTTL {pttl}");
    // The default: two days.
    let counter =
        idmint_core::segment::RedisDailyCounter::connect(&url, &name, &options(1)).unwrap();
    assert_eq!(counter.next(NEXT_DAY).unwrap(), 1);
    let pttl: i64 = redis::cmd("PTTL")
        .arg(counter.key_of(NEXT_DAY))
        .query(&mut conn)
        .unwrap();
    assert!(86_400_000 < pttl && pttl <= 2 * 86_400_000, "PTTL {pttl}");
}

#[test]
fn killed_redis_is_store_unavailable_within_the_timeout() {
    let _alone = SERVERS.write().unwrap_or_else(|p| p.into_inner());
    let Some(url) = server("redis") else { return };
    if !can_stop_servers() {
        return;
    }
    let name = unique("down");
    let opts = options(1).timeout(Duration::from_millis(500)).unwrap();
    let counter = open_daily_counter(&url, &name, &opts).unwrap();
    assert_eq!(counter.next(DAY).unwrap(), 1);
    servers(&["kill", "redis"]);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let counter = Arc::clone(&counter);
            thread::spawn(move || {
                let started = Instant::now();
                let err = counter.next(DAY).unwrap_err();
                (err, started.elapsed())
            })
        })
        .collect();
    for t in threads {
        let (err, took) = t.join().unwrap();
        assert_eq!(err.kind(), "store_unavailable", "{err}");
        assert!(err.to_string().contains("redis://127.0.0.1:"), "{err}");
        assert!(took < Duration::from_millis(1500), "took {took:?}: {err}");
    }
    servers(&["start", "redis"]);
    // The counter reconnects by itself, and the day goes on where it was (AOF persistence).
    let deadline = Instant::now() + Duration::from_secs(20);
    let next = loop {
        match counter.next(DAY) {
            Ok(n) => break n,
            Err(e) if Instant::now() < deadline => {
                assert_eq!(e.kind(), "store_unavailable", "{e}");
                thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("no recovery: {e}"),
        }
    };
    assert_eq!(next, 2);
}

#[test]
fn segment_counter_keeps_only_the_current_days_tag() {
    let client = SegmentClient::builder()
        .store(MemoryStore::new())
        .connect_blocking()
        .unwrap();
    let counter = SegmentDailyCounter::new(client.clone(), "orders", 5).unwrap();
    for day in DAY..DAY + 5 {
        assert_eq!(counter.next(day).unwrap(), 1);
        assert_eq!(counter.next(day).unwrap(), 2);
    }
    let tags: Vec<String> = client.metrics().into_iter().map(|m| m.tag).collect();
    assert_eq!(tags, ["orders:20240526"]);
}

#[test]
fn tag_order_numbers_are_unique_across_clients() {
    let _shared = SERVERS.read().unwrap_or_else(|p| p.into_inner());
    for (store, url) in store_urls() {
        let tag = unique("so");
        let clock = ManualClock::new(DAY_MS);
        let template = Template::new("SO%Y%8S").unwrap();
        let clients: Vec<_> = (0..2)
            .map(|_| {
                SegmentClient::builder()
                    .store_url(&url)
                    .default_step(50)
                    .connect_blocking()
                    .unwrap()
            })
            .collect();
        let mut numbers = HashSet::new();
        for client in &clients {
            let orders = TagOrderNumbers::new(template.clone(), client.tag(&tag).unwrap(), &clock);
            for _ in 0..120 {
                let n = orders.next().unwrap();
                assert!(n.starts_with("SO2024"), "{store}: {n}");
                assert!(numbers.insert(n.clone()), "{store}: {n} twice");
            }
        }
    }
}

//! `idmint serve` restarted gracefully again and again on one SQLite file (issue 38, item 6):
//! on SIGTERM the server gives the unused tails of its segment ranges back to the store, so
//! each start carries on where the last one stopped, and a second client drawing from the same
//! tag all along never gets an ID twice.
//!
//! `IDMINT_GIVE_BACK_SERVER_RESTARTS` sets the number of restarts (default 100, a few seconds
//! here; tests/give_back_bench.sh runs 1,000).

mod serve_util;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use idmint_core::segment::SegmentClient;
use serve_util::{unique, Served};

fn restarts() -> usize {
    std::env::var("IDMINT_GIVE_BACK_SERVER_RESTARTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

/// One graceful life of the server: start, 10 IDs of `loop`, SIGTERM, exit 0.
fn serve_once(config: &str, http: &reqwest::blocking::Client) -> Vec<u64> {
    let dir = std::env::temp_dir().join(unique("idmint-giveback"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut s = Served::start_in(dir, config);
    let r = http
        .post(format!("{}/v1/segment/loop?count=10", s.url()))
        .send()
        .expect("request");
    assert_eq!(r.status(), 200);
    let body: serde_json::Value = r.json().expect("JSON");
    let ids: Vec<u64> = body["ids"]
        .as_array()
        .unwrap_or_else(|| panic!("no ids in {body}"))
        .iter()
        .map(|v| v.as_str().expect("string").parse().expect("decimal"))
        .collect();
    assert_eq!(s.term(Duration::from_secs(60)), Some(0), "{}", s.log());
    ids
}

#[test]
fn sigterm_gives_back_the_unused_tail() {
    let n = restarts();
    let db = std::env::temp_dir().join(format!("{}.db", unique("idmint-giveback")));
    let url = format!("sqlite:{}", db.display());
    // No drain delay: nothing balances this server, and 1,000 restarts would wait 1,000 s.
    let config = format!(
        "store = \"{url}\"\n[limits]\ndrain_delay_ms = 0\n[segment]\ndefault_step = 1000\n"
    );
    let http = reqwest::blocking::Client::new();

    // Alone: every restart carries on right after the last ID of the one before.
    let started = Instant::now();
    let mut ids = Vec::with_capacity(n * 10);
    for _ in 0..n {
        ids.extend(serve_once(&config, &http));
    }
    let alone = started.elapsed();
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "not contiguous");
    assert_eq!(ids[0], 1);
    println!(
        "give-back, idmint serve: {n} SIGTERM restarts alone: {} IDs used, {} handed out, \
         gap 0 (Leaf: {} lost), {:.1} s ({:.0} ms a restart)",
        ids.len(),
        ids[ids.len() - 1],
        n as u64 * 990,
        alone.as_secs_f64(),
        alone.as_secs_f64() * 1000.0 / n as f64
    );

    // With a second client drawing from the same tag the whole time.
    let base = ids[ids.len() - 1];
    let stop = Arc::new(AtomicBool::new(false));
    let drawer = std::thread::spawn({
        let (url, stop) = (url.clone(), Arc::clone(&stop));
        move || {
            let other = SegmentClient::builder()
                .store_url(&url)
                .max_step(1000)
                .connect_blocking()
                .expect("second client");
            let tag = other.tag("loop").expect("tag");
            let mut ids = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                ids.push(tag.next_id().expect("second client's ID"));
                std::thread::sleep(Duration::from_micros(500));
            }
            other.close();
            ids
        }
    });
    let mut ours = Vec::with_capacity(n * 10);
    for _ in 0..n {
        ours.extend(serve_once(&config, &http));
    }
    stop.store(true, Ordering::Relaxed);
    let theirs = drawer.join().expect("second client");
    let mut all: Vec<u64> = ours.iter().chain(&theirs).copied().collect();
    all.sort_unstable();
    let twice = all.windows(2).filter(|w| w[0] == w[1]).count();
    assert_eq!(twice, 0, "IDs handed out twice");
    assert!(all[0] > base);
    let handed_out = all[all.len() - 1] - base;
    println!(
        "give-back, idmint serve: {n} SIGTERM restarts with a second client drawing: {} + {} \
         IDs used, {handed_out} handed out (up to the highest used), gap {} ({:.1}% used)",
        ours.len(),
        theirs.len(),
        handed_out - all.len() as u64,
        100.0 * all.len() as f64 / handed_out as f64
    );
    let _ = std::fs::remove_file(&db);
}

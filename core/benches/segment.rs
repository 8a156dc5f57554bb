//! Segment client benchmarks: a Markdown table of
//! - a bare `AtomicU64::fetch_add` loop, the floor of the hot path on the machine at hand
//!   (one locked instruction per ID), and the handle's rate as a share of it;
//! - in-memory `next_id` throughput, single thread, through a cached [`TagHandle`] (the
//!   `fetch_add` hot path), through a [`TagCursor`](idmint_core::segment::TagCursor) (one
//!   `fetch_add` per block of 64) and through `client.next_id(tag)` (plus the tag map lookup);
//! - with the Redis and PostgreSQL stores (when `IDMINT_TEST_REDIS_URL` /
//!   `IDMINT_TEST_POSTGRES_URL` are set, see tests/servers.sh): throughput and the latency
//!   distribution of every `next_id` call while background refills run, and store round trips
//!   per million IDs. Every timed row counts the calls that waited for a refill (`waits`): a
//!   slow call with 0 waits was the thread losing its core, not the double buffer failing.
//!
//! The table is printed and, in a `cargo bench` run, written to `docs/bench/rust-segment.md`
//! (with the date, machine and command; `IDMINT_BENCH_WRITE=0` prints only).
//!
//! ```text
//! cargo bench -p idmint-core --features sqlite,postgres,mysql,redis --bench segment
//! IDMINT_BENCH_IDS=50000000 cargo bench -p idmint-core --features segment --bench segment
//! ```

mod report;

use std::hint::black_box;
use std::time::{Duration, Instant};

use idmint_core::segment::{MemoryStore, SegmentClient, SegmentStore, TagHandle};

fn ids_to_draw(default: u64) -> u64 {
    std::env::var("IDMINT_BENCH_IDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn throughput(n: u64, mut f: impl FnMut() -> u64) -> f64 {
    // Warm up, then time one long run (the per-call cost is a few ns: no per-call timers).
    for _ in 0..n / 10 {
        black_box(f());
    }
    let t = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    n as f64 / t.elapsed().as_secs_f64()
}

struct Latency {
    ids_per_s: f64,
    p50: u64,
    p99: u64,
    p999: u64,
    max: u64,
    /// Calls that waited for a refill (the rest of a slow call is the machine: preemption).
    waits: u64,
    round_trips_per_m: f64,
    refills: u64,
    step: u64,
}

/// Times every call (two `Instant::now()` per call, ~20-40 ns of the figures are the timer).
fn latency(h: &TagHandle, n: u64) -> Latency {
    let m0 = h.metrics();
    let (before, waits_before) = (m0.refills, m0.waits);
    let mut ns = Vec::with_capacity(n as usize);
    let t0 = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        let id = h.next_id();
        let d = t.elapsed();
        black_box(id.expect("next_id"));
        ns.push(d.as_nanos().min(u64::MAX as u128) as u64);
    }
    let total = t0.elapsed();
    ns.sort_unstable();
    let pct = |p: f64| ns[((ns.len() as f64 * p) as usize).min(ns.len() - 1)];
    let m = h.metrics();
    let refills = m.refills - before;
    Latency {
        ids_per_s: n as f64 / total.as_secs_f64(),
        p50: pct(0.50),
        p99: pct(0.99),
        p999: pct(0.999),
        max: *ns.last().unwrap_or(&0),
        waits: m.waits - waits_before,
        round_trips_per_m: refills as f64 * 1e6 / n as f64,
        refills,
        step: m.step,
    }
}

/// Appends the store's row, or to `skipped` why there is none (the file then says so too).
fn store_rows(
    rows: &mut Vec<String>,
    skipped: &mut Vec<String>,
    name: &str,
    url: &str,
    max_step: u64,
    n: u64,
) {
    let client = match SegmentClient::builder()
        .store_url(url)
        .max_step(max_step)
        .max_wait(Duration::from_secs(10))
        .connect_blocking()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{name}: skipped ({e})");
            skipped.push(format!("{name}, max_step {max_step}: skipped ({e})"));
            return;
        }
    };
    let h = client.tag("bench").expect("tag");
    // Grow the step first (Leaf's doubling) so the run measures the steady state.
    for _ in 0..(max_step * 4) {
        black_box(h.next_id().expect("warm-up"));
    }
    let l = latency(&h, n);
    rows.push(format!(
        "| {name}, max_step {max_step} | {:.1} M/s | {} ns | {} ns | {} ns | {:.1} µs ({} waits) | {:.1} ({} refills, step {}) |",
        l.ids_per_s / 1e6,
        l.p50,
        l.p99,
        l.p999,
        l.max as f64 / 1e3,
        l.waits,
        l.round_trips_per_m,
        l.refills,
        l.step
    ));
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = if quick {
        100_000
    } else {
        ids_to_draw(200_000_000)
    };

    let store = MemoryStore::new();
    let client = SegmentClient::builder()
        .store(store.clone() as std::sync::Arc<dyn SegmentStore>)
        .connect_blocking()
        .expect("client");
    let h = client.tag("orders").expect("tag");
    // The floor of the hot path: the one atomic `fetch_add` it is built on, in the same run.
    let word = std::sync::atomic::AtomicU64::new(0);
    let floor_rate = throughput(n, || word.fetch_add(1, std::sync::atomic::Ordering::AcqRel));
    let handle_rate = throughput(n, || h.next_id().unwrap_or(0));
    let mut cursor = h.cursor(64).expect("cursor");
    let cursor_rate = throughput(n, || cursor.next_id().unwrap_or(0));
    let map_rate = throughput(n / 4, || client.next_id("orders").unwrap_or(0));
    let per_m = store.allocations() as f64 * 1e6 / (2 * (n + n / 10) + n / 4 + n / 40) as f64;

    let mut rows = vec![
        "| path | IDs/s | p50 | p99 | p99.9 | max | store round trips per 1 M IDs |".to_string(),
        "| --- | --- | --- | --- | --- | --- | --- |".to_string(),
        format!(
            "| bare `AtomicU64::fetch_add` (the floor, 1 thread) | {:.0} M/s | | | | | |",
            floor_rate / 1e6
        ),
        format!(
            "| memory, `TagHandle::next_id` (1 thread) | {:.0} M/s ({:.2}× the floor) | | | | | {per_m:.1} |",
            handle_rate / 1e6,
            handle_rate / floor_rate
        ),
        format!(
            "| memory, `TagCursor::next_id`, blocks of 64 (1 thread) | {:.0} M/s ({:.2}× the floor) | | | | | |",
            cursor_rate / 1e6,
            cursor_rate / floor_rate
        ),
        format!(
            "| memory, `client.next_id(\"orders\")` (1 thread) | {:.0} M/s | | | | | |",
            map_rate / 1e6
        ),
    ];
    let timed = if quick {
        100_000
    } else {
        ids_to_draw(20_000_000) / 2
    };
    let l = latency(&h, timed);
    rows.push(format!(
        "| memory, timed calls | {:.0} M/s | {} ns | {} ns | {} ns | {:.1} µs ({} waits) | {:.2} |",
        l.ids_per_s / 1e6,
        l.p50,
        l.p99,
        l.p999,
        l.max as f64 / 1e3,
        l.waits,
        l.round_trips_per_m
    ));
    let draws = if quick {
        50_000
    } else {
        ids_to_draw(20_000_000)
    };
    let mut skipped = Vec::new();
    for (name, var, table) in [
        ("redis", "IDMINT_TEST_REDIS_URL", "?prefix=idmint_bench"),
        (
            "postgres",
            "IDMINT_TEST_POSTGRES_URL",
            "?table=idmint_bench",
        ),
    ] {
        let Ok(url) = std::env::var(var) else {
            eprintln!("{name}: skipped ({var} is not set)");
            skipped.push(format!("{name}: skipped ({var} is not set)"));
            continue;
        };
        for max_step in [10_000, 1_000_000] {
            store_rows(
                &mut rows,
                &mut skipped,
                name,
                &format!("{url}{table}"),
                max_step,
                draws,
            );
        }
    }
    let table = format!(
        "\n{}\n\n`waits`: calls that found both buffered ranges used up and waited for a refill. \
         A slow call with 0 waits is the thread losing its core (see the load average), not a \
         refill the double buffer failed to hide.",
        rows.join("\n")
    );
    println!("{table}");
    if !quick {
        let mut body = table;
        for s in &skipped {
            body.push_str(&format!("\n\n{s}"));
        }
        report::publish("rust-segment", "idmint-core `segment` benchmark", &body);
    }
}

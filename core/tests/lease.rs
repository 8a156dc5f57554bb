//! Worker-ID leases in one process, on `MemoryLeaseStore` (no server): the freeze period, the
//! fence left by a release or by a holder that stopped renewing, lost leases while the store is
//! down, the high-water-mark file across restarts, and uniqueness through one leased generator.
#![cfg(feature = "segment")]

mod temp_util;

use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use idmint_core::lease::{
    Grant, LeaseInfo, LeaseOptions, LeaseRequest, LeaseStore, MemoryLeaseStore,
};
use idmint_core::segment::StoreFuture;
use idmint_core::{Clock, Error, Layout, ManualClock, OnRollback, Snowflake, WallClock};

fn block<T>(fut: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(fut)
}

fn list(store: &dyn LeaseStore) -> Vec<LeaseInfo> {
    block(store.list()).unwrap()
}

fn state_of(store: &dyn LeaseStore, value: u64) -> &'static str {
    list(store)
        .iter()
        .find(|i| i.value == value)
        .map_or("free", LeaseInfo::state)
}

fn twitter() -> Layout {
    Layout::preset("twitter").unwrap()
}

fn time_of(id: u64) -> u64 {
    twitter().decompose(id).unwrap().time_ms
}

/// The wall clock shifted: a machine whose clock is ahead (positive) or behind (negative).
struct Offset(i64);

impl Clock for Offset {
    fn now_ms(&self) -> u64 {
        (WallClock.now_ms() as i64 + self.0) as u64
    }
}

/// A store in front of another that can be cut off, for one holder only: the holder's process
/// hangs or loses its network while the others still reach the store.
struct Cuttable {
    inner: Arc<MemoryLeaseStore>,
    cut: AtomicBool,
}

impl Cuttable {
    fn check(&self) -> idmint_core::Result<()> {
        if self.cut.load(Ordering::SeqCst) {
            return Err(Error::StoreUnavailable {
                store: "cut".into(),
                reason: "cut off".into(),
            });
        }
        Ok(())
    }
}

impl LeaseStore for Cuttable {
    fn describe(&self) -> String {
        "cuttable".into()
    }
    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            self.check()?;
            self.inner.acquire(req).await
        })
    }
    fn renew<'a>(
        &'a self,
        value: u64,
        token: &'a str,
        ttl_ms: u64,
        freeze_ms: u64,
        fence_ms: u64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            self.check()?;
            self.inner
                .renew(value, token, ttl_ms, freeze_ms, fence_ms)
                .await
        })
    }
    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            self.check()?;
            self.inner.release(value, token, fence_ms).await
        })
    }
    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        self.inner.list()
    }
}

#[test]
fn expired_value_is_frozen_then_free() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let store = MemoryLeaseStore::with_clock(clock.clone());
    // A holder that leases and then never renews: a crashed process.
    let dead = LeaseRequest::new(
        0,
        0,
        "dead:1",
        Duration::from_secs(1),
        Duration::from_secs(2),
    )
    .unwrap();
    block(store.acquire(&dead)).unwrap().unwrap();
    let opts = LeaseOptions::store(store.clone())
        .range(0, 0)
        .ttl(Duration::from_secs(1));
    let try_build = || Snowflake::builder(twitter()).lease(opts.clone()).build();
    let refused = |when: &str| {
        let err = try_build().unwrap_err();
        assert_eq!(err.kind(), "no_free_lease", "{when}: {err}");
    };
    assert_eq!(state_of(&*store, 0), "held");
    refused("held");
    clock.advance_ms(999);
    assert_eq!(state_of(&*store, 0), "held");
    clock.advance_ms(2);
    assert_eq!(state_of(&*store, 0), "frozen");
    refused("just expired");
    clock.advance_ms(1_998);
    assert_eq!(state_of(&*store, 0), "frozen");
    refused("1 ms before the freeze ends");
    clock.advance_ms(1);
    assert_eq!(state_of(&*store, 0), "free");
    let g = try_build().unwrap();
    assert_eq!(g.nodes(), [("datacenter".into(), 0), ("worker".into(), 0)]);
    assert_eq!(state_of(&*store, 0), "held");
}

#[test]
fn release_gives_the_value_back_at_once_with_the_exact_fence() {
    let store = MemoryLeaseStore::new();
    let opts = LeaseOptions::store(store.clone())
        .range(0, 0)
        .ttl(Duration::from_secs(2));
    // The first holder's clock runs 5 s ahead of the next one's.
    let a = Snowflake::with_clock(twitter(), Offset(5_000))
        .lease(opts.clone())
        .build()
        .unwrap();
    let ids = a.next_ids(50_000).unwrap();
    let last = *ids.last().unwrap();
    drop(a);
    let info = list(&*store);
    assert_eq!(info.len(), 1);
    assert_eq!(info[0].state(), "free");
    assert_eq!(info[0].holder, "");
    assert_eq!(info[0].last_time_ms, time_of(last), "{info:?}");

    // Taken again at once (no freeze after a release); its clock is behind the fence.
    let strict = Snowflake::builder(twitter())
        .lease(opts.clone())
        .on_rollback(OnRollback::Error)
        .build()
        .unwrap();
    assert_eq!(
        strict.next_id().unwrap_err().kind(),
        "clock_moved_backwards"
    );
    drop(strict);
    // The refused generator issued nothing, and the fence it leaves is still the first's.
    assert_eq!(list(&*store)[0].last_time_ms, time_of(last));

    let b = Snowflake::builder(twitter())
        .lease(opts)
        .on_rollback(OnRollback::Continue)
        .build()
        .unwrap();
    let next = b.next_ids(50_000).unwrap();
    assert!(next[0] > last, "{} <= {last}", next[0]);
    assert!(time_of(next[0]) > time_of(last));
}

#[test]
fn holder_cut_off_stops_before_its_lease_ends_and_the_next_holder_issues_above_it() {
    let clock = Arc::new(ManualClock::new(WallClock.now_ms()));
    let inner = MemoryLeaseStore::with_clock(clock.clone());
    let cuttable = Arc::new(Cuttable {
        inner: inner.clone(),
        cut: AtomicBool::new(false),
    });
    let ttl = Duration::from_secs(1);
    let a = Snowflake::with_clock(twitter(), Offset(5_000))
        .lease(LeaseOptions::store(cuttable.clone()).range(0, 0).ttl(ttl))
        .build()
        .unwrap();
    let mut a_ids = a.next_ids(100_000).unwrap();
    cuttable.cut.store(true, Ordering::SeqCst);
    // Cut off, it mints until it reports the lease lost, and never past the fence its last
    // renewal recorded: the IDs show it stopped in time, whatever the machine's speed (a
    // generator that never stopped would pass its fence, which no renewal raises any more).
    loop {
        match a.next_id() {
            Ok(id) => {
                let fence = a.lease_stats().unwrap().fence_ms;
                assert!(
                    time_of(id) <= fence,
                    "an ID at {} past the fence {fence}",
                    time_of(id)
                );
                a_ids.push(id);
            }
            Err(e) => {
                assert_eq!(e.kind(), "lease_lost", "{e}");
                break;
            }
        }
    }
    // Every ID it minted carries a time up to the fence the store holds for the next holder.
    let fence = list(&*inner)[0].last_time_ms;
    let last = a_ids.iter().map(|&id| time_of(id)).max().unwrap();
    assert!(
        last <= fence,
        "an ID at {last} past the store's fence {fence}"
    );
    assert_eq!(state_of(&*inner, 0), "held");
    // Its lease and freeze run out in the store; another process takes the value.
    clock.advance_ms(2 * ttl.as_millis() as u64 + 1);
    assert_eq!(state_of(&*inner, 0), "free");
    let opts = LeaseOptions::store(inner.clone()).range(0, 0).ttl(ttl);
    let strict = Snowflake::builder(twitter())
        .lease(opts.clone())
        .build()
        .unwrap();
    assert_eq!(
        strict.next_id().unwrap_err().kind(),
        "clock_moved_backwards"
    );
    drop(strict);
    let b = Snowflake::builder(twitter())
        .lease(opts)
        .on_rollback(OnRollback::Continue)
        .build()
        .unwrap();
    let max_a = *a_ids.iter().max().unwrap();
    let b_ids = b.next_ids(100_000).unwrap();
    assert!(b_ids[0] > max_a, "{} <= {max_a}", b_ids[0]);
    // The cut-off holder still refuses: the value is someone else's now.
    assert_eq!(a.next_id().unwrap_err().kind(), "lease_lost");
}

#[test]
fn store_down_stops_issuing_before_the_ttl_and_recovers() {
    let store = MemoryLeaseStore::new();
    let ttl = Duration::from_secs(1);
    let g = Arc::new(
        Snowflake::builder(twitter())
            .lease(LeaseOptions::store(store.clone()).range(0, 0).ttl(ttl))
            .build()
            .unwrap(),
    );
    type Log = Vec<Result<u64, &'static str>>;
    let log: Arc<Mutex<Log>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let minter = {
        let (g, log, stop) = (g.clone(), log.clone(), stop.clone());
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let r = g.next_id().map_err(|e| e.kind());
                log.lock().unwrap().push(r);
                thread::sleep(Duration::from_micros(200));
            }
        })
    };
    // Waits on what the minter logs, never on the clock's reading of how long things took; the
    // deadline only ends a test that would otherwise hang.
    let wait_until = |what: &str, cond: &dyn Fn(&Log) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !cond(&log.lock().unwrap()) {
            assert!(Instant::now() < deadline, "never {what}");
            thread::sleep(Duration::from_millis(20));
        }
    };
    wait_until("minted", &|l| l.iter().any(|r| r.is_ok()));
    store.set_down(true);
    let down_at = log.lock().unwrap().len();
    wait_until("lost its lease", &|l| {
        l[down_at..].iter().any(|r| r.is_err())
    });
    // No renewal succeeds while the store is down: the fence stays what the last one recorded.
    let fence = g.lease_stats().unwrap().fence_ms;
    let up_at = log.lock().unwrap().len();
    store.set_down(false);
    wait_until("recovered", &|l| l[up_at..].iter().any(|r| r.is_ok()));
    stop.store(true, Ordering::Relaxed);
    minter.join().unwrap();
    let log = log.lock().unwrap();
    // What the IDs show: minted while the store was down, none carries a time past the fence
    // its next holder would start above; then it stopped (lease_lost) until the store was back.
    for id in log[down_at..up_at].iter().filter_map(|r| r.ok()) {
        assert!(
            time_of(id) <= fence,
            "an ID at {} past the fence {fence}",
            time_of(id)
        );
    }
    let kinds: Vec<_> = log.iter().filter_map(|r| r.err()).collect();
    assert!(kinds.iter().all(|k| *k == "lease_lost"), "{kinds:?}");
    let lost = log[down_at..up_at].iter().position(|r| r.is_err()).unwrap();
    assert!(
        log[down_at + lost..up_at].iter().all(|r| r.is_err()),
        "issued again while the store was still down"
    );
    let mut ids: Vec<u64> = log.iter().filter_map(|r| r.ok()).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicates");
}

fn mark_file(name: &str) -> PathBuf {
    let dir = temp_util::temp_path(&format!("idmint_hwm_{}", WallClock.now_ms()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn read_mark(path: &PathBuf) -> u64 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn high_water_mark_survives_a_crash_and_a_clock_behind() {
    let path = mark_file("node.hwm");
    let build = |clock: Offset, policy: OnRollback| {
        Snowflake::with_clock(twitter(), clock)
            .node("datacenter", 1)
            .node("worker", 2)
            .high_water_mark(&path)
            .on_rollback(policy)
            .build()
            .unwrap()
    };
    let first = build(Offset(5_000), OnRollback::Error);
    let ids = first.next_ids(20_000).unwrap();
    let last = *ids.last().unwrap();
    // A crash: no drop, so the mark is the one written ahead, not lowered to the last ID.
    std::mem::forget(first);
    let mark = read_mark(&path);
    assert!(mark >= time_of(last), "mark {mark} < {}", time_of(last));

    let strict = build(Offset(0), OnRollback::Error);
    assert_eq!(
        strict.next_id().unwrap_err().kind(),
        "clock_moved_backwards"
    );
    drop(strict);
    assert!(
        read_mark(&path) >= mark,
        "a refused restart lowered the mark"
    );

    let lenient = build(Offset(0), OnRollback::Continue);
    let after = lenient.next_ids(20_000).unwrap();
    assert!(after[0] > last);
    assert!(time_of(after[0]) > mark, "issued at or below the mark");
    let last_after = *after.last().unwrap();
    drop(lenient);
    // A clean exit lowers the mark to what was really issued.
    assert_eq!(read_mark(&path), time_of(last_after));
}

#[test]
fn eight_threads_through_one_leased_generator_no_duplicates() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 1_000_000;
    let store = MemoryLeaseStore::new();
    let g = Arc::new(
        Snowflake::builder(twitter())
            .lease(LeaseOptions::store(store.clone()).range(5, 9))
            .build()
            .unwrap(),
    );
    let value = (g.nodes()[0].1 << 5) | g.nodes()[1].1;
    assert_eq!(value, 5);
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let g = g.clone();
            thread::spawn(move || {
                (0..PER_THREAD)
                    .map(|_| g.next_id().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut ids: Vec<u64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert_eq!(ids.len(), THREADS * PER_THREAD);
    let layout = twitter();
    assert!(ids
        .iter()
        .step_by(9_973)
        .all(|&id| layout.decompose(id).unwrap().node("worker") == Some(5)));
    ids.sort_unstable();
    let dups = ids.windows(2).filter(|w| w[0] == w[1]).count();
    assert_eq!(dups, 0);
}

#[test]
fn a_generator_that_issued_nothing_gives_a_fresh_value_back_on_drop() {
    let store = MemoryLeaseStore::new();
    let opts = LeaseOptions::store(store.clone()).range(0, 0);
    let g = Snowflake::builder(twitter())
        .lease(opts.clone())
        .build()
        .unwrap();
    assert_eq!(state_of(&*store, 0), "held");
    drop(g);
    assert_eq!(state_of(&*store, 0), "free");
    assert_eq!(list(&*store)[0].last_time_ms, 0);
    let again = Snowflake::builder(twitter()).lease(opts).build().unwrap();
    assert!(again.next_id().is_ok());
}

/// A store whose acquire never answers: a network that drops packets.
struct Silent;

impl LeaseStore for Silent {
    fn describe(&self) -> String {
        "silent".into()
    }
    fn acquire<'a>(&'a self, _: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(std::future::pending())
    }
    fn renew<'a>(&'a self, _: u64, _: &'a str, _: u64, _: u64, _: u64) -> StoreFuture<'a, bool> {
        Box::pin(std::future::pending())
    }
    fn release<'a>(&'a self, _: u64, _: &'a str, _: u64) -> StoreFuture<'a, bool> {
        Box::pin(std::future::pending())
    }
    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(std::future::pending())
    }
}

#[test]
fn the_callers_limit_ends_the_wait_for_a_lease_and_is_named() {
    // A store call may take a minute (TTL/4 of 4 min); the caller allows 200 ms: the build
    // fails as store_unavailable naming the caller's limit, not the store's.
    let build = |within: Option<Duration>| {
        let mut opts = LeaseOptions::store(Arc::new(Silent)).ttl(Duration::from_secs(240));
        if let Some(w) = within {
            opts = opts.acquire_within(w);
        }
        Snowflake::builder(twitter()).lease(opts).build()
    };
    let err = build(Some(Duration::from_millis(200))).unwrap_err();
    assert_eq!(err.kind(), "store_unavailable", "{err}");
    assert!(
        err.to_string()
            .contains("leasing did not finish within the caller's limit of 200 ms"),
        "{err}"
    );
    let err = build(Some(Duration::ZERO)).unwrap_err();
    assert_eq!(err.kind(), "invalid_argument", "{err}");
    assert!(err.to_string().contains("acquire_within"), "{err}");
}

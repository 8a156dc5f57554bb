//! Real servers (Redis, PostgreSQL, MariaDB) killed (SIGKILL) and restarted while clients draw
//! IDs: no duplicates; clients serve their buffers, then return `StoreUnavailable` within
//! `max_wait`, then recover by themselves. Needs the servers of tests/servers.sh and
//! `IDMINT_SERVERS_DIR`.
#![cfg(all(feature = "postgres", feature = "mysql", feature = "redis"))]

mod segment_util;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use idmint_core::segment::SegmentClient;
use segment_util::{can_stop_servers, duplicates, server, servers, unique};

#[derive(Default)]
struct Log {
    ids: Vec<u64>,
    /// (when, ok) for every call.
    events: Vec<(Instant, bool)>,
    other_errors: Vec<String>,
}

fn kill_and_restart(name: &str, url: String) {
    if !can_stop_servers() {
        return;
    }
    let client = SegmentClient::builder()
        .store_url(&url)
        .default_step(500)
        .max_step(500)
        .max_wait(Duration::from_millis(500))
        .op_timeout(Duration::from_secs(1))
        .retry_backoff(Duration::from_millis(20), Duration::from_millis(300))
        .connect_blocking()
        .unwrap();
    let log = Arc::new(Mutex::new(Log::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (client, log, stop) = (client.clone(), log.clone(), stop.clone());
            thread::spawn(move || {
                let h = client.tag("faults").unwrap();
                while !stop.load(Ordering::Relaxed) {
                    let r = h.next_id();
                    let mut log = log.lock().unwrap();
                    log.events.push((Instant::now(), r.is_ok()));
                    match r {
                        Ok(id) => log.ids.push(id),
                        Err(e) if e.kind() == "store_unavailable" => {}
                        Err(e) => log.other_errors.push(e.to_string()),
                    }
                    drop(log);
                    // About 1000 IDs/s over both threads: a buffer of 500 to 1000 IDs lasts a while.
                    thread::sleep(Duration::from_millis(2));
                }
            })
        })
        .collect();
    let wait_until = |what: &str, limit: Duration, cond: &dyn Fn(&Log) -> bool| {
        let deadline = Instant::now() + limit;
        while !cond(&log.lock().unwrap()) {
            assert!(
                Instant::now() < deadline,
                "{name}: timed out waiting for {what}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    };
    wait_until("IDs before the kill", Duration::from_secs(20), &|l| {
        l.ids.len() > 1500
    });
    let killed_at = Instant::now();
    servers(&["kill", name]);
    wait_until("StoreUnavailable", Duration::from_secs(30), &|l| {
        l.events.iter().any(|(t, ok)| *t > killed_at && !ok)
    });
    // Stay down a while: callers keep getting the typed error, bounded, never hanging.
    thread::sleep(Duration::from_secs(1));
    servers(&["start", name]);
    let restarted_at = Instant::now();
    wait_until("recovery", Duration::from_secs(60), &|l| {
        l.events
            .iter()
            .filter(|(t, ok)| *t > restarted_at && *ok)
            .count()
            > 2000
    });
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    let mut log = Arc::try_unwrap(log).ok().unwrap().into_inner().unwrap();
    assert!(
        log.other_errors.is_empty(),
        "{name}: {:?}",
        log.other_errors
    );
    let first_error = log
        .events
        .iter()
        .find(|(t, ok)| *t > killed_at && !ok)
        .map(|(t, _)| *t)
        .unwrap();
    let served_from_buffer = log
        .events
        .iter()
        .filter(|(t, ok)| *t > killed_at && *t < first_error && *ok)
        .count();
    let errors = log.events.iter().filter(|(_, ok)| !ok).count();
    let dups = duplicates(&mut log.ids);
    let m = client.tag("faults").unwrap().metrics();
    eprintln!(
        "{name}: {} IDs, {dups} duplicates; after the kill {served_from_buffer} served from buffers, \
         then {errors} StoreUnavailable; recovered; metrics {m:?}",
        log.ids.len()
    );
    assert_eq!(dups, 0, "{name}: duplicates");
    assert!(
        served_from_buffer > 0,
        "{name}: buffers were not served after the kill"
    );
    assert!(errors > 0);
    assert!(m.store_errors > 0);
}

#[test]
fn redis_killed_and_restarted() {
    let Some(url) = server("redis") else { return };
    kill_and_restart("redis", format!("{url}?prefix={}", unique("p")));
}

#[test]
fn postgres_killed_and_restarted() {
    let Some(url) = server("postgres") else {
        return;
    };
    kill_and_restart("postgres", format!("{url}?table={}", unique("t")));
}

#[test]
fn mariadb_killed_and_restarted() {
    let Some(url) = server("mysql") else { return };
    // InnoDB recovers the counter row from its redo log on restart (each allocation is one
    // committed autocommit UPDATE, flushed at commit by default): a range handed out before
    // the kill is never handed out again.
    kill_and_restart("mysql", format!("{url}?table={}", unique("t")));
}

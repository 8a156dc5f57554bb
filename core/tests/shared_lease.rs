//! A lease held by one thread for generators that only read it (`SharedLease`, as PostgreSQL's
//! lease worker holds it for the backends): IDs only while it is held, 0 duplicates across
//! renewals, `lease_lost` once the store is down and IDs again once it is back, the fence left
//! at the last ID on stopping, and a new holder on fresh memory (a restarted server) above it.
#![cfg(all(feature = "segment", unix))]

use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use idmint_core::lease::{LeaseOptions, LeaseStore, MemoryLeaseStore, SharedLease};
use idmint_core::{Layout, Result, Snowflake};

/// Holds `lease` on a thread until the returned sender is dropped.
fn hold(
    lease: &'static SharedLease,
    options: LeaseOptions,
) -> (Sender<()>, JoinHandle<Result<()>>) {
    let (tx, rx) = channel::<()>();
    let layout = Layout::preset("twitter").unwrap();
    let holder = std::thread::spawn(move || {
        let running = |d| matches!(rx.recv_timeout(d), Err(RecvTimeoutError::Timeout));
        lease.hold(&layout, &options, running, |_| {})
    });
    (tx, holder)
}

/// Waits (a generous bound, not a duration asserted) until `g` mints or refuses with `kind`.
fn until(g: &Snowflake, minting: bool) -> Option<u64> {
    for _ in 0..20_000 {
        match g.next_id() {
            Ok(id) if minting => return Some(id),
            Err(e) if !minting && e.kind() == "lease_lost" => return None,
            _ => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    panic!(
        "the generator never {}",
        if minting { "minted" } else { "refused" }
    );
}

fn fence(store: &Arc<MemoryLeaseStore>, value: u64) -> u64 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let leases = rt.block_on(store.list()).unwrap();
    leases
        .iter()
        .find(|l| l.value == value)
        .unwrap()
        .last_time_ms
}

#[test]
fn minting_under_a_lease_another_thread_holds() -> Result<()> {
    static LEASE: SharedLease = SharedLease::new();
    static RESTARTED: SharedLease = SharedLease::new();
    let twitter = Layout::preset("twitter")?;
    let g = Snowflake::builder(twitter.clone())
        .shared_lease(&LEASE, "postgres://app:secret@db/ids")
        .build()?;
    let refused = g.next_id().unwrap_err();
    assert_eq!(refused.kind(), "lease_lost");
    assert!(!refused.to_string().contains("secret"), "{refused}");

    let store = MemoryLeaseStore::new();
    let options = LeaseOptions::store(store.clone())
        .range(9, 9)
        .ttl(Duration::from_millis(900));
    let (stop, holder) = hold(&LEASE, options.clone());
    let mut ids = vec![until(&g, true).unwrap()];
    // Across several renewals (every 300 ms): a few rounds of the holder's renewal thread.
    let before = fence(&store, 9);
    while fence(&store, 9) < before + 1000 {
        ids.extend(g.next_ids(1000)?);
    }
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(n - ids.len(), 0, "duplicate IDs");
    assert!(ids
        .iter()
        .all(|&id| twitter.decompose(id).unwrap().node("worker") == Some(9)));

    // The store down: renewals fail, the lease runs out, nothing is minted; back: minted again.
    store.set_down(true);
    until(&g, false);
    store.set_down(false);
    let back = until(&g, true).unwrap();
    assert!(back > *ids.last().unwrap());

    drop(stop);
    holder.join().unwrap()?;
    assert_eq!(g.next_id().unwrap_err().kind(), "lease_lost");
    let last = g.layout().decompose(back)?.time_ms;
    assert!(fence(&store, 9) >= last, "released below the last ID");

    // A restart: fresh shared memory, the same value, IDs above every earlier one.
    let (stop, holder) = hold(&RESTARTED, options);
    let again = Snowflake::builder(twitter.clone())
        .shared_lease(&RESTARTED, "memory:")
        .build()?;
    let first = until(&again, true).unwrap();
    assert!(first > back, "{first} reissued at or below {back}");
    drop(stop);
    holder.join().unwrap()?;
    Ok(())
}

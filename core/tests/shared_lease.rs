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

/// A lease store that refuses every lease with one error, counting the tries.
struct Refusing {
    error: idmint_core::Error,
    tries: std::sync::atomic::AtomicU64,
}

impl LeaseStore for Refusing {
    fn describe(&self) -> String {
        "refusing://".into()
    }
    fn acquire<'a>(
        &'a self,
        _req: &'a idmint_core::lease::LeaseRequest,
    ) -> idmint_core::lease::StoreFuture<'a, Option<idmint_core::lease::Grant>> {
        self.tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let error = self.error.clone();
        Box::pin(async move { Err(error) })
    }
    fn renew<'a>(
        &'a self,
        _value: u64,
        _token: &'a str,
        _ttl_ms: u64,
        _freeze_ms: u64,
        _fence_ms: u64,
    ) -> idmint_core::lease::StoreFuture<'a, bool> {
        Box::pin(async { Ok(false) })
    }
    fn release<'a>(
        &'a self,
        _value: u64,
        _token: &'a str,
        _fence_ms: u64,
    ) -> idmint_core::lease::StoreFuture<'a, bool> {
        Box::pin(async { Ok(false) })
    }
    fn list(&self) -> idmint_core::lease::StoreFuture<'_, Vec<idmint_core::lease::LeaseInfo>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// What `hold` does with a store refusing with `error`, given two chances to try again:
/// the error it returned (None: it tried again until told to stop) and the tries made.
fn hold_refused(lease: &'static SharedLease, error: idmint_core::Error) -> (Option<String>, u64) {
    let store = Arc::new(Refusing {
        error,
        tries: Default::default(),
    });
    let options = LeaseOptions::store(store.clone()).range(1, 1);
    let layout = Layout::preset("twitter").unwrap();
    let mut chances = 2;
    let result = lease.hold(
        &layout,
        &options,
        |_| {
            chances -= 1;
            chances >= 0
        },
        |_| {},
    );
    (
        result.err().map(|e| e.kind().to_string()),
        store.tries.load(std::sync::atomic::Ordering::SeqCst),
    )
}

/// The holder stops at once on an error no retry can mend, whatever its kind (the table's
/// `Recovery::Permanent`, not a list of kind strings), and keeps trying on one that may pass.
#[test]
fn holder_stops_on_permanent_errors_and_retries_the_others() {
    static BAD_TABLE: SharedLease = SharedLease::new();
    static DOWN: SharedLease = SharedLease::new();
    static NO_TOKEN: SharedLease = SharedLease::new();
    // A lease table name the store cannot use: as permanent as a bad argument.
    let bad_table = idmint_core::Error::InvalidTag {
        tag: "idmint workers".into(),
        reason: "a table name of A-Z a-z 0-9 _".into(),
    };
    assert_eq!(
        hold_refused(&BAD_TABLE, bad_table),
        (Some("invalid_tag".into()), 1)
    );
    let down = idmint_core::Error::StoreUnavailable {
        store: "refusing://".into(),
        reason: "connection refused".into(),
    };
    assert_eq!(hold_refused(&DOWN, down), (None, 3));
    // Credentials refused: an operator may grant them, so the holder keeps trying.
    let no_token = idmint_core::Error::NotAuthorized {
        store: "refusing://".into(),
        status: 403,
        reason: "token `pg` lacks scope `lease`".into(),
    };
    assert_eq!(hold_refused(&NO_TOKEN, no_token), (None, 3));
}

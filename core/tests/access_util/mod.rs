//! What core/tests/zk_acl.rs and etcd_auth.rs do to a store opened with credentials: lease a
//! value so it has a held and a fence node/key, go on as the owner, and try the same store
//! opened as someone else.
#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use idmint_core::lease::{open_lease_store, LeaseRequest, LeaseStore};
use idmint_core::segment::{open_store, IdRange, SegmentStore, TagSpec};

/// The value the tests lease.
pub const VALUE: u64 = 7;

/// Leases [`VALUE`], releases it with a fence of now, and leases it again: the store then has
/// a held and a fence record of it. The request and the fence.
pub async fn held_with_fence(store: &dyn LeaseStore) -> (LeaseRequest, u64) {
    let req = LeaseRequest::new(
        VALUE,
        VALUE,
        "owner-host:1",
        Duration::from_secs(30),
        Duration::from_secs(1),
    )
    .unwrap();
    let grant = store.acquire(&req).await.unwrap().unwrap();
    let fence = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(store.release(grant.value, &req.token, fence).await.unwrap());
    let grant = store.acquire(&req).await.unwrap().unwrap();
    assert_eq!((grant.value, grant.fence_ms), (VALUE, fence));
    (req, fence)
}

/// The owner renews (fence raised to `fence_ms`) and releases (`fence_ms + 1`).
pub async fn owner_goes_on(store: &dyn LeaseStore, req: &LeaseRequest, fence_ms: u64) {
    assert!(store
        .renew(VALUE, &req.token, 30_000, 1_000, fence_ms)
        .await
        .unwrap());
    assert!(store
        .release(VALUE, &req.token, fence_ms + 1)
        .await
        .unwrap());
}

/// The lease store at each of `urls` (the owner's, opened as others) fails to take the value
/// rather than grant it.
pub async fn lease_refused(urls: &[String], req: &LeaseRequest) {
    for url in urls {
        let taken = match open_lease_store(url).await {
            Ok(store) => store.acquire(req).await,
            Err(e) => Err(e),
        };
        // Refused as not_authorized (what the keeper stops on, and no client retries in a
        // loop), not store_unavailable.
        let kind = taken.as_ref().map_err(|e| e.kind());
        assert_eq!(kind.err(), Some("not_authorized"), "{url}: {taken:?}");
    }
}

/// Creates the tag `orders` (step 100) in `store` and allocates its first range.
pub async fn tag_with_range(store: &dyn SegmentStore) -> IdRange {
    let spec = TagSpec::new("orders").unwrap().step(100).unwrap();
    assert!(store.create_tag(&spec).await.unwrap());
    store.allocate("orders", 100).await.unwrap()
}

/// The segment store at each of `urls` fails to allocate from `orders`; then `owner`
/// allocates after `first`.
pub async fn segment_refused(urls: &[String], owner: &dyn SegmentStore, first: IdRange) {
    for url in urls {
        let got = match open_store(url, &Default::default()).await {
            Ok(store) => store.allocate("orders", 100).await,
            Err(e) => Err(e),
        };
        let kind = got.as_ref().map_err(|e| e.kind());
        assert_eq!(kind.err(), Some("not_authorized"), "{url}: {got:?}");
    }
    let next = owner.allocate("orders", 100).await.unwrap();
    assert!(next.start >= first.end, "{first:?} then {next:?}");
}

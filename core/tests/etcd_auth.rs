//! etcd stores under etcd's own access control (`etcd://user:password@…`, auth on): the store
//! works with a user whose role may read and write only the keys under its root, and a user
//! without that role, or no user at all, can neither change a fence, delete a lease nor reset a
//! segment row, while the owner still can. Needs `IDMINT_TEST_ETCD_AUTH_URL` (tests/servers.sh
//! `start etcd-auth`: users `idmint` with read-write on `/app/`, `other` on `/other/` only).
#![cfg(feature = "etcd")]

mod segment_util;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use etcd_client::{Client, ConnectOptions};
use idmint_core::lease::{open_lease_store, LeaseRequest};
use idmint_core::segment::{open_store, TagSpec};
use segment_util::{rt, server, unique};

/// The URL of the auth-on member as `user:password` (none when empty), under `/app`.
fn url_with(base: &str, userinfo: &str, prefix: &str) -> String {
    let at = if userinfo.is_empty() { "" } else { "@" };
    let host = base.trim_start_matches("etcd://");
    format!("etcd://{userinfo}{at}{host}/app?prefix={prefix}")
}

/// A raw client of the member as `user:password`, or anonymous.
async fn client(base: &str, user: Option<(&str, &str)>) -> Client {
    let endpoint = base.replace("etcd://", "http://");
    let opts = user.map(|(u, p)| ConnectOptions::new().with_user(u, p));
    Client::connect([endpoint], opts).await.unwrap()
}

/// Every write of `key` by a stranger (no user, or `other`, whose role covers `/other/`
/// only) refused by etcd.
async fn refused_to_strangers(base: &str, key: &str) {
    for stranger in [None, Some(("other", "other-pw"))] {
        let mut etcd = client(base, stranger).await;
        let who = stranger.map_or("anonymous", |(u, _)| u);
        let put = etcd.put(key, "0", None).await;
        assert!(put.is_err(), "{who} changed {key}");
        let del = etcd.delete(key, None).await;
        assert!(del.is_err(), "{who} deleted {key}");
        let get = etcd.get(key, None).await;
        assert!(get.is_err(), "{who} read {key}");
    }
    // `other` may write its own keys: the refusals above are the role's, not a broken user.
    let mut other = client(base, Some(("other", "other-pw"))).await;
    other.put("/other/x", "1", None).await.unwrap();
}

#[test]
fn lease_keys_are_writable_by_the_role_only() {
    let Some(base) = server("etcd_auth") else {
        return;
    };
    let rt = rt();
    let prefix = unique("lease");
    let url = url_with(&base, "idmint:idmint-pw", &prefix);
    rt.block_on(async {
        let store = open_lease_store(&url).await.unwrap();
        let req = LeaseRequest::new(
            7,
            7,
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
        assert_eq!((grant.value, grant.fence_ms), (7, fence));

        let fence_key = format!("/app/{prefix}/fence/{:019}", 7);
        let held_key = format!("/app/{prefix}/held/{:019}", 7);
        for key in [&fence_key, &held_key] {
            refused_to_strangers(&base, key).await;
        }
        // The owner still renews and releases, and the fence moved only by it.
        assert!(store
            .renew(grant.value, &req.token, 30_000, 1_000, fence + 2)
            .await
            .unwrap());
        assert!(store
            .release(grant.value, &req.token, fence + 3)
            .await
            .unwrap());
        let mut owner = client(&base, Some(("idmint", "idmint-pw"))).await;
        let got = owner.get(fence_key.as_str(), None).await.unwrap();
        assert_eq!(got.kvs()[0].value(), (fence + 3).to_string().as_bytes());

        // The same store opened without credentials or as `other` fails, not mints.
        for userinfo in ["", "other:other-pw"] {
            let opened = open_lease_store(&url_with(&base, userinfo, &prefix)).await;
            let taken = match opened {
                Ok(s) => s.acquire(&req).await,
                Err(e) => Err(e),
            };
            assert!(taken.is_err(), "`{userinfo}`: {taken:?}");
        }
    });
}

#[test]
fn segment_rows_are_writable_by_the_role_only() {
    let Some(base) = server("etcd_auth") else {
        return;
    };
    let rt = rt();
    let prefix = unique("seg");
    let url = url_with(&base, "idmint:idmint-pw", &prefix);
    rt.block_on(async {
        let store = open_store(&url, &Default::default()).await.unwrap();
        assert!(store
            .create_tag(&TagSpec::new("orders").unwrap().step(100).unwrap())
            .await
            .unwrap());
        let first = store.allocate("orders", 100).await.unwrap();
        refused_to_strangers(&base, &format!("/app/{prefix}/tag/orders")).await;
        for userinfo in ["", "other:other-pw"] {
            let opened = open_store(&url_with(&base, userinfo, &prefix), &Default::default()).await;
            let got = match opened {
                Ok(s) => s.allocate("orders", 100).await,
                Err(e) => Err(e),
            };
            assert!(got.is_err(), "`{userinfo}`: {got:?}");
        }
        let next = store.allocate("orders", 100).await.unwrap();
        assert!(next.start >= first.end, "{first:?} then {next:?}");
    });
}

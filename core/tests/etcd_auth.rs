//! etcd stores under etcd's own access control (`etcd://user:password@…`, auth on): the store
//! works with a user whose role may read and write only the keys under its root, and a user
//! without that role, or no user at all, can neither change a fence, delete a lease nor reset a
//! segment row, while the owner still can. Needs `IDMINT_TEST_ETCD_AUTH_URL` (tests/servers.sh
//! `start etcd-auth`: users `idmint` with read-write on `/app/`, `other` on `/other/` only).
#![cfg(feature = "etcd")]

mod access_util;
mod segment_util;

use access_util::{
    held_with_fence, lease_refused, owner_goes_on, segment_refused, tag_with_range, VALUE,
};
use etcd_client::{Client, ConnectOptions};
use idmint_core::lease::open_lease_store;
use idmint_core::segment::open_store;
use segment_util::{rt, server, unique};

/// The user whose role may write `/app/`, and one whose role may write `/other/` only.
const OWNER: &str = "idmint:idmint-pw";
const OTHER: &str = "other:other-pw";

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
    rt.block_on(async {
        let store = open_lease_store(&url_with(&base, OWNER, &prefix))
            .await
            .unwrap();
        let (req, fence) = held_with_fence(&*store).await;
        let fence_key = format!("/app/{prefix}/fence/{VALUE:019}");
        let held_key = format!("/app/{prefix}/held/{VALUE:019}");
        for key in [&fence_key, &held_key] {
            refused_to_strangers(&base, key).await;
        }
        // The owner still renews and releases, and the fence moved only by it.
        owner_goes_on(&*store, &req, fence + 2).await;
        let mut owner = client(&base, Some(("idmint", "idmint-pw"))).await;
        let got = owner.get(fence_key.as_str(), None).await.unwrap();
        assert_eq!(got.kvs()[0].value(), (fence + 3).to_string().as_bytes());
        let others = [OTHER, ""].map(|u| url_with(&base, u, &prefix));
        lease_refused(&others, &req).await;
    });
}

#[test]
fn segment_rows_are_writable_by_the_role_only() {
    let Some(base) = server("etcd_auth") else {
        return;
    };
    let rt = rt();
    let prefix = unique("seg");
    rt.block_on(async {
        let store = open_store(&url_with(&base, OWNER, &prefix), &Default::default())
            .await
            .unwrap();
        let first = tag_with_range(&*store).await;
        refused_to_strangers(&base, &format!("/app/{prefix}/tag/orders")).await;
        let others = [OTHER, ""].map(|u| url_with(&base, u, &prefix));
        segment_refused(&others, &*store, first).await;
    });
}

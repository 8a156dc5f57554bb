//! ZooKeeper stores opened with credentials (`zk://user:password@…`): every node they create
//! carries the creator's ACL, so another client of the ensemble, without the credentials or
//! with other ones, can neither read nor change a fence, delete a lease or reset a segment
//! row, while the owner still can. Without credentials nodes stay open to every client, and
//! the steps of docs/segments.md ("Moving open nodes to credentials") close them. Needs
//! `IDMINT_TEST_ZK_URL` (tests/servers.sh).
#![cfg(feature = "zookeeper")]

mod access_util;
mod segment_util;

use access_util::{
    held_with_fence, lease_refused, owner_goes_on, segment_refused, tag_with_range, VALUE,
};
use idmint_core::lease::open_lease_store;
use idmint_core::segment::{open_store, TagSpec};
use segment_util::{rt, server, unique};
use zookeeper_client::{Acls, Client, Error as ZkError};

const OWNER: &str = "owner:0wner-pw";

/// `zk://host:port` as the connect string the raw client takes.
fn hosts(base: &str) -> String {
    base.trim_start_matches("zk://").to_string()
}

/// The URL of the test server with `userinfo@` (none when empty) and the chroot `root`.
fn url_with(base: &str, userinfo: &str, root: &str) -> String {
    let at = if userinfo.is_empty() { "" } else { "@" };
    format!("zk://{userinfo}{at}{}{root}", hosts(base))
}

/// A raw client of the ensemble authenticated as `digest` (`user:password`), or anonymous.
async fn client(base: &str, digest: Option<&str>) -> Client {
    let mut connector = Client::connector();
    if let Some(d) = digest {
        connector = connector.with_auth("digest", d.as_bytes());
    }
    connector.connect(&hosts(base)).await.unwrap()
}

/// What a stranger (anonymous, or with the owner's user name and another password) gets for
/// each write and the read of `path`: ZooKeeper's `NoAuth` every time.
async fn refused_to_strangers(base: &str, path: &str) {
    for stranger in [None, Some("owner:not-the-password"), Some("other:other-pw")] {
        let zk = client(base, stranger).await;
        let who = stranger.unwrap_or("anonymous");
        assert_eq!(
            zk.set_data(path, b"0", None).await.unwrap_err(),
            ZkError::NoAuth,
            "{who} changed {path}"
        );
        assert_eq!(
            zk.get_data(path).await.unwrap_err(),
            ZkError::NoAuth,
            "{who} read {path}"
        );
        // A delete needs the DELETE right on the parent, which the store created too.
        assert_eq!(
            zk.delete(path, None).await.unwrap_err(),
            ZkError::NoAuth,
            "{who} deleted {path}"
        );
    }
}

#[test]
fn lease_nodes_belong_to_the_credentials_that_made_them() {
    let Some(base) = server("zk") else { return };
    let rt = rt();
    let root = format!("/{}", unique("acl_lease"));
    rt.block_on(async {
        let store = open_lease_store(&url_with(&base, OWNER, &root))
            .await
            .unwrap();
        let (req, fence) = held_with_fence(&*store).await;
        let fence_path = format!("{root}/idmint:lease/fence/{VALUE:019}");
        let held_path = format!("{root}/idmint:lease/held/{VALUE:019}");
        for path in [&fence_path, &held_path] {
            refused_to_strangers(&base, path).await;
        }

        // The owner, from a session of its own, still reads and changes the fence.
        let owner = client(&base, Some(OWNER)).await;
        let (data, stat) = owner.get_data(&fence_path).await.unwrap();
        assert_eq!(String::from_utf8(data).unwrap(), fence.to_string());
        owner
            .set_data(
                &fence_path,
                (fence + 1).to_string().as_bytes(),
                Some(stat.version),
            )
            .await
            .unwrap();
        owner_goes_on(&*store, &req, fence + 2).await;
        // A store without the credentials, or with others, cannot take the value: the fence
        // is not its to read.
        let others = [
            url_with(&base, "", &root),
            url_with(&base, "owner:not-the-password", &root),
        ];
        lease_refused(&others, &req).await;
    });
}

#[test]
fn segment_rows_belong_to_the_credentials_that_made_them() {
    let Some(base) = server("zk") else { return };
    let rt = rt();
    let root = format!("/{}", unique("acl_seg"));
    rt.block_on(async {
        let store = open_store(&url_with(&base, OWNER, &root), &Default::default())
            .await
            .unwrap();
        let first = tag_with_range(&*store).await;
        refused_to_strangers(&base, &format!("{root}/idmint:seg/tag/orders")).await;
        let others = [
            url_with(&base, "", &root),
            url_with(&base, "other:other-pw", &root),
        ];
        segment_refused(&others, &*store, first).await;
    });
}

#[test]
fn without_credentials_nodes_stay_open_until_moved() {
    let Some(base) = server("zk") else { return };
    let zkcli = std::path::Path::new("/usr/share/zookeeper/bin/zkCli.sh");
    let rt = rt();
    let root = format!("/{}", unique("acl_open"));
    rt.block_on(async {
        let store = open_store(&url_with(&base, "", &root), &Default::default())
            .await
            .unwrap();
        assert!(store
            .create_tag(&TagSpec::new("orders").unwrap())
            .await
            .unwrap());
        let row = format!("{root}/idmint:seg/tag/orders");
        let anyone = client(&base, None).await;
        let (acl, _) = anyone.get_acl(&row).await.unwrap();
        assert_eq!(acl, Acls::anyone_all().to_vec(), "today's open nodes");

        // docs/segments.md's steps, as written there: zkCli.sh, authenticated as the
        // credentials the URL will carry, sets the creator's ACL on the tree.
        if !zkcli.exists() {
            assert!(
                std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "{} is missing (Debian's zookeeper package)",
                zkcli.display()
            );
            eprintln!("skipped the move: no {}", zkcli.display());
            return;
        }
        let script = format!("addauth digest {OWNER}\nsetAcl -R {root} auth::cdrwa\nquit\n");
        let out = std::process::Command::new(zkcli)
            .args(["-server", &hosts(&base)])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(script.as_bytes())?;
                child.wait_with_output()
            })
            .unwrap();
        assert!(out.status.success(), "{out:?}");

        refused_to_strangers(&base, &row).await;
        let owned = open_store(&url_with(&base, OWNER, &root), &Default::default())
            .await
            .unwrap();
        owned.allocate("orders", 10).await.unwrap();
    });
}

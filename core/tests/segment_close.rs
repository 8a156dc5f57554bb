//! Closing a segment client closes the store it opened: a SQLite file is no longer open in
//! this process once `close()` (or `close_async().await`) returns. On Windows an open file
//! cannot be deleted or replaced (a test's temp folder, an app's data folder); Linux lets
//! anyone unlink it, so the check here reads the process's open files instead
//! (`/proc/self/fd`). A store given to the builder is the caller's and stays open. The same
//! holds for a leased generator's lease store.
#![cfg(all(feature = "sqlite", target_os = "linux"))]

mod segment_util;

use std::path::{Path, PathBuf};

use idmint_core::segment::{open_store, SegmentClient, StoreOptions};
use segment_util::{rt, unique};

/// A SQLite file of its own for one test, and its URL.
fn sqlite(name: &str) -> (PathBuf, String) {
    let file = std::env::temp_dir().join(format!("{}.db", unique(name)));
    let url = format!("sqlite:{}", file.display());
    (file, url)
}

/// This process's open descriptors on `file` or its `-wal`/`-shm` companions.
fn open_on(file: &Path) -> Vec<PathBuf> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| {
            target
                .to_string_lossy()
                .starts_with(&*file.to_string_lossy())
        })
        .collect()
}

fn remove(file: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

#[test]
fn close_releases_the_sqlite_file_of_a_blocking_client() {
    let (file, url) = sqlite("idmint_close_blocking");
    let client = SegmentClient::builder()
        .store_url(&url)
        .connect_blocking()
        .unwrap();
    let tag = client.tag("orders").unwrap();
    assert_eq!(tag.next_id().unwrap(), 1);
    // The check sees the file while the client has it open, or it would prove nothing below.
    assert!(
        !open_on(&file).is_empty(),
        "{} not open before close",
        file.display()
    );
    client.close();
    assert_eq!(
        open_on(&file),
        Vec::<PathBuf>::new(),
        "still open after close()"
    );
    // The handles stay (and refuse), as before: only the store's connections went.
    assert_eq!(tag.next_id().unwrap_err().kind(), "closed");
    // The next client carries on where the first stopped: the give-back ran before the close.
    let again = SegmentClient::builder()
        .store_url(&url)
        .connect_blocking()
        .unwrap();
    assert_eq!(again.next_id("orders").unwrap(), 2);
    drop(again);
    assert_eq!(
        open_on(&file),
        Vec::<PathBuf>::new(),
        "still open after drop"
    );
    remove(&file);
}

#[test]
fn close_async_releases_the_sqlite_file_of_an_async_client() {
    let (file, url) = sqlite("idmint_close_async");
    rt().block_on(async {
        let client = SegmentClient::builder()
            .store_url(&url)
            .connect()
            .await
            .unwrap();
        assert_eq!(client.next_id_async("orders").await.unwrap(), 1);
        assert!(
            !open_on(&file).is_empty(),
            "{} not open before close",
            file.display()
        );
        assert_eq!(client.close_async().await, 999);
        assert_eq!(
            open_on(&file),
            Vec::<PathBuf>::new(),
            "still open after close_async()"
        );
        assert_eq!(
            client.next_id_async("orders").await.unwrap_err().kind(),
            "closed"
        );
    });
    remove(&file);
}

#[test]
fn a_store_given_to_the_builder_stays_open() {
    let (file, url) = sqlite("idmint_close_given");
    let rt = rt();
    let store = rt
        .block_on(open_store(&url, &StoreOptions::default()))
        .unwrap();
    let client = rt
        .block_on(SegmentClient::builder().store(store.clone()).connect())
        .unwrap();
    assert_eq!(rt.block_on(client.next_id_async("orders")).unwrap(), 1);
    rt.block_on(client.close_async());
    // The caller's store still serves: the client gave its tail back (2..) and left it open.
    assert_eq!(rt.block_on(store.allocate("orders", 10)).unwrap().start, 2);
    assert!(!open_on(&file).is_empty());
    drop(store);
    remove(&file);
}

/// The same for a leased generator: releasing its value (dropping it, what every package's
/// `close()` does) closes the lease store it opened from a URL, so the SQLite file and its
/// `-wal` are gone from the process when the call returns (a JUnit `@TempDir` of the release
/// matrix once saw `-wal` vanish under its cleanup, closed later in the background).
#[test]
fn releasing_a_leased_generator_closes_its_sqlite_file() {
    use idmint_core::lease::LeaseOptions;
    use idmint_core::{Layout, Snowflake};
    let (file, url) = sqlite("idmint_close_lease");
    let g = Snowflake::builder(Layout::preset("twitter").unwrap())
        .lease(LeaseOptions::url(&url).range(0, 3))
        .build()
        .unwrap();
    g.next_id().unwrap();
    assert!(
        !open_on(&file).is_empty(),
        "{} not open before release",
        file.display()
    );
    drop(g);
    assert_eq!(
        open_on(&file),
        Vec::<PathBuf>::new(),
        "still open after release"
    );
    // Released, not just closed: the next generator leases the same (lowest free) value.
    let again = Snowflake::builder(Layout::preset("twitter").unwrap())
        .lease(LeaseOptions::url(&url).range(0, 3))
        .build()
        .unwrap();
    assert_eq!(
        again.nodes(),
        vec![("datacenter".to_string(), 0), ("worker".to_string(), 0)]
    );
    drop(again);
    assert_eq!(
        open_on(&file),
        Vec::<PathBuf>::new(),
        "still open after the second release"
    );
    remove(&file);
}

/// Listing the leases of a store by URL (`list_leases`, every package's `leaseList`) closes the
/// store it opened before it returns: the release matrix's smoke test under Bun removed its
/// temp folder right after `leaseList` and met a `-wal` that SQLite deleted under it.
#[test]
fn listing_leases_closes_its_sqlite_file() {
    use idmint_core::lease::{list_leases, LeaseOptions};
    use idmint_core::{Layout, Snowflake};
    let (file, url) = sqlite("idmint_close_list");
    let g = Snowflake::builder(Layout::preset("twitter").unwrap())
        .lease(LeaseOptions::url(&url).range(2, 2))
        .build()
        .unwrap();
    drop(g);
    assert_eq!(open_on(&file), Vec::<PathBuf>::new(), "open before listing");
    for _ in 0..20 {
        let listed = list_leases(&url, std::time::Duration::from_secs(60)).unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(
            open_on(&file),
            Vec::<PathBuf>::new(),
            "still open after list_leases returned"
        );
    }
    remove(&file);
}

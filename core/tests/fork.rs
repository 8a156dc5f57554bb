//! Objects made before `fork()` and used in the child: no ID the parent issues is issued again
//! in the child. Each case forks a real child process, which sends what it minted back over a
//! pipe; the parent mints on and counts duplicates.
//!
//! One `#[test]`, so no other test of this binary runs (and holds locks) while it forks.
#![cfg(all(unix, feature = "sqlite"))]

use std::collections::HashSet;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::time::Duration;

use idmint_core::lease::{list_leases, LeaseOptions};
use idmint_core::segment::SegmentClient;
use idmint_core::{DailyCounter, Layout, MemoryDailyCounter, ObjectId, Snowflake, Uuid7Generator};

/// Runs `child` in a forked child process and returns the lines it produced. The child never
/// returns into the test harness: it writes, then `_exit`s (a panic is reported as a line).
fn in_child(child: impl FnOnce() -> Vec<String>) -> Vec<String> {
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        unsafe { libc::close(fds[0]) };
        let mut out = unsafe { std::fs::File::from_raw_fd(fds[1]) };
        let lines = std::panic::catch_unwind(std::panic::AssertUnwindSafe(child))
            .unwrap_or_else(|_| vec!["child panicked".to_string()]);
        let _ = out.write_all(lines.join("\n").as_bytes());
        drop(out);
        unsafe { libc::_exit(0) };
    }
    unsafe { libc::close(fds[1]) };
    let mut text = String::new();
    unsafe { std::fs::File::from_raw_fd(fds[0]) }
        .read_to_string(&mut text)
        .unwrap();
    let mut status = 0;
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    text.lines().map(str::to_string).collect()
}

fn numbers(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .map(|l| l.parse().unwrap_or_else(|_| panic!("child said: {l}")))
        .collect()
}

fn assert_unique(what: &str, parent: &[u64], child: &[u64]) {
    let mut seen: HashSet<u64> = parent.iter().copied().collect();
    assert_eq!(seen.len(), parent.len(), "{what}: duplicates in the parent");
    let dups = child.iter().filter(|id| !seen.insert(**id)).count();
    assert_eq!(
        dups, 0,
        "{what}: {dups} IDs of the child also in the parent"
    );
}

#[test]
fn nothing_made_before_fork_repeats_in_the_child() {
    let dir = std::env::temp_dir().join(format!("idmint-fork-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = |name: &str| format!("sqlite:{}", dir.join(name).display());
    let twitter = Layout::preset("twitter").unwrap();

    // Explicit node values are the parent's: the child refuses.
    let explicit = Snowflake::builder(twitter.clone())
        .node("datacenter", 1)
        .node("worker", 2)
        .build()
        .unwrap();
    explicit.next_id().unwrap();
    let said = in_child(|| vec![explicit.next_id().unwrap_err().kind().to_string()]);
    assert_eq!(said, ["forked"]);
    explicit.next_id().unwrap();

    // Random node values: the child draws its own (16 bits: 1 in 65536 to draw the same).
    let random = Snowflake::builder(Layout::preset("sonyflake").unwrap())
        .random_nodes()
        .build()
        .unwrap();
    let before = random.next_ids(1000).unwrap();
    let child = in_child(|| {
        let ids = random.next_ids(5000).unwrap();
        let mut out = vec![format!("{:?}", random.nodes())];
        out.extend(ids.iter().map(u64::to_string));
        out
    });
    assert_ne!(child[0], format!("{:?}", random.nodes()));
    let mut parent = before;
    parent.extend(random.next_ids(5000).unwrap());
    assert_unique("random nodes", &parent, &numbers(&child[1..]));

    // A lease: the child leases a value of its own, and never releases the parent's.
    let leases = url("leases.db");
    let lease = LeaseOptions::url(&leases)
        .range(0, 7)
        .ttl(Duration::from_secs(5));
    let leased = Snowflake::builder(twitter.clone())
        .lease(lease.clone())
        .build()
        .unwrap();
    let mine = format!("{:?}", leased.nodes());
    let mut parent = leased.next_ids(2000).unwrap();
    let child = in_child(|| {
        let ids = leased.next_ids(5000).unwrap();
        let mut out = vec![format!("{:?}", leased.nodes())];
        out.extend(ids.iter().map(u64::to_string));
        out
    });
    assert_ne!(child[0], mine, "the child must lease another value");
    parent.extend(leased.next_ids(5000).unwrap());
    assert_unique("leased", &parent, &numbers(&child[1..]));
    // A child that drops the generator unused leaves the parent's lease alone.
    let slot = std::sync::Mutex::new(Some(leased));
    in_child(|| {
        drop(slot.lock().unwrap().take());
        Vec::new()
    });
    let held: Vec<_> = list_leases(&leases, Duration::from_secs(5))
        .unwrap()
        .into_iter()
        .filter(|l| l.state() == "held")
        .map(|l| l.holder)
        .collect();
    let me = format!(":{}", std::process::id());
    assert!(
        held.iter().any(|h| h.ends_with(&me)),
        "the parent's lease must stay held: {held:?}"
    );

    // A segment client: its buffered ranges are the parent's too, so the child refuses and
    // opens its own.
    let segments = url("segments.db");
    let client = SegmentClient::builder()
        .store_url(&segments)
        .connect_blocking()
        .unwrap();
    let orders = client.tag("orders").unwrap();
    // A cursor with IDs left in its block refuses too: they are the parent's.
    let mut cursor = orders.cursor(100).unwrap();
    let mut parent = vec![orders.next_id().unwrap(), cursor.next_id().unwrap()];
    let child = in_child(|| {
        let mut out = vec![orders.next_id().unwrap_err().kind().to_string()];
        out.push(cursor.next_id().unwrap_err().kind().to_string());
        let own = SegmentClient::builder()
            .store_url(&segments)
            .connect_blocking()
            .unwrap();
        let tag = own.tag("orders").unwrap();
        out.extend((0..3000).map(|_| tag.next_id().unwrap().to_string()));
        out
    });
    assert_eq!(child[..2], ["forked", "forked"]);
    parent.extend((0..3000).map(|_| orders.next_id().unwrap()));
    parent.extend((0..99).map(|_| cursor.next_id().unwrap()));
    assert_unique("segment", &parent, &numbers(&child[2..]));

    // An in-memory daily counter would count on from the parent's numbers.
    let counter = MemoryDailyCounter::new();
    counter.next(20260101).unwrap();
    let said = in_child(|| vec![counter.next(20260101).unwrap_err().kind().to_string()]);
    assert_eq!(said, ["forked"]);

    // ObjectIds and UUIDv7s: the child reseeds, or draws fresh random bits per call.
    let uuids = Uuid7Generator::new();
    let oids = idmint_core::ObjectIdGenerator::new();
    let (mut p_oid, mut p_uuid) = (vec![oids.next_id().to_hex()], Vec::new());
    let child = in_child(|| {
        let mut out: Vec<String> = (0..5000).map(|_| oids.next_id().to_hex()).collect();
        out.extend((0..5000).map(|_| ObjectId::new().to_hex()));
        out.extend((0..5000).map(|_| uuids.next_uuid().unwrap().to_string()));
        out
    });
    p_oid.extend((0..5000).map(|_| oids.next_id().to_hex()));
    p_oid.extend((0..5000).map(|_| ObjectId::new().to_hex()));
    p_uuid.extend((0..5000).map(|_| uuids.next_uuid().unwrap().to_string()));
    let mut seen: HashSet<&String> = p_oid.iter().chain(&p_uuid).collect();
    let dups = child.iter().filter(|c| !seen.insert(c)).count();
    assert_eq!(
        dups, 0,
        "ObjectId/UUIDv7: {dups} of the child's also in the parent"
    );

    let parents = format!("{:?}", ObjectId::new().random());
    let said = in_child(|| vec![format!("{:?}", ObjectId::new().random())]);
    assert_ne!(
        said[0], parents,
        "the child reused the parent's ObjectId random value"
    );
    assert_eq!(
        format!("{:?}", ObjectId::new().random()),
        parents,
        "the parent keeps its own"
    );

    drop(client);
    std::fs::remove_dir_all(&dir).ok();
}

//! `idmint serve` as the store of core's clients (`http://` store URLs, issue 26): segment
//! clients drawing ranges from a real server process, lease-holding snowflake generators with the
//! server's fence, tokens by scope (401/403 as `not_authorized`, never retried in a loop, the
//! token never shown), and a server SIGKILLed under load and started again on the same port:
//! buffered IDs keep flowing, then `store_unavailable`, then the same clients draw again.

mod serve_util;

use std::collections::HashSet;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use idmint_core::lease::{list_leases, open_lease_store, LeaseOptions, LeaseRequest};
use idmint_core::segment::SegmentClient;
use idmint_core::{Layout, Snowflake};
use serve_util::Served;

const ORDERS_TOKEN: &str = "idm-store-orders-Rz4kW8pQ2m";
const LEASE_TOKEN: &str = "idm-store-lease-Jc7vB1nX5t";
const ADMIN_TOKEN: &str = "idm-store-admin-Gh3sL9dY6e";

fn sha256(text: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", "printf %s \"$1\" | sha256sum", "sh", text])
        .output()
        .expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

/// Three tokens: one tag's mint scope, `lease`, `admin`.
fn tokens() -> String {
    [
        ("orders-app", ORDERS_TOKEN, r#"["mint:segment:orders"]"#),
        ("leaser", LEASE_TOKEN, r#"["lease"]"#),
        ("ops", ADMIN_TOKEN, r#"["admin"]"#),
    ]
    .iter()
    .map(|(name, token, scopes)| {
        format!(
            "[[tokens]]\nname = \"{name}\"\nsha256 = \"{}\"\nscopes = {scopes}\n\n",
            sha256(token)
        )
    })
    .collect()
}

/// How long the test waits for the server's own signal (an answer, a log line, progress):
/// generous, so a loaded 2-core machine never fails a test on speed.
const LIMIT: Duration = Duration::from_secs(120);

/// A client of the server whose callers wait up to [`LIMIT`] for a range.
fn client(url: &str) -> SegmentClient {
    client_waiting(url, LIMIT)
}

/// A client of the server whose callers wait at most `max_wait` for a range before
/// `store_unavailable`; each store call may take up to [`LIMIT`].
fn client_waiting(url: &str, max_wait: Duration) -> SegmentClient {
    SegmentClient::builder()
        .store_url(url)
        .max_wait(max_wait)
        .op_timeout(LIMIT)
        .retry_backoff(Duration::from_millis(20), Duration::from_millis(200))
        .connect_blocking()
        .expect("a client of the server")
}

/// Sets `stop` and clears `paused` when dropped, also while a failed assertion unwinds.
struct Release<'a>(&'a AtomicBool, &'a AtomicBool);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
        self.1.store(false, Ordering::SeqCst);
    }
}

#[test]
fn segment_clients_and_leases_draw_from_the_server() {
    let s = Served::start("[leases]\ndefault_ttl_ms = 3000\n");
    let url = s.url();

    // 3 clients x 2 threads x 60,000 IDs: the dynamic step grows past the server's max_count
    // (100,000), which the clients learn from GET /v1/segment/{tag} and keep to.
    let clients: Vec<SegmentClient> = (0..3).map(|_| client(&url)).collect();
    let all: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = clients
            .iter()
            .flat_map(|c| (0..2).map(move |_| c))
            .map(|c| {
                scope.spawn(move || {
                    let tag = c.tag("orders").expect("tag");
                    (0..60_000)
                        .map(|_| tag.next_id().expect("an ID"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect()
    });
    let distinct: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(
        (all.len(), distinct.len()),
        (360_000, 360_000),
        "0 duplicates"
    );
    for c in &clients {
        assert_eq!(c.store(), url, "the store as clients name it");
        let m = &c.metrics()[0];
        assert!(m.step <= 100_000, "step {} within max_count", m.step);
        assert_eq!(m.store_errors, 0, "{:?}", m.last_error);
    }
    let max_refills: u64 = clients
        .iter()
        .map(|c| c.metrics()[0].refills)
        .max()
        .unwrap();
    assert!(max_refills >= 2, "ranges fetched over HTTP: {max_refills}");

    // Lease-holding generators: 3 distinct values of 0..=7, fenced by the server. A TTL no
    // renewal on a loaded machine comes too late for.
    let twitter = Layout::preset("twitter").unwrap();
    let lease = LeaseOptions::url(&url).range(0, 7).ttl(LIMIT);
    let gens: Vec<Snowflake> = (0..3)
        .map(|_| {
            Snowflake::builder(twitter.clone())
                .lease(lease.clone())
                .build()
                .expect("a leased generator")
        })
        .collect();
    let values: HashSet<Vec<(String, u64)>> = gens.iter().map(|g| g.nodes()).collect();
    assert_eq!(values.len(), 3, "distinct node values: {values:?}");
    let mut ids = HashSet::new();
    for g in &gens {
        for _ in 0..10_000 {
            assert!(ids.insert(g.next_id().expect("a snowflake ID")));
        }
    }
    // A released value's fence is the last time its generator issued, and the next holder gets
    // that fence from the server as its grant.
    let first = &gens[0];
    let last_time = twitter.decompose(first.next_id().unwrap()).unwrap().time_ms;
    let parts = first.nodes();
    let value = (parts[0].1 << 5) | parts[1].1;
    drop(gens);
    let leases = list_leases(&url, LIMIT).expect("lease list over HTTP");
    let row = leases.iter().find(|l| l.value == value).expect("its row");
    assert!(row.last_time_ms >= last_time, "{row:?} vs {last_time}");
    assert_eq!(row.state(), "free", "{row:?}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let grant = rt.block_on(async {
        let store = open_lease_store(&url).await?;
        let mut req = LeaseRequest::new(0, 7, "fence-check", LIMIT, Duration::from_secs(3))?;
        req.prefer = Some(value);
        let grant = store
            .acquire(&req)
            .await?
            .expect("the released value is free");
        assert!(
            store
                .release(grant.value, &req.token, grant.fence_ms)
                .await?
        );
        Ok::<_, idmint_core::Error>(grant)
    });
    let grant = grant.expect("a grant");
    assert_eq!((grant.value, grant.fence_ms), (value, row.last_time_ms));
}

#[test]
fn tokens_by_scope_not_authorized_at_once_never_shown() {
    let mut s = Served::start(&tokens());
    let base = s.url();
    let orders_url = format!("{base}?token={ORDERS_TOKEN}");

    // A mint token for one tag is all a client of that tag needs (the server creates it).
    let c = client(&orders_url);
    let orders = c.tag("orders").expect("the tag, with its mint scope only");
    let first = orders.next_id().expect("an ID");
    assert!(first >= 1);
    assert!(!c.store().contains(ORDERS_TOKEN));
    assert!(!format!("{c:?}").contains(ORDERS_TOKEN));

    // Another tag: 403, at once and as its own kind (a retried call would end in
    // store_unavailable after max_wait).
    let err = c.tag("users").unwrap_err();
    assert_eq!(err.kind(), "not_authorized", "{err}");
    assert!(err.to_string().contains("403"), "{err}");
    assert!(!err.to_string().contains(ORDERS_TOKEN), "{err}");
    // No token, a wrong token: 401.
    for url in [base.clone(), format!("{base}?token=idm-wrong-Vn3sT6yB8c")] {
        let err = client(&url).tag("orders").unwrap_err();
        assert_eq!(err.kind(), "not_authorized", "{err}");
        assert!(err.to_string().contains("401"), "{err}");
        assert!(!err.to_string().contains("idm-wrong"), "{err}");
    }
    // Leases: the mint token lacks `lease` (the build fails at once); the lease token works.
    let twitter = Layout::preset("twitter").unwrap();
    let err = Snowflake::builder(twitter.clone())
        .lease(LeaseOptions::url(&orders_url).range(0, 3))
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), "not_authorized", "{err}");
    assert!(!err.to_string().contains(ORDERS_TOKEN), "{err}");
    let leased = Snowflake::builder(twitter)
        .lease(LeaseOptions::url(&format!("{base}?token={LEASE_TOKEN}")).range(0, 3))
        .build()
        .expect("a lease with the lease scope");
    leased.next_id().expect("an ID");
    drop(leased);
    let listed =
        list_leases(&format!("{base}?token={ADMIN_TOKEN}"), LIMIT).expect("the admin token lists");
    assert!(!listed.is_empty());

    // The token revoked while the client draws (SIGHUP without it): what is buffered is still
    // served, then each call that needs the store tries it once and gets not_authorized.
    let mut toml = tokens();
    toml = toml.replace(&sha256(ORDERS_TOKEN), &sha256("idm-store-revoked-0000"));
    s.rewrite_config(&toml);
    s.signal(libc::SIGHUP);
    assert!(s.wait_log("tokens reloaded", LIMIT), "{}", s.log());
    let mut served = 0u64;
    let err = loop {
        match orders.next_id() {
            Ok(_) => served += 1,
            Err(e) => break e,
        }
        assert!(served < 10_000_000, "never refused");
    };
    assert_eq!(err.kind(), "not_authorized", "{err}");
    assert!(
        served > 0,
        "the buffered IDs were served after the revocation"
    );
    let errors = orders.metrics().store_errors;
    for i in 1..=3 {
        let err = orders.next_id().unwrap_err();
        assert_eq!(err.kind(), "not_authorized", "{err}");
        assert_eq!(
            orders.metrics().store_errors,
            errors + i,
            "one request per call, no retry loop"
        );
    }
    assert!(
        !s.log().contains(ORDERS_TOKEN),
        "the server never logs a token"
    );
}

#[test]
fn server_killed_while_clients_draw_then_restarted_on_its_port() {
    let mut s = Served::start("");
    let url = s.url();
    // Callers wait at most 500 ms for a range: how soon they hear `store_unavailable` once the
    // server is gone. Before the kill the same answer means only that the machine is slow (the
    // server is up), so it is not counted as the server being down.
    let clients: Vec<SegmentClient> = (0..2)
        .map(|_| client_waiting(&url, Duration::from_millis(500)))
        .collect();
    let ids = Arc::new(Mutex::new(Vec::<u64>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    // Per thread: IDs drawn, `store_unavailable` seen, IDs drawn after the first of those.
    let drawn = Arc::new(AtomicU64::new(0));
    let unavailable = Arc::new(AtomicU64::new(0));
    let recovered = Arc::new(AtomicU64::new(0));
    let killed = Arc::new(AtomicBool::new(false));
    let after_kill = Arc::new(AtomicU64::new(0));
    // The threads stop drawing while the server is killed, so what the clients hold then is
    // known: every one of those IDs must still be served.
    let paused = Arc::new(AtomicBool::new(false));
    let waiting = Arc::new(AtomicU64::new(0));
    let other_errors = Arc::new(Mutex::new(Vec::<String>::new()));
    std::thread::scope(|scope| {
        for c in &clients {
            for _ in 0..2 {
                let (paused, waiting) = (paused.clone(), waiting.clone());
                let (ids, stop, drawn, unavailable, recovered, killed, after_kill, other) = (
                    ids.clone(),
                    stop.clone(),
                    drawn.clone(),
                    unavailable.clone(),
                    recovered.clone(),
                    killed.clone(),
                    after_kill.clone(),
                    other_errors.clone(),
                );
                scope.spawn(move || {
                    let tag = c.tag("orders").expect("tag");
                    let mut mine = Vec::new();
                    let mut saw_down = false;
                    while !stop.load(Ordering::Relaxed) {
                        if paused.load(Ordering::SeqCst) {
                            waiting.fetch_add(1, Ordering::SeqCst);
                            while paused.load(Ordering::SeqCst) {
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            waiting.fetch_sub(1, Ordering::SeqCst);
                        }
                        match tag.next_id() {
                            Ok(id) => {
                                mine.push(id);
                                drawn.fetch_add(1, Ordering::Relaxed);
                                if killed.load(Ordering::SeqCst) && !saw_down {
                                    after_kill.fetch_add(1, Ordering::Relaxed);
                                }
                                if saw_down {
                                    recovered.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            Err(e)
                                if e.kind() == "store_unavailable"
                                    && !killed.load(Ordering::SeqCst) => {}
                            Err(e) if e.kind() == "store_unavailable" => {
                                if !saw_down {
                                    unavailable.fetch_add(1, Ordering::Relaxed);
                                }
                                saw_down = true;
                            }
                            Err(e) => {
                                other.lock().unwrap().push(e.to_string());
                                break;
                            }
                        }
                    }
                    ids.lock().unwrap().extend(mine);
                });
            }
        }
        let wait_for = |what: &str, ok: &dyn Fn() -> bool| {
            let started = Instant::now();
            while !ok() {
                assert!(
                    other_errors.lock().unwrap().is_empty(),
                    "{:?}",
                    other_errors.lock().unwrap()
                );
                assert!(started.elapsed() < LIMIT, "no {what} within {LIMIT:?}");
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        // A failed check below must not leave the threads held still forever (the scope would
        // wait for them, and the test hang instead of failing): on any way out, they stop.
        let _release = Release(&stop, &paused);
        wait_for("200,000 IDs", &|| drawn.load(Ordering::Relaxed) >= 200_000);
        // SIGKILL with ranges in the clients' memory, the threads held still meanwhile. A client
        // can hold none at the moment they stop (its range just ran out, its next one not in
        // yet, or a refill its callers stopped waiting for); only a draw fetches again, so
        // the threads draw on and are stopped again until every client holds IDs.
        let started = Instant::now();
        loop {
            paused.store(true, Ordering::SeqCst);
            wait_for("the threads to pause", &|| {
                waiting.load(Ordering::SeqCst) == 4
            });
            if clients.iter().all(|c| c.metrics()[0].remaining > 0) {
                break;
            }
            paused.store(false, Ordering::SeqCst);
            assert!(
                started.elapsed() < LIMIT,
                "no moment within {LIMIT:?} when every client held IDs"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        s.kill();
        let held: u64 = clients.iter().map(|c| c.metrics()[0].remaining).sum();
        killed.store(true, Ordering::SeqCst);
        paused.store(false, Ordering::SeqCst);
        wait_for("store_unavailable in every thread", &|| {
            unavailable.load(Ordering::Relaxed) == 4
        });
        assert!(
            after_kill.load(Ordering::Relaxed) >= held,
            "all {held} buffered IDs served after the kill: {}",
            after_kill.load(Ordering::Relaxed)
        );
        let before_restart = drawn.load(Ordering::Relaxed);
        s.restart();
        wait_for("100,000 IDs after the restart", &|| {
            recovered.load(Ordering::Relaxed) >= 100_000
        });
        assert!(drawn.load(Ordering::Relaxed) > before_restart);
        stop.store(true, Ordering::Relaxed);
    });
    assert!(
        other_errors.lock().unwrap().is_empty(),
        "{:?}",
        other_errors.lock().unwrap()
    );
    assert!(
        after_kill.load(Ordering::Relaxed) > 0,
        "buffered IDs were served after the kill"
    );
    let ids = ids.lock().unwrap();
    let distinct: HashSet<u64> = ids.iter().copied().collect();
    eprintln!(
        "killed server: {} IDs ({} after the kill, before the first store_unavailable; {} after recovery), {} duplicates",
        ids.len(),
        after_kill.load(Ordering::Relaxed),
        recovered.load(Ordering::Relaxed),
        ids.len() - distinct.len()
    );
    assert_eq!(ids.len(), distinct.len(), "0 duplicates");
    for c in &clients {
        assert!(c.metrics()[0].store_errors > 0);
    }
}

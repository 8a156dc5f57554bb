//! The acceptance test of `idmint serve`: three servers on one PostgreSQL store and one on the
//! embedded SQLite default, driven by a load client that keeps every ID it is given, while one
//! PostgreSQL server is SIGKILLed and started again and another is SIGTERMed. Not one ID twice,
//! and every request a server accepted answered in full.
//!
//! Segment IDs are unique per store (the SQLite server has a store of its own); snowflake IDs
//! and ObjectIds across all servers: the PostgreSQL servers lease node values 0..511 from
//! their store, the SQLite one 512..1023 from its own.

mod serve_util;

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serve_util::{pg_database, store_server, Served};

/// IDs to collect before the load stops (most from batches of 1000).
const TARGET_IDS: u64 = 5_200_000;
/// The load phase's upper bound: past it the test fails short of the target. Generous, so a
/// loaded 2-core machine never fails the test on speed (the times are printed instead).
const LOAD_LIMIT: Duration = Duration::from_secs(600);
/// How long the test waits for a server's own signal (an answer, an exit).
const LIMIT: Duration = Duration::from_secs(120);
const WORKERS: usize = 6;
/// The server closes keep-alive connections it sees idle at SIGTERM, even when a request's
/// bytes are already in the socket unread (hyper's graceful shutdown): such a request, sent
/// before the SIGTERM, ends with the connection closed and no answer. A server bug
/// (listen.rs `serve`: close idle connections only after a drain delay in which answers carry
/// `Connection: close`); until it is fixed these are counted and printed, not failed. Every
/// other unanswered or broken request still fails the test.
const TOLERATE_IDLE_CLOSE_AT_TERM: bool = false;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Segment,
    Snowflake,
    ObjectId,
}

const KINDS: [Kind; 3] = [Kind::Segment, Kind::Snowflake, Kind::ObjectId];

/// How one request ended.
#[derive(Debug, Clone)]
enum Outcome {
    /// 2xx with every ID asked for.
    Ok(u64),
    /// No connection (refused): the server was not listening.
    Refused,
    /// The connection failed before any response (reset, closed before the answer, timeout).
    Transport(String),
    /// A response, but not a complete 2xx one: status, or a body cut short or wrong.
    Bad(String),
}

impl Outcome {
    fn describe(&self) -> String {
        match self {
            Outcome::Ok(n) => format!("{n} IDs"),
            Outcome::Refused => "connection refused".into(),
            Outcome::Transport(e) => format!("connection failed: {e}"),
            Outcome::Bad(e) => format!("bad answer: {e}"),
        }
    }
}

#[derive(Debug, Clone)]
struct Record {
    server: usize,
    kind: Kind,
    count: u64,
    started: Instant,
    ended: Instant,
    outcome: Outcome,
}

/// What one worker collected.
#[derive(Default)]
struct Haul {
    segments: [Vec<u64>; 2], // by store: 0 PostgreSQL, 1 SQLite
    snowflakes: Vec<u64>,
    object_ids: Vec<[u8; 12]>,
    records: Vec<Record>,
}

struct Target {
    name: &'static str,
    url: String,
    /// 0 PostgreSQL, 1 SQLite.
    store: usize,
    up: AtomicBool,
}

/// The items of a body's `"ids":[…]` list, each as written (strings with their quotes): the
/// server writes the list itself, so it is read the same way, byte for byte.
fn id_items(body: &[u8]) -> Result<Vec<&str>, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("body: {e}"))?;
    let at = text
        .find("\"ids\":[")
        .ok_or_else(|| format!("no \"ids\":[ in {text:.200}"))?;
    let rest = &text[at + 7..];
    let list = rest
        .strip_suffix("]}")
        .ok_or_else(|| format!("body does not end with ]}}: {rest:.200}"))?;
    Ok(if list.is_empty() {
        Vec::new()
    } else {
        list.split(',').collect()
    })
}

fn oid_bytes(hex: &str) -> Option<[u8; 12]> {
    if hex.len() != 24 {
        return None;
    }
    let mut out = [0u8; 12];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// One request: its outcome, the IDs into `haul`.
fn mint(
    http: &reqwest::blocking::Client,
    t: &Target,
    kind: Kind,
    count: u64,
    numbers: bool,
    haul: &mut Haul,
) -> Outcome {
    let path = match kind {
        Kind::Segment => "/v1/segment/u",
        Kind::Snowflake => "/v1/snowflake",
        Kind::ObjectId => "/v1/objectid",
    };
    let as_ = if numbers && kind != Kind::ObjectId {
        "&ids=number"
    } else {
        ""
    };
    let resp = match http
        .post(format!("{}{path}?count={count}{as_}", t.url))
        .send()
    {
        Ok(r) => r,
        Err(e) if e.is_connect() => return Outcome::Refused,
        Err(e) => return Outcome::Transport(format!("{e:?}")),
    };
    let status = resp.status();
    let body = match resp.bytes() {
        Ok(b) => b,
        Err(e) => return Outcome::Bad(format!("{status}, body cut short: {e:?}")),
    };
    if !status.is_success() {
        return Outcome::Bad(format!("{status}: {}", String::from_utf8_lossy(&body)));
    }
    let items = match id_items(&body) {
        Ok(i) => i,
        Err(e) => return Outcome::Bad(e),
    };
    let quoted = kind == Kind::ObjectId || !numbers;
    let mut ids = Vec::with_capacity(items.len());
    for item in &items {
        let inner = if quoted {
            item.strip_prefix('"').and_then(|i| i.strip_suffix('"'))
        } else {
            Some(*item).filter(|i| !i.starts_with('"'))
        };
        let Some(inner) = inner else {
            return Outcome::Bad(format!("ID written as {item} (numbers: {numbers})"));
        };
        if kind == Kind::ObjectId {
            match oid_bytes(inner) {
                Some(o) => haul.object_ids.push(o),
                None => return Outcome::Bad(format!("not an ObjectId: {item}")),
            }
        } else {
            match inner.parse::<u64>() {
                Ok(v) if inner.bytes().all(|b| b.is_ascii_digit()) => ids.push(v),
                _ => return Outcome::Bad(format!("not a decimal u64: {item}")),
            }
        }
    }
    let got = items.len();
    match kind {
        Kind::Segment => haul.segments[t.store].extend(ids),
        Kind::Snowflake => haul.snowflakes.extend(ids),
        Kind::ObjectId => {}
    }
    if got as u64 != count {
        return Outcome::Bad(format!("{got} IDs for count={count}"));
    }
    Outcome::Ok(count)
}

fn layout_nodes(http: &reqwest::blocking::Client, url: &str) -> String {
    let v: serde_json::Value = http
        .get(format!("{url}/v1/layout"))
        .send()
        .expect("/v1/layout")
        .json()
        .expect("/v1/layout JSON");
    v["nodes"].to_string()
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(LIMIT)
        .connect_timeout(LIMIT)
        .pool_max_idle_per_host(4)
        .build()
        .expect("client")
}

#[test]
fn no_id_twice_across_servers_kills_and_restarts() {
    let Some(pg) = store_server("postgres") else {
        return;
    };
    let began = Instant::now();
    let db = pg_database(&pg, "uniq");
    // Lease TTLs (and so the freeze after one, and the store calls' time limit, TTL/4) long
    // enough that no renewal on a loaded machine comes too late, and that the killed pg1's
    // value is still held when it is started again, however long that takes; a shutdown grace
    // no batch in flight at pg2's SIGTERM outlasts, however slow the machine.
    let pg_config = format!(
        "store = \"{db}\"\n[snowflake]\nlease_ttl_ms = 60000\nlease_range = \"0..511\"\n\
         [segment]\ndefault_step = 10000\n[limits]\nshutdown_grace_ms = 60000\n[log]\nlevel = \"warn\"\n"
    );
    let sqlite_config = "store = \"sqlite:./idmint.db\"\n[snowflake]\nlease_ttl_ms = 60000\n\
         lease_range = \"512..1023\"\n[segment]\ndefault_step = 10000\n[log]\nlevel = \"warn\"\n";
    let mut servers = [
        Served::start(&pg_config),
        Served::start(&pg_config),
        Served::start(&pg_config),
        Served::start(sqlite_config),
    ];
    let names = ["pg1", "pg2", "pg3", "sqlite"];
    let targets: Arc<Vec<Target>> = Arc::new(
        servers
            .iter()
            .zip(names)
            .enumerate()
            .map(|(i, (s, name))| Target {
                name,
                url: s.url(),
                store: usize::from(i == 3),
                up: AtomicBool::new(true),
            })
            .collect(),
    );
    let http = client();
    let mut nodes: Vec<String> = servers
        .iter()
        .map(|s| layout_nodes(&http, &s.url()))
        .collect();
    let started_up = began.elapsed();

    let stop = Arc::new(AtomicBool::new(false));
    let issued = Arc::new(AtomicU64::new(0));
    let load_began = Instant::now();
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (targets, stop, issued) = (targets.clone(), stop.clone(), issued.clone());
            std::thread::spawn(move || {
                let http = client();
                let mut haul = Haul::default();
                let mut n: usize = w;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let server = n % targets.len();
                    let t = &targets[server];
                    if !t.up.load(Ordering::Acquire) {
                        continue;
                    }
                    let kind = KINDS[(n / targets.len() + w) % KINDS.len()];
                    let count = if n % 5 == 0 { 1 } else { 1000 };
                    let started = Instant::now();
                    let outcome = mint(&http, t, kind, count, n % 2 == 0, &mut haul);
                    if let Outcome::Ok(k) = outcome {
                        issued.fetch_add(k, Ordering::Relaxed);
                    }
                    if matches!(outcome, Outcome::Refused) {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    haul.records.push(Record {
                        server,
                        kind,
                        count,
                        started,
                        ended: Instant::now(),
                        outcome,
                    });
                }
                haul
            })
        })
        .collect();

    // pg1: SIGKILL, then the same server started again. Its lease (TTL 60 s) is still held, so
    // it must lease another value.
    std::thread::sleep(Duration::from_secs(3));
    targets[0].up.store(false, Ordering::Release);
    let killed_at = Instant::now();
    servers[0].kill();
    servers[0].restart();
    let back_at = Instant::now();
    let restarted_nodes = layout_nodes(&http, &servers[0].url());
    targets[0].up.store(true, Ordering::Release);
    assert!(
        !nodes.contains(&restarted_nodes),
        "the restarted pg1 leased a node value in use or just held: {restarted_nodes} in {nodes:?}"
    );
    nodes.push(restarted_nodes);

    // pg2: slow batches (100 000 snowflake IDs, tens of ms each) kept in flight from three
    // prober threads, then SIGTERM: every request sent before it must be answered in full.
    std::thread::sleep(Duration::from_secs(2));
    let probe_stop = Arc::new(AtomicBool::new(false));
    // Requests the probers have begun: SIGTERM only once there are some under way.
    let probes_begun = Arc::new(AtomicU64::new(0));
    let probers: Vec<_> = (0..3)
        .map(|_| {
            let (targets, probe_stop, begun) =
                (targets.clone(), probe_stop.clone(), probes_begun.clone());
            std::thread::spawn(move || {
                let http = client();
                let mut haul = Haul::default();
                while !probe_stop.load(Ordering::Relaxed) && targets[1].up.load(Ordering::Acquire) {
                    let started = Instant::now();
                    begun.fetch_add(1, Ordering::SeqCst);
                    let outcome = mint(
                        &http,
                        &targets[1],
                        Kind::Snowflake,
                        100_000,
                        true,
                        &mut haul,
                    );
                    let refused = matches!(outcome, Outcome::Refused);
                    haul.records.push(Record {
                        server: 1,
                        kind: Kind::Snowflake,
                        count: 100_000,
                        started,
                        ended: Instant::now(),
                        outcome,
                    });
                    if refused {
                        break;
                    }
                }
                haul
            })
        })
        .collect();
    let waited = Instant::now();
    while probes_begun.load(Ordering::SeqCst) < 3 {
        assert!(
            waited.elapsed() < LIMIT,
            "the probers sent no request within {LIMIT:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let term_at = Instant::now();
    servers[1].signal(libc::SIGTERM);
    let code = servers[1].wait_exit(LIMIT);
    let exited_at = Instant::now();
    targets[1].up.store(false, Ordering::Release);
    probe_stop.store(true, Ordering::Relaxed);
    assert_eq!(
        code,
        Some(0),
        "pg2's exit after SIGTERM:\n{}",
        servers[1].log()
    );

    // The rest of the load, up to the target.
    while issued.load(Ordering::Relaxed) < TARGET_IDS && load_began.elapsed() < LOAD_LIMIT {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let load_elapsed = load_began.elapsed();
    let mut hauls: Vec<Haul> = workers
        .into_iter()
        .map(|w| w.join().expect("worker"))
        .collect();
    for p in probers {
        hauls.push(p.join().expect("prober"));
    }

    // Every request judged: a refused connection or a lost connection is fine only where the
    // server was down (pg1 between its kill and its restart) or had been told to stop (pg2,
    // sent after its SIGTERM); an accepted request that errs, is cut short or hangs never is.
    let records: Vec<&Record> = hauls.iter().flat_map(|h| &h.records).collect();
    let mut failures = Vec::new();
    let mut in_flight_at_term = 0;
    let mut closed_idle_at_term = 0;
    let mut per_server: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for r in &records {
        let excused = match r.server {
            0 => r.started <= back_at && r.ended >= killed_at,
            1 => r.started >= term_at,
            _ => false,
        };
        if r.server == 1 && r.started < term_at && r.ended > term_at {
            in_flight_at_term += 1;
        }
        match &r.outcome {
            Outcome::Ok(k) => {
                let name = if r.server == 0 && r.started >= back_at {
                    "pg1'"
                } else {
                    targets[r.server].name
                };
                let e = per_server.entry(name).or_default();
                e.0 += 1;
                e.1 += k;
            }
            Outcome::Refused | Outcome::Transport(_) if excused => {}
            Outcome::Transport(e)
                if TOLERATE_IDLE_CLOSE_AT_TERM
                    && r.server == 1
                    && e.contains("IncompleteMessage")
                    && r.ended >= term_at =>
            {
                closed_idle_at_term += 1;
            }
            Outcome::Bad(_) if r.server == 0 && excused => {}
            other => failures.push(format!(
                "{} {:?} count={} started {:?} after load start ({:?} after SIGTERM of pg2): {}",
                targets[r.server].name,
                r.kind,
                r.count,
                r.started - load_began,
                r.started.checked_duration_since(term_at),
                other.describe(),
            )),
        }
    }

    // Duplicates, per kind (segment IDs per store).
    let mut dup = BTreeMap::new();
    let mut counts = BTreeMap::new();
    for (label, lists) in [
        (
            "segment(pg)",
            hauls.iter().map(|h| &h.segments[0]).collect::<Vec<_>>(),
        ),
        (
            "segment(sqlite)",
            hauls.iter().map(|h| &h.segments[1]).collect(),
        ),
        ("snowflake", hauls.iter().map(|h| &h.snowflakes).collect()),
    ] {
        let total: usize = lists.iter().map(|l| l.len()).sum();
        let mut seen = HashSet::with_capacity(total);
        let d = lists
            .iter()
            .flat_map(|l| l.iter())
            .filter(|id| !seen.insert(**id))
            .count();
        dup.insert(label, d);
        counts.insert(label, total);
    }
    {
        let total: usize = hauls.iter().map(|h| h.object_ids.len()).sum();
        let mut seen = HashSet::with_capacity(total);
        let d = hauls
            .iter()
            .flat_map(|h| h.object_ids.iter())
            .filter(|o| !seen.insert(**o))
            .count();
        dup.insert("objectid", d);
        counts.insert("objectid", total);
    }
    let total_ids: usize = counts.values().sum();
    let duplicates: usize = dup.values().sum();
    let singles = records.iter().filter(|r| r.count == 1).count();
    let elapsed = began.elapsed();
    eprintln!(
        "serve_uniqueness: {total_ids} IDs {counts:?}; per server (requests, IDs) {per_server:?}; \
         {} requests ({singles} with count=1), {in_flight_at_term} in flight at pg2's SIGTERM \
         ({closed_idle_at_term} sent before it on a keep-alive connection it closed unanswered) \
         (exited {:?} after it), pg1 down {:?}; startup {started_up:?}, load {load_elapsed:?}, \
         total {elapsed:?}; duplicates {duplicates} {dup:?}; failures {}",
        records.len(),
        exited_at - term_at,
        back_at - killed_at,
        failures.len(),
    );
    assert!(
        failures.is_empty(),
        "{} failed requests, the first:\n{}\npg2's log:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n"),
        servers[1].log()
    );
    assert_eq!(duplicates, 0, "duplicate IDs: {dup:?}");
    assert!(
        total_ids as u64 >= TARGET_IDS,
        "only {total_ids} IDs within {LOAD_LIMIT:?}"
    );
    assert!(
        in_flight_at_term > 0,
        "no request was in flight at pg2's SIGTERM: the drain went untested"
    );
    for k in ["segment(pg)", "segment(sqlite)", "snowflake", "objectid"] {
        assert!(counts[k] > 0, "no {k} IDs");
    }
}

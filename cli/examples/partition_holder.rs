//! A lease holder for the partition suite (tests/partition.sh) and the failover suite
//! (tests/clusters.sh): mints snowflake IDs from a leased node value without pause, re-leasing
//! whenever the lease is lost, and writes down what the checks need; and a segment drawer for
//! the failover suite. It only drives idmint-core's public API: the lease, the fence, the
//! stop-before-expiry rule and the segment client's refills are the core's; this program
//! observes them.
//!
//!   partition_holder hold --store URL --dir DIR --range A..B [--ttl-ms N]
//!   partition_holder check DIR...
//!   partition_holder draw --store URL --dir DIR --tag TAG [--step N]
//!   partition_holder check-segments DIR...
//!
//! `hold` runs until DIR/stop exists. Into DIR it writes:
//! - `events.log`, one line per event with the holder's wall time in ms (its own clock, which
//!   the test may have set behind): `minting value=V tenure=N`, `lost value=V margin_ms=M …`,
//!   `waiting …` (no free value yet), `renewal-failed …`, `progress ids=N last_id_ms=T` (every
//!   quarter second), `mark ids=N` (once DIR/mark exists: the count when the test touched it,
//!   or a little later), `stopped ids=N longest_gap_ms=G gap_from_ms=T` (the longest time
//!   between two IDs, and when it began);
//! - `tenure-N.ids`: the IDs of tenure N (u64 little-endian), a tenure being one unbroken run
//!   of minting, from the first ID after leasing (or after a lost lease came back) to the
//!   last before the next loss.
//!
//! The margin of a loss: the store's lease ends no earlier than TTL after the start of the
//! last store call (acquire or renew) that succeeded and had completed when the last ID was
//! minted, so `margin = that start + TTL - the time the last ID was returned`. Both times are
//! read on the holder's clock around the calls, on the side that makes the margin smaller.
//!
//! `check` reads every holder DIR and prints `ids=… duplicates=… handovers=… fence_violations=…`:
//! duplicates over all holders, and for each node value its tenures ordered by first ID, each of
//! which must start above the previous one's last ID (a holder taking a value over another
//! issues only IDs behind that holder's fence). It exits 1 on a duplicate or a violation.
//!
//! `draw` takes IDs of TAG from a segment store, one at a time, until DIR/stop exists, into
//! `drawn.seg` (u64 little-endian), with the same `events.log` lines (`progress`, `mark`,
//! `error …`, `stopped`); ranges of at most `--step` IDs, so it needs the store every few
//! hundred IDs. `check-segments` reads every drawer DIR and prints `ids=… duplicates=…
//! out_of_order=…` (each drawer's IDs must only grow); it exits 1 on either.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::{Parser, Subcommand};
use idmint_core::lease::{
    open_lease_store, Grant, LeaseInfo, LeaseOptions, LeaseRequest, LeaseStore, StoreFuture,
};
use idmint_core::segment::SegmentClient;
use idmint_core::{Error, Layout, OnRollback, Snowflake};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Hold a lease and mint until DIR/stop exists
    Hold {
        #[arg(long)]
        store: String,
        #[arg(long)]
        dir: PathBuf,
        /// The node values to lease from, `A..B` (both included)
        #[arg(long)]
        range: String,
        #[arg(long, default_value_t = 2000)]
        ttl_ms: u64,
        /// The snowflake layout every holder shares
        #[arg(long, default_value = "twitter")]
        layout: String,
    },
    /// Count the IDs of every holder DIR: duplicates, and fences between tenures of a value
    Check {
        #[arg(long, default_value = "twitter")]
        layout: String,
        dirs: Vec<PathBuf>,
    },
    /// Draw segment IDs of TAG until DIR/stop exists
    Draw {
        #[arg(long)]
        store: String,
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        tag: String,
        /// The largest range a refill takes
        #[arg(long, default_value_t = 100)]
        step: u64,
    },
    /// Count the IDs of every drawer DIR: duplicates, and any ID not above its drawer's last
    CheckSegments { dirs: Vec<PathBuf> },
}

fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// One store call that succeeded: when it started and when it returned (µs, holder's clock).
#[derive(Clone, Copy)]
struct Call {
    start_us: u64,
    end_us: u64,
}

/// The store the generator leases from, noting every successful acquire and renewal; a failed
/// renewal goes to the event log, as the moment the partition was first felt.
struct Observed {
    inner: Arc<dyn LeaseStore>,
    calls: Mutex<Vec<Call>>,
    log: Arc<EventLog>,
}

impl Observed {
    /// The start of the last successful call that had returned by `at_us`.
    fn last_success_before(&self, at_us: u64) -> Option<u64> {
        let calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        calls
            .iter()
            .filter(|c| c.end_us <= at_us)
            .map(|c| c.start_us)
            .max()
    }

    fn note(&self, start_us: u64, ok: bool, what: &str) {
        if ok {
            let call = Call {
                start_us,
                end_us: now_us(),
            };
            self.calls
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(call);
        } else {
            self.log.line(&format!("{what}-failed"));
        }
    }
}

impl LeaseStore for Observed {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            let start = now_us();
            let r = self.inner.acquire(req).await;
            // None (nothing free) is no lease: only a grant starts one.
            if matches!(r, Ok(Some(_))) {
                self.note(start, true, "acquire");
            }
            r
        })
    }

    fn renew<'a>(
        &'a self,
        value: u64,
        token: &'a str,
        ttl_ms: u64,
        freeze_ms: u64,
        fence_ms: u64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let start = now_us();
            let r = self
                .inner
                .renew(value, token, ttl_ms, freeze_ms, fence_ms)
                .await;
            self.note(start, matches!(r, Ok(true)), "renewal");
            r
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        self.inner.release(value, token, fence_ms)
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        self.inner.list()
    }
}

/// `events.log`, flushed line by line: the test script waits on these lines.
struct EventLog(Mutex<File>);

impl EventLog {
    fn line(&self, text: &str) {
        let mut f = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let _ = writeln!(f, "{:.3} {text}", now_us() as f64 / 1000.0);
    }
}

/// What a minting loop reports as it goes: `progress` lines, the `mark`, the longest pause.
struct Progress {
    dir: PathBuf,
    count: u64,
    last_id_us: u64,
    longest_gap_us: u64,
    gap_from_us: u64,
    marked: bool,
    reported: std::time::Instant,
    checked: std::time::Instant,
}

impl Progress {
    fn new(dir: &Path) -> Progress {
        Progress {
            dir: dir.to_path_buf(),
            count: 0,
            last_id_us: 0,
            longest_gap_us: 0,
            gap_from_us: 0,
            marked: false,
            reported: std::time::Instant::now(),
            checked: std::time::Instant::now(),
        }
    }

    /// One ID issued at `at_us`.
    fn issued(&mut self, at_us: u64) {
        if self.count > 0 && at_us.saturating_sub(self.last_id_us) > self.longest_gap_us {
            self.longest_gap_us = at_us - self.last_id_us;
            self.gap_from_us = self.last_id_us;
        }
        self.last_id_us = at_us;
        self.count += 1;
    }

    /// Called between IDs: every 100 ms, whether DIR/stop exists (the test's signal to stop),
    /// and the progress lines.
    fn should_stop(&mut self, log: &EventLog) -> bool {
        if self.checked.elapsed() < Duration::from_millis(100) {
            return false;
        }
        self.checked = std::time::Instant::now();
        if self.dir.join("stop").exists() {
            return true;
        }
        self.tick(log);
        false
    }

    /// A `progress` line each quarter second, the `mark` once.
    fn tick(&mut self, log: &EventLog) {
        if !self.marked && self.dir.join("mark").exists() {
            self.marked = true;
            log.line(&format!("mark ids={}", self.count));
        }
        if self.reported.elapsed() >= Duration::from_millis(250) {
            self.reported = std::time::Instant::now();
            log.line(&format!(
                "progress ids={} last_id_ms={:.3}",
                self.count,
                self.last_id_us as f64 / 1000.0
            ));
        }
    }

    fn stopped(&self, log: &EventLog) {
        log.line(&format!(
            "stopped ids={} longest_gap_ms={:.3} gap_from_ms={:.3}",
            self.count,
            self.longest_gap_us as f64 / 1000.0,
            self.gap_from_us as f64 / 1000.0
        ));
    }
}

fn open_log(dir: &Path) -> Result<Arc<EventLog>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(Arc::new(EventLog(Mutex::new(
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("events.log"))
            .map_err(|e| e.to_string())?,
    ))))
}

fn parse_range(text: &str) -> Result<(u64, u64), String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("--range {text}: expected A..B"))?;
    let num = |s: &str| {
        s.parse::<u64>()
            .map_err(|e| format!("--range {text}: {s}: {e}"))
    };
    Ok((num(a)?, num(b)?))
}

fn value_of(layout: &Layout, id: u64) -> Result<u64, Error> {
    // The leased value fills the node fields, the first (highest) field first.
    let parts = layout.decompose(id)?;
    let mut value = 0;
    for (field, (_, v)) in layout.node_fields().zip(parts.nodes) {
        value = (value << field.bits()) | v;
    }
    Ok(value)
}

fn hold(store: &str, dir: &Path, range: &str, ttl_ms: u64, layout: &str) -> Result<(), String> {
    let (first, last) = parse_range(range)?;
    let layout = Layout::parse(layout).map_err(|e| e.to_string())?;
    let log = open_log(dir)?;
    // The store's connections live on this runtime for the whole run; the generator's lease
    // runs its calls on a runtime of its own and awaits them there.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let inner = loop {
        match rt.block_on(open_lease_store(store)) {
            Ok(s) => break s,
            Err(e) => {
                log.line(&format!("open-failed {e}"));
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    };
    let observed = Arc::new(Observed {
        inner,
        calls: Mutex::new(Vec::new()),
        log: log.clone(),
    });
    let ttl = Duration::from_millis(ttl_ms);
    let lease = LeaseOptions::store(observed.clone())
        .range(first, last)
        .ttl(ttl)
        .holder(&dir.file_name().unwrap_or_default().to_string_lossy());
    let stop = dir.join("stop");
    let generator = loop {
        if stop.exists() {
            log.line("stopped ids=0");
            return Ok(());
        }
        // A holder behind the fence of the value it takes waits for its clock to pass it.
        match Snowflake::builder(layout.clone())
            .lease(lease.clone())
            .on_rollback(OnRollback::Wait {
                max: Duration::from_secs(120),
            })
            .build()
        {
            Ok(g) => break g,
            Err(e) => {
                log.line(&format!("waiting {}", e.kind()));
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    };

    let mut tenure = 0u32;
    let mut out: Option<BufWriter<File>> = None;
    let mut value = u64::MAX;
    let mut last_id_us = 0u64;
    let mut lost = true;
    let mut progress = Progress::new(dir);
    loop {
        if progress.should_stop(&log) {
            break;
        }
        match generator.next_id() {
            Ok(id) => {
                // Read after the call returned: the latest the ID can have been admitted.
                last_id_us = now_us();
                progress.issued(last_id_us);
                let v = value_of(&layout, id).map_err(|e| e.to_string())?;
                if lost || v != value {
                    tenure += 1;
                    if let Some(mut w) = out.take() {
                        w.flush().map_err(|e| e.to_string())?;
                    }
                    let path = dir.join(format!("tenure-{tenure}.ids"));
                    out = Some(BufWriter::new(
                        File::create(&path).map_err(|e| e.to_string())?,
                    ));
                    log.line(&format!("minting value={v} tenure={tenure}"));
                    value = v;
                    lost = false;
                }
                if let Some(w) = out.as_mut() {
                    w.write_all(&id.to_le_bytes()).map_err(|e| e.to_string())?;
                }
                // A steady load, not a benchmark: a few thousand IDs a second per holder.
                if progress.count % 16 == 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            Err(Error::LeaseLost { reason, .. }) => {
                if !lost {
                    lost = true;
                    if let Some(w) = out.as_mut() {
                        w.flush().map_err(|e| e.to_string())?;
                    }
                    let margin = match observed.last_success_before(last_id_us) {
                        Some(start) => format!(
                            "{:.3}",
                            (start as f64 + ttl_ms as f64 * 1000.0 - last_id_us as f64) / 1000.0
                        ),
                        None => "none".into(),
                    };
                    log.line(&format!(
                        "lost value={value} margin_ms={margin} last_id_ms={:.3} reason={reason}",
                        last_id_us as f64 / 1000.0
                    ));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => {
                log.line(&format!("error {}: {e}", e.kind()));
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    if let Some(mut w) = out.take() {
        w.flush().map_err(|e| e.to_string())?;
    }
    drop(generator);
    progress.stopped(&log);
    Ok(())
}

fn draw(store: &str, dir: &Path, tag: &str, step: u64) -> Result<(), String> {
    let log = open_log(dir)?;
    let stop = dir.join("stop");
    // Small ranges, so the drawer needs the store every few hundred IDs, through the failover.
    let connect = || {
        SegmentClient::builder()
            .store_url(store)
            .default_step(step)
            .max_step(step)
            .connect_blocking()
    };
    let client = loop {
        if stop.exists() {
            log.line("stopped ids=0");
            return Ok(());
        }
        match connect().and_then(|c| c.tag(tag).map(|t| (c, t))) {
            Ok(c) => break c,
            Err(e) => {
                log.line(&format!("open-failed {e}"));
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    };
    let (_client, handle) = client;
    log.line(&format!("drawing tag={tag}"));
    let mut out = BufWriter::new(File::create(dir.join("drawn.seg")).map_err(|e| e.to_string())?);
    let mut progress = Progress::new(dir);
    loop {
        if progress.should_stop(&log) {
            break;
        }
        match handle.next_id() {
            Ok(id) => {
                progress.issued(now_us());
                out.write_all(&id.to_le_bytes())
                    .map_err(|e| e.to_string())?;
                // A steady load, as `hold`'s.
                if progress.count % 16 == 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            // The client keeps refilling in the background; this caller only waits again.
            Err(e) => {
                log.line(&format!("error {}: {e}", e.kind()));
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    progress.stopped(&log);
    Ok(())
}

fn check_segments(dirs: &[PathBuf]) -> Result<bool, String> {
    let mut all = Vec::new();
    let mut out_of_order = 0;
    for dir in dirs {
        let ids = read_ids(&dir.join("drawn.seg"))?;
        out_of_order += ids.windows(2).filter(|w| w[1] <= w[0]).count();
        all.extend(ids);
    }
    let total = all.len();
    all.sort_unstable();
    let duplicates = all.windows(2).filter(|w| w[0] == w[1]).count();
    println!("ids={total} duplicates={duplicates} out_of_order={out_of_order}");
    Ok(duplicates == 0 && out_of_order == 0 && total > 0)
}

/// One tenure: which holder, its IDs sorted.
struct Tenure {
    name: String,
    first: u64,
    last: u64,
}

fn read_ids(path: &Path) -> Result<Vec<u64>, String> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

fn check(layout: &str, dirs: &[PathBuf]) -> Result<bool, String> {
    let layout = Layout::parse(layout).map_err(|e| e.to_string())?;
    let mut all = Vec::new();
    let mut by_value: BTreeMap<u64, Vec<Tenure>> = BTreeMap::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ids"))
            .collect();
        files.sort();
        for file in files {
            let ids = read_ids(&file)?;
            let (Some(&first), Some(&last)) = (ids.iter().min(), ids.iter().max()) else {
                continue;
            };
            let v = value_of(&layout, first).map_err(|e| e.to_string())?;
            if ids.iter().any(|&id| value_of(&layout, id).ok() != Some(v)) {
                return Err(format!("{}: IDs of more than one value", file.display()));
            }
            by_value.entry(v).or_default().push(Tenure {
                name: format!("{}", file.display()),
                first,
                last,
            });
            all.extend(ids);
        }
    }
    let total = all.len();
    all.sort_unstable();
    let duplicates = all.windows(2).filter(|w| w[0] == w[1]).count();
    let mut handovers = 0;
    let mut violations = 0;
    for (value, tenures) in &mut by_value {
        tenures.sort_by_key(|t| t.first);
        for pair in tenures.windows(2) {
            let holder = |t: &Tenure| {
                Path::new(&t.name)
                    .parent()
                    .map(|p| p.to_path_buf())
                    .unwrap_or_default()
            };
            if holder(&pair[0]) != holder(&pair[1]) {
                handovers += 1;
            }
            if pair[1].first <= pair[0].last {
                violations += 1;
                eprintln!(
                    "value {value}: {} starts at {} but {} minted up to {}",
                    pair[1].name, pair[1].first, pair[0].name, pair[0].last
                );
            }
        }
    }
    println!(
        "ids={total} duplicates={duplicates} values={} handovers={handovers} fence_violations={violations}",
        by_value.len()
    );
    Ok(duplicates == 0 && violations == 0 && total > 0)
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Hold {
            store,
            dir,
            range,
            ttl_ms,
            layout,
        } => hold(&store, &dir, &range, ttl_ms, &layout).map(|()| true),
        Command::Check { layout, dirs } => check(&layout, &dirs),
        Command::Draw {
            store,
            dir,
            tag,
            step,
        } => draw(&store, &dir, &tag, step).map(|()| true),
        Command::CheckSegments { dirs } => check_segments(&dirs),
    };
    match result {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("partition_holder: {e}");
            std::process::exit(2);
        }
    }
}

//! Benchmarks of idmint-core against the crates people would otherwise reach for, then a
//! Markdown summary built from criterion's own estimates, then a count of duplicates from long
//! single-process runs. The tables are printed and written to `docs/bench/rust-ids.md` (with
//! the date, machine and command; `IDMINT_BENCH_WRITE=0` prints only).
//!
//! ```text
//! cargo bench -p idmint-core --bench ids                 # everything
//! cargo bench -p idmint-core --bench ids -- objectid     # criterion filters work as usual
//! IDMINT_BENCH_NO_DUPES=1 cargo bench -p idmint-core --bench ids -- --quick
//! ```

mod report;

use std::collections::HashMap;
use std::fs;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput};
use idmint_core::{Layout, ObjectId, Snowflake};
use report::{publish, read_estimates, run_criterion, tee, Results};

const SNOWFLAKE: &str = "snowflake";
const TWITTER_NEXT: &str = "idmint/twitter next_id";
const WIDE22_NEXT: &str = "idmint/wide22 next_id";
const WIDE22_HWM: &str = "idmint/wide22 next_id, high-water-mark file";
const WIDE22_LEASED: &str = "idmint/wide22 next_id, leased (memory store)";
const TWITTER_BATCH: &str = "idmint/twitter next_ids(1000)";
const RS_SNOWFLAKE: &str = "rs-snowflake/real_time_generate";
const UUID_V7: &str = "uuid/now_v7";

const OBJECTID: &str = "objectid";
const OID_NEW: &str = "idmint/new";
const OID_TO_HEX: &str = "idmint/to_hex";
const OID_TO_HEX_BYTES: &str = "idmint/to_hex_bytes";
const OID_FROM_HEX: &str = "idmint/from_hex";
const BSON_NEW: &str = "bson/new";
const BSON_TO_HEX: &str = "bson/to_hex";
const BSON_PARSE: &str = "bson/parse_str";

const PARSE: &str = "parse";
const DECOMPOSE: &str = "idmint/decompose";
const DECOMPOSE_STR: &str = "idmint/decompose_str";

const BATCH: usize = 1000;

/// 63 bits with a 22-bit sequence: 4.19 G IDs/s per generator, a cap no single thread reaches,
/// so this measures the generator itself. A 40-bit millisecond field counted from the Unix
/// epoch ran out in 2004, hence the epoch.
const WIDE22_SPEC: &str = "time:40,worker:1,sequence:22,epoch=2024-01-01T00:00:00Z";

/// ObjectIds allow 2^24 per second per process.
const OID_CAP_PER_S: f64 = (1u64 << 24) as f64;

const DUPES_OBJECTID: usize = 50_000_000;
const DUPES_SNOWFLAKE: usize = 1_000_000;

fn twitter() -> Snowflake {
    Snowflake::builder(Layout::preset("twitter").expect("twitter preset"))
        .node("datacenter", 1)
        .node("worker", 1)
        .build()
        .expect("twitter generator")
}

fn wide22() -> Snowflake {
    Snowflake::builder(Layout::parse(WIDE22_SPEC).expect("wide22 layout"))
        .node("worker", 1)
        .build()
        .expect("wide22 generator")
}

fn bench_snowflake(c: &mut Criterion) {
    let mut g = c.benchmark_group(SNOWFLAKE);
    // The capped generators sleep out the rest of each millisecond once its 4096 sequence
    // numbers are used, so a sample's time depends on where in the tick it starts. Equal-sized
    // samples make criterion's mean the total time over the total IDs, i.e. the throughput
    // including those sleeps, and 5 s spans enough ticks for the cap share to mean something.
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(1));

    let gen = twitter();
    g.bench_function(TWITTER_NEXT, |b| b.iter(|| gen.next_id().expect("next_id")));

    let gen = wide22();
    g.bench_function(WIDE22_NEXT, |b| b.iter(|| gen.next_id().expect("next_id")));

    // What the restart and lease guards cost per ID: the wide layout is uncapped, so the
    // difference to WIDE22_NEXT is the guard's check (and, once a second, the file write).
    let hwm = std::env::temp_dir().join(format!("idmint-bench-hwm-{}", std::process::id()));
    let gen = Snowflake::builder(Layout::parse(WIDE22_SPEC).expect("wide22 layout"))
        .node("worker", 1)
        .high_water_mark(&hwm)
        .build()
        .expect("wide22 generator with a high-water mark");
    g.bench_function(WIDE22_HWM, |b| b.iter(|| gen.next_id().expect("next_id")));
    drop(gen);
    let _ = fs::remove_file(&hwm);

    #[cfg(feature = "segment")]
    {
        use idmint_core::lease::{LeaseOptions, MemoryLeaseStore};
        let gen = Snowflake::builder(Layout::parse(WIDE22_SPEC).expect("wide22 layout"))
            .lease(LeaseOptions::store(MemoryLeaseStore::new()))
            .build()
            .expect("leased wide22 generator");
        g.bench_function(WIDE22_LEASED, |b| {
            b.iter(|| gen.next_id().expect("next_id"))
        });
    }

    let mut rs = snowflake::SnowflakeIdGenerator::new(1, 1);
    g.bench_function(RS_SNOWFLAKE, |b| b.iter(|| rs.real_time_generate()));

    g.bench_function(UUID_V7, |b| b.iter(uuid::Uuid::now_v7));

    g.throughput(Throughput::Elements(BATCH as u64));
    let gen = twitter();
    let mut buf = vec![0u64; BATCH];
    g.bench_function(TWITTER_BATCH, |b| {
        b.iter(|| {
            gen.next_ids_into(black_box(&mut buf))
                .expect("next_ids_into");
            black_box(buf[BATCH - 1])
        })
    });
    g.finish();
}

fn bench_objectid(c: &mut Criterion) {
    let mut g = c.benchmark_group(OBJECTID);
    g.throughput(Throughput::Elements(1))
        .warm_up_time(Duration::from_secs(1));

    // The 2^24-per-second cap makes whole-second pauses: equal samples over several seconds
    // keep the mean an honest IDs-per-second figure (see bench_snowflake).
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(40)
        .measurement_time(Duration::from_secs(6));
    g.bench_function(OID_NEW, |b| b.iter(ObjectId::new));
    g.bench_function(BSON_NEW, |b| b.iter(bson::oid::ObjectId::new));

    g.sampling_mode(SamplingMode::Auto)
        .sample_size(100)
        .measurement_time(Duration::from_secs(2));
    let oid = ObjectId::new();
    let hex = oid.to_hex();
    let boid = bson::oid::ObjectId::parse_str(&hex).expect("bson parses our hex");
    g.bench_function(OID_TO_HEX, |b| b.iter(|| black_box(oid).to_hex()));
    g.bench_function(OID_TO_HEX_BYTES, |b| {
        b.iter(|| black_box(oid).to_hex_bytes())
    });
    g.bench_function(BSON_TO_HEX, |b| b.iter(|| black_box(boid).to_hex()));
    g.bench_function(OID_FROM_HEX, |b| {
        b.iter(|| ObjectId::parse_str(black_box(hex.as_str())).expect("parse_str"))
    });
    g.bench_function(BSON_PARSE, |b| {
        b.iter(|| bson::oid::ObjectId::parse_str(black_box(hex.as_str())).expect("parse_str"))
    });
    g.finish();
}

fn bench_parse(c: &mut Criterion) {
    let mut g = c.benchmark_group(PARSE);
    g.throughput(Throughput::Elements(1))
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    let gen = twitter();
    let layout = gen.layout().clone();
    let id = gen.next_id().expect("next_id");
    let text = id.to_string();
    g.bench_function(DECOMPOSE, |b| {
        b.iter(|| layout.decompose(black_box(id)).expect("decompose"))
    });
    g.bench_function(DECOMPOSE_STR, |b| {
        b.iter(|| {
            layout
                .decompose_str(black_box(text.as_str()))
                .expect("decompose_str")
        })
    });
    g.finish();
}

enum Note {
    /// Share of a cap given in ns per ID.
    Cap(f64, &'static str),
    /// Peer's time over ours: above 1 means idmint is faster.
    Vs(&'static str, &'static str),
}

/// The criterion table with each row's cap share and ratios to its peers.
fn table(r: &Results, twitter_cap_ns: f64) -> String {
    let mut out = String::new();
    let oid_cap_ns = 1e9 / OID_CAP_PER_S;
    let rows: Vec<(&str, &str, Vec<Note>)> = vec![
        (
            SNOWFLAKE,
            TWITTER_NEXT,
            vec![
                Note::Cap(twitter_cap_ns, "4.096 M/s cap"),
                Note::Vs(RS_SNOWFLAKE, "rs-snowflake"),
                Note::Vs(UUID_V7, "uuid v7"),
            ],
        ),
        (
            SNOWFLAKE,
            TWITTER_BATCH,
            vec![
                Note::Cap(twitter_cap_ns, "4.096 M/s cap"),
                Note::Vs(RS_SNOWFLAKE, "rs-snowflake"),
            ],
        ),
        (
            SNOWFLAKE,
            WIDE22_NEXT,
            vec![
                Note::Vs(RS_SNOWFLAKE, "rs-snowflake"),
                Note::Vs(UUID_V7, "uuid v7"),
            ],
        ),
        (
            SNOWFLAKE,
            WIDE22_HWM,
            vec![Note::Vs(WIDE22_NEXT, "unguarded")],
        ),
        (
            SNOWFLAKE,
            WIDE22_LEASED,
            vec![Note::Vs(WIDE22_NEXT, "unguarded")],
        ),
        (
            SNOWFLAKE,
            RS_SNOWFLAKE,
            vec![Note::Cap(twitter_cap_ns, "4.096 M/s cap")],
        ),
        (SNOWFLAKE, UUID_V7, vec![]),
        (
            OBJECTID,
            OID_NEW,
            vec![
                Note::Cap(oid_cap_ns, "16.78 M/s cap"),
                Note::Vs(BSON_NEW, "bson"),
            ],
        ),
        (OBJECTID, OID_TO_HEX, vec![Note::Vs(BSON_TO_HEX, "bson")]),
        (
            OBJECTID,
            OID_TO_HEX_BYTES,
            vec![Note::Vs(BSON_TO_HEX, "bson to_hex")],
        ),
        (OBJECTID, OID_FROM_HEX, vec![Note::Vs(BSON_PARSE, "bson")]),
        (OBJECTID, BSON_NEW, vec![]),
        (OBJECTID, BSON_TO_HEX, vec![]),
        (OBJECTID, BSON_PARSE, vec![]),
        (PARSE, DECOMPOSE, vec![]),
        (PARSE, DECOMPOSE_STR, vec![]),
    ];

    tee!(out);
    tee!(out, "| benchmark | ns per ID | M IDs/s | ratio |");
    tee!(out, "|---|---:|---:|---|");
    for (group, name, notes) in rows {
        let Some(ns) = r.get(group, name) else {
            continue;
        };
        let ratio: Vec<String> = notes
            .iter()
            .filter_map(|n| match n {
                Note::Cap(cap_ns, label) => {
                    Some(format!("{:.1} % of {label}", 100.0 * cap_ns / ns))
                }
                Note::Vs(peer, label) => r
                    .get(group, peer)
                    .map(|p| format!("{:.2}× vs {label}", p / ns)),
            })
            .collect();
        tee!(
            out,
            "| {group} `{name}` | {} | {:.2} | {} |",
            fmt_ns(ns),
            1e3 / ns,
            if ratio.is_empty() {
                "—".to_string()
            } else {
                ratio.join(", ")
            }
        );
    }
    tee!(out);
    tee!(
        out,
        "Mean of criterion's samples, single thread, {} {} with {} CPUs. \
         \"× vs\" is the other crate's time over idmint's: above 1 means idmint is faster. \
         Capped rows include the waits for the next tick or second.",
        std::env::consts::OS,
        std::env::consts::ARCH,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    out
}

fn fmt_ns(ns: f64) -> String {
    if ns < 10.0 {
        format!("{ns:.2}")
    } else {
        format!("{ns:.1}")
    }
}

/// Run `next` `n` times into memory faulted in beforehand, so the time is the generator's.
fn mint(n: usize, mut next: impl FnMut() -> u128) -> (Vec<u128>, Duration) {
    // A non-zero fill cannot be left to lazily-zeroed pages: every page is touched here.
    let mut keys = vec![u128::MAX; n];
    let start = Instant::now();
    for k in keys.iter_mut() {
        *k = next();
    }
    (keys, start.elapsed())
}

fn duplicates(mut keys: Vec<u128>) -> usize {
    keys.sort_unstable();
    keys.windows(2).filter(|w| w[0] == w[1]).count()
}

fn oid_key(bytes: [u8; 12]) -> u128 {
    let mut b = [0u8; 16];
    b[4..].copy_from_slice(&bytes);
    u128::from_be_bytes(b)
}

fn duplicates_table() -> String {
    let mut out = String::new();
    tee!(out);
    tee!(out, "| generator | IDs | seconds | M IDs/s | duplicates |");
    tee!(out, "|---|---:|---:|---:|---:|");
    let mut row = |label: &str, n: usize, (keys, took): (Vec<u128>, Duration)| {
        let dupes = duplicates(keys);
        tee!(
            out,
            "| {label} | {n} | {:.2} | {:.2} | {dupes} |",
            took.as_secs_f64(),
            n as f64 / took.as_secs_f64() / 1e6,
        );
    };
    row(
        "idmint `ObjectId::new()`",
        DUPES_OBJECTID,
        mint(DUPES_OBJECTID, || oid_key(ObjectId::new().bytes())),
    );
    row(
        "bson `ObjectId::new()`",
        DUPES_OBJECTID,
        mint(DUPES_OBJECTID, || {
            oid_key(bson::oid::ObjectId::new().bytes())
        }),
    );
    let gen = twitter();
    row(
        "idmint twitter `next_id()`",
        DUPES_SNOWFLAKE,
        mint(DUPES_SNOWFLAKE, || gen.next_id().expect("next_id") as u128),
    );
    let mut rs = snowflake::SnowflakeIdGenerator::new(1, 1);
    row(
        "rs-snowflake `real_time_generate()`",
        DUPES_SNOWFLAKE,
        mint(DUPES_SNOWFLAKE, || rs.real_time_generate() as u64 as u128),
    );
    tee!(out);
    tee!(
        out,
        "One thread, one process; seconds count minting only. idmint's ObjectId waits for the \
         next second after 2^24 IDs, and a run starts with the current second's budget unused, \
         so a few seconds' run can average a little above 16.78 M/s. bson's counter wraps \
         without waiting, so beyond 2^24 IDs in one second it reissues earlier ones."
    );
    out
}

fn main() {
    let Some((dir, started)) = run_criterion(|c| {
        bench_snowflake(c);
        bench_objectid(c);
        bench_parse(c);
    }) else {
        return;
    };
    let mut per_iter: HashMap<String, f64> = [
        (SNOWFLAKE, TWITTER_NEXT),
        (SNOWFLAKE, WIDE22_NEXT),
        (SNOWFLAKE, WIDE22_HWM),
        (SNOWFLAKE, WIDE22_LEASED),
        (SNOWFLAKE, RS_SNOWFLAKE),
        (SNOWFLAKE, UUID_V7),
        (OBJECTID, OID_NEW),
        (OBJECTID, OID_TO_HEX),
        (OBJECTID, OID_TO_HEX_BYTES),
        (OBJECTID, OID_FROM_HEX),
        (OBJECTID, BSON_NEW),
        (OBJECTID, BSON_TO_HEX),
        (OBJECTID, BSON_PARSE),
        (PARSE, DECOMPOSE),
        (PARSE, DECOMPOSE_STR),
    ]
    .iter()
    .map(|(g, n)| (format!("{g}/{n}"), 1.0))
    .collect();
    per_iter.insert(format!("{SNOWFLAKE}/{TWITTER_BATCH}"), BATCH as f64);

    let twitter_cap_ns = 1e9 / twitter().layout().ids_per_second_cap();
    let mut body = table(&read_estimates(&dir, started, &per_iter), twitter_cap_ns);
    if !std::env::var_os("IDMINT_BENCH_NO_DUPES").is_some_and(|v| !v.is_empty() && v != "0") {
        body.push_str(&duplicates_table());
    }
    publish("rust-ids", "idmint-core `ids` benchmark", &body);
}

//! Costs of the display formats: obfuscation, short strings, UUIDv7, templates. A Markdown
//! table built from criterion's estimates is printed and written to
//! `docs/bench/rust-formats.md` (with the date, machine and command; `IDMINT_BENCH_WRITE=0`
//! prints only).
//!
//! ```text
//! cargo bench -p idmint-core --bench formats
//! ```

mod report;

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput};
use idmint_core::{
    Encoding, Key, ManualClock, MemoryDailyCounter, Obfuscator, OrderNumbers, Template,
    Uuid7Generator,
};
use report::{publish, read_estimates, tee};

const GROUP: &str = "formats";
/// The benchmarks of `formats()`, in the table's order.
const NAMES: [&str; 8] = [
    "obfuscate",
    "reveal",
    "base62 encode",
    "base62 decode",
    "uuid7 next_uuid",
    "uuid7 next_uuids_into (per 1000)",
    "order number next",
    "template parse",
];

fn formats(c: &mut Criterion) {
    let mut g = c.benchmark_group(GROUP);
    g.throughput(Throughput::Elements(1));
    let ob = Obfuscator::new(&Key::new(1, *b"0123456789abcdef").unwrap());
    let id = 1_541_815_603_606_036_480u64;
    g.bench_function("obfuscate", |b| b.iter(|| ob.obfuscate(black_box(id))));
    g.bench_function("reveal", |b| b.iter(|| ob.reveal(black_box(id))));
    g.bench_function("base62 encode", |b| {
        let mut buf = [0u8; 13];
        b.iter(|| Encoding::Base62.encode_to(&mut buf, black_box(id)).len())
    });
    g.bench_function("base62 decode", |b| {
        b.iter(|| Encoding::Base62.decode(black_box("1ptWyK4WgZU")))
    });
    let gen = Uuid7Generator::new();
    g.bench_function("uuid7 next_uuid", |b| b.iter(|| gen.next_uuid()));
    let mut batch = gen.next_uuids(1000).unwrap();
    g.bench_function("uuid7 next_uuids_into (per 1000)", |b| {
        b.iter(|| gen.next_uuids_into(black_box(&mut batch)))
    });
    let clock = ManualClock::new(1_716_309_000_000);
    let t = Template::new("%L%Y%M%D%m%12S").unwrap().label("7").unwrap();
    let orders = OrderNumbers::new(t.clone(), MemoryDailyCounter::new(), &clock).unwrap();
    g.bench_function("order number next", |b| b.iter(|| orders.next()));
    g.bench_function("template parse", |b| {
        b.iter(|| t.parse(black_box("72024052130000000000042")))
    });
    g.finish();
}

fn main() {
    let Some((dir, started)) = report::run_criterion(formats) else {
        return;
    };
    let per_iter: HashMap<String, f64> = NAMES
        .iter()
        .map(|n| (format!("{GROUP}/{n}"), 1.0))
        .collect();
    let r = read_estimates(&dir, started, &per_iter);
    let mut out = String::new();
    tee!(out);
    tee!(out, "| benchmark | ns per call | M calls/s |");
    tee!(out, "|---|---:|---:|");
    for name in NAMES {
        if let Some(ns) = r.get(GROUP, name) {
            tee!(out, "| `{name}` | {ns:.1} | {:.2} |", 1e3 / ns);
        }
    }
    tee!(out);
    tee!(
        out,
        "Mean of criterion's samples, single thread. The batch row is one call of 1000 UUIDs."
    );
    publish("rust-formats", "idmint-core `formats` benchmark", &out);
}

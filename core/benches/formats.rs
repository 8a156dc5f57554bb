//! Costs of the display formats: obfuscation, short strings, UUIDv7, templates.
//!
//! ```text
//! cargo bench -p idmint-core --bench formats
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use idmint_core::{
    Encoding, Key, ManualClock, MemoryDailyCounter, Obfuscator, OrderNumbers, Template,
    Uuid7Generator,
};

fn formats(c: &mut Criterion) {
    let mut g = c.benchmark_group("formats");
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

criterion_group!(benches, formats);
criterion_main!(benches);

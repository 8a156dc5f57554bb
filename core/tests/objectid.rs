//! ObjectId uniqueness: 50 M from one process, the 2^24-per-second rule, threads.

use std::sync::Arc;

use idmint_core::{ManualClock, ObjectId, ObjectIdGenerator};

fn as_u128(o: &ObjectId) -> u128 {
    let mut b = [0u8; 16];
    b[4..].copy_from_slice(&o.bytes());
    u128::from_be_bytes(b)
}

fn duplicates(ids: &mut [u128]) -> usize {
    ids.sort_unstable();
    ids.windows(2).filter(|w| w[0] == w[1]).count()
}

#[test]
fn fifty_million_consecutive_ids_have_no_duplicates() {
    let first = ObjectId::new();
    let mut ids: Vec<u128> = Vec::with_capacity(50_000_000);
    let mut last = first;
    for _ in 0..50_000_000 {
        let o = ObjectId::new();
        assert!(o.timestamp() >= last.timestamp(), "time went back");
        assert_eq!(o.random(), first.random(), "one random value per process");
        last = o;
        ids.push(as_u128(&o));
    }
    assert_eq!(duplicates(&mut ids), 0);
}

#[test]
fn at_most_two_to_the_24_per_second_then_wait() {
    let clock = ManualClock::new(1_700_000_000_250);
    let start = 0xABCDEF;
    let g = ObjectIdGenerator::with_clock(&clock, Some([9; 5]), Some(start));
    let mut seen = vec![false; 1 << 24];
    for _ in 0..(1u32 << 24) {
        let o = g.next_id();
        assert_eq!(o.timestamp(), 1_700_000_000);
        let c = o.counter() as usize;
        assert!(!seen[c], "counter {c} repeated within one second");
        seen[c] = true;
    }
    assert_eq!(clock.slept_ms(), 0);
    let o = g.next_id();
    assert_eq!(clock.slept_ms(), 750, "waited for the next second");
    assert_eq!(g.waits(), 1);
    assert_eq!((o.timestamp(), o.counter()), (1_700_000_001, start));
}

#[test]
fn counter_carries_on_across_seconds_and_wraps() {
    let clock = ManualClock::new(1_000_000);
    let g = ObjectIdGenerator::with_clock(&clock, Some([1; 5]), Some(0xFFFFFE));
    let c: Vec<u32> = (0..3).map(|_| g.next_id().counter()).collect();
    assert_eq!(c, [0xFFFFFE, 0xFFFFFF, 0]);
    clock.advance_ms(1000);
    assert_eq!(g.next_id().counter(), 1);
}

#[test]
fn eight_threads_share_one_generator_without_duplicates() {
    let g = Arc::new(ObjectIdGenerator::new());
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let g = Arc::clone(&g);
            std::thread::spawn(move || {
                (0..1_000_000)
                    .map(|_| as_u128(&g.next_id()))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all: Vec<u128> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert_eq!(all.len(), 8_000_000);
    assert_eq!(duplicates(&mut all), 0);
}

#[test]
fn bytes_hex_and_order() {
    let a = ObjectId::from_parts(1, [0xff; 5], 5).unwrap();
    let b = ObjectId::from_parts(2, [0; 5], 0).unwrap();
    assert!(a < b, "ordering is by bytes, time first");
    assert_eq!(format!("{a:?}"), "ObjectId(\"00000001ffffffffff000005\")");
    assert_eq!(ObjectId::from(a.bytes()), a);
    let err = ObjectId::parse_str("0x0000000000000000000000").unwrap_err();
    assert!(err.to_string().contains("position 1"), "{err}");
    let err = ObjectId::parse_str("00000000000000000000000é").unwrap_err();
    assert!(err.to_string().contains("24 hex characters"), "{err}");
}

#[test]
fn blocks_are_the_ids_next_id_gives_and_keep_the_per_second_rule() {
    let clock = ManualClock::new(1_700_000_000_250);
    let start = 0xFFFFF0;
    let a = ObjectIdGenerator::with_clock(&clock, Some([9; 5]), Some(start));
    let b = ObjectIdGenerator::with_clock(&clock, Some([9; 5]), Some(start));
    // Blocks of 1000 from `a`, one by one from `b`: the same IDs, wrapping the counter, until
    // the second's 2^24 are used up; both then wait for the next second.
    let mut seen = vec![false; 1 << 24];
    let mut block = vec![0u8; 12 * 1000];
    let mut made = 0usize;
    while made < (1 << 24) {
        let n = (1000).min((1 << 24) - made);
        a.fill_bytes(&mut block[..12 * n]).unwrap();
        for chunk in block[..12 * n].chunks(12) {
            let o = ObjectId::from_slice(chunk).unwrap();
            assert_eq!(o, b.next_id());
            assert_eq!(o.timestamp(), 1_700_000_000);
            assert!(
                !std::mem::replace(&mut seen[o.counter() as usize], true),
                "counter repeated"
            );
        }
        made += n;
    }
    assert_eq!(clock.slept_ms(), 0);
    a.fill_bytes(&mut block[..24]).unwrap();
    assert_eq!(clock.slept_ms(), 750, "waited for the next second");
    assert_eq!(a.waits(), 1);
    let o = ObjectId::from_slice(&block[..12]).unwrap();
    assert_eq!((o.timestamp(), o.counter()), (1_700_000_001, start));
}

#[test]
fn a_block_spanning_the_end_of_a_second_waits_and_goes_on() {
    let clock = ManualClock::new(5_000);
    let g = ObjectIdGenerator::with_clock(&clock, Some([1; 5]), Some(0));
    let mut chunk = vec![0u8; 12 * 1000];
    let mut left = (1 << 24) - 2;
    while left > 0 {
        let n = left.min(1000);
        g.fill_bytes(&mut chunk[..12 * n]).unwrap();
        left -= n;
    }
    let mut block = [0u8; 12 * 4];
    g.fill_bytes(&mut block).unwrap();
    let ids: Vec<ObjectId> = block
        .chunks(12)
        .map(|c| ObjectId::from_slice(c).unwrap())
        .collect();
    assert_eq!(
        ids.iter()
            .map(|o| (o.timestamp(), o.counter()))
            .collect::<Vec<_>>(),
        [(5, 0xFFFFFE), (5, 0xFFFFFF), (6, 0), (6, 1)]
    );
}

#[test]
fn blocks_and_single_ids_from_eight_threads_have_no_duplicates() {
    let handles: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut ids = Vec::with_capacity(500_000);
                let mut block = vec![0u8; 12 * 100];
                while ids.len() < 500_000 {
                    if t % 2 == 0 {
                        ids.push(as_u128(&ObjectId::new()));
                    } else {
                        ObjectId::fill_new(&mut block).unwrap();
                        ids.extend(
                            block
                                .chunks(12)
                                .map(|c| as_u128(&ObjectId::from_slice(c).unwrap())),
                        );
                    }
                }
                ids
            })
        })
        .collect();
    let mut all: Vec<u128> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert_eq!(all.len(), 4_000_000);
    assert_eq!(duplicates(&mut all), 0);
}

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
fn blocks_stop_at_the_seconds_last_counter_then_wait() {
    let clock = ManualClock::new(1_700_000_000_250);
    let start = 0x000100;
    let g = ObjectIdGenerator::with_clock(&clock, Some([9; 5]), Some(start));
    let mut seen = vec![false; 1 << 24];
    let mut block = vec![ObjectId::default(); 1000];
    let mut issued = 0usize;
    while issued < 1 << 24 {
        let n = g.next_block(&mut block);
        assert!(n >= 1);
        for o in &block[..n] {
            assert_eq!(o.timestamp(), 1_700_000_000);
            let c = o.counter() as usize;
            assert!(!seen[c], "counter {c} repeated within one second");
            seen[c] = true;
        }
        issued += n;
    }
    assert_eq!(
        issued,
        1 << 24,
        "the last block is cut at the second's 2^24th value"
    );
    assert_eq!(clock.slept_ms(), 0);
    // single IDs and blocks draw from the same counter
    let n = g.next_block(&mut block);
    assert_eq!(clock.slept_ms(), 750, "waited for the next second");
    assert_eq!(
        (block[0].timestamp(), block[0].counter(), n),
        (1_700_000_001, start, 1000)
    );
    assert_eq!(g.next_id().counter(), start + 1000);
    assert_eq!(g.next_block(&mut []), 0);
}

#[test]
fn blocks_and_single_ids_from_eight_threads_have_no_duplicates() {
    let g = Arc::new(ObjectIdGenerator::new());
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let g = Arc::clone(&g);
            std::thread::spawn(move || {
                let mut out = Vec::with_capacity(500_000);
                let mut block = vec![ObjectId::default(); 64];
                while out.len() < 500_000 {
                    if t % 2 == 0 {
                        out.push(as_u128(&g.next_id()));
                    } else {
                        let n = g.next_block(&mut block);
                        out.extend(block[..n].iter().map(as_u128));
                    }
                }
                out
            })
        })
        .collect();
    let mut all: Vec<u128> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert!(all.len() >= 4_000_000);
    assert_eq!(duplicates(&mut all), 0);
}

#[test]
fn utf16_parse_agrees_with_text_parse() {
    let cases = [
        "507f1f77bcf86cd799439011",
        "507F1F77BCF86CD799439011",
        "507f1f77bcf86cd79943901g",
        "507f1f77bcf86cd79943901",
        "507f1f77bcf86cd7994390110",
        "507f1f77bcf86cd79943901\u{130}",
        "507f1f77bcf86cd7994390\u{e9}1",
        "",
    ];
    for text in cases {
        let units: Vec<u16> = text.encode_utf16().collect();
        let a = ObjectId::parse_utf16(&units).map_err(|e| e.to_string());
        let b = ObjectId::parse_str(text).map_err(|e| e.to_string());
        assert_eq!(a, b, "{text:?}");
    }
    // a lone surrogate is refused, not cut to a byte
    let mut units: Vec<u16> = "507f1f77bcf86cd79943901".encode_utf16().collect();
    units.push(0xD830);
    assert_eq!(
        ObjectId::parse_utf16(&units).unwrap_err().kind(),
        "invalid_object_id"
    );
}

//! Obfuscation: vectors, a bijection over 10 M IDs, and the statistics of its outputs.

use std::time::Instant;

use idmint_core::{Key, Keyring, Layout, ManualClock, Obfuscator, Snowflake};
use proptest::prelude::*;
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn test_key() -> Obfuscator {
    Obfuscator::new(&Key::parse("idmint-key-v1:8d1c6a2b9f0e4d3c7b6a5f4e3d2c1b0a").unwrap())
}

#[test]
fn vectors() {
    let v = load("obfuscate.json");
    for case in v["valid"].as_array().unwrap() {
        let key = Key::parse(case["key"].as_str().unwrap()).unwrap();
        let ob = Obfuscator::new(&key);
        let ring = Keyring::new([key]).unwrap();
        let id: u64 = case["id"].as_str().unwrap().parse().unwrap();
        let out: u64 = case["obfuscated"].as_str().unwrap().parse().unwrap();
        assert_eq!(ob.obfuscate(id).unwrap(), out, "{case}");
        assert_eq!(ob.reveal(out).unwrap(), id, "{case}");
        assert_eq!(
            ring.obfuscate_tagged(id).unwrap(),
            case["tagged"].as_str().unwrap()
        );
        assert_eq!(
            ring.reveal_tagged(case["tagged"].as_str().unwrap())
                .unwrap(),
            id
        );
    }
    let ob = test_key();
    for case in v["invalid_ids"].as_array().unwrap() {
        let id: u64 = case["id"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            ob.obfuscate(id).unwrap_err().kind(),
            case["error"].as_str().unwrap()
        );
        assert_eq!(
            ob.reveal(id).unwrap_err().kind(),
            case["error"].as_str().unwrap()
        );
    }
    for case in v["invalid_keys"].as_array().unwrap() {
        let err = Key::parse(case["key"].as_str().unwrap()).unwrap_err();
        assert_eq!(err.kind(), case["error"].as_str().unwrap(), "{case}");
        assert!(
            !err.to_string().contains("zzzz"),
            "the secret is not echoed: {err}"
        );
    }
    for case in v["invalid_tagged"].as_array().unwrap() {
        let ring = Keyring::parse(case["keyring"].as_str().unwrap()).unwrap();
        let err = ring
            .reveal_tagged(case["tagged"].as_str().unwrap())
            .unwrap_err();
        assert_eq!(err.kind(), case["error"].as_str().unwrap(), "{case}");
    }
}

#[test]
fn ten_million_ids_round_trip_without_collisions() {
    let ob = test_key();
    // Consecutive IDs from a realistic snowflake value, where a weak mapping would show.
    let base = 1_541_815_603_606_036_480u64;
    let n = 10_000_000u64;
    let t = Instant::now();
    let mut out: Vec<u64> = (base..base + n)
        .map(|id| ob.obfuscate(id).unwrap())
        .collect();
    for (i, &o) in out.iter().enumerate() {
        assert!(o <= i64::MAX as u64);
        assert_eq!(ob.reveal(o).unwrap(), base + i as u64);
    }
    let elapsed = t.elapsed();
    out.sort_unstable();
    assert!(
        out.windows(2).all(|w| w[0] != w[1]),
        "two IDs share an output"
    );
    eprintln!("10 M obfuscate + reveal: {elapsed:?}");
}

fn snowflake_ids(n: usize) -> Vec<u64> {
    let clock = ManualClock::new(1_716_309_000_000);
    let g = Snowflake::with_clock(Layout::preset("twitter").unwrap(), &clock)
        .node("datacenter", 3)
        .node("worker", 17)
        .build()
        .unwrap();
    g.next_ids(n).unwrap()
}

#[test]
fn outputs_of_consecutive_snowflake_ids_are_balanced() {
    let ob = test_key();
    let ids = snowflake_ids(100_000);
    // The inputs are far from balanced: their top bits barely change.
    let mut ones = [0u32; 63];
    for &id in &ids {
        let o = ob.obfuscate(id).unwrap();
        assert_eq!(o >> 63, 0);
        for (bit, count) in ones.iter_mut().enumerate() {
            *count += ((o >> bit) & 1) as u32;
        }
    }
    // Binomial(100 000, 1/2): sd 158; 5 sd either side.
    for (bit, &count) in ones.iter().enumerate() {
        assert!(
            (49_210..=50_790).contains(&count),
            "bit {bit}: {count} ones in 100 000"
        );
    }
}

#[test]
fn one_flipped_input_bit_flips_about_half_the_output_bits() {
    let ob = test_key();
    let ids = snowflake_ids(100_000);
    let mut total = 0u64;
    for (i, &id) in ids.iter().enumerate() {
        let bit = i % 63;
        let d = ob.obfuscate(id).unwrap() ^ ob.obfuscate(id ^ (1 << bit)).unwrap();
        total += d.count_ones() as u64;
    }
    let mean = total as f64 / ids.len() as f64;
    // Binomial(63, 1/2) per sample: mean 31.5, sd 3.97; over 100 000 samples sd 0.0126.
    assert!(
        (mean - 31.5).abs() < 0.08,
        "mean output bits flipped: {mean}"
    );

    // Strict avalanche: every (input bit, output bit) pair flips with probability near 1/2.
    let sample = &ids[..10_000];
    let mut flips = vec![[0u32; 63]; 63];
    for &id in sample {
        let o = ob.obfuscate(id).unwrap();
        for (inb, row) in flips.iter_mut().enumerate() {
            let d = o ^ ob.obfuscate(id ^ (1 << inb)).unwrap();
            for (outb, c) in row.iter_mut().enumerate() {
                *c += ((d >> outb) & 1) as u32;
            }
        }
    }
    // Binomial(10 000, 1/2): sd 50; 6 sd either side over 3969 pairs.
    for (inb, row) in flips.iter().enumerate() {
        for (outb, &c) in row.iter().enumerate() {
            assert!(
                (4_700..=5_300).contains(&c),
                "input bit {inb} -> output bit {outb}: {c}"
            );
        }
    }
}

#[test]
fn different_keys_give_unrelated_outputs() {
    let a = test_key();
    let b = Obfuscator::new(&Key::new(2, [7; 16]).unwrap());
    let same = (0..10_000u64)
        .filter(|&i| a.obfuscate(i).unwrap() == b.obfuscate(i).unwrap())
        .count();
    assert_eq!(same, 0);
}

#[test]
fn rotation_keeps_old_tokens_revealable() {
    let old = Key::generate(1).unwrap();
    let ring1 = Keyring::new([old.clone()]).unwrap();
    let token = ring1.obfuscate_tagged(123_456).unwrap();
    let plain = ring1.obfuscate(123_456).unwrap();
    let ring2 = Keyring::new([old, Key::generate(2).unwrap()]).unwrap();
    assert_eq!(ring2.active().version(), 2);
    assert_eq!(ring2.reveal_tagged(&token).unwrap(), 123_456);
    assert_eq!(ring2.reveal(1, plain).unwrap(), 123_456);
    assert_ne!(ring2.obfuscate_tagged(123_456).unwrap(), token);
    let text = format!(
        "# keys\n\n{}\n  {}  \n",
        Key::new(3, [1; 16]).unwrap().to_text(),
        Key::new(9, [2; 16]).unwrap().to_text()
    );
    assert_eq!(Keyring::parse(&text).unwrap().versions(), vec![3, 9]);
    let dup = format!(
        "{}\n{}",
        Key::new(3, [1; 16]).unwrap().to_text(),
        Key::new(3, [2; 16]).unwrap().to_text()
    );
    assert_eq!(Keyring::parse(&dup).unwrap_err().kind(), "invalid_key");
    assert_eq!(
        Keyring::parse("# nothing\n").unwrap_err().kind(),
        "invalid_key"
    );
}

proptest! {
    #[test]
    fn round_trip(id in 0u64..=i64::MAX as u64, key: [u8; 16]) {
        let ob = Obfuscator::new(&Key::new(5, key).unwrap());
        let o = ob.obfuscate(id).unwrap();
        prop_assert!(o <= i64::MAX as u64);
        prop_assert_eq!(ob.reveal(o).unwrap(), id);
        prop_assert_eq!(ob.obfuscate(ob.reveal(id).unwrap()).unwrap(), id);
    }
}

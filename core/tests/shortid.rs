//! Short strings: the vectors, every boundary value, and order preservation.

use idmint_core::Encoding;
use proptest::prelude::*;
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn vectors_encode_and_decode() {
    let v = load("shortid.json");
    let valid = v["valid"].as_array().unwrap();
    assert!(valid.len() > 40);
    for case in valid {
        let value: u64 = case["value"].as_str().unwrap().parse().unwrap();
        for enc in Encoding::ALL {
            let text = case[enc.name()].as_str().unwrap();
            assert_eq!(enc.encode(value), text, "{enc} {value}");
            assert_eq!(enc.decode(text).unwrap(), value, "{enc} {text}");
        }
    }
    for case in v["aliases"].as_array().unwrap() {
        let enc: Encoding = case["encoding"].as_str().unwrap().parse().unwrap();
        let want: u64 = case["value"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            enc.decode(case["text"].as_str().unwrap()).unwrap(),
            want,
            "{case}"
        );
    }
    for case in v["invalid"].as_array().unwrap() {
        let enc: Encoding = case["encoding"].as_str().unwrap().parse().unwrap();
        let err = enc.decode(case["text"].as_str().unwrap()).unwrap_err();
        assert_eq!(err.kind(), case["error"].as_str().unwrap(), "{case}");
    }
}

/// Every power of 2, 62 and 32 in range, and its neighbours.
fn boundaries() -> Vec<u64> {
    let mut out = vec![0, u64::MAX, u64::MAX - 1, i64::MAX as u64];
    for radix in [2u64, 32, 62] {
        let mut p: u64 = 1;
        loop {
            out.extend([p.saturating_sub(1), p, p.saturating_add(1)]);
            match p.checked_mul(radix) {
                Some(n) => p = n,
                None => break,
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn boundary_values_round_trip_in_every_encoding() {
    let values = boundaries();
    for enc in Encoding::ALL {
        for &v in &values {
            let text = enc.encode(v);
            assert!(text.len() <= enc.max_len());
            assert_eq!(enc.decode(&text).unwrap(), v, "{enc} {v} {text}");
            if enc == Encoding::Base32 || enc == Encoding::Base32Fixed {
                assert_eq!(enc.decode(&text.to_lowercase()).unwrap(), v);
            }
        }
        if enc.is_order_preserving() {
            let texts: Vec<String> = values.iter().map(|&v| enc.encode(v)).collect();
            assert!(texts.windows(2).all(|w| w[0] < w[1]), "{enc} does not sort");
        }
    }
}

#[test]
fn variable_width_is_not_order_preserving() {
    for enc in [Encoding::Base62, Encoding::Base32] {
        assert!(enc.encode(61) > enc.encode(62) || enc.encode(31) > enc.encode(32));
    }
}

#[test]
fn errors_name_the_bad_character_and_position() {
    let err = Encoding::Base32.decode("12U4").unwrap_err();
    assert!(err.to_string().contains("'U' at position 2"), "{err}");
    let err = Encoding::Base62Fixed.decode("abc").unwrap_err();
    assert!(err.to_string().contains("exactly 11"), "{err}");
}

proptest! {
    #[test]
    fn any_value_round_trips(v: u64) {
        for enc in Encoding::ALL {
            prop_assert_eq!(enc.decode(&enc.encode(v)).unwrap(), v);
        }
    }

    #[test]
    fn fixed_forms_sort_like_numbers(a: u64, b: u64) {
        for enc in [Encoding::Base62Fixed, Encoding::Base32Fixed] {
            prop_assert_eq!(enc.encode(a).cmp(&enc.encode(b)), a.cmp(&b));
        }
    }
}

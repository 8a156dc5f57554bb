//! `parse_id`: what it accepts is 0..=2^63-1 and prints back as the same decimal (leading
//! zeros aside); decimal text of any `u64` parses exactly when it is at most 2^63-1.
//! `formats::decode`, the one reader of every ID format: any text is read or refused, never a
//! panic, and what it reads, its canonical text reads again as the same ID: as its format named,
//! and by `decode` alone too unless that text is all digits (a TSID such as `000050I700004`
//! has the canonical text `0000501700004`, which `decode` reads as a decimal, as documented).

use idmint_core::formats::{decode, decode_as, Format};
use idmint_core::{parse_id, Layout};

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(id) = parse_id(text) {
            assert!(id <= i64::MAX as u64);
            assert_eq!(parse_id(&id.to_string()).unwrap(), id);
            assert_eq!(text.trim_start_matches('0').trim_start_matches('0'), {
                let s = id.to_string();
                if id == 0 {
                    String::new()
                } else {
                    s
                }
            });
        }
        let discord = Layout::preset("discord").expect("a preset");
        for layout in [None, Some(&discord)] {
            if let Ok(d) = decode(text, layout) {
                let again = decode_as(&d.id, d.format, layout).expect("canonical text reads");
                assert_eq!(again, d, "{text:?}");
                let decimal = matches!(d.format, Format::Snowflake | Format::Integer);
                if decimal || !d.id.bytes().all(|b| b.is_ascii_digit()) {
                    assert_eq!(decode(&d.id, layout).expect("canonical text reads"), d);
                }
                assert_eq!(decode_as(text, d.format, layout).expect("as its format"), d);
            }
        }
    }
    if data.len() >= 8 {
        let v = u64::from_le_bytes(data[..8].try_into().unwrap());
        match parse_id(&v.to_string()) {
            Ok(id) => assert_eq!(id, v),
            Err(e) => {
                assert!(v > i64::MAX as u64);
                assert_eq!(e.kind(), "invalid_id");
            }
        }
        // Every u64 is a 64-bit integer, and its decimal reads back as itself.
        let d = decode(&v.to_string(), None).expect("any u64");
        assert_eq!(d.value, Some(v));
    }
}

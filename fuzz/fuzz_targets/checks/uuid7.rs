//! UUIDv7 and ULID text: an accepted UUID prints (canonical form) and parses back to itself,
//! as does its ULID; 16 bytes that make a UUIDv7 round-trip through both texts.

use idmint_core::Uuid7;

fn round_trips(u: Uuid7) {
    let canonical = u.to_string();
    assert_eq!(Uuid7::parse_str(&canonical).unwrap(), u, "{canonical}");
    let ulid = u.to_ulid();
    assert_eq!(Uuid7::parse_ulid(&ulid).unwrap(), u, "{ulid}");
    assert_eq!(Uuid7::from_bytes(u.to_bytes()).unwrap(), u);
}

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(u) = Uuid7::parse_str(text) {
            round_trips(u);
        }
        if let Ok(u) = Uuid7::parse_ulid(text) {
            round_trips(u);
        }
        if let Ok(u) = text.parse::<Uuid7>() {
            round_trips(u);
        }
    }
    if data.len() >= 16 {
        if let Ok(u) = Uuid7::from_bytes(data[..16].try_into().unwrap()) {
            round_trips(u);
        }
    }
}

//! ObjectId hex and bytes: accepted hex is 24 hex digits and prints back lowercased; 12 bytes
//! always make an ObjectId, whose hex parses back to the same bytes.

use idmint_core::ObjectId;

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(oid) = ObjectId::parse_str(text) {
            assert_eq!(oid.to_hex(), text.to_ascii_lowercase());
            assert_eq!(text.parse::<ObjectId>().unwrap(), oid);
        }
    }
    match ObjectId::from_slice(data) {
        Ok(oid) => {
            assert_eq!(data.len(), 12);
            assert_eq!(&oid.bytes()[..], data);
            let back = ObjectId::parse_str(&oid.to_hex()).unwrap();
            assert_eq!(back, oid);
            let rebuilt = ObjectId::from_parts(oid.timestamp(), oid.random(), oid.counter());
            assert_eq!(rebuilt.unwrap(), oid);
        }
        Err(e) => {
            assert_ne!(data.len(), 12);
            assert_eq!(e.kind(), "invalid_object_id");
        }
    }
}

//! The tagged obfuscation form and key text: an accepted tagged text splits into a version and
//! a value that print back as the same text; every ID up to 2^63-1 obfuscates and reveals back
//! under two keys; key text that parses prints back to the same key, and a keyring that parses
//! reveals what it obfuscates under each of its keys.

use idmint_core::{split_tagged, Encoding, Key, Keyring};

const RING: &str = "idmint-key-v1:000102030405060708090a0b0c0d0e0f\n\
                    idmint-key-v2:f0e0d0c0b0a090807060504030201000";

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    let ring = Keyring::parse(RING).unwrap();
    if data.len() >= 8 {
        let id = u64::from_le_bytes(data[..8].try_into().unwrap()) >> 1;
        let tagged = ring.obfuscate_tagged(id).unwrap();
        assert_eq!(ring.reveal_tagged(&tagged).unwrap(), id);
        let shown = ring.obfuscate(id).unwrap();
        assert_eq!(ring.reveal(ring.active().version(), shown).unwrap(), id);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok((version, shown)) = split_tagged(text) {
        let printed = format!(
            "{}{}",
            Encoding::Base62.encode(u64::from(version)),
            Encoding::Base62Fixed.encode(shown)
        );
        assert_eq!(printed, text);
        match ring.reveal_tagged(text) {
            Ok(id) => assert_eq!(ring.get(version).unwrap().obfuscate(id).unwrap(), shown),
            Err(e) => assert_eq!(e.kind(), "invalid_key", "{text:?}: {e}"),
        }
    }
    if let Ok(key) = Key::parse(text) {
        assert!(Key::parse(&key.to_text()).unwrap() == key);
    }
    if let Ok(parsed) = Keyring::parse(text) {
        for v in parsed.versions() {
            let key = parsed.get(v).unwrap();
            assert_eq!(key.version(), v);
            assert_eq!(key.reveal(key.obfuscate(12_345).unwrap()).unwrap(), 12_345);
        }
        assert_eq!(
            parsed
                .reveal_tagged(&parsed.obfuscate_tagged(7).unwrap())
                .unwrap(),
            7
        );
    }
}

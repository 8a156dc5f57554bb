//! Short strings: every `u64` encodes and decodes back in every encoding; text a decoder
//! accepts decodes to a value whose encoding decodes to it again.
//! Input: an encoding name line (base62, base62-fixed, base32, base32-fixed), then the text.

use idmint_core::Encoding;

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    if data.len() >= 8 {
        let v = u64::from_le_bytes(data[..8].try_into().unwrap());
        for e in Encoding::ALL {
            assert_eq!(e.decode(&e.encode(v)).unwrap(), v, "{e} {v}");
        }
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (name, body) = text.split_once('\n').unwrap_or(("", text));
    let encodings: Vec<Encoding> = match name.parse::<Encoding>() {
        Ok(e) => vec![e],
        Err(_) => Encoding::ALL.to_vec(),
    };
    for e in encodings {
        if let Ok(v) = e.decode(body) {
            let printed = e.encode(v);
            assert_eq!(
                e.decode(&printed).unwrap(),
                v,
                "{e} {body:?} -> {printed:?}"
            );
        }
    }
}

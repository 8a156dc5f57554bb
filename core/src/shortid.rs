//! Short text forms of 64-bit IDs for URLs and screens: base62 and Crockford base32.
//!
//! | [`Encoding`] | alphabet | length | sorts like the numbers |
//! | --- | --- | --- | --- |
//! | `base62` | `0-9A-Za-z` | 1–11 | no: `"z"` (61) sorts after `"10"` (62) |
//! | `base62-fixed` | `0-9A-Za-z` | 11 | yes, byte-wise (ASCII order of the alphabet) |
//! | `base32` | Crockford | 1–13 | no |
//! | `base32-fixed` | Crockford | 13 | yes, byte-wise, as printed (upper case) |
//!
//! Both alphabets list their digits in ASCII order, which is what makes the fixed-width forms
//! sort as the numbers do: equal lengths compare character by character, most significant first.
//! Variable-width forms are shorter but compare only by length first, then bytes.
//!
//! # Strict parsing
//!
//! Every text has one meaning and is refused with [`Error::InvalidEncoding`] otherwise: no
//! signs, spaces or separators (Crockford's optional hyphens are refused too: strip them
//! before decoding if your users type them), no value above `u64::MAX`, the exact length for
//! the fixed forms, and no leading zero in the variable forms (`"0"` itself excepted), so that
//! one ID has one base62 string. Base62 is case-sensitive by nature. Base32 decoding follows
//! Crockford: case-insensitive, `I`/`L` read as `1` and `O` as `0`; `U` and anything else is
//! refused. Those aliases are the one exception to "one text per value", and they exist so
//! that what a person copied by hand still decodes.

use std::fmt;
use std::str::FromStr;

use crate::error::{escaped, quoted, quoted_char};
use crate::{Error, Result};

/// The base62 digits, in ASCII order.
pub const BASE62_ALPHABET: &[u8; 62] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Crockford's base32 digits (no `I`, `L`, `O`, `U`), in ASCII order.
pub const CROCKFORD_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Length of fixed-width base62 for 64 bits: 62^11 > 2^64 > 62^10.
pub const BASE62_FIXED_LEN: usize = 11;

/// Length of fixed-width Crockford base32 for 64 bits: 13 × 5 = 65 bits.
pub const BASE32_FIXED_LEN: usize = 13;

const INVALID: u8 = 0xFF;

const fn base62_table() -> [u8; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 62 {
        t[BASE62_ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t
}

const fn crockford_table() -> [u8; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 32 {
        let c = CROCKFORD_ALPHABET[i];
        t[c as usize] = i as u8;
        t[c.to_ascii_lowercase() as usize] = i as u8;
        i += 1;
    }
    // Crockford's aliases for letters people confuse with digits.
    t[b'I' as usize] = 1;
    t[b'i' as usize] = 1;
    t[b'L' as usize] = 1;
    t[b'l' as usize] = 1;
    t[b'O' as usize] = 0;
    t[b'o' as usize] = 0;
    t
}

static BASE62_VALUES: [u8; 256] = base62_table();
static CROCKFORD_VALUES: [u8; 256] = crockford_table();

/// A short-string encoding of 64-bit IDs.
///
/// The text names (`base62`, `base62-fixed`, `base32`, `base32-fixed`) are the ones the CLI and
/// every binding accept.
///
/// ```
/// use idmint_core::Encoding;
///
/// let id = 1_541_815_603_606_036_480u64;
/// assert_eq!(Encoding::Base62.encode(id), "1ptWyK4WgZU");
/// assert_eq!(Encoding::Base62.decode("1ptWyK4WgZU")?, id);
/// assert_eq!(Encoding::Base32Fixed.encode(5), "0000000000005");
/// assert_eq!(Encoding::Base32.decode("lO")?, 32); // Crockford: l = 1, O = 0
/// assert!(Encoding::Base62Fixed.is_order_preserving());
/// assert_eq!("base32-fixed".parse::<Encoding>()?, Encoding::Base32Fixed);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Base62 (`0-9A-Za-z`), shortest form, 1 to 11 characters. Not order-preserving.
    Base62,
    /// Base62 zero-padded to 11 characters: sorts as the numbers do.
    Base62Fixed,
    /// Crockford base32, shortest form, 1 to 13 characters. Not order-preserving.
    Base32,
    /// Crockford base32 zero-padded to 13 characters: sorts as the numbers do.
    Base32Fixed,
}

impl Encoding {
    /// Every encoding, in the order of the table in the module docs.
    pub const ALL: [Encoding; 4] = [
        Encoding::Base62,
        Encoding::Base62Fixed,
        Encoding::Base32,
        Encoding::Base32Fixed,
    ];

    /// The encoding's name, as [`FromStr`] reads it.
    ///
    /// ```
    /// assert_eq!(idmint_core::Encoding::Base62Fixed.name(), "base62-fixed");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::Base62 => "base62",
            Encoding::Base62Fixed => "base62-fixed",
            Encoding::Base32 => "base32",
            Encoding::Base32Fixed => "base32-fixed",
        }
    }

    /// Whether byte-wise comparison of encoded strings agrees with comparison of the IDs.
    ///
    /// ```
    /// use idmint_core::Encoding;
    /// assert!(!Encoding::Base62.is_order_preserving());
    /// assert!(Encoding::Base32Fixed.is_order_preserving());
    /// ```
    pub const fn is_order_preserving(self) -> bool {
        matches!(self, Encoding::Base62Fixed | Encoding::Base32Fixed)
    }

    /// The longest text this encoding produces for a 64-bit value.
    ///
    /// ```
    /// assert_eq!(idmint_core::Encoding::Base32.max_len(), 13);
    /// ```
    pub const fn max_len(self) -> usize {
        match self {
            Encoding::Base62 | Encoding::Base62Fixed => BASE62_FIXED_LEN,
            Encoding::Base32 | Encoding::Base32Fixed => BASE32_FIXED_LEN,
        }
    }

    const fn is_fixed(self) -> bool {
        self.is_order_preserving()
    }

    const fn radix(self) -> u64 {
        match self {
            Encoding::Base62 | Encoding::Base62Fixed => 62,
            Encoding::Base32 | Encoding::Base32Fixed => 32,
        }
    }

    const fn alphabet(self) -> &'static [u8] {
        match self {
            Encoding::Base62 | Encoding::Base62Fixed => BASE62_ALPHABET,
            Encoding::Base32 | Encoding::Base32Fixed => CROCKFORD_ALPHABET,
        }
    }

    /// Encode `value` into `buf`, returning the used tail of it (no allocation).
    ///
    /// ```
    /// use idmint_core::Encoding;
    /// let mut buf = [0u8; 13];
    /// assert_eq!(Encoding::Base32.encode_to(&mut buf, 1024), b"100");
    /// ```
    pub fn encode_to(self, buf: &mut [u8; 13], value: u64) -> &[u8] {
        let radix = self.radix();
        let alphabet = self.alphabet();
        let mut v = value;
        let mut start = buf.len();
        loop {
            start -= 1;
            buf[start] = alphabet[(v % radix) as usize];
            v /= radix;
            if v == 0 {
                break;
            }
        }
        if self.is_fixed() {
            let from = buf.len() - self.max_len();
            buf[from..start].fill(b'0');
            start = from;
        }
        &buf[start..]
    }

    /// Encode `value`.
    pub fn encode(self, value: u64) -> String {
        let mut buf = [0u8; 13];
        // The alphabets are ASCII.
        String::from_utf8_lossy(self.encode_to(&mut buf, value)).into_owned()
    }

    /// Decode `text` strictly (see the module docs for what is refused).
    ///
    /// ```
    /// use idmint_core::Encoding;
    /// assert_eq!(Encoding::Base62Fixed.decode("00000000010")?, 62);
    /// let err = Encoding::Base62.decode("010").unwrap_err();
    /// assert_eq!(err.kind(), "invalid_encoding");
    /// assert!(err.to_string().contains("leading zero"));
    /// assert!(Encoding::Base62.decode("LygHa16AHYG").is_err()); // 2^64
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn decode(self, text: &str) -> Result<u64> {
        let bad = |reason: String| Error::InvalidEncoding {
            encoding: self.name().to_string(),
            input: escaped(text),
            reason,
        };
        let bytes = text.as_bytes();
        if bytes.is_empty() {
            return Err(bad("empty text".into()));
        }
        let chars = text.chars().count();
        if self.is_fixed() && chars != self.max_len() {
            return Err(bad(format!(
                "expected exactly {} characters, got {chars}",
                self.max_len()
            )));
        }
        if !self.is_fixed() && chars > self.max_len() {
            return Err(bad(format!(
                "expected 1 to {} characters, got {chars}",
                self.max_len()
            )));
        }
        let table = match self {
            Encoding::Base62 | Encoding::Base62Fixed => &BASE62_VALUES,
            Encoding::Base32 | Encoding::Base32Fixed => &CROCKFORD_VALUES,
        };
        let radix = self.radix();
        let mut value: u64 = 0;
        for (i, c) in text.chars().enumerate() {
            let digit = u8::try_from(c).ok().map_or(INVALID, |b| table[b as usize]);
            if digit == INVALID {
                return Err(bad(format!(
                    "character {} at position {i} is not a {} digit ({})",
                    quoted_char(c),
                    self.name(),
                    match self {
                        Encoding::Base62 | Encoding::Base62Fixed => "0-9, A-Z, a-z",
                        _ => "0-9 and A-Z except U, either case; I and L read as 1, O as 0",
                    }
                )));
            }
            if i == 0 && digit == 0 && !self.is_fixed() && chars > 1 {
                return Err(bad(
                    "leading zero: the variable-width form has none (use the -fixed encoding for zero-padded text)".into(),
                ));
            }
            value = value
                .checked_mul(radix)
                .and_then(|v| v.checked_add(digit as u64))
                .ok_or_else(|| bad("the value is above 2^64-1 (18446744073709551615)".into()))?;
        }
        Ok(value)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = Error;

    /// `base62`, `base62-fixed`, `base32` or `base32-fixed`.
    ///
    /// ```
    /// let err = "base64".parse::<idmint_core::Encoding>().unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// ```
    fn from_str(s: &str) -> Result<Self> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == s.trim())
            .ok_or_else(|| Error::InvalidArgument {
                name: "encoding".into(),
                value: quoted(s),
                expected: "base62, base62-fixed, base32 or base32-fixed".into(),
            })
    }
}

/// 128 bits as 26 Crockford base32 characters (the ULID text form: 2 + 25 × 5 bits).
pub(crate) fn crockford128_encode(value: u128) -> [u8; 26] {
    let mut out = [0u8; 26];
    for (i, c) in out.iter_mut().enumerate() {
        let shift = 5 * (25 - i);
        *c = CROCKFORD_ALPHABET[((value >> shift) & 31) as usize];
    }
    out
}

/// Decode 26 Crockford base32 characters into 128 bits; the reason on failure.
pub(crate) fn crockford128_decode(text: &str) -> Result<u128, String> {
    let chars = text.chars().count();
    if chars != 26 || text.len() != 26 {
        return Err(format!("a ULID is 26 characters, got {chars}"));
    }
    let mut value: u128 = 0;
    for (i, b) in text.bytes().enumerate() {
        let digit = CROCKFORD_VALUES[b as usize];
        if digit == INVALID {
            return Err(format!(
                "character {} at position {i} is not a Crockford base32 digit",
                quoted_char(b as char)
            ));
        }
        if i == 0 && digit > 7 {
            return Err(format!(
                "first character {} is above 7: the value would pass 128 bits",
                quoted_char(b as char)
            ));
        }
        value = (value << 5) | digit as u128;
    }
    Ok(value)
}

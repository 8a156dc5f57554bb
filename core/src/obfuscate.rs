//! Keyed, reversible obfuscation of 63-bit IDs: show an ID without showing how many came before.
//!
//! Consecutive snowflake or segment IDs tell whoever sees two of them how many orders were taken
//! in between. [`Obfuscator::obfuscate`] maps every ID in `0..2^63` to another number in
//! `0..2^63` through a keyed permutation, so outputs stay positive `BIGINT`s, distinct IDs stay
//! distinct, [`Obfuscator::reveal`] undoes it, and without the key neighbouring IDs give
//! unrelated outputs.
//!
//! # Construction
//!
//! A Feistel network on 63 bits split into a 31-bit half `A` (top) and a 32-bit half `B`,
//! alternating the widths as NIST's FF1 does for odd lengths, so the domain is exactly
//! `0..2^63` with no cycle walking. [`ROUNDS`] rounds (FF1 uses 10); round `r` maps
//! `(A, B)` to `(B, A ⊕ F(r, B))`, with `F(r, B)` the low 31 or 32 bits (the width of `A`)
//! of SipHash-2-4 keyed with the key's 128 bits over the 5 bytes `r ‖ B` (`B` little-endian
//! u32). SipHash is a pseudorandom function, so by Luby–Rackoff the network is a pseudorandom
//! permutation.
//!
//! # Limits
//!
//! - It is a pseudonym, not encryption of secrets: a 63-bit block. Generic attacks on Feistel
//!   networks with 32-bit halves distinguish them from a random permutation after about 2^32
//!   known pairs, and an attacker who collects many pairs (their own orders, say) learns more
//!   than one who does not. It hides volume and order; it does not protect data.
//! - Deterministic: the same ID and key always give the same output (that is what makes it
//!   usable as a key in URLs), so repeated IDs are visible as repeats.
//! - Not authenticated: every number in `0..2^63` reveals to *some* ID. Look the revealed ID
//!   up before trusting it; a guessed number almost always reveals to an ID that does not exist.
//! - Rotation does not re-key old outputs: keep old keys in the [`Keyring`] for as long as
//!   outputs made with them circulate, and use the tagged form, which names its key version.

use std::fmt;
use std::str::FromStr;

use siphasher::sip::SipHasher24;

use crate::error::{escaped, quoted_char};
use crate::shortid::{Encoding, BASE62_ALPHABET};
use crate::{Error, Result};

/// Feistel rounds: two more than FF1's ten, for margin at negligible cost.
pub const ROUNDS: u8 = 12;

/// The largest ID that can be obfuscated, and the largest output: 2^63 − 1.
pub const MAX_OBFUSCATED: u64 = i64::MAX as u64;

/// The largest key version: versions are one base62 character in the tagged form.
pub const MAX_KEY_VERSION: u8 = 61;

const KEY_PREFIX: &str = "idmint-key-v";

/// A 128-bit obfuscation key with a version number (`0..=61`) that names it.
///
/// Its text form is `idmint-key-v<version>:<32 hex digits>`. `Debug` never shows the secret.
///
/// ```
/// use idmint_core::Key;
///
/// let key: Key = "idmint-key-v3:000102030405060708090a0b0c0d0e0f".parse()?;
/// assert_eq!(key.version(), 3);
/// assert_eq!(key.to_text(), "idmint-key-v3:000102030405060708090a0b0c0d0e0f");
/// assert_eq!(format!("{key:?}"), "Key { version: 3, .. }");
/// let fresh = Key::generate(4)?;
/// assert_ne!(fresh.bytes(), key.bytes());
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Key {
    version: u8,
    bytes: [u8; 16],
}

impl Key {
    /// A key from its version and 16 secret bytes.
    ///
    /// ```
    /// assert_eq!(idmint_core::Key::new(62, [0; 16]).unwrap_err().kind(), "invalid_key");
    /// ```
    pub fn new(version: u8, bytes: [u8; 16]) -> Result<Key> {
        if version > MAX_KEY_VERSION {
            return Err(Error::InvalidKey {
                key: format!("v{version}"),
                reason: format!("versions are 0..={MAX_KEY_VERSION} (one base62 character)"),
            });
        }
        Ok(Key { version, bytes })
    }

    /// A new key of 16 bytes from the OS random source.
    pub fn generate(version: u8) -> Result<Key> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| Error::InvalidKey {
            key: format!("v{version}"),
            reason: format!("the OS random source failed: {e}"),
        })?;
        Key::new(version, bytes)
    }

    /// Read `idmint-key-v<version>:<32 hex digits>` (hex in either case, surrounding spaces
    /// ignored).
    ///
    /// ```
    /// use idmint_core::Key;
    /// let err = Key::parse("idmint-key-v3:0011").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid key v3: the secret is 32 hex digits (16 bytes), got 4 characters");
    /// ```
    pub fn parse(text: &str) -> Result<Key> {
        let text = text.trim();
        let shape = || {
            Error::InvalidKey {
            key: "text".into(),
            reason: format!(
                "expected {KEY_PREFIX}<version>:<32 hex digits>, e.g. {KEY_PREFIX}1:00112233445566778899aabbccddeeff (see `idmint keygen`)"
            ),
        }
        };
        let rest = text.strip_prefix(KEY_PREFIX).ok_or_else(shape)?;
        let (version, secret) = rest.split_once(':').ok_or_else(shape)?;
        let version: u8 = version
            .parse()
            .ok()
            .filter(|_| !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit()))
            .filter(|v| *v <= MAX_KEY_VERSION)
            .ok_or_else(|| Error::InvalidKey {
                key: format!("v{}", escaped(version)),
                reason: format!("versions are 0..={MAX_KEY_VERSION} (one base62 character)"),
            })?;
        let mut bytes = [0u8; 16];
        if secret.len() != 32 {
            return Err(Error::InvalidKey {
                key: format!("v{version}"),
                reason: format!(
                    "the secret is 32 hex digits (16 bytes), got {} characters",
                    secret.chars().count()
                ),
            });
        }
        hex::decode_to_slice(secret, &mut bytes).map_err(|_| Error::InvalidKey {
            key: format!("v{version}"),
            reason: "the secret is 32 hex digits (0-9, a-f)".into(),
        })?;
        Key::new(version, bytes)
    }

    /// The text form, `idmint-key-v<version>:<32 lowercase hex digits>`. It holds the secret.
    pub fn to_text(&self) -> String {
        format!("{KEY_PREFIX}{}:{}", self.version, hex::encode(self.bytes))
    }

    /// The version.
    pub fn version(&self) -> u8 {
        self.version
    }

    /// The secret bytes.
    pub fn bytes(&self) -> [u8; 16] {
        self.bytes
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl FromStr for Key {
    type Err = Error;
    fn from_str(s: &str) -> Result<Key> {
        Key::parse(s)
    }
}

/// The keyed permutation of `0..2^63` for one key. Cheap to clone; thread-safe.
///
/// ```
/// use idmint_core::{Key, Obfuscator};
///
/// let ob = Obfuscator::new(&Key::new(1, *b"0123456789abcdef")?);
/// let shown = ob.obfuscate(1_000)?;
/// assert!(shown <= i64::MAX as u64);
/// assert_ne!(ob.obfuscate(1_001)?, shown + 1);
/// assert_eq!(ob.reveal(shown)?, 1_000);
/// assert_eq!(ob.obfuscate(1 << 63).unwrap_err().kind(), "invalid_id");
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone)]
pub struct Obfuscator {
    version: u8,
    prf: SipHasher24,
}

impl Obfuscator {
    /// The permutation keyed by `key`.
    pub fn new(key: &Key) -> Obfuscator {
        Obfuscator {
            version: key.version,
            prf: SipHasher24::new_with_key(&key.bytes),
        }
    }

    /// The version of the key.
    pub fn version(&self) -> u8 {
        self.version
    }

    #[inline]
    fn round(&self, r: u8, half: u32) -> u64 {
        let b = half.to_le_bytes();
        self.prf.hash(&[r, b[0], b[1], b[2], b[3]])
    }

    #[inline]
    fn check(id: u64) -> Result<()> {
        if id > MAX_OBFUSCATED {
            return Err(Error::invalid_id(
                id,
                format!("obfuscation takes IDs in 0..={MAX_OBFUSCATED} (2^63-1)"),
            ));
        }
        Ok(())
    }

    /// The ID shown in place of `id` (`0..=2^63-1`, else [`Error::InvalidId`]).
    #[inline]
    pub fn obfuscate(&self, id: u64) -> Result<u64> {
        Self::check(id)?;
        let (mut a, mut b) = ((id >> 32) as u32, id as u32);
        for r in 0..ROUNDS {
            // `a` is 31 bits wide on even rounds and 32 on odd ones; the mask keeps it so.
            let mask = if r % 2 == 0 { 0x7FFF_FFFF } else { u32::MAX };
            let c = a ^ (self.round(r, b) as u32 & mask);
            a = b;
            b = c;
        }
        Ok(((a as u64) << 32) | b as u64)
    }

    /// The ID that [`Obfuscator::obfuscate`] turned into `shown`.
    #[inline]
    pub fn reveal(&self, shown: u64) -> Result<u64> {
        Self::check(shown)?;
        let (mut a, mut b) = ((shown >> 32) as u32, shown as u32);
        for r in (0..ROUNDS).rev() {
            let mask = if r % 2 == 0 { 0x7FFF_FFFF } else { u32::MAX };
            let c = b ^ (self.round(r, a) as u32 & mask);
            b = a;
            a = c;
        }
        Ok(((a as u64) << 32) | b as u64)
    }
}

impl fmt::Debug for Obfuscator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Obfuscator")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// Length of the tagged text form: one version character and 11 base62 digits.
pub const TAGGED_LEN: usize = 12;

/// Several keys, for rotation: the highest version obfuscates, every version reveals.
///
/// A key file holds one key text a line (see [`Key`]); blank lines and lines starting with `#`
/// are skipped. To rotate, add a key with a higher version and keep the old ones while their
/// outputs are in use.
///
/// The tagged text form, `<version as one base62 char><11 base62 digits>`, names the key that
/// made it, so [`Keyring::reveal_tagged`] needs no version from the caller. The plain `u64`
/// form fits a `BIGINT` column; revealing it needs the version from elsewhere.
///
/// ```
/// use idmint_core::Keyring;
///
/// let ring = Keyring::parse("
///     idmint-key-v1:000102030405060708090a0b0c0d0e0f
///     idmint-key-v2:f0e0d0c0b0a090807060504030201000
/// ")?;
/// assert_eq!(ring.active().version(), 2);
/// let token = ring.obfuscate_tagged(42)?;
/// assert_eq!(token.len(), 12);
/// assert!(token.starts_with('2'));
/// assert_eq!(ring.reveal_tagged(&token)?, 42);
/// let old = ring.get(1).unwrap().obfuscate(42)?;
/// assert_eq!(ring.reveal(1, old)?, 42);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Keyring {
    // Sorted by version; never empty.
    keys: Vec<Obfuscator>,
}

impl Keyring {
    /// A key ring of `keys`: at least one, versions distinct.
    pub fn new(keys: impl IntoIterator<Item = Key>) -> Result<Keyring> {
        let mut keys: Vec<Obfuscator> = keys.into_iter().map(|k| Obfuscator::new(&k)).collect();
        keys.sort_by_key(Obfuscator::version);
        if keys.is_empty() {
            return Err(Error::InvalidKey {
                key: "ring".into(),
                reason: "no keys: give at least one (make one with `idmint keygen`)".into(),
            });
        }
        if let Some(w) = keys.windows(2).find(|w| w[0].version == w[1].version) {
            return Err(Error::InvalidKey {
                key: format!("v{}", w[0].version),
                reason: "two keys have this version; each version names one key".into(),
            });
        }
        Ok(Keyring { keys })
    }

    /// Read a key file's text: one key a line, `#` comments and blank lines skipped.
    ///
    /// ```
    /// let err = idmint_core::Keyring::parse("idmint-key-v1:00\n").unwrap_err();
    /// assert!(err.to_string().contains("line 1"));
    /// ```
    pub fn parse(text: &str) -> Result<Keyring> {
        let mut keys = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            keys.push(Key::parse(line).map_err(|e| match e {
                Error::InvalidKey { key, reason } => Error::InvalidKey {
                    key: format!("{key} (line {})", n + 1),
                    reason,
                },
                other => other,
            })?);
        }
        Keyring::new(keys)
    }

    /// The key that obfuscates: the highest version.
    pub fn active(&self) -> &Obfuscator {
        // Never empty (checked in `new`).
        &self.keys[self.keys.len() - 1]
    }

    /// The key of `version`, if the ring has it.
    pub fn get(&self, version: u8) -> Option<&Obfuscator> {
        self.keys.iter().find(|k| k.version == version)
    }

    /// The versions held, ascending.
    pub fn versions(&self) -> Vec<u8> {
        self.keys.iter().map(Obfuscator::version).collect()
    }

    fn key(&self, version: u8) -> Result<&Obfuscator> {
        self.get(version).ok_or_else(|| Error::InvalidKey {
            key: format!("v{version}"),
            reason: format!(
                "no key with this version in the key ring (it has {})",
                self.versions()
                    .iter()
                    .map(|v| format!("v{v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }

    /// Obfuscate with the active key.
    pub fn obfuscate(&self, id: u64) -> Result<u64> {
        self.active().obfuscate(id)
    }

    /// Reveal a plain output made with key `version`.
    pub fn reveal(&self, version: u8, shown: u64) -> Result<u64> {
        self.key(version)?.reveal(shown)
    }

    /// Obfuscate with the active key into the 12-character tagged form.
    pub fn obfuscate_tagged(&self, id: u64) -> Result<String> {
        let key = self.active();
        let shown = key.obfuscate(id)?;
        let mut out = String::with_capacity(TAGGED_LEN);
        out.push(BASE62_ALPHABET[key.version as usize] as char);
        out.push_str(&Encoding::Base62Fixed.encode(shown));
        Ok(out)
    }

    /// Reveal the tagged form with the key it names.
    ///
    /// ```
    /// let ring = idmint_core::Keyring::parse("idmint-key-v1:000102030405060708090a0b0c0d0e0f")?;
    /// assert_eq!(ring.reveal_tagged("5AAAAAAAAAAA").unwrap_err().kind(), "invalid_key");
    /// assert_eq!(ring.reveal_tagged("1zzzzzzzzzzz").unwrap_err().kind(), "invalid_encoding");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn reveal_tagged(&self, text: &str) -> Result<u64> {
        let (version, shown) = split_tagged(text)?;
        self.reveal(version, shown)
    }
}

/// Split the tagged form into the key version and the plain obfuscated value.
///
/// ```
/// assert_eq!(idmint_core::split_tagged("A00000000010")?, (10, 62));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn split_tagged(text: &str) -> Result<(u8, u64)> {
    let bad = |reason: String| Error::InvalidEncoding {
        encoding: "tagged id".into(),
        input: escaped(text),
        reason,
    };
    let chars = text.chars().count();
    if chars != TAGGED_LEN || text.len() != TAGGED_LEN {
        return Err(bad(format!(
            "a tagged id is {TAGGED_LEN} characters (a key version and 11 base62 digits), got {chars}"
        )));
    }
    let tag = text.as_bytes()[0];
    let version = BASE62_ALPHABET
        .iter()
        .position(|&c| c == tag)
        .ok_or_else(|| {
            bad(format!(
                "key version {} is not a base62 digit",
                quoted_char(tag as char)
            ))
        })?;
    let shown = Encoding::Base62Fixed
        .decode(&text[1..])
        .map_err(|e| match e {
            Error::InvalidEncoding { reason, .. } => bad(reason),
            other => other,
        })?;
    if shown > MAX_OBFUSCATED {
        return Err(bad(format!(
            "the value {shown} is above 2^63-1, so no key made it"
        )));
    }
    Ok((version as u8, shown))
}

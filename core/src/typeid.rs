//! TypeID (github.com/jetify-com/typeid, spec v0.3): a type prefix and a UUID — a UUIDv7 when
//! minted — in lowercase Crockford base32, `user_01h455vb4pex5vsknk084sn02q`.
//!
//! - The prefix: 0 to 63 of `a-z` and `_`, neither first nor last an `_`; with an empty prefix
//!   there is no separator (the ID is the 26 characters alone).
//! - The suffix: exactly 26 characters of `0123456789abcdefghjkmnpqrstvwxyz` (lowercase only,
//!   no Crockford aliases or hyphens), the first at most `7` (128 bits).
//!
//! ```
//! use idmint_core::typeid::{TypeId, TypeIdGenerator};
//! let t: TypeId = "prefix_01h455vb4pex5vsknk084sn02q".parse()?;
//! assert_eq!(t.prefix(), "prefix");
//! assert_eq!(t.uuid(), "01890a5d-ac96-774b-bcce-b302099a8057");
//! let gen = TypeIdGenerator::new("user")?;
//! let (a, b) = (gen.next_id()?, gen.next_id()?);
//! assert!(a.to_string().starts_with("user_") && a < b);
//! assert_eq!(TypeId::parse("PREFIX_00000000000000000000000000").unwrap_err().kind(), "invalid_id");
//! # Ok::<(), idmint_core::Error>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::clock::{Clock, MonotonicClock};
use crate::error::{quoted, quoted_char, Error, Result};
use crate::shortid::{crockford128_decode, crockford128_encode};
use crate::uuid7::Uuid7Generator;

/// The suffix's digits, in order: Crockford's base32 alphabet in lowercase.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// The longest prefix.
pub const MAX_PREFIX: usize = 63;

/// A TypeID: its prefix and its UUID's 128 bits. Orders by prefix, then by UUID (time order
/// for UUIDv7s).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeId {
    prefix: String,
    uuid: u128,
}

/// Why `prefix` is not a TypeID prefix, if it is not.
fn prefix_error(prefix: &str) -> Option<String> {
    if prefix.len() > MAX_PREFIX {
        return Some(format!(
            "the prefix is {} characters; at most {MAX_PREFIX}",
            prefix.chars().count()
        ));
    }
    if let Some((i, c)) = prefix
        .char_indices()
        .find(|(_, c)| !matches!(c, 'a'..='z' | '_'))
    {
        return Some(format!(
            "character {} at position {i} of the prefix is not one of a-z and _",
            quoted_char(c)
        ));
    }
    if prefix.starts_with('_') || prefix.ends_with('_') {
        return Some("the prefix may not start or end with _".into());
    }
    None
}

impl TypeId {
    /// A TypeID of `prefix` (checked) and the UUID `uuid` (any version).
    ///
    /// ```
    /// use idmint_core::typeid::TypeId;
    /// assert_eq!(TypeId::new("", 1)?.to_string(), "00000000000000000000000001");
    /// let e = TypeId::new("Users", 1).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `prefix` = \"Users\": character 'U' at position 0 of the prefix is not one of a-z and _");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn new(prefix: &str, uuid: u128) -> Result<TypeId> {
        if let Some(why) = prefix_error(prefix) {
            return Err(Error::InvalidArgument {
                name: "prefix".into(),
                value: quoted(prefix),
                expected: why,
            });
        }
        Ok(TypeId {
            prefix: prefix.to_string(),
            uuid,
        })
    }

    /// Reads a TypeID; `invalid_id` naming what is wrong.
    pub fn parse(text: &str) -> Result<TypeId> {
        let bad =
            |why: String| Error::invalid_id(quoted(text), format!("not a valid TypeID: {why}"));
        let (prefix, suffix) = match text.rsplit_once('_') {
            Some(("", _)) => return Err(bad("an empty prefix takes no _ separator".into())),
            Some((p, s)) => (p, s),
            None => ("", text),
        };
        if let Some(why) = prefix_error(prefix) {
            return Err(bad(why));
        }
        let chars = suffix.chars().count();
        if chars != 26 || suffix.len() != 26 {
            return Err(bad(format!(
                "the suffix is {chars} characters; it must be 26"
            )));
        }
        if let Some((i, c)) = suffix
            .char_indices()
            .find(|(_, c)| !u8::try_from(*c).is_ok_and(|b| ALPHABET.contains(&b)))
        {
            return Err(bad(format!(
                "character {} at position {i} of the suffix is not one of {}",
                quoted_char(c),
                std::str::from_utf8(ALPHABET).expect("ASCII")
            )));
        }
        let uuid = crockford128_decode(suffix).map_err(bad)?;
        Ok(TypeId {
            prefix: prefix.to_string(),
            uuid,
        })
    }

    /// The prefix (`""` for none).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The UUID's 128 bits.
    pub fn uuid_value(&self) -> u128 {
        self.uuid
    }

    /// The UUID as canonical lowercase text.
    pub fn uuid(&self) -> String {
        crate::uuid7::uuid_text(self.uuid)
    }

    /// The 26-character suffix.
    pub fn suffix(&self) -> String {
        crockford128_encode(self.uuid)
            .iter()
            .map(|b| b.to_ascii_lowercase() as char)
            .collect()
    }
}

impl fmt::Display for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.prefix.is_empty() {
            f.write_str(&self.prefix)?;
            f.write_str("_")?;
        }
        f.write_str(&self.suffix())
    }
}

impl fmt::Debug for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypeId({self})")
    }
}

impl FromStr for TypeId {
    type Err = Error;

    fn from_str(text: &str) -> Result<TypeId> {
        TypeId::parse(text)
    }
}

/// Mints TypeIDs of one prefix from UUIDv7s ([`Uuid7Generator`]: increasing within the
/// process).
#[derive(Debug)]
pub struct TypeIdGenerator<C: Clock = MonotonicClock> {
    prefix: String,
    uuids: Uuid7Generator<C>,
}

impl TypeIdGenerator<MonotonicClock> {
    /// A generator of `prefix` (checked as [`TypeId::new`] does) on the default
    /// [`MonotonicClock`] (not for `wasm32-unknown-unknown`: use
    /// [`TypeIdGenerator::with_clock`] there).
    pub fn new(prefix: &str) -> Result<TypeIdGenerator> {
        TypeIdGenerator::with_clock(prefix, MonotonicClock::new())
    }
}

impl<C: Clock> TypeIdGenerator<C> {
    /// A generator of `prefix` reading `clock`, for a runtime without the default clock (the
    /// browser) and for tests.
    ///
    /// ```
    /// use idmint_core::{typeid::TypeIdGenerator, ManualClock};
    /// let gen = TypeIdGenerator::with_clock("user", ManualClock::new(0x0189_0a5d_ac96))?;
    /// let t = gen.next_id()?;
    /// assert!(t.to_string().starts_with("user_01h455vb4p"));
    /// assert_eq!(gen.prefix(), "user");
    /// assert_eq!(TypeIdGenerator::with_clock("User", ManualClock::new(0)).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn with_clock(prefix: &str, clock: C) -> Result<TypeIdGenerator<C>> {
        TypeId::new(prefix, 0)?;
        Ok(TypeIdGenerator {
            prefix: prefix.to_string(),
            uuids: Uuid7Generator::with_clock(clock),
        })
    }

    /// The prefix of its TypeIDs.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The next TypeID.
    pub fn next_id(&self) -> Result<TypeId> {
        Ok(TypeId {
            prefix: self.prefix.clone(),
            uuid: self.uuids.next_uuid()?.as_u128(),
        })
    }
}

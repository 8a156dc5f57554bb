//! UUIDv7 (RFC 9562): 48-bit unix milliseconds, then random bits, sortable by time; and their
//! ULID text form.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                           unix_ts_ms                          |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |          unix_ts_ms           |  ver  |  rand_a (counter)     |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |var|                        rand_b                             |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                            rand_b                             |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! # Monotonicity (RFC 9562 §6.2, method 1)
//!
//! [`Uuid7Generator`] uses `rand_a` as a 12-bit counter ("fixed-length dedicated counter
//! bits"). The first UUID of a millisecond seeds it with 11 random bits (the top bit 0 leaves
//! at least 2048 increments before it overflows); later UUIDs of the same millisecond add one.
//! When the counter passes 4095 it carries into the timestamp, which the RFC allows ("increment
//! the timestamp"): the generator then runs up to a few milliseconds ahead of the clock under
//! more than ~2 M UUIDs per second, and the clock catches up. The pair (ms, counter) is one
//! `AtomicU64`, advanced by compare-and-swap, so UUIDs from one generator are strictly
//! increasing across threads without a lock. A clock that steps back is ridden out the same
//! way: the generator keeps counting up from its last value until the clock passes it.
//!
//! `rand_b` is 62 fresh bits from the OS random source for each UUID, so UUIDs from different
//! generators in the same millisecond are told apart by 62 random bits, plus the random
//! counter seed.
//!
//! # ULID
//!
//! The same 128 bits in Crockford base32 (26 characters) are a valid ULID whose 48-bit time is
//! the UUID's, and which sorts the same way. [`Uuid7::parse_ulid`] takes that text back; it
//! refuses ULIDs from other generators unless their bits happen to carry version 7.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::clock::{Clock, MonotonicClock};
use crate::datetime::format_time_ms;
use crate::error::{escaped, quoted_char};
use crate::shortid::{crockford128_decode, crockford128_encode};
use crate::{Error, Result};

/// The largest `unix_ts_ms` a UUIDv7 holds (2^48 − 1, in the year 10889).
pub const MAX_UUID7_MS: u64 = (1 << 48) - 1;

const VERSION: u128 = 7;
const VARIANT: u128 = 0b10;
const COUNTER_BITS: u32 = 12;
const COUNTER_MASK: u64 = (1 << COUNTER_BITS) - 1;
const SEED_MASK: u64 = COUNTER_MASK >> 1;
const RAND_B_MASK: u64 = (1 << 62) - 1;

/// A version-7 UUID.
///
/// Ordering is by the 128-bit value, which is time order.
///
/// ```
/// use idmint_core::Uuid7;
///
/// // RFC 9562, appendix A.6.
/// let u: Uuid7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F".parse()?;
/// assert_eq!(u.time_ms(), 0x017F22E279B0);
/// assert_eq!(u.time(), "2022-02-22T19:22:22.000Z");
/// assert_eq!(u.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// assert_eq!(u.to_ulid(), "01FWHE4YDGFK1SHH6W1G60EECF");
/// assert_eq!(Uuid7::parse_ulid("01FWHE4YDGFK1SHH6W1G60EECF")?, u);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid7(u128);

impl Uuid7 {
    /// Assemble a UUIDv7 from its fields: `unix_ms` below 2^48, `rand_a` below 2^12, `rand_b`
    /// below 2^62.
    ///
    /// ```
    /// use idmint_core::Uuid7;
    /// let u = Uuid7::from_parts(0x017F22E279B0, 0xCC3, 0x18C4DC0C0C07398F)?;
    /// assert_eq!(u.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    /// assert_eq!(Uuid7::from_parts(1 << 48, 0, 0).unwrap_err().kind(), "value_out_of_range");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn from_parts(unix_ms: u64, rand_a: u16, rand_b: u64) -> Result<Uuid7> {
        for (field, value, max) in [
            ("unix_ts_ms", unix_ms, MAX_UUID7_MS),
            ("rand_a", rand_a as u64, COUNTER_MASK),
            ("rand_b", rand_b, RAND_B_MASK),
        ] {
            if value > max {
                return Err(Error::ValueOutOfRange {
                    field: field.into(),
                    value: value as i128,
                    max,
                });
            }
        }
        Ok(Self::assemble(unix_ms, rand_a as u64, rand_b))
    }

    #[inline]
    fn assemble(unix_ms: u64, rand_a: u64, rand_b: u64) -> Uuid7 {
        Uuid7(
            (unix_ms as u128) << 80
                | VERSION << 76
                | (rand_a as u128) << 64
                | VARIANT << 62
                | rand_b as u128,
        )
    }

    /// The UUIDv7 with this 128-bit value; fails unless its version is 7 and variant `10`.
    ///
    /// ```
    /// use idmint_core::Uuid7;
    /// let v4 = 0x6ba7b810_9dad_41d1_80b4_00c04fd430c8u128;
    /// assert!(Uuid7::from_u128(v4).unwrap_err().to_string().contains("version 4"));
    /// ```
    pub fn from_u128(value: u128) -> Result<Uuid7> {
        Self::check(value, || format!("{value:032x}"))
    }

    fn check(value: u128, input: impl Fn() -> String) -> Result<Uuid7> {
        let version = (value >> 76) & 0xF;
        let variant = (value >> 62) & 0b11;
        let reason = if version != VERSION {
            format!("version {version}, not 7 (the 13th hex digit must be 7)")
        } else if variant != VARIANT {
            format!("variant bits {variant:02b}, not 10 (the 17th hex digit must be 8, 9, a or b)")
        } else {
            return Ok(Uuid7(value));
        };
        Err(Error::InvalidUuid {
            input: input(),
            reason,
        })
    }

    /// The UUIDv7 in these 16 bytes (big-endian, as UUIDs are laid out).
    pub fn from_bytes(bytes: [u8; 16]) -> Result<Uuid7> {
        Self::from_u128(u128::from_be_bytes(bytes))
    }

    /// Read the 36-character hyphenated form (`8-4-4-4-12` hex digits) or 32 hex digits,
    /// either case.
    ///
    /// ```
    /// use idmint_core::Uuid7;
    /// assert!(Uuid7::parse_str("017f22e279b07cc398c4dc0c0c07398f").is_ok());
    /// let err = Uuid7::parse_str("017f22e2-79b07cc3-98c4-dc0c0c07398f").unwrap_err();
    /// assert_eq!(err.kind(), "invalid_uuid");
    /// ```
    pub fn parse_str(text: &str) -> Result<Uuid7> {
        Self::check(uuid_value(text)?, || escaped(text))
    }

    /// Read the 26-character ULID text of a UUIDv7 (Crockford base32, either case).
    ///
    /// ```
    /// use idmint_core::Uuid7;
    /// let err = Uuid7::parse_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAV").unwrap_err();
    /// assert!(err.to_string().contains("not 7"), "{err}"); // a ULID from another generator
    /// ```
    pub fn parse_ulid(text: &str) -> Result<Uuid7> {
        let value = crockford128_decode(text).map_err(|reason| Error::InvalidUuid {
            input: escaped(text),
            reason,
        })?;
        Self::check(value, || escaped(text))
    }

    /// The 128-bit value.
    pub const fn as_u128(&self) -> u128 {
        self.0
    }

    /// The 16 bytes, big-endian.
    pub const fn to_bytes(&self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// The timestamp, unix milliseconds.
    pub const fn time_ms(&self) -> u64 {
        (self.0 >> 80) as u64
    }

    /// The timestamp in RFC 3339, e.g. `2022-02-22T19:22:22.000Z` (capped at year 9999).
    pub fn time(&self) -> String {
        format_time_ms(self.time_ms())
    }

    /// The 12 bits after the version: the counter, for UUIDs from [`Uuid7Generator`].
    pub const fn rand_a(&self) -> u16 {
        ((self.0 >> 64) & 0xFFF) as u16
    }

    /// The 62 bits after the variant.
    pub const fn rand_b(&self) -> u64 {
        (self.0 as u64) & RAND_B_MASK
    }

    /// The ULID text form: 26 Crockford base32 characters, upper case.
    pub fn to_ulid(&self) -> String {
        String::from_utf8_lossy(&crockford128_encode(self.0)).into_owned()
    }
}

/// The 128-bit value of a UUID of any version, hyphenated (8-4-4-4-12) or 32 hex digits, either
/// case: what [`Uuid7::parse_str`] reads before it checks the version (a TypeID holds any UUID).
///
/// ```
/// use idmint_core::uuid7::uuid_value;
/// assert_eq!(uuid_value("00000000-0000-0000-0000-00000000000A")?, 10);
/// assert_eq!(uuid_value("xyz").unwrap_err().kind(), "invalid_uuid");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn uuid_value(text: &str) -> Result<u128> {
    let bad = |reason: String| Error::InvalidUuid {
        input: escaped(text),
        reason,
    };
    let b = text.as_bytes();
    let mut hex_digits = [0u8; 32];
    match b.len() {
        36 => {
            let mut n = 0;
            for (i, &c) in b.iter().enumerate() {
                if matches!(i, 8 | 13 | 18 | 23) {
                    if c != b'-' {
                        return Err(bad(format!(
                            "expected '-' at position {i} (8-4-4-4-12 hex digits)"
                        )));
                    }
                } else {
                    hex_digits[n] = c;
                    n += 1;
                }
            }
        }
        32 => hex_digits.copy_from_slice(b),
        _ => {
            return Err(bad(format!(
                "a UUID is 36 characters (8-4-4-4-12 hex digits) or 32 hex digits, got {}",
                text.chars().count()
            )))
        }
    }
    let mut bytes = [0u8; 16];
    hex::decode_to_slice(hex_digits, &mut bytes).map_err(|_| {
        let (i, c) = text
            .char_indices()
            .find(|&(i, c)| {
                !(c.is_ascii_hexdigit() || (b.len() == 36 && matches!(i, 8 | 13 | 18 | 23)))
            })
            .unwrap_or((0, '?'));
        bad(format!(
            "character {} at position {i} is not hex (0-9, a-f)",
            quoted_char(c)
        ))
    })?;
    Ok(u128::from_be_bytes(bytes))
}

/// Any UUID's 128 bits as its canonical text: lowercase, hyphenated 8-4-4-4-12.
pub(crate) fn uuid_text(value: u128) -> String {
    let h = format!("{value:032x}");
    [&h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]].join("-")
}

impl fmt::Display for Uuid7 {
    /// Lowercase, hyphenated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&uuid_text(self.0))
    }
}

impl fmt::Debug for Uuid7 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid7({self})")
    }
}

impl FromStr for Uuid7 {
    type Err = Error;
    fn from_str(s: &str) -> Result<Uuid7> {
        Uuid7::parse_str(s)
    }
}

fn random_bytes(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|e| Error::InvalidArgument {
        name: "random".into(),
        value: "uuid7".into(),
        expected: format!("a working OS random source ({e})"),
    })
}

/// A UUIDv7 generator: lock-free, strictly increasing across threads (see the module docs).
///
/// ```
/// use idmint_core::{ManualClock, Uuid7Generator};
///
/// let clock = ManualClock::new(0x017F22E279B0);
/// let gen = Uuid7Generator::with_clock(&clock);
/// let a = gen.next_uuid()?;
/// let b = gen.next_uuid()?;
/// assert!(b > a);
/// assert_eq!(a.time_ms(), 0x017F22E279B0);
/// assert_eq!(b.rand_a(), a.rand_a() + 1);
/// assert!(a.rand_a() < 2048); // seeded with the top bit clear
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub struct Uuid7Generator<C: Clock = MonotonicClock> {
    // The last issued (ms << 12 | counter); 0 before the first.
    state: AtomicU64,
    clock: C,
}

impl Uuid7Generator<MonotonicClock> {
    /// A generator on the default [`MonotonicClock`] (not for `wasm32-unknown-unknown`: use
    /// [`Uuid7Generator::with_clock`] there).
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Uuid7Generator::with_clock(MonotonicClock::new())
    }
}

impl<C: Clock> Uuid7Generator<C> {
    /// A generator reading `clock`.
    pub fn with_clock(clock: C) -> Self {
        Uuid7Generator {
            state: AtomicU64::new(0),
            clock,
        }
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// Reserve up to `want` (≥ 1) consecutive (ms, counter) slots, never past the end of a
    /// millisecond's counter; returns the first and how many.
    fn reserve(&self, want: u64, seed: u64) -> Result<(u64, u64)> {
        loop {
            let s = self.state.load(Ordering::Acquire);
            let now_ms = self.clock.now_ms();
            if now_ms > MAX_UUID7_MS {
                return Err(Error::TimeOutOfRange {
                    time_ms: now_ms as i128,
                    min_ms: 0,
                    end_ms: MAX_UUID7_MS + 1,
                });
            }
            let start = if s == 0 || now_ms > s >> COUNTER_BITS {
                (now_ms << COUNTER_BITS) | (seed & SEED_MASK)
            } else {
                // Same millisecond, or the clock is behind: count on. A full counter carries
                // into the timestamp here, as §6.2 allows.
                s + 1
            };
            if start >> COUNTER_BITS > MAX_UUID7_MS {
                return Err(Error::TimeOutOfRange {
                    time_ms: (start >> COUNTER_BITS) as i128,
                    min_ms: 0,
                    end_ms: MAX_UUID7_MS + 1,
                });
            }
            let end_of_ms = ((start >> COUNTER_BITS) + 1) << COUNTER_BITS;
            let end = start.saturating_add(want).min(end_of_ms);
            if self
                .state
                .compare_exchange_weak(s, end - 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return Ok((start, end - start));
            }
        }
    }

    /// The next UUID.
    pub fn next_uuid(&self) -> Result<Uuid7> {
        let mut r = [0u8; 10];
        random_bytes(&mut r)?;
        let tail = u64::from_le_bytes([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]]);
        let seed = u16::from_le_bytes([r[8], r[9]]) as u64;
        let (slot, _) = self.reserve(1, seed)?;
        Ok(Self::uuid_of(slot, tail))
    }

    #[inline]
    fn uuid_of(slot: u64, tail: u64) -> Uuid7 {
        Uuid7::assemble(
            slot >> COUNTER_BITS,
            slot & COUNTER_MASK,
            tail & RAND_B_MASK,
        )
    }

    /// `n` UUIDs, increasing; `n` is at most [`args::MAX_COUNT`](crate::args::MAX_COUNT)
    /// (`invalid_argument` above it).
    ///
    /// ```
    /// let gen = idmint_core::Uuid7Generator::new();
    /// let ids = gen.next_uuids(10_000)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// assert_eq!(gen.next_uuids(usize::MAX).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_uuids(&self, n: usize) -> Result<Vec<Uuid7>> {
        let mut out = crate::args::id_list(n, Uuid7(0))?;
        self.next_uuids_into(&mut out)?;
        Ok(out)
    }

    /// Fill `out` with increasing UUIDs, drawing the random bits for a run at a time. On error,
    /// `out` is partly filled.
    pub fn next_uuids_into(&self, out: &mut [Uuid7]) -> Result<()> {
        const CHUNK: usize = 1024;
        let mut random = [0u8; 8 * CHUNK + 2];
        let mut filled = 0;
        while filled < out.len() {
            let want = (out.len() - filled).min(CHUNK);
            random_bytes(&mut random[..8 * want + 2])?;
            let seed = u16::from_le_bytes([random[8 * want], random[8 * want + 1]]) as u64;
            let (start, count) = self.reserve(want as u64, seed)?;
            for i in 0..count as usize {
                let tail =
                    u64::from_le_bytes(random[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
                out[filled + i] = Self::uuid_of(start + i as u64, tail);
            }
            filled += count as usize;
        }
        Ok(())
    }
}

impl<C: Clock> fmt::Debug for Uuid7Generator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.state.load(Ordering::Relaxed);
        f.debug_struct("Uuid7Generator")
            .field("last_ms", &(s >> COUNTER_BITS))
            .field("last_counter", &(s & COUNTER_MASK))
            .finish()
    }
}

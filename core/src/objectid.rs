//! 12-byte IDs byte-compatible with MongoDB's ObjectId:
//! 4-byte big-endian unix seconds | 5-byte per-process random | 3-byte big-endian counter.
//!
//! # Why these never repeat within a process
//!
//! The counter starts at a random value and wraps at 2^24. A process may issue at most 2^24 IDs
//! in one second from one random value: when the counter would come back to the value it had
//! at the start of the current second, the generator waits for the next second. Time comes from
//! a [`MonotonicClock`], so a wall-clock step backwards cannot bring back a second already used.
//! After `fork()` the child gets a new random value and counter (a `pthread_atfork` handler marks
//! the fork; each generator reseeds on its next call), so parent and child never share one.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::clock::{Clock, MonotonicClock};
use crate::datetime::format_time_s;
use crate::error::{escaped, quoted_char};
use crate::{Error, Result};

const COUNTER_MASK: u64 = 0xFF_FFFF;

/// The two lowercase hex digits of every byte value.
const HEX_PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [DIGITS[i >> 4], DIGITS[i & 0xf]];
        i += 1;
    }
    t
};

/// A MongoDB-compatible ObjectId.
///
/// ```
/// use idmint_core::ObjectId;
///
/// let oid: ObjectId = "507f1f77bcf86cd799439011".parse()?;
/// assert_eq!(oid.timestamp(), 0x507f1f77);
/// assert_eq!(oid.time(), "2012-10-17T21:13:27Z");
/// assert_eq!(oid.random(), [0xbc, 0xf8, 0x6c, 0xd7, 0x99]);
/// assert_eq!(oid.counter(), 0x439011);
/// assert_eq!(oid.to_string(), "507f1f77bcf86cd799439011");
/// assert!(ObjectId::new() > oid);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ObjectId([u8; 12]);

impl ObjectId {
    /// A new ObjectId from the process-wide generator.
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    #[allow(clippy::new_without_default)]
    pub fn new() -> ObjectId {
        global().next_id()
    }

    /// How many ObjectIds a binding takes in one [`ObjectId::new_block`] call (a JVM thread's
    /// block, a JavaScript realm's): enough that the call is paid once per 128 IDs, few enough
    /// that a block dropped at the end of a second leaves most of that second's 2^24 counters to
    /// other threads, and that a JavaScript ObjectId keeping its block's text keeps 3 KB.
    ///
    /// ```
    /// assert_eq!(idmint_core::ObjectId::BLOCK_LEN, 128);
    /// ```
    pub const BLOCK_LEN: usize = 128;

    /// Fill the front of `out` with new ObjectIds of the process-wide generator, all of one
    /// second, and return how many (see [`ObjectIdGenerator::next_block`]). For bindings that
    /// hand IDs out from a block: one call into the core for many IDs.
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// let mut block = [ObjectId::default(); 64];
    /// let n = ObjectId::new_block(&mut block);
    /// assert!((1..=64).contains(&n));
    /// assert!(block[..n].windows(2).all(|w| w[0].timestamp() == w[1].timestamp()));
    /// ```
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn new_block(out: &mut [ObjectId]) -> usize {
        global().next_block(out)
    }

    /// [`ObjectIdGenerator::next_block_hex`] on the process-wide generator.
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// let mut hex = [0u8; 24 * ObjectId::BLOCK_LEN];
    /// let (n, seconds) = ObjectId::new_block_hex(&mut hex);
    /// let first = ObjectId::parse_str(std::str::from_utf8(&hex[..24]).unwrap())?;
    /// assert!(n >= 1 && first.timestamp() == seconds);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn new_block_hex(hex: &mut [u8]) -> (usize, u32) {
        global().next_block_hex(hex)
    }

    /// The ObjectId with these bytes.
    pub const fn from_bytes(bytes: [u8; 12]) -> ObjectId {
        ObjectId(bytes)
    }

    /// The ObjectId in 12 bytes of a slice.
    ///
    /// ```
    /// assert_eq!(idmint_core::ObjectId::from_slice(&[0; 11]).unwrap_err().kind(), "invalid_object_id");
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<ObjectId> {
        let arr: [u8; 12] = bytes.try_into().map_err(|_| Error::InvalidObjectId {
            input: format!("{} bytes", bytes.len()),
            reason: format!("an ObjectId is 12 bytes, got {}", bytes.len()),
        })?;
        Ok(ObjectId(arr))
    }

    /// Put an ObjectId together from its fields; `counter` must be below 2^24.
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// let oid = ObjectId::from_parts(1, [2; 5], 3)?;
    /// assert_eq!(oid.to_hex(), "000000010202020202000003");
    /// assert_eq!(ObjectId::from_parts(1, [2; 5], 1 << 24).unwrap_err().kind(), "value_out_of_range");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn from_parts(seconds: u32, random: [u8; 5], counter: u32) -> Result<ObjectId> {
        if counter as u64 > COUNTER_MASK {
            return Err(Error::ValueOutOfRange {
                field: "counter".into(),
                value: counter as i128,
                max: COUNTER_MASK,
            });
        }
        Ok(Self::assemble(seconds, random, counter))
    }

    /// The 5-byte random value of [`ObjectId::from_parts`] from bytes of any length, as a
    /// binding receives them: exactly 5, else `invalid_argument` naming `random`.
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// assert_eq!(ObjectId::random_value(&[1, 2, 3, 4, 5])?, [1, 2, 3, 4, 5]);
    /// let err = ObjectId::random_value(&[1, 2]).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid argument `random` = 2 bytes: exactly 5 bytes");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn random_value(bytes: &[u8]) -> Result<[u8; 5]> {
        bytes.try_into().map_err(|_| Error::InvalidArgument {
            name: "random".into(),
            value: format!("{} bytes", bytes.len()),
            expected: "exactly 5 bytes".into(),
        })
    }

    #[inline]
    fn assemble(seconds: u32, random: [u8; 5], counter: u32) -> ObjectId {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&seconds.to_be_bytes());
        b[4..9].copy_from_slice(&random);
        b[9..].copy_from_slice(&counter.to_be_bytes()[1..]);
        ObjectId(b)
    }

    /// Read 24 hex characters (either case).
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// assert_eq!(ObjectId::parse_str("507F1F77BCF86CD799439011")?.to_hex(), "507f1f77bcf86cd799439011");
    /// let err = ObjectId::parse_str("507f1f77bcf86cd79943901g").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid ObjectId `507f1f77bcf86cd79943901g`: character 'g' at position 23 is not hex (0-9, a-f)");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn parse_str(hex_text: &str) -> Result<ObjectId> {
        let bad = |reason: String| Error::InvalidObjectId {
            input: escaped(hex_text),
            reason,
        };
        let chars = hex_text.chars().count();
        if chars != 24 || hex_text.len() != 24 {
            return Err(bad(format!(
                "an ObjectId is 24 hex characters, got {chars} characters"
            )));
        }
        let mut b = [0u8; 12];
        hex::decode_to_slice(hex_text, &mut b).map_err(|e| match e {
            hex::FromHexError::InvalidHexCharacter { c, index } => bad(format!(
                "character {} at position {index} is not hex (0-9, a-f)",
                quoted_char(c)
            )),
            other => bad(other.to_string()),
        })?;
        Ok(ObjectId(b))
    }

    /// The ObjectId whose canonical text (24 lowercase hex characters, as idmint and MongoDB
    /// write it) these UTF-16 code units are, or `None` for any other text: then
    /// [`ObjectId::parse_utf16`] gives the ObjectId of an uppercase text, or says what is wrong.
    /// For a caller that keeps a text it was given only when it is already canonical, with no
    /// error made on its hot path.
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// let units: Vec<u16> = "507f1f77bcf86cd799439011".encode_utf16().collect();
    /// assert_eq!(ObjectId::from_canonical_utf16(&units).unwrap().timestamp(), 0x507f1f77);
    /// let units: Vec<u16> = "507F1F77BCF86CD799439011".encode_utf16().collect();
    /// assert_eq!(ObjectId::from_canonical_utf16(&units), None);
    /// ```
    pub fn from_canonical_utf16(units: &[u16]) -> Option<ObjectId> {
        Self::from_hex_units(units, false)
    }

    /// 24 hex digits as code units (uppercase ones only with `upper`).
    fn from_hex_units(units: &[u16], upper: bool) -> Option<ObjectId> {
        let digit = |u: u16| match u {
            0x30..=0x39 => Some((u - 0x30) as u8),
            0x61..=0x66 => Some((u - 0x61 + 10) as u8),
            0x41..=0x46 if upper => Some((u - 0x41 + 10) as u8),
            _ => None,
        };
        let units: &[u16; 24] = units.try_into().ok()?;
        let mut b = [0u8; 12];
        for (out, pair) in b.iter_mut().zip(units.chunks_exact(2)) {
            *out = (digit(pair[0])? << 4) | digit(pair[1])?;
        }
        Some(ObjectId(b))
    }

    /// Read 24 hex characters given as UTF-16 code units (a JavaScript string's `charCodeAt`s,
    /// written into memory the core can read without decoding the string). The same rules and
    /// errors as [`ObjectId::parse_str`]: a code unit that is not an ASCII hex digit is refused,
    /// not truncated to a byte.
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// let units: Vec<u16> = "507F1F77bcf86cd799439011".encode_utf16().collect();
    /// assert_eq!(ObjectId::parse_utf16(&units)?.to_hex(), "507f1f77bcf86cd799439011");
    /// // U+0130 would read as '0' if cut to its low byte.
    /// let units: Vec<u16> = "507f1f77bcf86cd79943901\u{130}".encode_utf16().collect();
    /// assert_eq!(ObjectId::parse_utf16(&units).unwrap_err().kind(), "invalid_object_id");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn parse_utf16(units: &[u16]) -> Result<ObjectId> {
        if let Some(id) = Self::from_hex_units(units, true) {
            return Ok(id);
        }
        // Not an ObjectId: the text's own reader names what is wrong (one source of the errors).
        // A lone surrogate becomes U+FFFD, which is not hex either.
        let text = String::from_utf16_lossy(units);
        match Self::parse_str(&text) {
            Err(e) => Err(e),
            Ok(_) => Err(Error::InvalidObjectId {
                input: escaped(&text),
                reason: "not 24 ASCII hex characters".into(),
            }),
        }
    }

    /// The 12 bytes.
    pub const fn bytes(&self) -> [u8; 12] {
        self.0
    }

    /// 24 lowercase hex characters.
    pub fn to_hex(&self) -> String {
        let buf = self.to_hex_bytes();
        // Hex digits are ASCII.
        String::from_utf8(buf.to_vec()).unwrap_or_default()
    }

    /// 24 lowercase hex characters as ASCII bytes, without allocating.
    ///
    /// ```
    /// let oid = idmint_core::ObjectId::from_bytes([0xab; 12]);
    /// assert_eq!(&oid.to_hex_bytes(), b"abababababababababababab");
    /// ```
    #[inline]
    pub fn to_hex_bytes(&self) -> [u8; 24] {
        let mut out = [0u8; 24];
        // One table look-up a byte: bindings write whole blocks of these (about 2.5 times faster
        // than a look-up a digit).
        for (pair, byte) in out.chunks_exact_mut(2).zip(self.0.iter()) {
            pair.copy_from_slice(&HEX_PAIRS[*byte as usize]);
        }
        out
    }

    /// Seconds since the Unix epoch when it was made.
    pub fn timestamp(&self) -> u32 {
        u32::from_be_bytes([self.0[0], self.0[1], self.0[2], self.0[3]])
    }

    /// [`ObjectId::timestamp`] as RFC 3339 UTC.
    pub fn time(&self) -> String {
        format_time_s(self.timestamp() as u64)
    }

    /// The 5-byte per-process random value.
    pub fn random(&self) -> [u8; 5] {
        [self.0[4], self.0[5], self.0[6], self.0[7], self.0[8]]
    }

    /// The 3-byte counter.
    pub fn counter(&self) -> u32 {
        u32::from_be_bytes([0, self.0[9], self.0[10], self.0[11]])
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let buf = self.to_hex_bytes();
        f.write_str(std::str::from_utf8(&buf).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectId(\"{self}\")")
    }
}

impl FromStr for ObjectId {
    type Err = Error;
    fn from_str(s: &str) -> Result<ObjectId> {
        ObjectId::parse_str(s)
    }
}

impl From<[u8; 12]> for ObjectId {
    fn from(b: [u8; 12]) -> ObjectId {
        ObjectId(b)
    }
}

impl From<ObjectId> for [u8; 12] {
    fn from(o: ObjectId) -> [u8; 12] {
        o.0
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ObjectId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ObjectId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        ObjectId::parse_str(&s).map_err(serde::de::Error::custom)
    }
}

fn random_seed() -> ([u8; 5], u32) {
    let mut b = [0u8; 8];
    // The OS random source failing is not recoverable and not something callers can act on;
    // the clock-based fallback keeps processes apart well enough to be better than aborting.
    if getrandom::fill(&mut b).is_err() {
        b = fallback_seed().to_le_bytes();
    }
    (
        [b[0], b[1], b[2], b[3], b[4]],
        u32::from_le_bytes([b[5], b[6], b[7], 0]),
    )
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn fallback_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (std::process::id() as u64).rotate_left(40)
}

// No clock or process id to fall back on; a wasm page's getrandom goes through
// crypto.getRandomValues, which does not fail in practice.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn fallback_seed() -> u64 {
    let local = 0u8;
    (&local as *const u8 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Mints ObjectIds; [`ObjectId::new`] uses one per process. Make your own to inject a clock
/// (tests, wasm) or a fixed random value.
///
/// ```
/// use idmint_core::{ManualClock, ObjectIdGenerator};
///
/// let clock = ManualClock::new(1_700_000_000_500);
/// let gen = ObjectIdGenerator::with_clock(&clock, Some([1, 2, 3, 4, 5]), Some(0xFFFFFF));
/// let a = gen.next_id();
/// let b = gen.next_id();
/// assert_eq!((a.timestamp(), a.counter(), b.counter()), (1_700_000_000, 0xFFFFFF, 0));
/// // The counter wrapped within one second, so here byte order differs from minting order, as in MongoDB.
/// assert!(b < a);
/// ```
pub struct ObjectIdGenerator<C: Clock = MonotonicClock> {
    /// `second mod 2^16 | counter at the second's first ID (24) | next counter (24)`.
    state: AtomicU64,
    /// The 5 random bytes, in the low 40 bits.
    random: AtomicU64,
    fork_generation: AtomicU64,
    reseed: Mutex<()>,
    fixed_random: bool,
    waits: AtomicU64,
    clock: C,
}

impl ObjectIdGenerator<MonotonicClock> {
    /// A generator with a random value and counter start from the OS.
    pub fn new() -> Self {
        Self::with_clock(MonotonicClock::new(), None, None)
    }
}

impl Default for ObjectIdGenerator<MonotonicClock> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Clock> ObjectIdGenerator<C> {
    /// A generator on `clock`; `random` and `counter_start` default to OS randomness. A fixed
    /// `random` is kept after a fork (the caller chose it); a random one is made anew.
    pub fn with_clock(clock: C, random: Option<[u8; 5]>, counter_start: Option<u32>) -> Self {
        crate::fork::watch();
        let (r, c) = random_seed();
        let fixed_random = random.is_some();
        let random = random.unwrap_or(r);
        let counter = counter_start.unwrap_or(c) as u64 & COUNTER_MASK;
        let g = ObjectIdGenerator {
            state: AtomicU64::new(0),
            random: AtomicU64::new(pack_random(random)),
            fork_generation: AtomicU64::new(crate::fork::current()),
            reseed: Mutex::new(()),
            fixed_random,
            waits: AtomicU64::new(0),
            clock,
        };
        g.state.store(g.fresh_state(counter), Ordering::SeqCst);
        g
    }

    /// A state whose second cannot match the clock's current one, so the first ID starts a second.
    fn fresh_state(&self, counter: u64) -> u64 {
        let sec16 = ((self.clock.now_ms() / 1000) as u16).wrapping_sub(1) as u64;
        (sec16 << 48) | (counter << 24) | counter
    }

    /// The next ObjectId. Waits for the next second when this second's 2^24 are used up.
    #[inline]
    pub fn next_id(&self) -> ObjectId {
        // A block of one: the 2^24-a-second rule lives in `next_block` only.
        let mut one = [ObjectId::default()];
        self.next_block(&mut one);
        one[0]
    }

    /// Fill the front of `out` with consecutive ObjectIds of one second and return how many:
    /// `out.len()`, or fewer when this second's counter values run out first (at least one for a
    /// non-empty `out`: it waits for the next second as [`ObjectIdGenerator::next_id`] does).
    /// One atomic update reserves the whole block, so blocks taken by several threads never
    /// overlap; a binding hands the IDs out one by one and may drop the rest of a block once its
    /// second has passed (a dropped ID is never issued).
    ///
    /// ```
    /// use idmint_core::{ManualClock, ObjectId, ObjectIdGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_500);
    /// let gen = ObjectIdGenerator::with_clock(&clock, Some([1, 2, 3, 4, 5]), Some(0xFFFFFE));
    /// let mut block = [ObjectId::default(); 4];
    /// assert_eq!(gen.next_block(&mut block), 4);
    /// let counters: Vec<u32> = block.iter().map(|o| o.counter()).collect();
    /// assert_eq!(counters, [0xFFFFFE, 0xFFFFFF, 0, 1]);
    /// assert_eq!(gen.next_id().counter(), 2);
    /// ```
    #[inline]
    pub fn next_block(&self, out: &mut [ObjectId]) -> usize {
        if out.is_empty() {
            return 0;
        }
        if crate::fork::since(self.fork_generation.load(Ordering::Acquire)) {
            self.after_fork();
        }
        let want = out.len().min(COUNTER_MASK as usize) as u64;
        loop {
            let s = self.state.load(Ordering::Acquire);
            let now_s = self.clock.now_ms() / 1000;
            let sec16 = now_s & 0xFFFF;
            let start = (s >> 24) & COUNTER_MASK;
            let next = s & COUNTER_MASK;
            // Counter values left in this second before coming back to its first one.
            let (first, left, base) = if s >> 48 != sec16 {
                (next, COUNTER_MASK + 1, (sec16 << 48) | (next << 24))
            } else if next == start {
                self.waits.fetch_add(1, Ordering::Relaxed);
                self.clock.sleep_until_ms((now_s + 1) * 1000);
                continue;
            } else {
                (
                    next,
                    (start.wrapping_sub(next)) & COUNTER_MASK,
                    s & !COUNTER_MASK,
                )
            };
            let n = want.min(left);
            let new = base | ((first + n) & COUNTER_MASK);
            if self
                .state
                .compare_exchange_weak(s, new, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                let r = self.random.load(Ordering::Relaxed).to_be_bytes();
                let random = [r[3], r[4], r[5], r[6], r[7]];
                for (i, slot) in out.iter_mut().take(n as usize).enumerate() {
                    *slot = ObjectId::assemble(
                        now_s as u32,
                        random,
                        ((first + i as u64) & COUNTER_MASK) as u32,
                    );
                }
                return n as usize;
            }
        }
    }

    /// A block as text, for bindings that hand out hex: up to `hex.len() / 24` (at most
    /// [`ObjectId::BLOCK_LEN`]) new ObjectIds of one second as [`next_block`](Self::next_block)
    /// takes them, their 24 lowercase hex characters one after the other at the front of `hex`.
    /// Returns how many and their unix seconds (`(0, 0)` when `hex` holds none).
    ///
    /// ```
    /// use idmint_core::{ManualClock, ObjectId, ObjectIdGenerator};
    /// let clock = ManualClock::new(1_700_000_000_500);
    /// let gen = ObjectIdGenerator::with_clock(&clock, Some([1, 2, 3, 4, 5]), Some(7));
    /// let mut hex = [0u8; 48];
    /// assert_eq!(gen.next_block_hex(&mut hex), (2, 1_700_000_000));
    /// assert_eq!(&hex[..24], b"6553f1000102030405000007");
    /// assert_eq!(gen.next_id().counter(), 9);
    /// ```
    pub fn next_block_hex(&self, hex: &mut [u8]) -> (usize, u32) {
        let mut ids = [ObjectId::default(); ObjectId::BLOCK_LEN];
        let n = self.next_block(&mut ids[..(hex.len() / 24).min(ObjectId::BLOCK_LEN)]);
        for (o, out) in ids[..n].iter().zip(hex.chunks_exact_mut(24)) {
            out.copy_from_slice(&o.to_hex_bytes());
        }
        (n, if n == 0 { 0 } else { ids[0].timestamp() })
    }

    #[cold]
    fn after_fork(&self) {
        let _guard = self.reseed.lock().unwrap_or_else(|p| p.into_inner());
        let now_gen = crate::fork::current();
        if self.fork_generation.load(Ordering::Acquire) == now_gen {
            return;
        }
        let (r, c) = random_seed();
        if !self.fixed_random {
            self.random.store(pack_random(r), Ordering::SeqCst);
        }
        self.state
            .store(self.fresh_state(c as u64 & COUNTER_MASK), Ordering::SeqCst);
        self.fork_generation.store(now_gen, Ordering::Release);
    }

    /// How many times a caller waited for the next second.
    pub fn waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }

    /// The 5-byte random value in use.
    pub fn random(&self) -> [u8; 5] {
        let r = self.random.load(Ordering::Relaxed).to_be_bytes();
        [r[3], r[4], r[5], r[6], r[7]]
    }
}

/// The process-wide generator of [`ObjectId::new`] and [`ObjectId::new_block`].
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn global() -> &'static ObjectIdGenerator {
    static GLOBAL: std::sync::OnceLock<ObjectIdGenerator> = std::sync::OnceLock::new();
    GLOBAL.get_or_init(ObjectIdGenerator::new)
}

fn pack_random(r: [u8; 5]) -> u64 {
    u64::from_be_bytes([0, 0, 0, r[0], r[1], r[2], r[3], r[4]])
}

impl<C: Clock> fmt::Debug for ObjectIdGenerator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectIdGenerator")
            .field("random", &hex::encode(self.random()))
            .field("waits", &self.waits())
            .finish()
    }
}

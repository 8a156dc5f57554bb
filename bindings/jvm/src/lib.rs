//! # idmint-jvm
//!
//! The uniffi glue that carries [`idmint_core`] to the JVM. It holds conversion only: Java
//! `long`/`int` in, checked by the core's wide entry points (a negative `long` ID is an
//! `invalid_id` error, never a wrapped `u64`); core values out as `i64`, which they fit
//! (layouts are at most 63 bits, times at most year 9999) except where the core covers all 64
//! bits (a decoded short string, a parsed 19-digit sequence): a value above 2^63-1 is then an
//! `invalid_id` error, never a negative wrap. UUIDs cross as their two 64-bit halves, the way
//! `java.util.UUID` holds them. Every core error crosses as
//! an [`FfiError`] with the core's stable [`idmint_core::Error::kind`] and message; the Java
//! facade (`java/`, package `io.idmint`) turns the kind into one unchecked exception class.
//!
//! The generated Java (uniffi-bindgen-java 0.3.1 over JNA, package `io.idmint.ffi`) is internal:
//! users call the facade.

use std::fmt;
use std::sync::Arc;

use idmint_core::{self as core, FieldKind, OnExhausted, OnRollback};

uniffi::setup_scaffolding!();

/// A core error on its way to Java: its stable kind and its message, both as the core gives them.
///
/// An object rather than an enum: uniffi-bindgen-java 0.3.1 writes enum errors with `switch`
/// patterns that need Java 21, while object errors compile on Java 17.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Object)]
pub struct FfiError {
    kind: String,
    message: String,
}

#[uniffi::export]
impl FfiError {
    /// [`idmint_core::Error::kind`].
    pub fn kind(&self) -> String {
        self.kind.clone()
    }

    /// The core's message (`Display`).
    pub fn message(&self) -> String {
        self.message.clone()
    }
}

impl fmt::Display for FfiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FfiError {}

fn ffi_error(e: core::Error) -> Arc<FfiError> {
    Arc::new(FfiError {
        kind: e.kind().to_string(),
        message: e.to_string(),
    })
}

type Result<T> = std::result::Result<T, Arc<FfiError>>;

/// A core result with its error made ready for Java.
trait IntoFfi<T> {
    fn ffi(self) -> Result<T>;
}

impl<T> IntoFfi<T> for core::Result<T> {
    fn ffi(self) -> Result<T> {
        self.map_err(ffi_error)
    }
}

/// A value the core guarantees below 2^63 (IDs, times up to year 9999, field maxima), as `i64`.
/// Should the guarantee ever break, the caller gets an `invalid_id` error, never a negative wrap.
fn to_long(v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| {
        ffi_error(core::Error::InvalidId {
            id: v.to_string(),
            reason: "above 2^63-1, the largest Java long".to_string(),
        })
    })
}

/// A counter (issued IDs, waits): saturates at `Long.MAX_VALUE`, which it cannot reach in practice.
fn count(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A Java `long` ID as the core's `u64`: negative is the core's `invalid_id` error, never a wrap.
fn java_id(id: i64) -> Result<u64> {
    u64::try_from(id).map_err(|_| {
        ffi_error(core::Error::InvalidId {
            id: id.to_string(),
            reason: "negative; IDs are 0..=9223372036854775807".to_string(),
        })
    })
}

/// A Java `long` for a core `u64` the core range-checks: a negative one is passed as `u64::MAX`,
/// which the core refuses, and [`given`] puts the value back into the core's error as given.
fn stand_in(v: i64) -> (u64, Option<i128>) {
    match u64::try_from(v) {
        Ok(u) => (u, None),
        Err(_) => (u64::MAX, Some(i128::from(v))),
    }
}

/// The core's range error for a [`stand_in`] value, showing the value as given.
fn given(e: core::Error, given: Option<i128>) -> core::Error {
    match (e, given) {
        (core::Error::TimeOutOfRange { min_ms, end_ms, .. }, Some(g)) => {
            core::Error::TimeOutOfRange {
                time_ms: g,
                min_ms,
                end_ms,
            }
        }
        (core::Error::ValueOutOfRange { field, max, .. }, Some(g)) => {
            core::Error::ValueOutOfRange {
                field,
                value: g,
                max,
            }
        }
        (core::Error::InvalidArgument { name, expected, .. }, Some(g)) => {
            core::Error::InvalidArgument {
                name,
                value: g.to_string(),
                expected,
            }
        }
        (e, _) => e,
    }
}

/// A Java `int` key version as the core's `u8`: one outside `0..=255` is passed as 255, which no
/// key can have, and [`key_given`] makes the core's `invalid_key` error name it as given.
fn key_version(version: i32) -> (u8, Option<i32>) {
    match u8::try_from(version) {
        Ok(v) => (v, None),
        Err(_) => (u8::MAX, Some(version)),
    }
}

fn key_given(e: core::Error, given: Option<i32>) -> core::Error {
    match (e, given) {
        (core::Error::InvalidKey { reason, .. }, Some(v)) => core::Error::InvalidKey {
            key: format!("v{v}"),
            reason,
        },
        (e, _) => e,
    }
}

/// A Java `int` count as `usize`: negative is the core's `invalid_argument` error.
fn java_count(name: &str, n: i32) -> Result<usize> {
    usize::try_from(n).map_err(|_| {
        ffi_error(core::Error::InvalidArgument {
            name: name.to_string(),
            value: n.to_string(),
            expected: "a count 0..=2147483647".to_string(),
        })
    })
}

/// A node field's name and value.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct NodeValue {
    /// Field name, e.g. `worker`.
    pub name: String,
    /// Its value.
    pub value: i64,
}

/// One field of a layout below the time field.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct FieldInfo {
    /// Field name (`sequence` for the sequence).
    pub name: String,
    /// Width in bits.
    pub bits: i32,
    /// Bits below it.
    pub shift: i32,
    /// Whether it is the sequence (else a node field).
    pub sequence: bool,
    /// Largest value.
    pub max: i64,
}

/// The parts of an ID.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Parts {
    /// Start of the ID's tick, unix ms.
    pub time_ms: i64,
    /// The same as RFC 3339 UTC with milliseconds.
    pub time: String,
    /// Node fields in layout order.
    pub nodes: Vec<NodeValue>,
    /// Sequence within the tick.
    pub sequence: i64,
}

fn parts(p: core::Parts) -> Result<Parts> {
    Ok(Parts {
        time_ms: to_long(p.time_ms)?,
        time: p.time(),
        nodes: p
            .nodes
            .into_iter()
            .map(|(name, v)| {
                Ok(NodeValue {
                    name,
                    value: to_long(v)?,
                })
            })
            .collect::<Result<_>>()?,
        sequence: to_long(p.sequence)?,
    })
}

/// A generator's counters ([`idmint_core::Stats`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Stats {
    /// IDs issued.
    pub issued: i64,
    /// Times a caller waited.
    pub waits: i64,
    /// Clock rollback events.
    pub rollbacks: i64,
    /// Current lead over the clock, ms.
    pub lead_ms: i64,
    /// Largest lead seen, ms.
    pub max_lead_ms: i64,
}

/// A bit layout ([`idmint_core::Layout`]).
#[derive(Debug, uniffi::Object)]
pub struct Layout(core::Layout);

#[uniffi::export]
impl Layout {
    /// A preset name or spec, with an optional epoch override (unix ms or RFC 3339).
    #[uniffi::constructor]
    pub fn parse(spec: String, epoch: Option<String>) -> Result<Arc<Self>> {
        Ok(Arc::new(Layout(
            core::Layout::parse_with_epoch(&spec, epoch.as_deref()).ffi()?,
        )))
    }

    /// Canonical spec.
    pub fn spec(&self) -> String {
        self.0.spec()
    }

    /// Preset name, if unchanged from one.
    pub fn preset_name(&self) -> Option<String> {
        self.0.preset_name().map(str::to_string)
    }

    /// Bits in all.
    pub fn total_bits(&self) -> i32 {
        self.0.total_bits() as i32
    }

    /// Bits of the time field.
    pub fn time_bits(&self) -> i32 {
        self.0.time_bits() as i32
    }

    /// Tick length, ms.
    pub fn tick_ms(&self) -> Result<i64> {
        to_long(self.0.tick_ms())
    }

    /// Epoch, unix ms.
    pub fn epoch_ms(&self) -> Result<i64> {
        to_long(self.0.epoch_ms())
    }

    /// Largest ID.
    pub fn max_id(&self) -> Result<i64> {
        to_long(self.0.max_id())
    }

    /// Fields below the time field, most significant first.
    pub fn fields(&self) -> Result<Vec<FieldInfo>> {
        self.0
            .fields()
            .iter()
            .map(|f| {
                Ok(FieldInfo {
                    name: f.name().to_string(),
                    bits: f.bits() as i32,
                    shift: f.shift() as i32,
                    sequence: f.kind() == FieldKind::Sequence,
                    max: to_long(f.max())?,
                })
            })
            .collect()
    }

    /// First instant the time field cannot hold, unix ms.
    pub fn exhausts_at_ms(&self) -> Result<i64> {
        to_long(self.0.exhausts_at_ms())
    }

    /// The same as RFC 3339.
    pub fn exhausts_at(&self) -> String {
        self.0.exhausts_at()
    }

    /// Most IDs one generator can mint per second.
    pub fn ids_per_second_cap(&self) -> f64 {
        self.0.ids_per_second_cap()
    }

    /// Split an ID; negative is `invalid_id`.
    pub fn decompose(&self, id: i64) -> Result<Parts> {
        parts(self.0.decompose_wide(id as i128).ffi()?)
    }

    /// Split an ID written in decimal.
    pub fn decompose_str(&self, id: String) -> Result<Parts> {
        parts(self.0.decompose_str(&id).ffi()?)
    }

    /// Put parts together; every value is checked by the core.
    pub fn compose(&self, time_ms: i64, nodes: Vec<NodeValue>, sequence: i64) -> Result<i64> {
        to_long(
            self.0
                .compose_values(
                    time_ms as i128,
                    nodes.iter().map(|n| (n.name.as_str(), n.value as i128)),
                    sequence as i128,
                )
                .ffi()?,
        )
    }
}

/// A clock that moves only when told ([`idmint_core::ManualClock`]), for tests: a generator
/// built on it mints deterministic IDs, and setting it back shows the rollback policy at work.
#[derive(Debug, uniffi::Object)]
pub struct ManualClock(Arc<core::ManualClock>);

#[uniffi::export]
impl ManualClock {
    /// A clock reading `now_ms` (unix ms; negative is `invalid_argument`).
    #[uniffi::constructor]
    pub fn new(now_ms: i64) -> Result<Arc<Self>> {
        Ok(Arc::new(ManualClock(Arc::new(core::ManualClock::new(
            unix_ms("now_ms", now_ms)?,
        )))))
    }

    /// The time it reads, unix ms.
    pub fn now_ms(&self) -> Result<i64> {
        to_long(core::Clock::now_ms(&*self.0))
    }

    /// Set it to `now_ms`, forwards or backwards.
    pub fn set_ms(&self, now_ms: i64) -> Result<()> {
        self.0.set_ms(unix_ms("now_ms", now_ms)?);
        Ok(())
    }

    /// Move it forwards by `ms`.
    pub fn advance_ms(&self, ms: i64) -> Result<()> {
        self.0.advance_ms(unix_ms("ms", ms)?);
        Ok(())
    }
}

/// A Java `long` of unix ms, checked by the core's time reader (0..=year 9999).
fn unix_ms(name: &str, ms: i64) -> Result<u64> {
    core::parse_time_ms(name, &ms.to_string()).ffi()
}

enum Generator {
    Monotonic(core::Snowflake),
    Manual(core::Snowflake<Arc<core::ManualClock>>),
}

macro_rules! with_gen {
    ($self:expr, $g:ident => $body:expr) => {
        match &$self.0 {
            Generator::Monotonic($g) => $body,
            Generator::Manual($g) => $body,
        }
    };
}

/// A snowflake generator ([`idmint_core::Snowflake`]), on the default monotonic clock or on a
/// [`ManualClock`].
#[derive(uniffi::Object)]
pub struct Snowflake(Generator);

impl fmt::Debug for Snowflake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_gen!(self, g => fmt::Debug::fmt(g, f))
    }
}

#[uniffi::export]
impl Snowflake {
    /// Build a generator; policies in the core's text forms (`wait`, `borrow:MS`; `error`,
    /// `wait:MS`, `continue`); `clock` none for the default monotonic clock; `resume_after` an ID
    /// this node issued before a restart (negative is `invalid_id`; the core checks it against
    /// the layout).
    #[uniffi::constructor]
    pub fn new(
        layout: Arc<Layout>,
        nodes: Vec<NodeValue>,
        random_nodes: bool,
        on_exhausted: String,
        on_rollback: String,
        clock: Option<Arc<ManualClock>>,
        resume_after: Option<i64>,
    ) -> Result<Arc<Self>> {
        let on_exhausted: OnExhausted = on_exhausted.parse().ffi()?;
        let on_rollback: OnRollback = on_rollback.parse().ffi()?;
        let mut builder = core::Snowflake::builder(layout.0.clone())
            .nodes(nodes.iter().map(|n| (n.name.as_str(), n.value)))
            .on_exhausted(on_exhausted)
            .on_rollback(on_rollback);
        if random_nodes {
            builder = builder.random_nodes();
        }
        if let Some(last_id) = resume_after {
            builder = builder.resume_after(java_id(last_id)?);
        }
        let generator = match clock {
            None => Generator::Monotonic(builder.build().ffi()?),
            Some(c) => Generator::Manual(builder.clock(c.0.clone()).build().ffi()?),
        };
        Ok(Arc::new(Snowflake(generator)))
    }

    /// The next ID.
    pub fn next_id(&self) -> Result<i64> {
        to_long(with_gen!(self, g => g.next_id()).ffi()?)
    }

    /// `n` increasing IDs; negative `n` is `invalid_argument`.
    pub fn next_ids(&self, n: i32) -> Result<Vec<i64>> {
        let n = java_count("n", n)?;
        with_gen!(self, g => g.next_ids(n))
            .ffi()?
            .into_iter()
            .map(to_long)
            .collect()
    }

    /// The generator's layout.
    pub fn layout(&self) -> Arc<Layout> {
        Arc::new(Layout(with_gen!(self, g => g.layout().clone())))
    }

    /// Node values, in layout order.
    pub fn nodes(&self) -> Result<Vec<NodeValue>> {
        with_gen!(self, g => g.nodes())
            .iter()
            .map(|(name, v)| {
                Ok(NodeValue {
                    name: name.clone(),
                    value: to_long(*v)?,
                })
            })
            .collect()
    }

    /// Sequence-exhaustion policy, as text.
    pub fn on_exhausted(&self) -> String {
        with_gen!(self, g => g.on_exhausted().to_string())
    }

    /// Clock-rollback policy, as text.
    pub fn on_rollback(&self) -> String {
        with_gen!(self, g => g.on_rollback().to_string())
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        let s = with_gen!(self, g => g.stats());
        Stats {
            issued: count(s.issued),
            waits: count(s.waits),
            rollbacks: count(s.rollbacks),
            lead_ms: count(s.lead_ms),
            max_lead_ms: count(s.max_lead_ms),
        }
    }

    /// Split an ID of this generator's layout.
    pub fn decompose(&self, id: i64) -> Result<Parts> {
        parts(with_gen!(self, g => g.layout().decompose_wide(id as i128)).ffi()?)
    }

    /// The address of this generator, for the [`fast`] entry points. Valid while the Java object
    /// that holds this generator is alive (the facade keeps it reachable across each call).
    pub fn fast_handle(&self) -> i64 {
        self as *const Snowflake as i64
    }
}

/// Fields of an ObjectId.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ObjectIdInfo {
    /// 24 lowercase hex characters.
    pub hex: String,
    /// Unix seconds (unsigned 32-bit, so never negative as a `long`).
    pub timestamp: i64,
    /// RFC 3339 UTC.
    pub time: String,
    /// The 5 random bytes.
    pub random: Vec<u8>,
    /// The 3-byte counter.
    pub counter: i32,
}

/// A new ObjectId from the process-wide generator, as 12 bytes.
#[uniffi::export]
pub fn object_id_new() -> Vec<u8> {
    core::ObjectId::new().bytes().to_vec()
}

/// Read 24 hex characters (either case) into 12 bytes.
#[uniffi::export]
pub fn object_id_parse(hex: String) -> Result<Vec<u8>> {
    Ok(core::ObjectId::parse_str(&hex).ffi()?.bytes().to_vec())
}

/// Check 12 bytes are an ObjectId.
#[uniffi::export]
pub fn object_id_check(bytes: Vec<u8>) -> Result<Vec<u8>> {
    Ok(core::ObjectId::from_slice(&bytes).ffi()?.bytes().to_vec())
}

/// 24 lowercase hex characters of 12 bytes.
#[uniffi::export]
pub fn object_id_to_hex(bytes: Vec<u8>) -> Result<String> {
    Ok(core::ObjectId::from_slice(&bytes).ffi()?.to_hex())
}

/// The fields of 12 bytes.
#[uniffi::export]
pub fn object_id_info(bytes: Vec<u8>) -> Result<ObjectIdInfo> {
    let oid = core::ObjectId::from_slice(&bytes).ffi()?;
    Ok(ObjectIdInfo {
        hex: oid.to_hex(),
        timestamp: i64::from(oid.timestamp()),
        time: oid.time(),
        random: oid.random().to_vec(),
        counter: oid.counter() as i32,
    })
}

/// `value` in a short-string encoding ([`idmint_core::Encoding`], by name: `base62`,
/// `base62-fixed`, `base32`, `base32-fixed`); negative is `invalid_id`.
#[uniffi::export]
pub fn short_id_encode(value: i64, encoding: String) -> Result<String> {
    let encoding: core::Encoding = encoding.parse().ffi()?;
    Ok(encoding.encode(java_id(value)?))
}

/// Read a short string back; a value above 2^63-1 (the encodings cover 64 bits) is
/// `invalid_id`, as it fits no Java `long`.
#[uniffi::export]
pub fn short_id_decode(text: String, encoding: String) -> Result<i64> {
    let encoding: core::Encoding = encoding.parse().ffi()?;
    to_long(encoding.decode(&text).ffi()?)
}

/// A new key's text (`idmint-key-v<version>:<32 hex digits>`) from the OS random source.
#[uniffi::export]
pub fn key_generate(version: i32) -> Result<String> {
    let (v, given) = key_version(version);
    Ok(core::Key::generate(v)
        .map_err(|e| ffi_error(key_given(e, given)))?
        .to_text())
}

/// Obfuscation keys ([`idmint_core::Keyring`]): the highest version obfuscates, every version
/// reveals.
#[derive(Debug, uniffi::Object)]
pub struct Keyring(core::Keyring);

#[uniffi::export]
impl Keyring {
    /// Read a key file's text: one key a line, `#` comments and blank lines skipped.
    #[uniffi::constructor]
    pub fn parse(text: String) -> Result<Arc<Self>> {
        Ok(Arc::new(Keyring(core::Keyring::parse(&text).ffi()?)))
    }

    /// The versions held, ascending.
    pub fn versions(&self) -> Vec<i32> {
        self.0.versions().into_iter().map(i32::from).collect()
    }

    /// The version of the key that obfuscates.
    pub fn active_version(&self) -> i32 {
        i32::from(self.0.active().version())
    }

    /// Obfuscate with the active key; negative is `invalid_id`.
    pub fn obfuscate(&self, id: i64) -> Result<i64> {
        to_long(self.0.obfuscate(java_id(id)?).ffi()?)
    }

    /// Reveal a plain output made with key `version`.
    pub fn reveal(&self, version: i32, shown: i64) -> Result<i64> {
        let (v, given) = key_version(version);
        let shown = java_id(shown)?;
        to_long(
            self.0
                .reveal(v, shown)
                .map_err(|e| ffi_error(key_given(e, given)))?,
        )
    }

    /// Obfuscate with the active key into the 12-character tagged form.
    pub fn obfuscate_tagged(&self, id: i64) -> Result<String> {
        self.0.obfuscate_tagged(java_id(id)?).ffi()
    }

    /// Reveal the tagged form with the key it names.
    pub fn reveal_tagged(&self, text: String) -> Result<i64> {
        to_long(self.0.reveal_tagged(&text).ffi()?)
    }
}

/// A UUIDv7 taken apart ([`idmint_core::Uuid7`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Uuid7Info {
    /// The top 64 bits, as the bits of a Java `long` (`UUID.getMostSignificantBits`).
    pub msb: i64,
    /// The low 64 bits, likewise.
    pub lsb: i64,
    /// The timestamp, unix ms (below 2^48).
    pub time_ms: i64,
    /// The same as RFC 3339 (capped at year 9999).
    pub time: String,
    /// The 12 bits after the version.
    pub rand_a: i32,
    /// The 62 bits after the variant.
    pub rand_b: i64,
    /// Hyphenated lowercase text.
    pub text: String,
    /// The ULID text of the same bits.
    pub ulid: String,
}

fn uuid7_info(u: core::Uuid7) -> Result<Uuid7Info> {
    let v = u.as_u128();
    Ok(Uuid7Info {
        msb: (v >> 64) as u64 as i64,
        lsb: v as u64 as i64,
        time_ms: to_long(u.time_ms())?,
        time: u.time(),
        rand_a: i32::from(u.rand_a()),
        rand_b: to_long(u.rand_b())?,
        text: u.to_string(),
        ulid: u.to_ulid(),
    })
}

/// Read a UUIDv7: hyphenated or 32 hex digits, either case.
#[uniffi::export]
pub fn uuid7_parse(text: String) -> Result<Uuid7Info> {
    uuid7_info(core::Uuid7::parse_str(&text).ffi()?)
}

/// Read the 26-character ULID text of a UUIDv7.
#[uniffi::export]
pub fn uuid7_parse_ulid(text: String) -> Result<Uuid7Info> {
    uuid7_info(core::Uuid7::parse_ulid(&text).ffi()?)
}

/// The UUIDv7 of these 128 bits (two Java `long`s' bits); `invalid_uuid` unless version 7.
#[uniffi::export]
pub fn uuid7_from_bits(msb: i64, lsb: i64) -> Result<Uuid7Info> {
    let v = (u128::from(msb as u64) << 64) | u128::from(lsb as u64);
    uuid7_info(core::Uuid7::from_u128(v).ffi()?)
}

enum UuidGen {
    Monotonic(core::Uuid7Generator),
    Manual(core::Uuid7Generator<Arc<core::ManualClock>>),
}

macro_rules! with_uuid_gen {
    ($self:expr, $g:ident => $body:expr) => {
        match &$self.0 {
            UuidGen::Monotonic($g) => $body,
            UuidGen::Manual($g) => $body,
        }
    };
}

/// A UUIDv7 generator ([`idmint_core::Uuid7Generator`]): strictly increasing across threads.
#[derive(uniffi::Object)]
pub struct Uuid7Generator(UuidGen);

impl fmt::Debug for Uuid7Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_uuid_gen!(self, g => fmt::Debug::fmt(g, f))
    }
}

#[uniffi::export]
impl Uuid7Generator {
    /// On the default monotonic clock, or on `clock`.
    #[uniffi::constructor]
    pub fn new(clock: Option<Arc<ManualClock>>) -> Arc<Self> {
        Arc::new(Uuid7Generator(match clock {
            None => UuidGen::Monotonic(core::Uuid7Generator::new()),
            Some(c) => UuidGen::Manual(core::Uuid7Generator::with_clock(c.0.clone())),
        }))
    }

    /// The next UUID.
    pub fn next(&self) -> Result<Uuid7Info> {
        uuid7_info(with_uuid_gen!(self, g => g.next_uuid()).ffi()?)
    }

    /// The next UUID's ULID text.
    pub fn next_ulid(&self) -> Result<String> {
        Ok(with_uuid_gen!(self, g => g.next_uuid()).ffi()?.to_ulid())
    }

    /// The address of this generator, for [`fast::idmint_jvm_fast_uuid7_next`]; valid while the
    /// Java object that holds it is alive.
    pub fn fast_handle(&self) -> i64 {
        self as *const Uuid7Generator as i64
    }
}

/// The parts of an order number ([`idmint_core::TemplateParts`]); a part the template lacks is
/// none.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TemplateParts {
    /// The year.
    pub year: Option<i32>,
    /// The month, 1-12.
    pub month: Option<i32>,
    /// The day of the month.
    pub day: Option<i32>,
    /// The hour, 0-23.
    pub hour: Option<i32>,
    /// The minute.
    pub minute: Option<i32>,
    /// The second.
    pub second: Option<i32>,
    /// The label as it appears.
    pub label: Option<String>,
    /// The sequence.
    pub sequence: i64,
    /// The check digits, verified.
    pub check: Option<String>,
}

/// An order-number template ([`idmint_core::Template`]).
#[derive(Debug, uniffi::Object)]
pub struct Template(core::Template);

#[uniffi::export]
impl Template {
    /// Read `pattern`, then apply the UTC offset (`Z`, `+08:00`, ...), the check digits (`none`,
    /// `luhn`, `mod97`) and the label, each if given.
    #[uniffi::constructor]
    pub fn new(
        pattern: String,
        offset: Option<String>,
        check: Option<String>,
        label: Option<String>,
    ) -> Result<Arc<Self>> {
        let mut t = core::Template::new(&pattern).ffi()?;
        if let Some(offset) = offset {
            t = t.offset(&offset).ffi()?;
        }
        if let Some(check) = check {
            t = t.check_digit(check.parse().ffi()?);
        }
        if let Some(label) = label {
            t = t.label(&label).ffi()?;
        }
        Ok(Arc::new(Template(t)))
    }

    /// The order number for `time_ms` (unix ms) and `sequence`.
    pub fn format(&self, time_ms: i64, sequence: i64) -> Result<String> {
        let (ms, ms_given) = stand_in(time_ms);
        let (seq, seq_given) = stand_in(sequence);
        self.0.format(ms, seq).map_err(|e| match e {
            e @ core::Error::TimeOutOfRange { .. } => ffi_error(given(e, ms_given)),
            e => ffi_error(given(e, seq_given)),
        })
    }

    /// The order number of snowflake ID `id` of `layout`: its time, and the whole ID as sequence.
    pub fn format_snowflake(&self, layout: Arc<Layout>, id: i64) -> Result<String> {
        self.0.format_snowflake(&layout.0, java_id(id)?).ffi()
    }

    /// Read an order number back, verifying its check digits.
    pub fn parse(&self, text: String) -> Result<TemplateParts> {
        let p = self.0.parse(&text).ffi()?;
        Ok(TemplateParts {
            year: p.year,
            month: p.month.map(i32::from),
            day: p.day.map(i32::from),
            hour: p.hour.map(i32::from),
            minute: p.minute.map(i32::from),
            second: p.second.map(i32::from),
            label: p.label,
            sequence: to_long(p.sequence)?,
            check: p.check,
        })
    }

    /// The day of `time_ms` in the template's offset, as `yyyymmdd`.
    pub fn day_of(&self, time_ms: i64) -> Result<i32> {
        let (ms, ms_given) = stand_in(time_ms);
        let day = self
            .0
            .day_of(ms)
            .map_err(|e| ffi_error(given(e, ms_given)))?;
        Ok(day as i32)
    }

    /// The template as given.
    pub fn pattern(&self) -> String {
        self.0.pattern().to_string()
    }

    /// The UTC offset of the date parts, seconds.
    pub fn offset_seconds(&self) -> i32 {
        self.0.offset_s()
    }

    /// The check digits: `none`, `luhn` or `mod97`.
    pub fn check(&self) -> String {
        self.0.check().to_string()
    }

    /// The sequence's width in digits.
    pub fn sequence_width(&self) -> i32 {
        self.0.sequence_width() as i32
    }

    /// The largest sequence that fits; `Long.MAX_VALUE` for widths of 19 (every `long` fits).
    pub fn capacity(&self) -> i64 {
        count(self.0.capacity())
    }

    /// Whether the template tells days apart (year, month and day).
    pub fn has_full_date(&self) -> bool {
        self.0.has_full_date()
    }
}

/// Where a daily counter resumes: its next value on `day`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CounterStart {
    /// The day, `yyyymmdd` in the template's offset.
    pub day: i32,
    /// The next value that day (1 or more).
    pub first: i64,
}

type Counter = Arc<dyn core::DailyCounter>;

enum Orders {
    Monotonic(core::OrderNumbers<Counter, core::MonotonicClock>),
    Manual(core::OrderNumbers<Counter, Arc<core::ManualClock>>),
}

/// A shared daily counter: its URL, name and step, as the Java builder sets them.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct SharedCounter {
    /// `memory:`, `sqlite:PATH`, `postgres://…`, `mysql://…` or `redis://…`; `None` for none.
    pub url: Option<String>,
    /// The counter's name (default `orders`); only with `url`.
    pub name: Option<String>,
    /// The step of day tags in SQL stores (default 100); only with `url`.
    pub step: Option<i64>,
}

fn invalid_argument(name: &str, value: String, expected: &str) -> Arc<FfiError> {
    ffi_error(core::Error::InvalidArgument {
        name: name.to_string(),
        value,
        expected: expected.to_string(),
    })
}

/// The counter of `start` (an in-memory counter resuming there) or `shared` (a URL, name and
/// step), as the core's [`idmint_core::segment::CounterArgs`] opens it and refuses mixes.
fn daily_counter(start: Option<CounterStart>, shared: Option<SharedCounter>) -> Result<Counter> {
    let shared = shared.unwrap_or(SharedCounter {
        url: None,
        name: None,
        step: None,
    });
    let (step, step_given) = match shared.step.map(stand_in) {
        Some((s, g)) => (Some(s), g),
        None => (None, None),
    };
    let (start, first_given) = match start {
        Some(CounterStart { day, first }) => {
            let (first, first_given) = stand_in(first);
            let day = u32::try_from(day)
                .map_err(|_| invalid_argument("day", day.to_string(), "a day as yyyymmdd"))?;
            (Some((day, first)), first_given)
        }
        None => (None, None),
    };
    core::segment::CounterArgs {
        url: shared.url,
        name: shared.name,
        step,
        start,
        memory: None,
    }
    .open()
    .map_err(|e| {
        // Put back the value as given into the error about that argument only.
        let g = match &e {
            core::Error::InvalidArgument { name, .. } if name == "step" => step_given,
            core::Error::InvalidArgument { name, .. } if name == "first" => first_given,
            _ => None,
        };
        ffi_error(given(e, g))
    })
}

/// Daily order numbers ([`idmint_core::OrderNumbers`]) over an in-memory or a shared daily
/// counter.
#[derive(uniffi::Object)]
pub struct OrderNumbers(Orders);

impl fmt::Debug for OrderNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Orders::Monotonic(o) => fmt::Debug::fmt(o, f),
            Orders::Manual(o) => fmt::Debug::fmt(o, f),
        }
    }
}

#[uniffi::export]
impl OrderNumbers {
    /// Order numbers of `template` from a fresh [`idmint_core::MemoryDailyCounter`], one
    /// [`idmint_core::MemoryDailyCounter::starting_at`] `start`, or the `shared` counter that
    /// [`idmint_core::segment::open_daily_counter`] opens; on `clock`, or the default monotonic
    /// clock.
    #[uniffi::constructor]
    pub fn new(
        template: Arc<Template>,
        clock: Option<Arc<ManualClock>>,
        start: Option<CounterStart>,
        shared: Option<SharedCounter>,
    ) -> Result<Arc<Self>> {
        let counter = daily_counter(start, shared)?;
        let template = template.0.clone();
        Ok(Arc::new(OrderNumbers(match clock {
            None => Orders::Monotonic(
                core::OrderNumbers::new(template, counter, core::MonotonicClock::new()).ffi()?,
            ),
            Some(c) => {
                Orders::Manual(core::OrderNumbers::new(template, counter, c.0.clone()).ffi()?)
            }
        })))
    }

    /// The next order number.
    pub fn next(&self) -> Result<String> {
        match &self.0 {
            Orders::Monotonic(o) => o.next(),
            Orders::Manual(o) => o.next(),
        }
        .ffi()
    }
}

/// Read a decimal ID (digits only, at most 2^63-1).
#[uniffi::export]
pub fn parse_id(text: String) -> Result<i64> {
    to_long(core::parse_id(&text).ffi()?)
}

/// Read a time as unix ms or RFC 3339; `what` names it in the error.
#[uniffi::export]
pub fn parse_time_ms(what: String, text: String) -> Result<i64> {
    to_long(core::parse_time_ms(&what, &text).ffi()?)
}

/// The preset layout names.
#[uniffi::export]
pub fn presets() -> Vec<String> {
    core::PRESETS.iter().map(|s| s.to_string()).collect()
}

/// Every error kind the core can report.
#[uniffi::export]
pub fn error_kinds() -> Vec<String> {
    core::Error::KINDS.iter().map(|s| s.to_string()).collect()
}

thread_local! {
    /// Error kept for [`take_fast_error`] on the thread whose fast call failed.
    static FAST_ERROR: std::cell::RefCell<Option<core::Error>> = const { std::cell::RefCell::new(None) };
}

/// Raise the error of this thread's last failed [`fast`] call (and forget it).
#[uniffi::export]
pub fn take_fast_error() -> Result<()> {
    match FAST_ERROR.with(|e| e.borrow_mut().take()) {
        Some(e) => Err(ffi_error(e)),
        None => Ok(()),
    }
}

/// Hot paths with primitive arguments only, for JNA direct mapping (`io.idmint.Fast`).
///
/// uniffi-bindgen-java 0.3.1 passes a JNA `Structure` (the call status) with every call and
/// clones the object handle through a second call; JNA builds those by reflection, which costs
/// microseconds per call, far above the 244 ns a twitter-layout ID may take at the cap. These
/// entry points are the same conversions without that: a negative return means "failed"; the
/// core error is kept for [`take_fast_error`], which the facade calls at once on the same thread
/// to throw it through the generated layer. A panic never unwinds into Java: it returns -2.
pub mod fast {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    const FAILED: i64 = -1;
    const PANICKED: i64 = -2;

    fn guard(f: impl FnOnce() -> core::Result<i64>) -> i64 {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                FAST_ERROR.with(|slot| *slot.borrow_mut() = Some(e));
                FAILED
            }
            Err(_) => PANICKED,
        }
    }

    fn id_out(id: u64) -> core::Result<i64> {
        i64::try_from(id).map_err(|_| core::Error::InvalidId {
            id: id.to_string(),
            reason: "above 2^63-1, the largest Java long".to_string(),
        })
    }

    /// The next ID of the generator at `handle`, or a negative failure code.
    ///
    /// # Safety
    /// `handle` is [`Snowflake::fast_handle`] of a generator that stays alive during the call.
    #[no_mangle]
    pub unsafe extern "C" fn idmint_jvm_fast_next_id(handle: i64) -> i64 {
        // SAFETY: the caller keeps the generator alive (see above).
        let gen = unsafe { &*(handle as *const Snowflake) };
        guard(|| id_out(with_gen!(gen, g => g.next_id())?))
    }

    /// Fill `out[0..n]` with increasing IDs; 0, or a negative failure code (negative `n` is
    /// `invalid_argument`).
    ///
    /// # Safety
    /// `handle` as for [`idmint_jvm_fast_next_id`]; `out` points to `n` writable `i64`s.
    #[no_mangle]
    pub unsafe extern "C" fn idmint_jvm_fast_next_ids(handle: i64, out: *mut i64, n: i32) -> i64 {
        // SAFETY: the caller keeps the generator alive.
        let gen = unsafe { &*(handle as *const Snowflake) };
        guard(|| {
            let n = usize::try_from(n).map_err(|_| core::Error::InvalidArgument {
                name: "n".to_string(),
                value: n.to_string(),
                expected: "a count 0..=2147483647".to_string(),
            })?;
            if n == 0 {
                return Ok(0);
            }
            // SAFETY: `out` holds `n` i64s, which have the layout of u64s; the core writes IDs
            // below 2^63, so each reads back as the same non-negative i64.
            let ids = unsafe { std::slice::from_raw_parts_mut(out as *mut u64, n) };
            with_gen!(gen, g => g.next_ids_into(ids))?;
            Ok(0)
        })
    }

    /// Write the next UUIDv7 of the generator at `handle` to `out[0]` (top 64 bits) and
    /// `out[1]`, as Java `UUID` holds them; 0, or a negative failure code.
    ///
    /// # Safety
    /// `handle` is [`Uuid7Generator::fast_handle`] of a generator that stays alive during the
    /// call; `out` points to 2 writable `i64`s.
    #[no_mangle]
    pub unsafe extern "C" fn idmint_jvm_fast_uuid7_next(handle: i64, out: *mut i64) -> i64 {
        // SAFETY: the caller keeps the generator alive (see above).
        let gen = unsafe { &*(handle as *const Uuid7Generator) };
        guard(|| {
            let v = with_uuid_gen!(gen, g => g.next_uuid())?.as_u128();
            // SAFETY: `out` holds 2 i64s.
            unsafe {
                *out = (v >> 64) as u64 as i64;
                *out.add(1) = v as u64 as i64;
            }
            Ok(0)
        })
    }

    /// Write a new ObjectId's 12 bytes to `out`; 0, or -2 on a panic.
    ///
    /// # Safety
    /// `out` points to 12 writable bytes.
    #[no_mangle]
    pub unsafe extern "C" fn idmint_jvm_fast_object_id_new(out: *mut u8) -> i64 {
        guard(|| {
            let bytes = core::ObjectId::new().bytes();
            // SAFETY: `out` holds 12 bytes.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, 12) };
            Ok(0)
        })
    }

    /// Write the 24 lowercase hex characters of the 12 bytes at `bytes` to `out`; 0, or -2.
    ///
    /// # Safety
    /// `bytes` points to 12 readable bytes, `out` to 24 writable bytes.
    #[no_mangle]
    pub unsafe extern "C" fn idmint_jvm_fast_object_id_hex(bytes: *const u8, out: *mut u8) -> i64 {
        guard(|| {
            let mut b = [0u8; 12];
            // SAFETY: `bytes` holds 12 bytes, `out` 24.
            unsafe { std::ptr::copy_nonoverlapping(bytes, b.as_mut_ptr(), 12) };
            let hex = core::ObjectId::from_bytes(b).to_hex_bytes();
            unsafe { std::ptr::copy_nonoverlapping(hex.as_ptr(), out, 24) };
            Ok(0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind<T: fmt::Debug>(r: Result<T>) -> String {
        r.unwrap_err().kind()
    }

    #[test]
    fn negative_ids_and_counts_are_typed_errors() {
        let l = Layout::parse("twitter".into(), None).unwrap();
        assert_eq!(kind(l.decompose(-1)), "invalid_id");
        let g = Snowflake::new(
            l,
            vec![
                NodeValue {
                    name: "datacenter".into(),
                    value: 1,
                },
                NodeValue {
                    name: "worker".into(),
                    value: 2,
                },
            ],
            false,
            "wait".into(),
            "error".into(),
            None,
            None,
        )
        .unwrap();
        assert_eq!(kind(g.next_ids(-1)), "invalid_argument");
        assert_eq!(g.next_ids(3).unwrap().len(), 3);

        let h = g.fast_handle();
        let a = unsafe { fast::idmint_jvm_fast_next_id(h) };
        let mut out = [0i64; 5];
        assert_eq!(
            unsafe { fast::idmint_jvm_fast_next_ids(h, out.as_mut_ptr(), 5) },
            0
        );
        assert!(a >= 0 && out.windows(2).all(|w| w[0] < w[1]) && out[0] > a);
        assert_eq!(
            unsafe { fast::idmint_jvm_fast_next_ids(h, out.as_mut_ptr(), -1) },
            -1
        );
        assert_eq!(kind(take_fast_error()), "invalid_argument");
        assert!(take_fast_error().is_ok());
    }

    #[test]
    fn display_ids_convert_without_wrapping() {
        let enc = |e: &str| e.to_string();
        assert_eq!(kind(short_id_encode(-1, enc("base62"))), "invalid_id");
        assert_eq!(
            kind(short_id_decode(enc("LygHa16AHYF"), enc("base62"))),
            "invalid_id"
        );
        let max = short_id_encode(i64::MAX, enc("base32")).unwrap();
        assert_eq!(short_id_decode(max, enc("base32")).unwrap(), i64::MAX);
        assert_eq!(kind(short_id_encode(1, enc("base64"))), "invalid_argument");

        let ring = Keyring::parse("idmint-key-v1:000102030405060708090a0b0c0d0e0f".into()).unwrap();
        assert_eq!(kind(ring.obfuscate(-1)), "invalid_id");
        assert!(ring.reveal(300, 1).unwrap_err().message().contains("v300"));
        assert!(key_generate(-2).unwrap_err().message().contains("v-2"));

        let t = Template::new("%5S".into(), None, None, None).unwrap();
        assert!(t.format(-5, 1).unwrap_err().message().contains("-5"));
        assert!(t.format(0, -7).unwrap_err().message().contains("-7"));

        let gen = Uuid7Generator::new(None);
        let mut out = [0i64; 2];
        let rc = unsafe { fast::idmint_jvm_fast_uuid7_next(gen.fast_handle(), out.as_mut_ptr()) };
        assert_eq!(rc, 0);
        let info = uuid7_from_bits(out[0], out[1]).unwrap();
        assert_eq!((info.msb, info.lsb), (out[0], out[1]));
        let next = gen.next().unwrap();
        assert!((next.msb as u64, next.lsb as u64) > (out[0] as u64, out[1] as u64));
    }
}

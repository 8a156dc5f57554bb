//! One reader for the IDs people meet: given text, [`decode`] recognises an ObjectId, a UUID
//! (version and variant; the time of v1, v6 and v7), a ULID, a KSUID, an xid, a TSID or a
//! decimal ID, and takes it apart into its time and named parts.
//!
//! | [`Format`] | text | bits | time |
//! |---|---|---|---|
//! | `snowflake` | decimal, with a [`Layout`] | up to 64 | the layout's tick |
//! | `integer` | decimal, without a layout | 64 | none: see [`guess`] |
//! | `objectid` | 24 hex digits | 96 | seconds, 1970..2106 |
//! | `uuid` | 36 characters with hyphens, or 32 hex digits | 128 | v1, v6: 100 ns from 1582; v7: ms |
//! | `ulid` | 26 Crockford base32 | 128 | ms, 48 bits |
//! | `ksuid` | 27 base62 | 160 | seconds from 2014-05-13T16:53:20Z, 32 bits |
//! | `xid` | 20 of `0-9a-v` | 96 | seconds, 32 bits |
//! | `tsid` | 13 Crockford base32 | 64 | ms from 2020-01-01, 42 bits |
//! | `typeid` | `prefix_` + 26 lowercase base32 | 128 | a UUIDv7's ms |
//!
//! Text is told apart by its length and alphabet, so each text has one reading: digits only are
//! always a decimal ID (a 13-digit TSID or a 20-digit xid made of digits alone, one in millions,
//! is read with [`decode_as`]), and 24 characters are always an ObjectId. A decimal ID is read
//! with the layout given; without one it is only "a 64-bit integer", never silently one
//! preset's reading: [`guess`] gives every preset's, when asked.
//!
//! Every format here is decoded by hand (a few shifts each), so the core needs no crate per
//! format; `tests/vectors/formats.json` holds each format's own published examples.

use std::fmt;

use crate::datetime::{format_time_ms, format_time_s, MAX_TIME_MS};
use crate::error::{quoted, quoted_char};
use crate::layout::{parse_u64, Layout, PRESETS, UNSIGNED_PRESETS};
use crate::objectid::ObjectId;
use crate::shortid::{crockford128_decode, crockford128_encode, Encoding, BASE62_ALPHABET};
use crate::{Error, Result};

/// The formats [`decode`] recognises.
///
/// ```
/// use idmint_core::formats::Format;
/// assert_eq!(Format::Ulid.name(), "ulid");
/// assert_eq!("ksuid".parse::<Format>()?, Format::Ksuid);
/// assert_eq!(Format::ALL.len(), 9);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// A decimal snowflake ID read with a [`Layout`].
    Snowflake,
    /// A decimal ID read without a layout: a 64-bit unsigned integer.
    Integer,
    /// A MongoDB ObjectId: 4 bytes of seconds, 5 random bytes, a 3-byte counter.
    ObjectId,
    /// A UUID of any version and variant (RFC 9562).
    Uuid,
    /// A ULID: 48 bits of milliseconds, 80 random bits.
    Ulid,
    /// A KSUID (Segment): 32 bits of seconds from 2014-05-13T16:53:20Z, 128 random bits.
    Ksuid,
    /// An xid: an ObjectId's 12 bytes in base32hex (seconds, machine, pid, counter).
    Xid,
    /// A TSID (tsid-creator): 42 bits of milliseconds from 2020, 22 node and counter bits.
    Tsid,
    /// A TypeID: a type prefix and a UUID (a UUIDv7 when minted) in lowercase base32.
    TypeId,
}

impl Format {
    /// Every format, in the order [`decode`] tries them.
    ///
    /// ```
    /// use idmint_core::formats::Format;
    /// assert_eq!(Format::ALL[0], Format::Snowflake);
    /// ```
    pub const ALL: [Format; 9] = [
        Format::Snowflake,
        Format::Integer,
        Format::ObjectId,
        Format::Uuid,
        Format::Ulid,
        Format::Ksuid,
        Format::Xid,
        Format::Tsid,
        Format::TypeId,
    ];

    /// The format's stable lowercase name, as the CLI and bindings print it.
    ///
    /// ```
    /// assert_eq!(idmint_core::formats::Format::ObjectId.name(), "objectid");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Format::Snowflake => "snowflake",
            Format::Integer => "integer",
            Format::ObjectId => "objectid",
            Format::Uuid => "uuid",
            Format::Ulid => "ulid",
            Format::Ksuid => "ksuid",
            Format::Xid => "xid",
            Format::Tsid => "tsid",
            Format::TypeId => "typeid",
        }
    }

    /// What its text looks like, for messages.
    ///
    /// ```
    /// assert_eq!(idmint_core::formats::Format::Xid.shape(), "20 characters of 0-9 and a-v");
    /// ```
    pub const fn shape(self) -> &'static str {
        match self {
            Format::Snowflake | Format::Integer => "1 to 20 decimal digits",
            Format::ObjectId => "24 hex digits",
            Format::Uuid => "36 characters with hyphens, or 32 hex digits",
            Format::Ulid => "26 Crockford base32 characters",
            Format::Ksuid => "27 base62 characters",
            Format::Xid => "20 characters of 0-9 and a-v",
            Format::Tsid => "13 Crockford base32 characters",
            Format::TypeId => "a prefix of a-z and _, a _, then 26 lowercase base32 characters",
        }
    }
}

impl Format {
    /// Its text as a regular expression (without anchors), for documents that describe the
    /// text an API takes (`idmint serve`'s OpenAPI document): a little wider than what
    /// [`decode_as`] accepts (it says what is wrong with the rest), never narrower.
    ///
    /// ```
    /// use idmint_core::formats::Format;
    /// assert_eq!(Format::ObjectId.pattern(), "[0-9A-Fa-f]{24}");
    /// assert_eq!(Format::Xid.pattern(), "[0-9a-v]{19}[0g]");
    /// ```
    pub const fn pattern(self) -> &'static str {
        match self {
            Format::Snowflake | Format::Integer => "[0-9]{1,20}",
            Format::ObjectId => "[0-9A-Fa-f]{24}",
            Format::Uuid => concat!(
                "(urn:uuid:)?[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
                "|\\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\\}",
                "|[0-9A-Fa-f]{32}"
            ),
            // Crockford base32 reads I and L as 1 and O as 0, in either case; U is no digit.
            Format::Ulid => "[0-7IiLlOo][0-9A-TV-Za-tv-z]{25}",
            Format::Ksuid => "[0-9A-Za-z]{27}",
            Format::Xid => "[0-9a-v]{19}[0g]",
            Format::Tsid => "[0-9A-Fa-fIiLlOo][0-9A-TV-Za-tv-z]{12}",
            Format::TypeId => "([a-z]([a-z_]{0,61}[a-z])?_)?[0-7][0-9a-hjkmnp-tv-z]{25}",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = Error;

    /// A format by its [`Format::name`].
    ///
    /// ```
    /// let err = "guid".parse::<idmint_core::formats::Format>().unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// ```
    fn from_str(s: &str) -> Result<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| Error::InvalidArgument {
                name: "format".into(),
                value: quoted(s),
                expected: Format::ALL.map(Format::name).join(", "),
            })
    }
}

/// The value of one part of a decoded ID: a number, or text (hex bytes, a name).
///
/// ```
/// use idmint_core::formats::PartValue;
/// assert_eq!(PartValue::Int(7).as_u64(), Some(7));
/// assert_eq!(PartValue::Text("9f6bdeced846".into()).to_string(), "9f6bdeced846");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PartValue {
    /// A whole number (a node field, a counter, a version).
    Int(u64),
    /// Text: lowercase hex for bytes (random bits, a MAC address), or a name (a UUID variant).
    Text(String),
}

impl PartValue {
    /// The number, if it is one.
    ///
    /// ```
    /// assert_eq!(idmint_core::formats::PartValue::Text("ab".into()).as_u64(), None);
    /// ```
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            PartValue::Int(v) => Some(*v),
            PartValue::Text(_) => None,
        }
    }

    /// The text, if it is text.
    ///
    /// ```
    /// assert_eq!(idmint_core::formats::PartValue::Text("rfc9562".into()).as_str(), Some("rfc9562"));
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PartValue::Int(_) => None,
            PartValue::Text(t) => Some(t),
        }
    }
}

impl fmt::Display for PartValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartValue::Int(v) => write!(f, "{v}"),
            PartValue::Text(t) => f.write_str(t),
        }
    }
}

/// An ID taken apart by [`decode`]: its format, its canonical text, its time and its parts.
/// With feature `serde` it serializes to the one JSON shape of a decoded ID, which `idmint
/// parse` and `idmint serve`'s `/v1/parse` both print ([`crate::json`]).
///
/// ```
/// let d = idmint_core::formats::decode("01ARZ3NDEKTSV4RRFFQ69G5FAV", None)?;
/// assert_eq!(d.format.name(), "ulid");
/// assert_eq!(d.time_ms, Some(1469922850259));
/// assert_eq!(d.time.as_deref(), Some("2016-07-30T23:54:10.259Z"));
/// assert_eq!(d.part("random").and_then(|v| v.as_str()), Some("d6764c61efb99302bd5b"));
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The format recognised.
    pub format: Format,
    /// The ID in its canonical text: decimal for 64-bit integers, lowercase hex for ObjectIds
    /// and UUIDs (hyphenated), upper case for ULIDs and TSIDs, as given for KSUIDs and xids.
    pub id: String,
    /// The ID as a 64-bit integer, for the formats that are one (snowflake, integer, TSID).
    pub value: Option<u64>,
    /// The time the ID carries, in unix milliseconds (floored; negative before 1970, as a UUIDv1
    /// may be), or `None` for a format or version without one.
    pub time_ms: Option<i64>,
    /// That time as RFC 3339 UTC, at the format's precision (seconds, milliseconds, or 100 ns
    /// for UUIDv1 and v6); `None` without a time, or past the year 9999 (a ULID may be).
    pub time: Option<String>,
    /// The named parts in the order of the ID's bits, most significant first.
    pub parts: Vec<(String, PartValue)>,
    /// The layout a snowflake was read with: its preset name, or its spec.
    pub layout: Option<String>,
}

impl Decoded {
    /// The part called `name`.
    ///
    /// ```
    /// let d = idmint_core::formats::decode("9m4e2mr0ui3e8a215n4g", None)?;
    /// assert_eq!(d.part("pid").and_then(|v| v.as_u64()), Some(0xe428));
    /// assert!(d.part("nope").is_none());
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn part(&self, name: &str) -> Option<&PartValue> {
        self.parts.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    fn new(format: Format, id: String) -> Decoded {
        Decoded {
            format,
            id,
            value: None,
            time_ms: None,
            time: None,
            parts: Vec::new(),
            layout: None,
        }
    }

    fn int(&mut self, name: &str, value: u64) {
        self.parts.push((name.to_string(), PartValue::Int(value)));
    }

    fn text(&mut self, name: &str, value: impl Into<String>) {
        self.parts
            .push((name.to_string(), PartValue::Text(value.into())));
    }

    /// A time in whole unix milliseconds.
    fn at_ms(&mut self, ms: i64) {
        self.time_ms = Some(ms);
        self.time = rfc3339_ms(ms);
    }

    /// A time in whole unix seconds (at most 2^32 + the KSUID epoch: always year 2150 or less).
    fn at_s(&mut self, s: u64) {
        self.time_ms = Some((s * 1000) as i64);
        self.time = Some(format_time_s(s));
    }
}

/// Every format [`decode`] tries, for the message of text it does not recognise.
fn tried() -> String {
    Format::ALL[1..]
        .iter()
        .map(|f| match f {
            Format::Integer => format!("a decimal ID ({})", f.shape()),
            f => format!("{} ({})", display_name(*f), f.shape()),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn display_name(f: Format) -> &'static str {
    match f {
        Format::Snowflake => "snowflake",
        Format::Integer => "integer",
        Format::ObjectId => "ObjectId",
        Format::Uuid => "UUID",
        Format::Ulid => "ULID",
        Format::Ksuid => "KSUID",
        Format::Xid => "xid",
        Format::Tsid => "TSID",
        Format::TypeId => "TypeID",
    }
}

/// The error for text no format reads: `why` says what the closest one made of it.
fn unrecognised(text: &str, why: &str) -> Error {
    Error::invalid_id(quoted(text), format!("{why}; formats tried: {}", tried()))
}

/// The error for text of a format's length that the format refuses.
fn not_valid(text: &str, format: Format, why: impl fmt::Display) -> Error {
    Error::invalid_id(
        quoted(text),
        format!(
            "not a valid {} ({}): {why}",
            display_name(format),
            format.shape()
        ),
    )
}

fn is_decimal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Recognise and take apart an ID given as text (see the [module docs](self) for the formats).
///
/// Decimal text is a snowflake of `layout` when one is given ([`Layout::decompose`], IDs up to
/// 2^64-1 for an `unsigned` layout), else [`Format::Integer`]. Text no format reads is an
/// [`Error::InvalidId`] naming every format tried; a text of 24 characters is an ObjectId or an
/// [`Error::InvalidObjectId`] (no decimal that long fits 64 bits).
///
/// ```
/// use idmint_core::{formats::{decode, Format}, Layout};
///
/// let discord = Layout::preset("discord")?;
/// let d = decode("175928847299117063", Some(&discord))?;
/// assert_eq!((d.format, d.time.as_deref()), (Format::Snowflake, Some("2016-04-30T11:18:25.796Z")));
/// assert_eq!(d.part("worker").and_then(|v| v.as_u64()), Some(1));
///
/// let n = decode("175928847299117063", None)?;
/// assert_eq!((n.format, n.value, n.time_ms), (Format::Integer, Some(175928847299117063), None));
///
/// let v1 = decode("C232AB00-9414-11EC-B3C8-9F6BDECED846", None)?; // RFC 9562, A.1
/// assert_eq!(v1.time.as_deref(), Some("2022-02-22T19:22:22.0000000Z"));
///
/// let err = decode("hello", None).unwrap_err();
/// assert_eq!(err.kind(), "invalid_id");
/// assert!(err.to_string().contains("KSUID"));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn decode(text: &str, layout: Option<&Layout>) -> Result<Decoded> {
    let chars = text.chars().count();
    // 24 characters are an ObjectId, or that format's own error: what `idmint parse` and
    // `/v1/parse` have always said (no decimal that long fits 64 bits).
    if chars == 24 && !text.starts_with('-') {
        return decode_as(text, Format::ObjectId, layout);
    }
    if is_decimal(text) {
        let format = if layout.is_some() {
            Format::Snowflake
        } else {
            Format::Integer
        };
        return decode_as(text, format, layout);
    }
    // Only a TypeID has a `_` (one without a prefix is 26 base32 characters: read as the ULID
    // of the same 128 bits).
    if text.contains('_') {
        return decode_as(text, Format::TypeId, layout);
    }
    let candidate = match chars {
        26 => Format::Ulid,
        27 => Format::Ksuid,
        20 => Format::Xid,
        13 => Format::Tsid,
        32 | 36 | 38 | 45 => Format::Uuid,
        _ => {
            return Err(unrecognised(
                text,
                &format!(
                    "not a decimal integer, nor any ID format idmint reads ({chars} characters)"
                ),
            ))
        }
    };
    decode_as(text, candidate, layout).map_err(|e| match e {
        // Said as "not a valid X", with the other formats named too: the text was only X by
        // its length.
        Error::InvalidId { reason, .. } => unrecognised(text, &reason),
        other => other,
    })
}

/// Take `text` apart as `format`, without guessing: for text [`decode`] would read otherwise
/// (a TSID of digits only reads as a decimal there).
///
/// ```
/// use idmint_core::formats::{decode_as, Format};
/// let d = decode_as("0123456789012", Format::Tsid, None)?;
/// assert_eq!(d.format, Format::Tsid);
/// let err = decode_as("0123456789012", Format::Ulid, None).unwrap_err();
/// assert!(err.to_string().contains("not a valid ULID"));
/// assert_eq!(decode_as("1", Format::Snowflake, None).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn decode_as(text: &str, format: Format, layout: Option<&Layout>) -> Result<Decoded> {
    match format {
        Format::Snowflake => {
            let layout = layout.ok_or_else(|| Error::InvalidArgument {
                name: "layout".into(),
                value: "none".into(),
                expected: "a layout (a preset name or a spec) to read a snowflake with".into(),
            })?;
            snowflake(layout, layout.parse_id(text)?)
        }
        Format::Integer => Ok(integer(parse_u64(text)?)),
        Format::ObjectId => Ok(object_id(&ObjectId::parse_str(text)?)),
        Format::Uuid => uuid(text),
        Format::Ulid => ulid(text),
        Format::Ksuid => ksuid(text),
        Format::Xid => xid(text),
        Format::Tsid => tsid(text),
        Format::TypeId => typeid(text),
    }
}

/// What each preset (the [`PRESETS`], then the [`UNSIGNED_PRESETS`]) makes of a 64-bit
/// integer, for the presets that can hold it: the readings to choose from when nobody said
/// which layout an ID has. Their times tell most apart (one of them lands near now).
///
/// ```
/// let readings = idmint_core::formats::guess(175928847299117063);
/// let discord = readings.iter().find(|d| d.layout.as_deref() == Some("discord")).unwrap();
/// assert_eq!(discord.time.as_deref(), Some("2016-04-30T11:18:25.796Z"));
/// assert!(readings.iter().all(|d| d.format.name() == "snowflake"));
/// assert_eq!(idmint_core::formats::guess(1 << 63).len(), 4); // only the 64-bit presets
/// ```
pub fn guess(id: u64) -> Vec<Decoded> {
    PRESETS
        .iter()
        .chain(UNSIGNED_PRESETS)
        .filter_map(|name| {
            let layout = Layout::preset(name).ok()?;
            snowflake(&layout, id).ok()
        })
        .collect()
}

fn snowflake(layout: &Layout, id: u64) -> Result<Decoded> {
    let parts = layout.decompose(id)?;
    let mut d = Decoded::new(Format::Snowflake, id.to_string());
    d.value = Some(id);
    // Layouts end by the year 9999, so the time fits an i64 and RFC 3339.
    d.at_ms(parts.time_ms as i64);
    for (name, value) in &parts.nodes {
        d.int(name, *value);
    }
    d.int("sequence", parts.sequence);
    d.layout = Some(
        layout
            .preset_name()
            .map_or_else(|| layout.spec(), str::to_string),
    );
    Ok(d)
}

fn integer(id: u64) -> Decoded {
    let mut d = Decoded::new(Format::Integer, id.to_string());
    d.value = Some(id);
    d.int("bits", u64::from(64 - id.leading_zeros()));
    if id > i64::MAX as u64 {
        // What the same 64 bits read as in a Java `long` or SQL `BIGINT`.
        d.text("as_signed", (id as i64).to_string());
    }
    d
}

fn object_id(oid: &ObjectId) -> Decoded {
    let mut d = Decoded::new(Format::ObjectId, oid.to_hex());
    d.at_s(u64::from(oid.timestamp()));
    d.int("time_s", u64::from(oid.timestamp()));
    d.text("random", hex::encode(oid.random()));
    d.int("counter", u64::from(oid.counter()));
    d
}

/// 100-ns intervals from the Gregorian reform (1582-10-15) to the Unix epoch: where UUIDv1
/// and v6 count from (RFC 9562, section 5.1).
const GREGORIAN_OFFSET: i64 = 0x01B2_1DD2_1381_4000;

fn uuid(text: &str) -> Result<Decoded> {
    let bare = text
        .strip_prefix("urn:uuid:")
        .or_else(|| text.strip_prefix('{').and_then(|t| t.strip_suffix('}')))
        .unwrap_or(text);
    let hex_digits: String = match bare.len() {
        36 => {
            for (i, b) in bare.bytes().enumerate() {
                let hyphen = matches!(i, 8 | 13 | 18 | 23);
                if hyphen != (b == b'-') {
                    return Err(not_valid(
                        text,
                        Format::Uuid,
                        format!(
                            "expected {} at position {i}",
                            if hyphen { "a hyphen" } else { "a hex digit" }
                        ),
                    ));
                }
            }
            bare.chars().filter(|c| *c != '-').collect()
        }
        32 if bare.len() == text.len() => bare.to_string(),
        _ => return Err(not_valid(text, Format::Uuid, "wrong length")),
    };
    let value = parse_hex_u128(&hex_digits).map_err(|why| not_valid(text, Format::Uuid, why))?;
    let mut d = Decoded::new(Format::Uuid, crate::uuid7::uuid_text(value));
    let version = ((value >> 76) & 0xF) as u64;
    let variant = match (value >> 61) & 0b111 {
        0..=3 => "ncs",
        4 | 5 => "rfc9562",
        6 => "microsoft",
        _ => "future",
    };
    d.int("version", version);
    d.text("variant", variant);
    if value == 0 || value == u128::MAX {
        d.text("special", if value == 0 { "nil" } else { "max" });
        return Ok(d);
    }
    if variant != "rfc9562" {
        // Other variants lay their bits out in ways RFC 9562 does not define.
        return Ok(d);
    }
    match version {
        1 | 6 => {
            // The 60-bit count sits in three pieces: 32 bits, 16 bits, then 12 bits beside the
            // version.
            let (first, second, third) =
                (value >> 96, (value >> 80) & 0xFFFF, (value >> 64) & 0xFFF);
            let ticks = if version == 1 {
                // time_low | time_mid | time_high: the most significant bits come last.
                (third << 48) | (second << 32) | first
            } else {
                // time_high | time_mid | time_low: in order, so that v6 sorts by time.
                (first << 28) | (second << 12) | third
            } as i64;
            let unix_100ns = ticks - GREGORIAN_OFFSET;
            d.time_ms = Some(unix_100ns.div_euclid(10_000));
            d.time = rfc3339_ms(unix_100ns.div_euclid(10_000)).map(|t| {
                // Four more digits of the 100-ns count before the `Z`.
                format!("{}{:04}Z", &t[..t.len() - 1], unix_100ns.rem_euclid(10_000))
            });
            d.int("timestamp", ticks as u64);
            d.int("clock_seq", ((value >> 48) & 0x3FFF) as u64);
            d.text("node", format!("{:012x}", value & 0xFFFF_FFFF_FFFF));
        }
        7 => {
            let ms = (value >> 80) as u64;
            d.at_ms(ms as i64);
            d.int("unix_ts_ms", ms);
            d.int("rand_a", ((value >> 64) & 0xFFF) as u64);
            d.text("rand_b", format!("{:016x}", value & ((1 << 62) - 1)));
        }
        3 => d.text("hash", "md5"),
        5 => d.text("hash", "sha1"),
        _ => {}
    }
    Ok(d)
}

/// A TypeID: its prefix, its UUID and that UUID's parts (the time of a UUIDv7).
fn typeid(text: &str) -> Result<Decoded> {
    let t = crate::typeid::TypeId::parse(text)?;
    let inner = uuid(&t.uuid())?;
    let mut d = Decoded::new(Format::TypeId, t.to_string());
    d.text("prefix", t.prefix());
    d.text("uuid", t.uuid());
    d.time_ms = inner.time_ms;
    d.time = inner.time;
    d.parts.extend(inner.parts);
    Ok(d)
}

fn parse_hex_u128(hex_digits: &str) -> Result<u128, String> {
    let mut value = 0u128;
    for c in hex_digits.chars() {
        let digit = c
            .to_digit(16)
            .ok_or_else(|| format!("{} is not a hex digit", quoted_char(c)))?;
        value = (value << 4) | u128::from(digit);
    }
    Ok(value)
}

fn ulid(text: &str) -> Result<Decoded> {
    let value = crockford128_decode(text).map_err(|why| not_valid(text, Format::Ulid, why))?;
    let canonical = String::from_utf8_lossy(&crockford128_encode(value)).into_owned();
    let mut d = Decoded::new(Format::Ulid, canonical);
    let ms = (value >> 80) as u64;
    d.at_ms(ms as i64);
    d.int("timestamp", ms);
    d.text("random", format!("{:020x}", value & ((1 << 80) - 1)));
    Ok(d)
}

/// The value of `c`, character `i` of `text`, in `alphabet` (the format's digits, in order).
fn digit(text: &str, format: Format, alphabet: &[u8], i: usize, c: char) -> Result<u8> {
    u8::try_from(c)
        .ok()
        .and_then(|b| alphabet.iter().position(|a| *a == b))
        .map(|d| d as u8)
        .ok_or_else(|| {
            not_valid(
                text,
                format,
                format!(
                    "character {} at position {i} is not one of its digits ({})",
                    quoted_char(c),
                    format.shape()
                ),
            )
        })
}

/// KSUID's epoch: its timestamps count seconds from 2014-05-13T16:53:20Z.
const KSUID_EPOCH_S: u64 = 1_400_000_000;

fn ksuid(text: &str) -> Result<Decoded> {
    if text.len() != 27 {
        return Err(not_valid(text, Format::Ksuid, "wrong length"));
    }
    // 27 base62 digits into 20 big-endian bytes: multiply the bytes by 62 and add, digit by
    // digit; a carry out of the top byte is a value past 2^160-1.
    let mut bytes = [0u8; 20];
    for (i, c) in text.chars().enumerate() {
        let mut carry = u32::from(digit(text, Format::Ksuid, BASE62_ALPHABET, i, c)?);
        for b in bytes.iter_mut().rev() {
            let x = u32::from(*b) * 62 + carry;
            *b = x as u8;
            carry = x >> 8;
        }
        if carry != 0 {
            return Err(not_valid(
                text,
                Format::Ksuid,
                "above the largest KSUID, aWgEPTl1tmebfsQzFP4bxwgy80V",
            ));
        }
    }
    let timestamp = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let mut d = Decoded::new(Format::Ksuid, text.to_string());
    d.at_s(KSUID_EPOCH_S + u64::from(timestamp));
    d.int("timestamp", u64::from(timestamp));
    d.text("payload", hex::encode(&bytes[4..]));
    Ok(d)
}

/// xid's alphabet: base32hex (RFC 4648), lower case.
const XID_ALPHABET: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";

fn xid(text: &str) -> Result<Decoded> {
    if text.len() != 20 {
        return Err(not_valid(text, Format::Xid, "wrong length"));
    }
    let mut value = 0u128;
    for (i, c) in text.chars().enumerate() {
        value = (value << 5) | u128::from(digit(text, Format::Xid, XID_ALPHABET, i, c)?);
    }
    // 20 characters carry 100 bits for 96: the last character's low 4 bits are padding, 0 in
    // every xid (rs/xid refuses others, so one ID has one text).
    if value & 0xF != 0 {
        return Err(not_valid(
            text,
            Format::Xid,
            "its last character carries bits past the 12 bytes (an xid ends in 0 or g)",
        ));
    }
    let bytes = (value >> 4).to_be_bytes(); // 16 bytes, the xid in the last 12
    let id = &bytes[4..];
    let seconds = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
    let mut d = Decoded::new(Format::Xid, text.to_string());
    d.at_s(u64::from(seconds));
    d.int("time_s", u64::from(seconds));
    d.text("machine", hex::encode(&id[4..7]));
    d.int("pid", u64::from(u16::from_be_bytes([id[7], id[8]])));
    d.int(
        "counter",
        u64::from(u32::from_be_bytes([0, id[9], id[10], id[11]])),
    );
    Ok(d)
}

/// TSID's epoch, 2020-01-01T00:00:00Z, in unix milliseconds.
const TSID_EPOCH_MS: u64 = 1_577_836_800_000;

fn tsid(text: &str) -> Result<Decoded> {
    let value = Encoding::Base32Fixed.decode(text).map_err(|e| match e {
        Error::InvalidEncoding { reason, .. } => not_valid(text, Format::Tsid, reason),
        other => other,
    })?;
    let mut d = Decoded::new(Format::Tsid, Encoding::Base32Fixed.encode(value));
    d.value = Some(value);
    // 42 bits of milliseconds end in 2159: always an i64 and a four-digit year.
    // tsid-creator's getTime(): milliseconds from its epoch.
    let timestamp = value >> 22;
    d.at_ms((TSID_EPOCH_MS + timestamp) as i64);
    d.int("timestamp", timestamp);
    // Node and counter share these bits as each generator was configured (10 + 12 by
    // default: the `tsid` layout preset reads them so); only the whole is certain.
    d.int("random", value & 0x3F_FFFF);
    Ok(d)
}

/// Milliseconds in 400 Gregorian years: the calendar repeats after them exactly.
const CYCLE_MS: i64 = 146_097 * 86_400_000;

/// Unix milliseconds of any sign as RFC 3339 with milliseconds, for years 1..=9999; `None`
/// outside them.
fn rfc3339_ms(ms: i64) -> Option<String> {
    if ms > MAX_TIME_MS as i64 {
        return None;
    }
    if ms >= 0 {
        return Some(format_time_ms(ms as u64));
    }
    // Before 1970 (a UUIDv1 may be, back to 1582): move forward by whole 400-year cycles,
    // where every date falls on the same day of the year, format, then take the years back.
    let cycles = (-ms).div_euclid(CYCLE_MS) + 1;
    let shifted = format_time_ms((ms + cycles * CYCLE_MS) as u64);
    let year: i64 = shifted[..4].parse().ok()?;
    let year = year - 400 * cycles;
    (year >= 1).then(|| format!("{year:04}{}", &shifted[4..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_before_1970_use_the_400_year_cycle() {
        assert_eq!(rfc3339_ms(-1).as_deref(), Some("1969-12-31T23:59:59.999Z"));
        assert_eq!(
            rfc3339_ms(-12_219_292_800_000).as_deref(),
            Some("1582-10-15T00:00:00.000Z")
        );
        assert_eq!(
            rfc3339_ms(-62_135_596_800_000).as_deref(),
            Some("0001-01-01T00:00:00.000Z")
        );
        assert_eq!(rfc3339_ms(-62_135_596_800_001), None);
        assert_eq!(rfc3339_ms(MAX_TIME_MS as i64 + 1), None);
    }

    #[test]
    fn the_gregorian_epoch_is_a_uuidv1_of_time_zero() {
        let d = decode("00000000-0000-1000-8000-000000000000", None).unwrap();
        assert_eq!(d.time.as_deref(), Some("1582-10-15T00:00:00.0000000Z"));
        assert_eq!(d.time_ms, Some(-12_219_292_800_000));
    }

    #[test]
    fn a_tsid_whose_canonical_text_is_digits_reads_back_as_named() {
        // Found by the parse_id fuzz target: `I` reads as 1, so the canonical text is digits.
        let d = decode("000050I700004", None).unwrap();
        assert_eq!((d.format, d.id.as_str()), (Format::Tsid, "0000501700004"));
        assert_eq!(decode_as(&d.id, Format::Tsid, None).unwrap(), d);
        assert_eq!(decode(&d.id, None).unwrap().format, Format::Integer);
    }

    #[test]
    fn every_format_has_a_distinct_name() {
        let names: std::collections::HashSet<_> = Format::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), Format::ALL.len());
    }

    #[test]
    fn no_text_panics() {
        for text in [
            "",
            "-",
            "--1",
            "é",
            "{}",
            "urn:uuid:",
            "{00000000-0000-0000-0000-00000000000}",
            "zzzzzzzzzzzzzzzzzzzzzzzzzzz",
            "ÿÿÿÿÿÿÿÿÿÿÿÿÿ",
            "0000000000000000000é",
            "00000000-0000-0000-0000-0000000000é0",
            "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
            "GZZZZZZZZZZZZ",
            "99999999999999999999",
            "18446744073709551616",
        ] {
            let _ = decode(text, None);
            let _ = decode(text, Some(&Layout::preset("discord").unwrap()));
            for f in Format::ALL {
                let _ = decode_as(text, f, None);
            }
        }
    }
}

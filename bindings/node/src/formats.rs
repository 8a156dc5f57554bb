//! Display IDs (docs/formats.md): short strings, keyed obfuscation, UUIDv7/ULID, order-number
//! templates and daily order numbers. Conversion only, as the rest of the crate.
//!
//! IDs arrive as `u64` bigints: `index.js` range-checks every bigint, decimal string and number to
//! `0..=2^64-1` before it crosses (narrower domains, such as obfuscation's `2^63-1`, are the
//! core's to check). Times arrive as the core's text form (unix ms digits or RFC 3339) and are
//! read by [`idmint_core::parse_time_ms`], as every other time option of the package.

use std::sync::{Arc, OnceLock};

use idmint_core::obfuscate::MAX_KEY_VERSION;
use idmint_core::{
    DailyCounter, Encoding, Error, Key, Keyring, MonotonicClock, OrderNumbers, Template, Uuid7,
    Uuid7Generator,
};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;

use crate::{invalid_argument, js_err, wide, NativeLayout, Result, U64Arg};

/// A `u64` argument that `index.js` has range-checked; `lossless` false only on an internal misuse.
fn u64_arg(name: &str, v: &U64Arg) -> Result<u64> {
    if v.lossless {
        Ok(v.value)
    } else {
        Err(invalid_argument(
            name,
            "a bigint outside 0..2^64".into(),
            "0..=18446744073709551615 (internal API: index.js checks the range)",
        ))
    }
}

fn encoding(name: &str) -> Result<Encoding> {
    name.parse::<Encoding>().map_err(js_err)
}

/// `value` in the short-string encoding named `encoding` (`base62`, `base62-fixed`, `base32`,
/// `base32-fixed`).
#[napi(catch_unwind)]
pub fn encode_id(value: U64Arg, encoding_name: String) -> Result<String> {
    let e = encoding(&encoding_name)?;
    Ok(e.encode(u64_arg("id", &value)?))
}

/// The value (bigint) of `text` in the encoding named `encoding`, read strictly.
#[napi(catch_unwind)]
pub fn decode_id(text: String, encoding_name: String) -> Result<u64> {
    encoding(&encoding_name)?.decode(&text).map_err(js_err)
}

/// A key version given as a JS integer; one that does not fit the core's `u8` is reported as the
/// core reports a version outside 0..=61.
fn key_version(v: &BigInt) -> Result<u8> {
    let w = wide("version", v)?;
    u8::try_from(w).map_err(|_| {
        js_err(Error::InvalidKey {
            key: format!("v{w}"),
            reason: format!("versions are 0..={MAX_KEY_VERSION} (one base62 character)"),
        })
    })
}

/// A new key of `version` from the OS random source, in its text form (it holds the secret).
#[napi(catch_unwind)]
pub fn key_generate(version: BigInt) -> Result<String> {
    Key::generate(key_version(&version)?)
        .map(|k| k.to_text())
        .map_err(js_err)
}

/// A key ring read from key-file text: the highest version obfuscates, every version reveals.
#[napi]
pub struct NativeKeyring {
    ring: Keyring,
}

#[napi]
impl NativeKeyring {
    /// Read key-file text: one key a line, `#` comments and blank lines skipped.
    #[napi(constructor, catch_unwind)]
    pub fn new(text: String) -> Result<Self> {
        Keyring::parse(&text)
            .map(|ring| NativeKeyring { ring })
            .map_err(js_err)
    }

    /// The versions held, ascending (the last one obfuscates).
    #[napi(catch_unwind)]
    pub fn versions(&self) -> Vec<u32> {
        self.ring.versions().into_iter().map(u32::from).collect()
    }

    /// Obfuscate with the active key.
    #[napi(catch_unwind)]
    pub fn obfuscate(&self, id: U64Arg) -> Result<u64> {
        self.ring.obfuscate(u64_arg("id", &id)?).map_err(js_err)
    }

    /// Reveal a plain output made with key `version` (the active key's when not given).
    #[napi(catch_unwind)]
    pub fn reveal(&self, shown: U64Arg, version: Option<BigInt>) -> Result<u64> {
        let version = match version {
            Some(v) => key_version(&v)?,
            None => self.ring.active().version(),
        };
        self.ring
            .reveal(version, u64_arg("id", &shown)?)
            .map_err(js_err)
    }

    /// Obfuscate with the active key into the 12-character tagged form.
    #[napi(catch_unwind)]
    pub fn obfuscate_tagged(&self, id: U64Arg) -> Result<String> {
        self.ring
            .obfuscate_tagged(u64_arg("id", &id)?)
            .map_err(js_err)
    }

    /// Reveal the tagged form with the key it names.
    #[napi(catch_unwind)]
    pub fn reveal_tagged(&self, text: String) -> Result<u64> {
        self.ring.reveal_tagged(&text).map_err(js_err)
    }
}

/// The fields of a UUIDv7, for `index.js` (which adds the `Date`).
#[napi(object, object_from_js = false)]
pub struct Uuid7Info {
    /// Lowercase, hyphenated.
    pub uuid: String,
    /// The 26-character ULID text, upper case.
    pub ulid: String,
    /// Unix ms (below 2^48: exact as a number).
    pub timestamp_ms: f64,
    /// The 12 bits after the version (the counter, for UUIDs of a generator).
    pub rand_a: u32,
    /// The 62 bits after the variant (a bigint).
    pub rand_b: u64,
}

fn uuid_info(u: Uuid7) -> Uuid7Info {
    Uuid7Info {
        uuid: u.to_string(),
        ulid: u.to_ulid(),
        timestamp_ms: u.time_ms() as f64,
        rand_a: u.rand_a().into(),
        rand_b: u.rand_b(),
    }
}

/// Read a UUIDv7 (hyphenated or 32 hex digits, either case).
#[napi(catch_unwind)]
pub fn uuid7_parse(text: String) -> Result<Uuid7Info> {
    Uuid7::parse_str(&text).map(uuid_info).map_err(js_err)
}

/// Read the 26-character ULID text of a UUIDv7.
#[napi(catch_unwind)]
pub fn ulid_parse(text: String) -> Result<Uuid7Info> {
    Uuid7::parse_ulid(&text).map(uuid_info).map_err(js_err)
}

/// The process-wide generator of `uuid7()`: one per process, shared by every worker thread (the
/// addon is loaded once per process), so its UUIDs increase across all of them.
fn uuid7_generator() -> &'static Uuid7Generator {
    static GEN: OnceLock<Uuid7Generator> = OnceLock::new();
    GEN.get_or_init(Uuid7Generator::new)
}

fn uuid_text(u: Uuid7, ulid: bool) -> String {
    if ulid {
        u.to_ulid()
    } else {
        u.to_string()
    }
}

/// A new UUIDv7 from the process-wide generator, lowercase and hyphenated (the ULID text when
/// `ulid`).
#[napi(catch_unwind)]
pub fn uuid7_next(ulid: bool) -> Result<String> {
    uuid7_generator()
        .next_uuid()
        .map(|u| uuid_text(u, ulid))
        .map_err(js_err)
}

/// A UUIDv7 generator of its own (RFC 9562 §6.2 method 1: strictly increasing).
#[napi]
pub struct NativeUuid7Generator {
    inner: Uuid7Generator,
}

#[napi]
impl NativeUuid7Generator {
    /// A generator that has issued nothing, on the default clock.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeUuid7Generator {
            inner: Uuid7Generator::new(),
        }
    }

    /// The next UUID, hyphenated lowercase; as its ULID text when `ulid`.
    #[napi(catch_unwind)]
    pub fn next(&self, ulid: bool) -> Result<String> {
        self.inner
            .next_uuid()
            .map(|u| uuid_text(u, ulid))
            .map_err(js_err)
    }
}

/// A time given as text by `index.js` (unix ms digits or RFC 3339), read as the core reads times.
fn time_arg(what: &str, text: &str) -> Result<u64> {
    idmint_core::parse_time_ms(what, text).map_err(js_err)
}

/// What [`Template::parse`] read; a part the template does not have is absent.
#[napi(object, object_from_js = false)]
pub struct TemplatePartsInfo {
    /// The year.
    pub year: Option<i32>,
    /// The month, 1-12.
    pub month: Option<u32>,
    /// The day of the month.
    pub day: Option<u32>,
    /// The hour.
    pub hour: Option<u32>,
    /// The minute.
    pub minute: Option<u32>,
    /// The second.
    pub second: Option<u32>,
    /// The label as it appears.
    pub label: Option<String>,
    /// The sequence (a bigint; `index.js` gives a number for widths up to 15 digits).
    pub sequence: u64,
    /// The check digits, verified.
    pub check: Option<String>,
}

/// An order-number template with its label, UTC offset and check digits.
#[napi]
pub struct NativeTemplate {
    t: Template,
}

#[napi]
impl NativeTemplate {
    /// Read `pattern`; `offset` is the core's text form (`Z`, `+08:00`, ...), `check` is `none`,
    /// `luhn` or `mod97`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        pattern: String,
        label: Option<String>,
        offset: Option<String>,
        check: Option<String>,
    ) -> Result<Self> {
        let mut t = Template::new(&pattern).map_err(js_err)?;
        if let Some(o) = offset {
            t = t.offset(&o).map_err(js_err)?;
        }
        if let Some(c) = check {
            t = t.check_digit(c.parse().map_err(js_err)?);
        }
        if let Some(l) = label {
            t = t.label(&l).map_err(js_err)?;
        }
        Ok(NativeTemplate { t })
    }

    /// The order number for `time` (unix ms digits or RFC 3339) and `sequence`.
    #[napi(catch_unwind)]
    pub fn format(&self, time: String, sequence: BigInt) -> Result<String> {
        let time_ms = time_arg("time", &time)?;
        let s = wide("sequence", &sequence)?;
        // What does not fit a u64 is out of range as the core reports a sequence above the width.
        let s = u64::try_from(s).map_err(|_| {
            js_err(Error::ValueOutOfRange {
                field: "sequence".into(),
                value: s,
                max: self.t.capacity(),
            })
        })?;
        self.t.format(time_ms, s).map_err(js_err)
    }

    /// A snowflake ID of `layout` as the sequence, with its own time as the date parts.
    #[napi(catch_unwind)]
    pub fn format_snowflake(&self, layout: &NativeLayout, id: U64Arg) -> Result<String> {
        self.t
            .format_snowflake(&layout.inner, u64_arg("id", &id)?)
            .map_err(js_err)
    }

    /// The parts of an order number, check digits verified.
    #[napi(catch_unwind)]
    pub fn parse(&self, text: String) -> Result<TemplatePartsInfo> {
        let p = self.t.parse(&text).map_err(js_err)?;
        Ok(TemplatePartsInfo {
            year: p.year,
            month: p.month.map(u32::from),
            day: p.day.map(u32::from),
            hour: p.hour.map(u32::from),
            minute: p.minute.map(u32::from),
            second: p.second.map(u32::from),
            label: p.label,
            sequence: p.sequence,
            check: p.check,
        })
    }

    /// `yyyymmdd` of `time` in the template's offset: the key of its daily counter.
    #[napi(catch_unwind)]
    pub fn day_of(&self, time: String) -> Result<u32> {
        self.t.day_of(time_arg("time", &time)?).map_err(js_err)
    }

    /// The template as given.
    #[napi(getter, catch_unwind)]
    pub fn pattern(&self) -> String {
        self.t.pattern().to_string()
    }

    /// The UTC offset of the date parts, in seconds.
    #[napi(getter, catch_unwind)]
    pub fn offset_seconds(&self) -> i32 {
        self.t.offset_s()
    }

    /// The check digits' name.
    #[napi(getter, catch_unwind)]
    pub fn check(&self) -> String {
        self.t.check().name().to_string()
    }

    /// The sequence's width in digits.
    #[napi(getter, catch_unwind)]
    pub fn sequence_width(&self) -> u32 {
        self.t.sequence_width()
    }

    /// The largest sequence that fits (a bigint).
    #[napi(getter, catch_unwind)]
    pub fn capacity(&self) -> u64 {
        self.t.capacity()
    }
}

/// Daily order numbers: a template and a daily counter, in memory or shared by URL, as
/// [`idmint_core::CounterArgs`] opens it.
#[napi]
pub struct NativeOrderNumbers {
    inner: Arc<OrderNumbers<Arc<dyn DailyCounter>, MonotonicClock>>,
    /// A shared counter's URL: its numbers come from the store, which `next()` would wait on
    /// on the JS thread; `nextAsync()` waits elsewhere. (A build without stores opens none.)
    #[cfg(feature = "stores")]
    shared: Option<String>,
}

#[napi]
impl NativeOrderNumbers {
    /// Order numbers of `template`; with `day` (`yyyymmdd`) and `first`, the counter's next value
    /// on that day is `first` (resuming after a restart). With `counter` (a URL), the shared
    /// counter `name` (default `orders`) with `step`; `day`/`first` are then refused.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        template: &NativeTemplate,
        day: Option<BigInt>,
        first: Option<BigInt>,
        counter: Option<String>,
        name: Option<String>,
        step: Option<BigInt>,
    ) -> Result<Self> {
        #[cfg(feature = "stores")]
        let shared = counter.clone();
        let step = step.map(|s| wide("step", &s)).transpose()?;
        let start = match (day, first) {
            (Some(day), Some(first)) => Some((wide("day", &day)?, wide("first", &first)?)),
            _ => None,
        };
        let counter = idmint_core::CounterArgs {
            url: counter,
            name,
            step,
            start,
            memory: None,
        }
        .open()
        .map_err(js_err)?;
        OrderNumbers::new(template.t.clone(), counter, MonotonicClock::new())
            .map(|inner| NativeOrderNumbers {
                inner: Arc::new(inner),
                #[cfg(feature = "stores")]
                shared,
            })
            .map_err(js_err)
    }

    /// The next order number, now or at `time` (unix ms digits or RFC 3339).
    #[napi(catch_unwind)]
    pub fn next(&self, time: Option<String>) -> Result<String> {
        #[cfg(feature = "stores")]
        if let Some(url) = &self.shared {
            return Err(invalid_argument(
                "next()",
                format!("a shared counter ({})", idmint_core::segment::describe_url(url)),
                "await nextAsync(): a shared counter's numbers come from its store, and next() never waits on one",
            ));
        }
        let time = time.map(|t| time_arg("time", &t)).transpose()?;
        next_number(&self.inner, time).map_err(js_err)
    }

    /// A Promise of the next order number, from a blocking thread (a shared counter waits on
    /// its store there, never on the JS thread).
    #[napi(catch_unwind)]
    pub fn next_async(&self, env: &napi::Env, time: Option<String>) -> Result<crate::RawValue> {
        let time = time.map(|t| time_arg("time", &t)).transpose()?;
        let inner = Arc::clone(&self.inner);
        crate::settle::blocking(env, move || next_number(&inner, time))
    }
}

fn next_number(
    o: &OrderNumbers<Arc<dyn DailyCounter>, MonotonicClock>,
    time_ms: Option<u64>,
) -> idmint_core::Result<String> {
    match time_ms {
        Some(t) => o.next_at(t),
        None => o.next(),
    }
}

//! # idmint-wasm-extras
//!
//! The second wasm module of the browser package `idmint-web`: the display IDs of
//! `docs/formats.md` (short strings, keyed obfuscation, UUIDv7/ULID, order-number templates),
//! glue of [`idmint_core`] holding conversion only. The main module (`bindings/wasm`: snowflakes,
//! ObjectIds, parse) stays small for the pages that need only those; a page loads this one with
//! `init({ extras: true })` or `initExtras()` (`web/index.js`), and the JS API is the same either
//! way. The two modules share no memory: a snowflake layout comes here as its spec text.
//!
//! As in the main module: time is `Date.now()`, randomness `crypto.getRandomValues`, errors are
//! JS `Error`s carrying the core's [`Error::kind`]; order numbers count with the core's
//! in-memory daily counter, per page, at `Date.now()` unless `index.js` pins a time for one
//! call (`OrderNumbers.next(time)`).

#![deny(missing_docs)]

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use idmint_core::obfuscate::MAX_KEY_VERSION;
use idmint_core::{
    Clock, Encoding, Error, Key, Keyring, Layout, MemoryDailyCounter, OrderNumbers, Template,
    Uuid7, Uuid7Generator,
};
use wasm_bindgen::prelude::*;

#[path = "../../wasm/src/convert.rs"]
mod convert;
use convert::{to_js, wide};

/// Unix time from `Date.now()`; waits by spinning on it (a page cannot block). A UUIDv7
/// generator only waits when its 74 bits of a millisecond run out.
#[derive(Debug, Clone, Copy, Default)]
pub struct DateClock;

impl Clock for DateClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn sleep_until_ms(&self, target_ms: u64) {
        while self.now_ms() < target_ms {
            std::hint::spin_loop();
        }
    }
}

// IDs arrive as u64: `index.js` range-checks every bigint to 0..=2^64-1 before it crosses.

fn encoding(name: &str) -> Result<Encoding, JsValue> {
    name.parse::<Encoding>().map_err(to_js)
}

/// `value` in the short-string encoding named `encoding` (`base62`, `base62-fixed`, `base32`,
/// `base32-fixed`).
#[wasm_bindgen(js_name = encodeId)]
pub fn encode_id(value: u64, encoding_name: &str) -> Result<String, JsValue> {
    Ok(encoding(encoding_name)?.encode(value))
}

/// The value of `text` in the encoding named `encoding`, read strictly.
#[wasm_bindgen(js_name = decodeId)]
pub fn decode_id(text: &str, encoding_name: &str) -> Result<u64, JsValue> {
    encoding(encoding_name)?.decode(text).map_err(to_js)
}

/// A key version given as a JS integer. One that does not fit the core's `u8` is reported as the
/// core reports a version outside 0..=61.
fn key_version(v: &JsValue) -> Result<u8, JsValue> {
    let w = wide(v, "version")?;
    u8::try_from(w).map_err(|_| {
        to_js(Error::InvalidKey {
            key: format!("v{w}"),
            reason: format!("versions are 0..={MAX_KEY_VERSION} (one base62 character)"),
        })
    })
}

/// A new key of `version` from `crypto.getRandomValues`, in its text form (it holds the secret).
#[wasm_bindgen(js_name = keyGenerate)]
pub fn key_generate(version: JsValue) -> Result<String, JsValue> {
    Key::generate(key_version(&version)?)
        .map(|k| k.to_text())
        .map_err(to_js)
}

/// A key ring read from key-file text: the highest version obfuscates, every version reveals.
#[wasm_bindgen]
pub struct WasmKeyring {
    ring: Keyring,
}

#[wasm_bindgen]
impl WasmKeyring {
    /// Read key-file text: one key a line, `#` comments and blank lines skipped.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str) -> Result<WasmKeyring, JsValue> {
        Keyring::parse(text)
            .map(|ring| WasmKeyring { ring })
            .map_err(to_js)
    }

    /// The versions held, ascending (the last one obfuscates).
    pub fn versions(&self) -> Vec<u8> {
        self.ring.versions()
    }

    /// Obfuscate with the active key.
    pub fn obfuscate(&self, id: u64) -> Result<u64, JsValue> {
        self.ring.obfuscate(id).map_err(to_js)
    }

    /// Reveal a plain output made with key `version` (the active key's when undefined).
    pub fn reveal(&self, shown: u64, version: JsValue) -> Result<u64, JsValue> {
        let version = if version.is_undefined() {
            self.ring.active().version()
        } else {
            key_version(&version)?
        };
        self.ring.reveal(version, shown).map_err(to_js)
    }

    /// Obfuscate with the active key into the 12-character tagged form.
    #[wasm_bindgen(js_name = obfuscateTagged)]
    pub fn obfuscate_tagged(&self, id: u64) -> Result<String, JsValue> {
        self.ring.obfuscate_tagged(id).map_err(to_js)
    }

    /// Reveal the tagged form with the key it names.
    #[wasm_bindgen(js_name = revealTagged)]
    pub fn reveal_tagged(&self, text: &str) -> Result<u64, JsValue> {
        self.ring.reveal_tagged(text).map_err(to_js)
    }
}

/// A UUID's fields for `index.js`: `[uuid, ulid, time_ms, rand_a, rand_b (bigint)]`.
fn uuid_fields(u: Uuid7) -> js_sys::Array {
    js_sys::Array::of5(
        &u.to_string().into(),
        &u.to_ulid().into(),
        &(u.time_ms() as f64).into(),
        &u.rand_a().into(),
        &u.rand_b().into(),
    )
}

/// Read a UUIDv7 (hyphenated or 32 hex digits, either case): see `uuid_fields`.
#[wasm_bindgen(js_name = uuid7Parse)]
pub fn uuid7_parse(text: &str) -> Result<js_sys::Array, JsValue> {
    Uuid7::parse_str(text).map(uuid_fields).map_err(to_js)
}

/// Read the 26-character ULID text of a UUIDv7: see `uuid_fields`.
#[wasm_bindgen(js_name = ulidParse)]
pub fn ulid_parse(text: &str) -> Result<js_sys::Array, JsValue> {
    Uuid7::parse_ulid(text).map(uuid_fields).map_err(to_js)
}

fn uuid7_generator() -> &'static Uuid7Generator<DateClock> {
    static GEN: OnceLock<Uuid7Generator<DateClock>> = OnceLock::new();
    GEN.get_or_init(|| Uuid7Generator::with_clock(DateClock))
}

/// A new UUIDv7 from the page's generator, hyphenated lowercase.
#[wasm_bindgen(js_name = uuid7Next)]
pub fn uuid7_next() -> Result<String, JsValue> {
    uuid7_generator()
        .next_uuid()
        .map(|u| u.to_string())
        .map_err(to_js)
}

/// A UUIDv7 generator of its own on [`DateClock`] (RFC 9562 §6.2 method 1: strictly increasing).
#[wasm_bindgen]
pub struct WasmUuid7Generator {
    inner: Uuid7Generator<DateClock>,
}

#[wasm_bindgen]
impl WasmUuid7Generator {
    /// A generator that has issued nothing.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> WasmUuid7Generator {
        WasmUuid7Generator {
            inner: Uuid7Generator::with_clock(DateClock),
        }
    }

    /// The next UUID, hyphenated lowercase; as its ULID text when `ulid`.
    pub fn next(&self, ulid: bool) -> Result<String, JsValue> {
        self.inner
            .next_uuid()
            .map(|u| if ulid { u.to_ulid() } else { u.to_string() })
            .map_err(to_js)
    }
}

/// A time given as text by `index.js` (unix ms digits or RFC 3339), read as the core reads times.
fn time_arg(what: &str, text: &str) -> Result<u64, JsValue> {
    idmint_core::parse_time_ms(what, text).map_err(to_js)
}

/// An order-number template with its label, UTC offset and check digits.
#[wasm_bindgen]
pub struct WasmTemplate {
    t: Template,
    layout: RefCell<Option<(String, Layout)>>,
}

#[wasm_bindgen]
impl WasmTemplate {
    /// Read `pattern`; `offset` is the core's text form (`Z`, `+08:00`, ...), `check` is `none`,
    /// `luhn` or `mod97`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        pattern: &str,
        label: Option<String>,
        offset: Option<String>,
        check: Option<String>,
    ) -> Result<WasmTemplate, JsValue> {
        let mut t = Template::new(pattern).map_err(to_js)?;
        if let Some(o) = offset {
            t = t.offset(&o).map_err(to_js)?;
        }
        if let Some(c) = check {
            t = t.check_digit(c.parse().map_err(to_js)?);
        }
        if let Some(l) = label {
            t = t.label(&l).map_err(to_js)?;
        }
        Ok(WasmTemplate {
            t,
            layout: RefCell::new(None),
        })
    }

    /// The order number for `time` (unix ms digits or RFC 3339) and `sequence` (a JS integer).
    pub fn format(&self, time: &str, sequence: JsValue) -> Result<String, JsValue> {
        let time_ms = time_arg("time", time)?;
        let s = wide(&sequence, "sequence")?;
        // What does not fit a u64 is out of range as the core reports a sequence above the width.
        let s = u64::try_from(s).map_err(|_| {
            to_js(Error::ValueOutOfRange {
                field: "sequence".into(),
                value: s,
                max: self.t.capacity(),
            })
        })?;
        self.t.format(time_ms, s).map_err(to_js)
    }

    /// A snowflake ID (0..=2^63-1, checked by the caller) of the layout whose canonical spec
    /// (epoch included) is `spec` as the sequence, with its own time as the date parts. The
    /// layout lives in the main module; the last one read here is kept for the next call.
    #[wasm_bindgen(js_name = formatSnowflake)]
    pub fn format_snowflake(&self, spec: &str, id: u64) -> Result<String, JsValue> {
        let mut last = self.layout.borrow_mut();
        let layout = match &*last {
            Some((s, l)) if s == spec => l,
            _ => {
                &last
                    .insert((spec.to_string(), Layout::parse(spec).map_err(to_js)?))
                    .1
            }
        };
        self.t.format_snowflake(layout, id).map_err(to_js)
    }

    /// The parts of an order number: `[[year, month, day, hour, minute, second] (NaN: not in
    /// the template), label | undefined, sequence (bigint), check | undefined]`.
    pub fn parse(&self, text: &str) -> Result<js_sys::Array, JsValue> {
        let p = self.t.parse(text).map_err(to_js)?;
        let n = |v: Option<u8>| v.map_or(f64::NAN, f64::from);
        let numbers = [
            p.year.map_or(f64::NAN, f64::from),
            n(p.month),
            n(p.day),
            n(p.hour),
            n(p.minute),
            n(p.second),
        ];
        Ok(js_sys::Array::of4(
            &js_sys::Float64Array::from(&numbers[..]).into(),
            &p.label.map_or(JsValue::UNDEFINED, JsValue::from),
            &p.sequence.into(),
            &p.check.map_or(JsValue::UNDEFINED, JsValue::from),
        ))
    }

    /// `yyyymmdd` of `time` in the template's offset: the key of its daily counter.
    #[wasm_bindgen(js_name = dayOf)]
    pub fn day_of(&self, time: &str) -> Result<u32, JsValue> {
        self.t.day_of(time_arg("time", time)?).map_err(to_js)
    }

    /// The template as given.
    pub fn pattern(&self) -> String {
        self.t.pattern().to_string()
    }

    /// `[offset_seconds, sequence_width]`.
    pub fn shape(&self) -> Vec<i32> {
        vec![self.t.offset_s(), self.t.sequence_width() as i32]
    }

    /// The check digits' name.
    pub fn check(&self) -> String {
        self.t.check().name().to_string()
    }

    /// The largest sequence that fits.
    pub fn capacity(&self) -> u64 {
        self.t.capacity()
    }
}

/// [`DateClock`], or a time `index.js` pinned for one call (order numbers "as of" a time).
#[derive(Debug)]
struct PinnedClock {
    pinned: AtomicU64,
}

const NOT_PINNED: u64 = u64::MAX;

impl Clock for PinnedClock {
    fn now_ms(&self) -> u64 {
        match self.pinned.load(Ordering::Relaxed) {
            NOT_PINNED => DateClock.now_ms(),
            ms => ms,
        }
    }
}

/// Daily order numbers: a template, a per-page [`MemoryDailyCounter`] and `PinnedClock`.
#[wasm_bindgen]
pub struct WasmOrderNumbers {
    inner: OrderNumbers<MemoryDailyCounter, Arc<PinnedClock>>,
    clock: Arc<PinnedClock>,
}

#[wasm_bindgen]
impl WasmOrderNumbers {
    /// Order numbers of `template`; with `day` (`yyyymmdd`) and `first`, the counter's next value
    /// on that day is `first` (resuming after a reload).
    #[wasm_bindgen(constructor)]
    pub fn new(
        template: &WasmTemplate,
        day: JsValue,
        first: JsValue,
    ) -> Result<WasmOrderNumbers, JsValue> {
        let counter = if day.is_undefined() && first.is_undefined() {
            MemoryDailyCounter::new()
        } else {
            MemoryDailyCounter::starting_at(wide(&day, "day")?, wide(&first, "first")?)
                .map_err(to_js)?
        };
        let clock = Arc::new(PinnedClock {
            pinned: AtomicU64::new(NOT_PINNED),
        });
        OrderNumbers::new(template.t.clone(), counter, clock.clone())
            .map(|inner| WasmOrderNumbers { inner, clock })
            .map_err(to_js)
    }

    /// The next order number, at `Date.now()` or at `time` (unix ms digits or RFC 3339).
    pub fn next(&self, time: Option<String>) -> Result<String, JsValue> {
        let pinned = match time {
            Some(t) => time_arg("time", &t)?,
            None => NOT_PINNED,
        };
        self.clock.pinned.store(pinned, Ordering::Relaxed);
        let out = self.inner.next();
        self.clock.pinned.store(NOT_PINNED, Ordering::Relaxed);
        out.map_err(to_js)
    }
}

/// A [`Decoded`](idmint_core::formats::Decoded) as it crosses to JS: part values as text
/// (decimal for whole numbers, which `partInts` marks), so none above 2^53 loses digits on the
/// way; `index.js` gives it the facade's shape.
#[wasm_bindgen(getter_with_clone)]
pub struct WasmDecoded {
    /// The format's name.
    pub format: String,
    /// The ID in the format's canonical text.
    pub id: String,
    /// The ID as a 64-bit integer, in decimal, for the formats that are one.
    pub value: Option<String>,
    /// Unix milliseconds of the time the ID carries (exact: at most year 10889).
    #[wasm_bindgen(js_name = timeMs)]
    pub time_ms: Option<f64>,
    /// That time as RFC 3339 at the format's precision.
    pub time: Option<String>,
    /// The layout a snowflake was read with: a preset name or a spec.
    pub layout: Option<String>,
    /// The parts' names, most significant first.
    #[wasm_bindgen(js_name = partNames)]
    pub part_names: Vec<String>,
    /// Their values, as text.
    #[wasm_bindgen(js_name = partValues)]
    pub part_values: Vec<String>,
    /// 1 where a value is a whole number, 0 where it is text.
    #[wasm_bindgen(js_name = partInts)]
    pub part_ints: Vec<u8>,
}

fn decoded(d: idmint_core::formats::Decoded) -> WasmDecoded {
    use idmint_core::formats::PartValue;
    let mut out = WasmDecoded {
        format: d.format.name().to_string(),
        id: d.id,
        value: d.value.map(|v| v.to_string()),
        time_ms: d.time_ms.map(|ms| ms as f64),
        time: d.time,
        layout: d.layout,
        part_names: Vec::with_capacity(d.parts.len()),
        part_values: Vec::with_capacity(d.parts.len()),
        part_ints: Vec::with_capacity(d.parts.len()),
    };
    for (name, value) in d.parts {
        out.part_ints.push(matches!(value, PartValue::Int(_)) as u8);
        out.part_values.push(value.to_string());
        out.part_names.push(name);
    }
    out
}

/// Recognise and take apart `text` (the core's `formats::decode`): ObjectId, UUID, ULID, KSUID,
/// xid, TSID or a decimal ID, read with `layout` (a preset name or spec) when given.
#[wasm_bindgen(js_name = decodeAny)]
pub fn decode_any(text: &str, layout: Option<String>) -> Result<WasmDecoded, JsValue> {
    let layout = match layout {
        Some(spec) => Some(Layout::parse(&spec).map_err(to_js)?),
        None => None,
    };
    idmint_core::formats::decode(text, layout.as_ref())
        .map(decoded)
        .map_err(to_js)
}

/// What each preset makes of the 64-bit integer in decimal `text` (the core's
/// `formats::guess`).
#[wasm_bindgen(js_name = guessId)]
pub fn guess_id(text: &str) -> Result<Vec<WasmDecoded>, JsValue> {
    let id = idmint_core::parse_u64(text).map_err(to_js)?;
    Ok(idmint_core::formats::guess(id)
        .into_iter()
        .map(decoded)
        .collect())
}

/// The rules of the browser's lease and segment client (`web/remote.js`): the core's
/// [`idmint_core::rules::rules_json`], one JSON object (timings, defaults, reasons).
#[wasm_bindgen(js_name = clientRules)]
pub fn client_rules() -> String {
    idmint_core::rules::rules_json()
}

/// The core's error of `kind` with its fields as text ([`idmint_core::rules::client_error`]),
/// joined by U+001F (one string crosses: less glue than an array), as a JS `Error` carrying the
/// kind: the browser's lease and segment client throw what the core says, never a text of their
/// own.
#[wasm_bindgen(js_name = clientError)]
pub fn client_error(kind: &str, fields: &str) -> JsValue {
    let fields: Vec<&str> = fields.split('\u{1f}').collect();
    to_js(idmint_core::rules::client_error(kind, &fields))
}

/// An option of the browser's lease or segment client (decimal text) as the core checks it
/// ([`idmint_core::rules::check_option`]).
#[wasm_bindgen(js_name = checkOption)]
pub fn check_option(name: &str, value: &str) -> Result<f64, JsValue> {
    idmint_core::rules::check_option(name, value)
        .map(|v| v as f64)
        .map_err(to_js)
}

// ------------------------------------------------------------------------------------------------
// The layout planner, the migration check and TypeIDs: plain objects in the shapes of the Node
// addon's (`facade.js` builds the public results from either).

/// Sets `key` of `obj`; setting a property of a plain object does not fail.
fn set(obj: &js_sys::Object, key: &str, value: JsValue) {
    let _ = js_sys::Reflect::set(obj, &key.into(), &value);
}

fn opt_ms(ms: Option<u64>) -> JsValue {
    ms.map_or(JsValue::NULL, |ms| (ms as f64).into())
}

/// The whole-number text `facade.js` sends, for the core's range check (a value beyond `u64`
/// as `u64::MAX`, which the core refuses naming the range).
fn whole(text: &str) -> u64 {
    text.parse::<u64>().unwrap_or(u64::MAX)
}

/// The layouts that meet a need, finest tick first (`idmint_core::plan::plan`).
#[wasm_bindgen(js_name = planLayouts)]
pub fn plan_layouts(
    nodes: &str,
    rate: &str,
    years: &str,
    start: Option<String>,
    width: Option<String>,
) -> Result<js_sys::Array, JsValue> {
    use idmint_core::plan::{parse_rate, plan, Need, Width};
    let start = start
        .map(|s| idmint_core::parse_time_ms("start", &s))
        .transpose()
        .map_err(to_js)?;
    let mut need = Need::new(whole(nodes), parse_rate(rate).map_err(to_js)?, whole(years))
        .map_err(to_js)?
        .start_or_today(start, DateClock.now_ms());
    if let Some(w) = width {
        need = need.width(w.parse::<Width>().map_err(to_js)?);
    }
    let out = js_sys::Array::new();
    for p in plan(&need).map_err(to_js)? {
        let o = js_sys::Object::new();
        set(&o, "spec", p.spec.into());
        set(&o, "tickMs", (p.tick_ms as f64).into());
        set(&o, "timeBits", p.time_bits.into());
        set(&o, "nodeBits", p.node_bits.into());
        set(&o, "sequenceBits", p.sequence_bits.into());
        set(&o, "nodes", (p.nodes as f64).into());
        set(
            &o,
            "capPerSecond",
            js_sys::BigInt::from(p.cap_per_second).into(),
        );
        set(&o, "endMs", (p.end_ms as f64).into());
        set(&o, "end", p.end.into());
        set(&o, "beyond253Ms", opt_ms(p.beyond_2_53_ms));
        out.push(&o);
    }
    Ok(out)
}

/// Whether switching from layout `from` to `to` at `at` (default now) keeps every new ID above
/// `above` (`idmint_core::plan::check_migration`).
#[wasm_bindgen(js_name = checkMigration)]
pub fn check_migration(
    from: &str,
    to: &str,
    above: Option<String>,
    at: Option<String>,
) -> Result<js_sys::Object, JsValue> {
    let from = Layout::parse(from).map_err(to_js)?;
    let to = Layout::parse(to).map_err(to_js)?;
    let above = above
        .map(|a| idmint_core::parse_u64(&a))
        .transpose()
        .map_err(to_js)?;
    let at = match at {
        Some(t) => idmint_core::parse_time_ms("at", &t).map_err(to_js)?,
        None => DateClock.now_ms(),
    };
    let m = idmint_core::plan::check_migration(&from, &to, above, at).map_err(to_js)?;
    let o = js_sys::Object::new();
    set(&o, "safe", m.safe.into());
    set(&o, "switchMs", (m.switch_ms as f64).into());
    set(&o, "oldMax", js_sys::BigInt::from(m.old_max).into());
    set(&o, "newFirst", js_sys::BigInt::from(m.new_first).into());
    set(&o, "safeFromMs", opt_ms(m.safe_from_ms));
    set(
        &o,
        "safeFrom",
        m.safe_from.map_or(JsValue::NULL, JsValue::from),
    );
    Ok(o)
}

fn typeid_fields(t: idmint_core::typeid::TypeId) -> js_sys::Object {
    let o = js_sys::Object::new();
    set(&o, "typeid", t.to_string().into());
    set(&o, "prefix", t.prefix().into());
    set(&o, "suffix", t.suffix().into());
    set(&o, "uuid", t.uuid().into());
    let time = Uuid7::from_u128(t.uuid_value()).ok().map(|u| u.time_ms());
    set(&o, "timeMs", opt_ms(time));
    o
}

/// Read a TypeID's text (`invalid_id` for what the spec refuses).
#[wasm_bindgen(js_name = typeidParse)]
pub fn typeid_parse(text: &str) -> Result<js_sys::Object, JsValue> {
    idmint_core::typeid::TypeId::parse(text)
        .map(typeid_fields)
        .map_err(to_js)
}

/// A TypeID of `prefix` and a UUID of any version.
#[wasm_bindgen(js_name = typeidFromUuid)]
pub fn typeid_from_uuid(prefix: &str, uuid: &str) -> Result<js_sys::Object, JsValue> {
    let value = idmint_core::uuid7::uuid_value(uuid).map_err(to_js)?;
    idmint_core::typeid::TypeId::new(prefix, value)
        .map(typeid_fields)
        .map_err(to_js)
}

/// Mints TypeIDs of one prefix from UUIDv7s on [`DateClock`].
#[wasm_bindgen]
pub struct WasmTypeIdGenerator {
    inner: idmint_core::typeid::TypeIdGenerator<DateClock>,
}

#[wasm_bindgen]
impl WasmTypeIdGenerator {
    /// A generator of `prefix`.
    #[wasm_bindgen(constructor)]
    pub fn new(prefix: &str) -> Result<WasmTypeIdGenerator, JsValue> {
        idmint_core::typeid::TypeIdGenerator::with_clock(prefix, DateClock)
            .map(|inner| WasmTypeIdGenerator { inner })
            .map_err(to_js)
    }

    /// The next TypeID's text.
    pub fn next(&self) -> Result<String, JsValue> {
        self.inner.next_id().map(|t| t.to_string()).map_err(to_js)
    }
}

/// The instant (unix ms) a generator of layout `spec` (epoch `epoch`) started above `above` at
/// `now_ms` mints from, or the core's refusal (`idmint_core::snowflake::start_above_ms`): the
/// main module's generator has no `start_above`, so `web/index.js` checks here and keeps the
/// clock it gives that generator at or above this instant.
#[wasm_bindgen(js_name = startAboveMs)]
pub fn start_above_ms(
    spec: &str,
    epoch: Option<String>,
    above: &str,
    on_rollback: Option<String>,
    now_ms: f64,
) -> Result<f64, JsValue> {
    let layout = Layout::parse_with_epoch(spec, epoch.as_deref()).map_err(to_js)?;
    let above = idmint_core::parse_u64(above).map_err(to_js)?;
    let policy = match on_rollback {
        Some(p) => p.parse().map_err(to_js)?,
        None => idmint_core::OnRollback::default(),
    };
    idmint_core::snowflake::start_above_ms(&layout, above, now_ms as u64, policy)
        .map(|ms| ms as f64)
        .map_err(to_js)
}

/// [`Layout::min_id_at`] of the layout `spec` (canonical, epoch included): here, not in the
/// main module, whose size budget its code would pass.
#[wasm_bindgen(js_name = minIdAt)]
pub fn min_id_at(spec: &str, time_ms: JsValue) -> Result<u64, JsValue> {
    let time_ms = wide(&time_ms, "time")?;
    Layout::parse(spec)
        .and_then(|l| l.min_id_at(time_ms))
        .map_err(to_js)
}

/// [`Layout::max_id_at`] of the layout `spec`; see [`min_id_at`].
#[wasm_bindgen(js_name = maxIdAt)]
pub fn max_id_at(spec: &str, time_ms: JsValue) -> Result<u64, JsValue> {
    let time_ms = wide(&time_ms, "time")?;
    Layout::parse(spec)
        .and_then(|l| l.max_id_at(time_ms))
        .map_err(to_js)
}

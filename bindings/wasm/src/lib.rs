//! # idmint-wasm
//!
//! The wasm-bindgen glue of [`idmint_core`] for the browser package `idmint-web`
//! (`web/`): its main module. It holds conversion only: every rule (layouts, ranges, policies)
//! is the core's. Its exports are internal: `web/index.js` passes them to the JS API shared with
//! the Node package (`js/facade.js`), which makes the public API (`Snowflake`, `ObjectId`,
//! `parse`, `compose`; error classes). The display IDs of `docs/formats.md` (short strings,
//! keyed obfuscation, UUIDv7/ULID, order-number templates) are a second module,
//! `bindings/wasm-extras`, that a page loads only when it uses them: this one stays small.
//!
//! What is different from the native bindings:
//!
//! - time is [`DateClock`], `Date.now()`: `Instant` and `SystemTime` panic on
//!   `wasm32-unknown-unknown`, so the core's `MonotonicClock` is never made here;
//! - randomness is `crypto.getRandomValues`, through getrandom's `wasm_js` feature;
//! - waiting is a busy spin on `Date.now()` (a page has no way to block a thread), so the
//!   `wait` policies hold the page for as long as they wait;
//! - errors are thrown as JS `Error`s carrying the core's [`Error::kind`] in a `kind`
//!   property, which `index.js` turns into its error classes; a value of the wrong JS type is a
//!   `TypeError`.

// web/build.mjs sets `--cfg idmint_optimize_size` (nightly): the constructors, which run once per
// generator or layout, are then compiled for size, as the core's parsing is; minting stays fast.
#![cfg_attr(idmint_optimize_size, feature(optimize_attribute))]
#![deny(missing_docs)]

use std::sync::OnceLock;

use idmint_core::{
    Clock, Error, FieldKind, Layout, ObjectId, ObjectIdGenerator, OnExhausted, OnRollback, Parts,
    Snowflake,
};
use wasm_bindgen::prelude::*;

mod convert;
use convert::{to_js, wide};

/// Unix time from `Date.now()`; waits by spinning on it.
///
/// A page's `Date.now()` follows the wall clock, which can step backwards: the generators'
/// rollback policy then decides, exactly as on a server.
#[derive(Debug, Clone, Copy, Default)]
pub struct DateClock;

thread_local! {
    /// A `Date.now()` the JS side read just before calling in (the hot paths pass it as an
    /// argument: a call out of wasm to read the clock costs as much as the rest of an ID). The
    /// clock hands it out once; every later reading in the same call is a fresh `Date.now()`.
    static PASSED_NOW: std::cell::Cell<f64> = const { std::cell::Cell::new(-1.0) };
}

/// Run `f` with `now_ms` (read by the caller from `Date.now()`) as the clock's next reading.
fn with_now<T>(now_ms: f64, f: impl FnOnce() -> T) -> T {
    PASSED_NOW.with(|p| p.set(now_ms));
    let out = f();
    PASSED_NOW.with(|p| p.set(-1.0));
    out
}

impl Clock for DateClock {
    #[inline]
    fn now_ms(&self) -> u64 {
        let passed = PASSED_NOW.with(|p| p.replace(-1.0));
        // Date.now() is a whole number of ms; before 1970 (never, in practice) reads as 0.
        if passed >= 0.0 {
            passed as u64
        } else {
            js_sys::Date::now() as u64
        }
    }

    fn sleep_until_ms(&self, target_ms: u64) {
        // thread::sleep panics on wasm32-unknown-unknown; a page can only spin.
        while self.now_ms() < target_ms {
            std::hint::spin_loop();
        }
    }
}

thread_local! {
    /// The error of the last fast-path call that failed, for [`take_error`].
    static LAST_ERROR: std::cell::RefCell<Option<Error>> = const { std::cell::RefCell::new(None) };
}

/// Fast paths return a sentinel instead of throwing (a `Result` return costs a JS array per
/// call); the error waits here until [`take_error`] hands it over.
fn stash(e: Error) {
    LAST_ERROR.with(|l| *l.borrow_mut() = Some(e));
}

/// The error of the last fast-path call that returned its failure sentinel, as a JS `Error`.
#[wasm_bindgen(js_name = takeError)]
pub fn take_error() -> JsValue {
    LAST_ERROR
        .with(|l| l.borrow_mut().take())
        .map(to_js)
        .unwrap_or(JsValue::UNDEFINED)
}

fn parts_to_vec(p: Parts) -> Vec<u64> {
    let mut out = Vec::with_capacity(p.nodes.len() + 2);
    out.push(p.time_ms);
    out.push(p.sequence);
    out.extend(p.nodes.iter().map(|(_, v)| *v));
    out
}

/// A parsed layout, kept by `index.js` per spec so `parse` and `compose` read it once.
#[wasm_bindgen]
pub struct WasmLayout {
    layout: Layout,
}

#[wasm_bindgen]
impl WasmLayout {
    /// A preset name or spec, with an optional epoch override (unix ms or RFC 3339).
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    #[wasm_bindgen(constructor)]
    pub fn new(spec: &str, epoch: Option<String>) -> Result<WasmLayout, JsValue> {
        Layout::parse_with_epoch(spec, epoch.as_deref())
            .map(|layout| WasmLayout { layout })
            .map_err(to_js)
    }

    /// The canonical spec.
    pub fn spec(&self) -> String {
        self.layout.spec()
    }

    /// The preset name, if this layout is an unchanged preset.
    #[wasm_bindgen(js_name = presetName)]
    pub fn preset_name(&self) -> Option<String> {
        self.layout.preset_name().map(str::to_string)
    }

    /// `[time_bits, tick_ms, epoch_ms, total_bits, sequence_bits, exhausts_at_ms,
    /// ids_per_second_cap]` (one export for all of them: the main module's size budget).
    pub fn shape(&self) -> Vec<f64> {
        let l = &self.layout;
        vec![
            l.time_bits() as f64,
            l.tick_ms() as f64,
            l.epoch_ms() as f64,
            l.total_bits() as f64,
            l.sequence_field().bits() as f64,
            l.exhausts_at_ms() as f64,
            l.ids_per_second_cap(),
        ]
    }

    /// The names of the fields below the time field, most significant first.
    #[wasm_bindgen(js_name = fieldNames)]
    pub fn field_names(&self) -> Vec<String> {
        self.layout
            .fields()
            .iter()
            .map(|f| f.name().to_string())
            .collect()
    }

    /// `[bits, shift, is_sequence]` of each field of [`WasmLayout::field_names`], flattened.
    #[wasm_bindgen(js_name = fieldShapes)]
    pub fn field_shapes(&self) -> Vec<u32> {
        self.layout
            .fields()
            .iter()
            .flat_map(|f| {
                [
                    f.bits(),
                    f.shift(),
                    (f.kind() == FieldKind::Sequence) as u32,
                ]
            })
            .collect()
    }

    /// The core's [`Layout::word_plan`] flattened, 7 numbers a slot (`lo_shift, lo_mask,
    /// hi_shift, hi_mask, hi_scale, scale, offset`), or undefined: the facade splits IDs with it.
    #[wasm_bindgen(js_name = wordPlan)]
    pub fn word_plan(&self) -> Option<Vec<f64>> {
        self.layout
            .word_plan()
            .map(|plan| plan.iter().flat_map(|s| s.as_numbers()).collect())
    }

    /// The largest ID of this layout.
    #[wasm_bindgen(js_name = maxId)]
    pub fn max_id(&self) -> u64 {
        self.layout.max_id()
    }

    /// `[time_ms, sequence, ...node values]` of an ID in `0..=2^63-1` (checked by the caller).
    pub fn decompose(&self, id: u64) -> Result<Vec<u64>, JsValue> {
        self.layout.decompose(id).map(parts_to_vec).map_err(to_js)
    }

    /// [`WasmLayout::decompose`] of an ID in decimal text, or of any bigint written in decimal
    /// (the core's errors then say why it does not fit).
    #[wasm_bindgen(js_name = decomposeStr)]
    pub fn decompose_str(&self, id: &str) -> Result<Vec<u64>, JsValue> {
        self.layout
            .decompose_str(id)
            .map(parts_to_vec)
            .map_err(to_js)
    }

    /// Compose an ID from a time (unix ms), node fields by name, and a sequence.
    pub fn compose(
        &self,
        time_ms: JsValue,
        names: Vec<String>,
        values: Vec<JsValue>,
        sequence: JsValue,
    ) -> Result<u64, JsValue> {
        let time_ms = wide(&time_ms, "timestampMs")?;
        let sequence = wide(&sequence, "sequence")?;
        let mut nodes = Vec::with_capacity(names.len());
        for (n, v) in names.iter().zip(&values) {
            nodes.push((n.as_str(), wide(v, n)?));
        }
        self.layout
            .compose_values(time_ms, nodes, sequence)
            .map_err(to_js)
    }
}

/// A snowflake generator on [`DateClock`].
#[wasm_bindgen]
pub struct WasmSnowflake {
    inner: Snowflake<DateClock>,
}

#[wasm_bindgen]
impl WasmSnowflake {
    /// A generator of `layout` with node fields `names` = `values`; `random` draws the node
    /// fields not given from `crypto.getRandomValues`. Policies are the core's text forms;
    /// `unsigned` is the core's opt-in to mint with a layout of 64 bits.
    #[cfg_attr(idmint_optimize_size, optimize(size))]
    #[wasm_bindgen(constructor)]
    pub fn new(
        layout: &WasmLayout,
        names: Vec<String>,
        values: Vec<JsValue>,
        random: bool,
        on_rollback: Option<String>,
        on_exhausted: Option<String>,
        unsigned: bool,
    ) -> Result<WasmSnowflake, JsValue> {
        let mut b = Snowflake::with_clock(layout.layout.clone(), DateClock);
        if unsigned {
            b = b.unsigned();
        }
        for (n, v) in names.iter().zip(&values) {
            b = b.node(n, wide(v, n)?);
        }
        if random {
            b = b.random_nodes();
        }
        if let Some(p) = on_rollback {
            b = b.on_rollback(p.parse::<OnRollback>().map_err(to_js)?);
        }
        if let Some(p) = on_exhausted {
            b = b.on_exhausted(p.parse::<OnExhausted>().map_err(to_js)?);
        }
        b.build()
            .map(|inner| WasmSnowflake { inner })
            .map_err(to_js)
    }

    /// The next ID, or -1 on error (then [`take_error`] has it): a plain `i64` return crosses
    /// to JS as a bigint with nothing else made. An ID of a 64-bit layout from 2^63 on arrives
    /// negative, as its two's complement; `index.js` reads it back unsigned when
    /// [`take_error`] has no error.
    /// `now_ms` is `Date.now()`, read by the caller just before.
    #[wasm_bindgen(js_name = nextIdOrNeg)]
    pub fn next_id_or_neg(&self, now_ms: f64) -> i64 {
        match with_now(now_ms, || self.inner.next_id()) {
            Ok(id) => id as i64,
            Err(e) => {
                stash(e);
                -1
            }
        }
    }

    /// `n` increasing IDs (a `BigUint64Array` in JS).
    #[wasm_bindgen(js_name = nextIds)]
    pub fn next_ids(&self, n: usize) -> Result<Vec<u64>, JsValue> {
        self.inner.next_ids(n).map_err(to_js)
    }

    /// This generator's node values, in layout order.
    #[wasm_bindgen(js_name = nodeValues)]
    pub fn node_values(&self) -> Vec<u64> {
        self.inner.nodes().iter().map(|(_, v)| *v).collect()
    }

    /// `[issued, waits, rollbacks, lead_ms, max_lead_ms]`.
    pub fn stats(&self) -> Vec<f64> {
        let s = self.inner.stats();
        vec![
            s.issued as f64,
            s.waits as f64,
            s.rollbacks as f64,
            s.lead_ms as f64,
            s.max_lead_ms as f64,
        ]
    }

    /// The rollback and exhaustion policies in their text forms, joined by a newline (one
    /// export for both: the main module's size budget).
    pub fn policies(&self) -> String {
        format!(
            "{}\n{}",
            self.inner.on_rollback(),
            self.inner.on_exhausted()
        )
    }
}

fn oid_generator() -> &'static ObjectIdGenerator<DateClock> {
    static GEN: OnceLock<ObjectIdGenerator<DateClock>> = OnceLock::new();
    GEN.get_or_init(|| ObjectIdGenerator::with_clock(DateClock, None, None))
}

thread_local! {
    /// [`oid_next_block`]'s hex (24 ASCII characters an ID) and its IDs' seconds.
    static OID_BLOCK_HEX: std::cell::RefCell<[u8; 24 * ObjectId::BLOCK_LEN]> = const { std::cell::RefCell::new([0; 24 * ObjectId::BLOCK_LEN]) };
    static OID_BLOCK_SECONDS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// UTF-16 code units of a text for [`oid_parse_units`], written by JS.
    static OID_UNITS: std::cell::Cell<[u16; 24]> = const { std::cell::Cell::new([0; 24]) };
}

/// Where [`oid_next_block`] writes its hex.
#[wasm_bindgen(js_name = oidBlockPtr)]
pub fn oid_block_ptr() -> *const u8 {
    OID_BLOCK_HEX.with(|b| b.as_ptr() as *const u8)
}

/// Up to [`ObjectId::BLOCK_LEN`] new ObjectIds of one second
/// ([`ObjectIdGenerator::next_block_hex`]) as hex at
/// [`oid_block_ptr`]; returns how many. `now_ms` is `Date.now()`, read by the caller just before.
#[wasm_bindgen(js_name = oidNextBlock)]
pub fn oid_next_block(now_ms: f64) -> u32 {
    let (n, seconds) = OID_BLOCK_HEX.with(|b| {
        with_now(now_ms, || {
            oid_generator().next_block_hex(&mut *b.borrow_mut())
        })
    });
    OID_BLOCK_SECONDS.with(|s| s.set(seconds));
    n as u32
}

/// The unix seconds of the last [`oid_next_block`]'s IDs.
#[wasm_bindgen(js_name = oidBlockSeconds)]
pub fn oid_block_seconds() -> u32 {
    OID_BLOCK_SECONDS.with(|s| s.get())
}

/// Where JS writes the 24 UTF-16 code units [`oid_parse_units`] reads.
#[wasm_bindgen(js_name = oidUnitsPtr)]
pub fn oid_units_ptr() -> *const u16 {
    OID_UNITS.with(|b| b.as_ptr() as *const u16)
}

/// Read the text at [`oid_units_ptr`] ([`ObjectId::from_canonical_utf16`]): its unix seconds
/// when it is an ObjectId already in canonical (lowercase) hex, else -1 (the caller then asks
/// [`oid_parse_hex`] for the canonical form or the error). No string crosses.
#[wasm_bindgen(js_name = oidParseUnits)]
pub fn oid_parse_units() -> f64 {
    let units = OID_UNITS.with(|b| b.get());
    ObjectId::from_canonical_utf16(&units).map_or(-1.0, |o| o.timestamp() as f64)
}

/// An ObjectId's text (any case) as its canonical lowercase hex.
#[wasm_bindgen(js_name = oidParseHex)]
pub fn oid_parse_hex(text: &str) -> Result<String, JsValue> {
    ObjectId::parse_str(text).map(|o| o.to_hex()).map_err(to_js)
}

/// 12 bytes as an ObjectId's hex.
#[wasm_bindgen(js_name = oidFromBytes)]
pub fn oid_from_bytes(bytes: &[u8]) -> Result<String, JsValue> {
    ObjectId::from_slice(bytes)
        .map(|o| o.to_hex())
        .map_err(to_js)
}

fn canonical(hex: &str) -> Result<ObjectId, JsValue> {
    ObjectId::parse_str(hex).map_err(to_js)
}

/// The 12 bytes of an ObjectId given in hex.
#[wasm_bindgen(js_name = oidBytes)]
pub fn oid_bytes(hex: &str) -> Result<Vec<u8>, JsValue> {
    canonical(hex).map(|o| <[u8; 12]>::from(o).to_vec())
}

/// The version of this package.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Every error kind the core can report, joined by commas, for `index.js` to check its classes
/// against (one string: less glue in the main module).
#[wasm_bindgen(js_name = errorKinds)]
pub fn error_kinds() -> String {
    Error::KINDS.join(",")
}

/// The core's error of an input `kind` with up to three fields as text
/// ([`idmint_core::rules::input_error`]), as a JS `Error` carrying the kind: the JS facade's checks
/// of its own arguments throw what the core says, never a message of their own. Only the input
/// kinds, and three plain strings rather than a list, because this module has a size budget; the
/// display IDs' module has every kind (`clientError`).
#[cfg_attr(idmint_optimize_size, optimize(size))]
#[wasm_bindgen(js_name = inputError)]
pub fn input_error(kind: &str, a: &str, b: &str, c: &str) -> JsValue {
    to_js(idmint_core::rules::input_error(kind, &[a, b, c]))
}

/// Unix milliseconds of a time given as text: digits (unix ms) or RFC 3339, as the core reads
/// every time option.
#[wasm_bindgen(js_name = parseTimeMs)]
pub fn parse_time_ms(what: &str, text: &str) -> Result<f64, JsValue> {
    idmint_core::parse_time_ms(what, text)
        .map(|ms| ms as f64)
        .map_err(to_js)
}

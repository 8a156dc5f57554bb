//! Node.js glue for [`idmint_core`], built with napi-rs: conversion only.
//!
//! Every function here turns JS values into core calls and core results (or errors) back into
//! JS values. The npm package (`/node`) wraps these in the public JS API (`Snowflake`,
//! `ObjectId`, `parse`, `compose`, the display IDs of [`formats`], the error classes); nothing
//! here is meant to be called by users directly.
//!
//! Errors: every core [`Error`](idmint_core::Error) is thrown as a JS `Error` whose `code` is
//! the core's stable kind string (`invalid_id`, ...); the JS layer rethrows it as the matching
//! error class. No function here panics on any input.

#![deny(missing_docs)]

pub mod decode;
mod fast;
pub mod formats;
pub mod interop;
pub mod metrics;
pub mod plan;
#[cfg(feature = "stores")]
pub mod redis_snowflake;
#[cfg(feature = "stores")]
pub mod segment;
mod settle;

use std::sync::{Arc, Mutex};

#[cfg(feature = "stores")]
use idmint_core::lease::LeaseOptions;
/// A build without stores makes no lease options: [`LeaseArgs::options`] refuses first.
#[cfg(not(feature = "stores"))]
type LeaseOptions = std::convert::Infallible;
use idmint_core::{Layout, ObjectId, OnExhausted, OnRollback, Parts, Snowflake, SnowflakeBuilder};
use napi::bindgen_prelude::{
    BigInt, BigUint64Array, Buffer, FromNapiValue, Object, ToNapiValue, TypeName, Uint8Array,
    ValidateNapiValue, ValueType,
};
use napi::{sys, Env};
use napi_derive::napi;

/// The error type thrown to JS: `code` is the core error's kind.
type Result<T> = std::result::Result<T, napi::Error<String>>;

fn js_err(e: idmint_core::Error) -> napi::Error<String> {
    napi::Error::new(e.kind().to_string(), e.to_string())
}

fn invalid_argument(name: &str, value: String, expected: &str) -> napi::Error<String> {
    js_err(idmint_core::Error::InvalidArgument {
        name: name.to_string(),
        value,
        expected: expected.to_string(),
    })
}

/// A value made with raw N-API calls, returned as it is.
pub struct RawValue(sys::napi_value);

impl ToNapiValue for RawValue {
    unsafe fn to_napi_value(_env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        Ok(val.0)
    }
}

/// Adds the raw hot-path functions (see `fast.rs`) to the module's exports.
#[napi(module_exports)]
pub fn init(exports: Object, env: Env) -> napi::Result<()> {
    use napi::JsValue;
    idmint_core::addon::register(idmint_core::addon::Package::Node);
    fast::register(env.raw(), exports.raw())
}

/// Whether this build of the addon has the stores (the add-on `idmint-stores`), or is the slim
/// default package's.
#[napi(catch_unwind)]
pub fn has_stores() -> bool {
    cfg!(feature = "stores")
}

/// Throws the core's `stores_not_installed` error of `what` (`SegmentClient.connect`), for the
/// JS stand-ins of a build without stores.
#[napi(catch_unwind)]
pub fn stores_missing(what: String) -> Result<()> {
    Err(js_err(idmint_core::addon::missing(&what)))
}

/// A JS `bigint` read as a `u64` without allocating, with N-API's lossless flag (false for a
/// negative value or one above 2^64-1).
pub struct U64Arg {
    value: u64,
    lossless: bool,
}

impl TypeName for U64Arg {
    fn type_name() -> &'static str {
        "BigInt"
    }
    fn value_type() -> ValueType {
        ValueType::BigInt
    }
}

impl ValidateNapiValue for U64Arg {}

impl FromNapiValue for U64Arg {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        let mut out = U64Arg {
            value: 0,
            lossless: false,
        };
        // SAFETY: env and value come from N-API for this call; the out-pointers are valid.
        let status = unsafe {
            sys::napi_get_value_bigint_uint64(env, value, &mut out.value, &mut out.lossless)
        };
        if status != sys::Status::napi_ok {
            return Err(napi::Error::new(
                napi::Status::BigintExpected,
                "expected a bigint".to_string(),
            ));
        }
        Ok(out)
    }
}

/// A bigint as `i128`, or an `invalid_argument` error naming `what` when it is wider.
fn wide(what: &str, v: &BigInt) -> Result<i128> {
    match v.get_i128() {
        (value, true) => Ok(value),
        _ => Err(invalid_argument(
            what,
            "a bigint outside -2^127..2^127".to_string(),
            "a value that fits its field",
        )),
    }
}

fn parse_layout(spec: &str, epoch: Option<&str>) -> Result<Layout> {
    Layout::parse_with_epoch(spec, epoch).map_err(js_err)
}

/// A field of a layout, for `Layout.fields`.
#[napi(object)]
pub struct FieldInfo {
    /// The field's name (`sequence` for the sequence).
    pub name: String,
    /// Width in bits.
    pub bits: u32,
    /// Bits below it.
    pub shift: u32,
    /// `node` or `sequence`.
    pub kind: String,
}

/// A parsed layout: decompose and compose IDs.
#[napi]
pub struct NativeLayout {
    inner: Arc<Layout>,
    /// Per field in layout order: whether its values can exceed 2^53 and so travel as bigint.
    wide_fields: Vec<bool>,
}

impl NativeLayout {
    fn from_layout(inner: Layout) -> Self {
        let wide_fields = inner.fields().iter().map(|f| f.bits() > 53).collect();
        NativeLayout {
            inner: Arc::new(inner),
            wide_fields,
        }
    }

    fn parts_object<'e>(&self, env: &'e Env, parts: Parts) -> napi::Result<Object<'e>> {
        let mut obj = Object::new(env)?;
        let t = parts.time_ms as f64; // time_ms <= MAX_TIME_MS < 2^53: exact
        obj.set("time", env.create_date(t)?)?;
        obj.set("timestampMs", t)?;
        let mut node = parts.nodes.into_iter();
        for (f, wide) in self.inner.fields().iter().zip(&self.wide_fields) {
            let (name, value) = if f.kind() == idmint_core::FieldKind::Sequence {
                ("sequence", parts.sequence)
            } else {
                match node.next() {
                    Some((_, v)) => (f.name(), v),
                    None => continue,
                }
            };
            if *wide {
                obj.set(name, value)?; // u64 -> bigint
            } else {
                obj.set(name, value as f64)?; // below 2^53: exact
            }
        }
        Ok(obj)
    }
}

#[napi]
impl NativeLayout {
    /// Parse a preset name or spec; `epoch` (unix ms digits or RFC 3339) replaces the epoch.
    #[napi(constructor, catch_unwind)]
    pub fn new(spec: String, epoch: Option<String>) -> Result<Self> {
        Ok(Self::from_layout(parse_layout(&spec, epoch.as_deref())?))
    }

    /// A handle for the raw functions (`fastDecompose`).
    #[napi(catch_unwind)]
    pub fn handle(&self, env: &Env) -> napi::Result<RawValue> {
        fast::handle_value(env.raw(), fast::Target::Layout(self.inner.clone())).map(RawValue)
    }

    /// `{ decompose(id), out }` bound to this layout (fields up to 53 bits), or null.
    #[napi(catch_unwind)]
    pub fn bind_fast(&self, env: &Env) -> napi::Result<RawValue> {
        fast::bind_layout(env.raw(), &self.inner).map(RawValue)
    }

    /// The core's [`Layout::word_plan`] flattened, 7 numbers a slot (`lo_shift, lo_mask,
    /// hi_shift, hi_mask, hi_scale, scale, offset`): the facade splits IDs with it in JS. Null
    /// where the core has no plan (values past 2^53).
    #[napi(getter, catch_unwind)]
    pub fn word_plan(&self) -> Option<Vec<f64>> {
        self.inner
            .word_plan()
            .map(|plan| plan.iter().flat_map(|s| s.as_numbers()).collect())
    }

    /// Whether a field is wider than 53 bits (its values travel as bigint; no fast path).
    #[napi(getter, catch_unwind)]
    pub fn has_wide_fields(&self) -> bool {
        self.wide_fields.iter().any(|w| *w)
    }

    /// The canonical spec.
    #[napi(getter, catch_unwind)]
    pub fn spec(&self) -> String {
        self.inner.spec()
    }

    /// The preset name, if unchanged from a preset.
    #[napi(getter, catch_unwind)]
    pub fn preset(&self) -> Option<String> {
        self.inner.preset_name().map(str::to_string)
    }

    /// Fields below the time field, most significant first.
    #[napi(getter, catch_unwind)]
    pub fn fields(&self) -> Vec<FieldInfo> {
        self.inner
            .fields()
            .iter()
            .map(|f| FieldInfo {
                name: f.name().to_string(),
                bits: f.bits(),
                shift: f.shift(),
                kind: match f.kind() {
                    idmint_core::FieldKind::Node => "node".into(),
                    idmint_core::FieldKind::Sequence => "sequence".into(),
                },
            })
            .collect()
    }

    /// Names of the node fields, in layout order.
    #[napi(getter, catch_unwind)]
    pub fn node_names(&self) -> Vec<String> {
        self.inner
            .node_fields()
            .map(|f| f.name().to_string())
            .collect()
    }

    /// Bits of the time field.
    #[napi(getter, catch_unwind)]
    pub fn time_bits(&self) -> u32 {
        self.inner.time_bits()
    }

    /// Tick length in ms (at most MAX_TIME_MS: exact as a number).
    #[napi(getter, catch_unwind)]
    pub fn tick_ms(&self) -> f64 {
        self.inner.tick_ms() as f64
    }

    /// Epoch in unix ms (exact as a number).
    #[napi(getter, catch_unwind)]
    pub fn epoch_ms(&self) -> f64 {
        self.inner.epoch_ms() as f64
    }

    /// Bits used in all.
    #[napi(getter, catch_unwind)]
    pub fn total_bits(&self) -> u32 {
        self.inner.total_bits()
    }

    /// The largest ID.
    #[napi(getter, catch_unwind)]
    pub fn max_id(&self) -> u64 {
        self.inner.max_id()
    }

    /// First unix ms the time field cannot hold (may exceed 2^53 only past year 9999: never).
    #[napi(getter, catch_unwind)]
    pub fn exhausts_at_ms(&self) -> f64 {
        self.inner.exhausts_at_ms() as f64
    }

    /// [`Layout::exhausts_at`], RFC 3339.
    #[napi(getter, catch_unwind)]
    pub fn exhausts_at(&self) -> String {
        self.inner.exhausts_at()
    }

    /// IDs per second one generator can mint at most.
    #[napi(getter, catch_unwind)]
    pub fn ids_per_second_cap(&self) -> f64 {
        self.inner.ids_per_second_cap()
    }

    /// Decompose an ID given as a non-negative bigint.
    #[napi(catch_unwind)]
    pub fn decompose<'e>(&self, env: &'e Env, id: U64Arg) -> Result<Object<'e>> {
        if !id.lossless {
            return Err(invalid_argument(
                "id",
                "a bigint outside 0..2^64".into(),
                "route negative or wider bigints through decomposeStr",
            ));
        }
        let parts = self.inner.decompose(id.value).map_err(js_err)?;
        self.parts_object(env, parts).map_err(napi_err)
    }

    /// Decompose an ID given in decimal text.
    #[napi(catch_unwind)]
    pub fn decompose_str<'e>(&self, env: &'e Env, id: String) -> Result<Object<'e>> {
        let parts = self.inner.decompose_str(&id).map_err(js_err)?;
        self.parts_object(env, parts).map_err(napi_err)
    }

    /// Compose from values of any sign (checked by the core).
    #[napi(catch_unwind)]
    pub fn compose(
        &self,
        time_ms: BigInt,
        names: Vec<String>,
        values: Vec<BigInt>,
        sequence: BigInt,
    ) -> Result<u64> {
        let time_ms = wide("time", &time_ms)?;
        let sequence = wide("sequence", &sequence)?;
        let mut nodes = Vec::with_capacity(names.len());
        for (n, v) in names.iter().zip(&values) {
            nodes.push((n.as_str(), wide(n, v)?));
        }
        self.inner
            .compose_values(time_ms, nodes, sequence)
            .map_err(js_err)
    }

    /// [`Layout::min_id_at`]: the smallest ID of the tick holding `time_ms`.
    #[napi(catch_unwind)]
    pub fn min_id_at(&self, time_ms: BigInt) -> Result<u64> {
        let time_ms = wide("time", &time_ms)?;
        self.inner.min_id_at(time_ms).map_err(js_err)
    }

    /// [`Layout::max_id_at`]: the largest ID of the tick holding `time_ms`.
    #[napi(catch_unwind)]
    pub fn max_id_at(&self, time_ms: BigInt) -> Result<u64> {
        let time_ms = wide("time", &time_ms)?;
        self.inner.max_id_at(time_ms).map_err(js_err)
    }
}

fn napi_err(e: napi::Error) -> napi::Error<String> {
    napi::Error::new(e.status.as_ref().to_string(), e.reason.clone())
}

/// Stats of a generator, as numbers (exact below 2^53).
#[napi(object)]
pub struct StatsInfo {
    /// IDs issued.
    pub issued: f64,
    /// Times a caller waited.
    pub waits: f64,
    /// Rollback events.
    pub rollbacks: f64,
    /// Lead over the clock now, ms.
    pub lead_ms: f64,
    /// Largest lead seen, ms.
    pub max_lead_ms: f64,
}

/// The worker lease of [`NativeSnowflake::create`], as `index.js` converts it.
#[napi(object)]
pub struct LeaseArgs {
    /// The lease store's URL.
    pub url: String,
    /// The first and last value to lease.
    pub range: Option<Vec<BigInt>>,
    /// The lease's TTL, ms.
    pub ttl_ms: Option<BigInt>,
    /// How long an expired lease stays frozen, ms.
    pub freeze_ms: Option<BigInt>,
    /// The holder's name in the store.
    pub holder: Option<String>,
}

impl LeaseArgs {
    #[cfg(not(feature = "stores"))]
    fn options(&self) -> Result<LeaseOptions> {
        // Not the URL itself: it may carry credentials.
        Err(js_err(idmint_core::addon::missing(
            "Snowflake.create({ lease })",
        )))
    }

    #[cfg(feature = "stores")]
    fn options(&self) -> Result<LeaseOptions> {
        use crate::segment::{millis, whole_u64};
        let mut o = LeaseOptions::url(&self.url);
        if let Some(r) = &self.range {
            let [first, last] = r.as_slice() else {
                return Err(invalid_argument(
                    "leaseRange",
                    format!("{} values", r.len()),
                    "[first, last]",
                ));
            };
            let value = |v| whole_u64("leaseRange", v, "node values >= 0");
            o = o.range(value(first)?, value(last)?);
        }
        if let Some(v) = &self.ttl_ms {
            o = o.ttl(millis("leaseTtlMs", v)?);
        }
        if let Some(v) = &self.freeze_ms {
            o = o.freeze(millis("leaseFreezeMs", v)?);
        }
        if let Some(h) = &self.holder {
            o = o.holder(h);
        }
        Ok(o)
    }
}

/// What a generator was built from, read once: it stays readable after `close()`.
struct SnowflakeInfo {
    layout_spec: String,
    nodes: Vec<(String, u64)>,
    on_exhausted: String,
    on_rollback: String,
}

/// A snowflake generator. The core generator lives in `strong` (the only strong reference,
/// so `close()` or the GC drops it, which releases a lease); everything else, the bound fast
/// functions included, reaches it through `slot`.
#[napi]
pub struct NativeSnowflake {
    strong: Mutex<Option<Arc<Snowflake>>>,
    slot: Arc<fast::SnowflakeSlot>,
    /// Dropping a leased generator releases its lease: a store round trip, never on the JS
    /// thread.
    leased: bool,
    info: SnowflakeInfo,
}

/// The options every generator takes, as `index.js` converts them: node values as bigints,
/// policies in their text forms, `resume_after` (the last ID issued before a restart) in
/// decimal.
#[napi(object)]
pub struct SnowflakeArgs {
    /// A preset name or spec.
    pub layout: String,
    /// Replaces the layout's epoch: unix ms digits or RFC 3339.
    pub epoch: Option<String>,
    /// Node field names given.
    pub names: Vec<String>,
    /// Their values.
    pub values: Vec<BigInt>,
    /// Node values from the OS random source.
    pub random: bool,
    /// The exhaustion policy.
    pub on_exhausted: Option<String>,
    /// The rollback policy.
    pub on_rollback: Option<String>,
    /// The last ID issued before a restart, decimal.
    pub resume_after: Option<String>,
    /// An ID of another layout to start above, decimal (up to 2^64-1).
    pub start_above: Option<String>,
    /// The high-water-mark file.
    pub high_water_mark: Option<String>,
    /// Mint with a layout of 64 bits (the core's `SnowflakeBuilder::unsigned` opt-in).
    pub unsigned: Option<bool>,
}

impl SnowflakeArgs {
    fn builder(&self) -> Result<SnowflakeBuilder> {
        let layout = parse_layout(&self.layout, self.epoch.as_deref())?;
        // Decimal text (index.js sends bigints and numbers as text): the layout reads it (up to
        // 2^64-1 for an unsigned one) and reports a bad one with its exact value.
        let resume_after = match &self.resume_after {
            Some(last) => Some(layout.parse_id(last).map_err(js_err)?),
            None => None,
        };
        let mut b = Snowflake::builder(layout);
        if self.unsigned == Some(true) {
            b = b.unsigned();
        }
        for (n, v) in self.names.iter().zip(&self.values) {
            b = b.node(n, wide(n, v)?);
        }
        if self.random {
            b = b.random_nodes();
        }
        if let Some(p) = &self.on_exhausted {
            b = b.on_exhausted(p.parse::<OnExhausted>().map_err(js_err)?);
        }
        if let Some(p) = &self.on_rollback {
            b = b.on_rollback(p.parse::<OnRollback>().map_err(js_err)?);
        }
        if let Some(last) = resume_after {
            b = b.resume_after(last);
        }
        if let Some(above) = &self.start_above {
            b = b.start_above(idmint_core::parse_u64(above).map_err(js_err)?);
        }
        if let Some(path) = &self.high_water_mark {
            b = b.high_water_mark(path);
        }
        Ok(b)
    }
}

impl NativeSnowflake {
    fn wrap(g: Snowflake, leased: bool) -> NativeSnowflake {
        let info = SnowflakeInfo {
            layout_spec: g.layout().spec(),
            nodes: g.nodes().to_vec(),
            on_exhausted: g.on_exhausted().to_string(),
            on_rollback: g.on_rollback().to_string(),
        };
        let g = Arc::new(g);
        NativeSnowflake {
            slot: fast::SnowflakeSlot::new(&g),
            strong: Mutex::new(Some(g)),
            leased,
            info,
        }
    }

    fn get(&self) -> Result<Arc<Snowflake>> {
        self.slot.get().map_err(js_err)
    }

    fn take(&self) -> Option<Arc<Snowflake>> {
        self.slot.close();
        self.strong.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Drop for NativeSnowflake {
    fn drop(&mut self) {
        // Collected without close(): a lease is released off the JS thread.
        if let Some(g) = self.take() {
            if self.leased {
                std::thread::spawn(move || drop(g));
            }
        }
    }
}

#[napi]
impl NativeSnowflake {
    /// Build a generator whose options need no store.
    #[napi(constructor, catch_unwind)]
    pub fn new(args: SnowflakeArgs) -> Result<Self> {
        let g = args.builder()?.build().map_err(js_err)?;
        Ok(NativeSnowflake::wrap(g, false))
    }

    /// A Promise of a generator built on a blocking thread: with `lease`, building waits on
    /// the lease store.
    #[napi(catch_unwind)]
    pub fn create(env: &Env, args: SnowflakeArgs, lease: Option<LeaseArgs>) -> Result<RawValue> {
        let b = args.builder()?;
        let leased = lease.is_some();
        #[cfg(feature = "stores")]
        let b = match &lease {
            Some(l) => b.lease(l.options()?),
            None => b,
        };
        #[cfg(not(feature = "stores"))]
        if let Some(l) = &lease {
            match l.options()? {}
        }
        settle::blocking(env, move || {
            b.build().map(|g| NativeSnowflake::wrap(g, leased))
        })
    }

    /// Drop the generator, releasing its lease: a Promise settled once released. Later calls
    /// fail with `closed`.
    #[napi(catch_unwind)]
    pub fn close(&self, env: &Env) -> Result<RawValue> {
        let g = self.take();
        settle::blocking(env, move || {
            drop(g);
            Ok(())
        })
    }

    /// A handle for the raw functions (`fastNextId`, `fastNextIdString`).
    #[napi(catch_unwind)]
    pub fn handle(&self, env: &Env) -> napi::Result<RawValue> {
        fast::handle_value(env.raw(), fast::Target::Snowflake(self.slot.clone())).map(RawValue)
    }

    /// `{ nextId, nextIdString }` bound to this generator.
    #[napi(catch_unwind)]
    pub fn bind_fast(&self, env: &Env) -> napi::Result<RawValue> {
        fast::bind_snowflake(env.raw(), &self.slot).map(RawValue)
    }

    /// The next ID, as a bigint.
    #[napi(catch_unwind)]
    pub fn next_id(&self) -> Result<u64> {
        self.get()?.next_id().map_err(js_err)
    }

    /// The next ID in decimal.
    #[napi(catch_unwind)]
    pub fn next_id_string(&self) -> Result<String> {
        let id = self.get()?.next_id().map_err(js_err)?;
        Ok(itoa::Buffer::new().format(id).to_string())
    }

    /// `n` increasing IDs.
    #[napi(catch_unwind)]
    pub fn next_ids(&self, n: u32) -> Result<BigUint64Array> {
        let ids = self.get()?.next_ids(n as usize).map_err(js_err)?;
        Ok(BigUint64Array::new(ids))
    }

    /// The counters now.
    #[napi(catch_unwind)]
    pub fn stats(&self) -> Result<StatsInfo> {
        let s = self.get()?.stats();
        Ok(StatsInfo {
            issued: s.issued as f64,
            waits: s.waits as f64,
            rollbacks: s.rollbacks as f64,
            lead_ms: s.lead_ms as f64,
            max_lead_ms: s.max_lead_ms as f64,
        })
    }

    /// The layout's canonical spec (with its epoch).
    #[napi(getter, catch_unwind)]
    pub fn layout_spec(&self) -> String {
        self.info.layout_spec.clone()
    }

    /// This generator's node names, in layout order.
    #[napi(getter, catch_unwind)]
    pub fn node_names(&self) -> Vec<String> {
        self.info.nodes.iter().map(|(n, _)| n.clone()).collect()
    }

    /// This generator's node values, in layout order (bigints: a field may exceed 2^53).
    #[napi(getter, catch_unwind)]
    pub fn node_values(&self) -> Vec<BigInt> {
        self.info
            .nodes
            .iter()
            .map(|(_, v)| BigInt::from(*v))
            .collect()
    }

    /// The core's warning when the layout has less than five years left (by the generator's
    /// clock), else nothing.
    #[napi(catch_unwind)]
    pub fn lifetime_warning(&self) -> Result<Option<String>> {
        Ok(self.get()?.lifetime_warning())
    }

    /// The exhaustion policy's text form.
    #[napi(getter, catch_unwind)]
    pub fn on_exhausted(&self) -> String {
        self.info.on_exhausted.clone()
    }

    /// The rollback policy's text form.
    #[napi(getter, catch_unwind)]
    pub fn on_rollback(&self) -> String {
        self.info.on_rollback.clone()
    }
}

/// A new ObjectId from the process-wide generator, as 24 lowercase hex characters.
#[napi(catch_unwind)]
pub fn object_id_hex(env: &Env) -> napi::Result<napi::JsString<'_>> {
    env.create_string_latin1(ObjectId::new().to_hex_bytes())
}

/// Canonical (lowercase) hex of 24 hex characters.
#[napi(catch_unwind)]
pub fn object_id_parse(hex: String) -> Result<String> {
    ObjectId::parse_str(&hex)
        .map(|o| o.to_hex())
        .map_err(js_err)
}

/// Hex of 12 bytes.
#[napi(catch_unwind)]
pub fn object_id_from_bytes(bytes: Uint8Array) -> Result<String> {
    ObjectId::from_slice(&bytes)
        .map(|o| o.to_hex())
        .map_err(js_err)
}

/// An ObjectId from its fields: seconds, 5 random bytes, a 24-bit counter.
#[napi(catch_unwind)]
pub fn object_id_from_parts(seconds: u32, random: Uint8Array, counter: u32) -> Result<String> {
    let random = ObjectId::random_value(&random).map_err(js_err)?;
    ObjectId::from_parts(seconds, random, counter)
        .map(|o| o.to_hex())
        .map_err(js_err)
}

/// The 12 bytes of a hex ObjectId.
#[napi(catch_unwind)]
pub fn object_id_bytes(hex: String) -> Result<Buffer> {
    ObjectId::parse_str(&hex)
        .map(|o| Buffer::from(o.bytes().to_vec()))
        .map_err(js_err)
}

/// The seconds timestamp of a hex ObjectId.
#[napi(catch_unwind)]
pub fn object_id_timestamp(hex: String) -> Result<u32> {
    ObjectId::parse_str(&hex)
        .map(|o| o.timestamp())
        .map_err(js_err)
}

/// Throws the core's error of `kind` with its fields as text, in the variant's order
/// ([`idmint_core::rules::client_error`]): the JS facade's checks of its own arguments throw
/// what the core says, never a message of their own.
#[napi(catch_unwind)]
pub fn client_error(kind: String, fields: Vec<String>) -> Result<()> {
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    Err(js_err(idmint_core::rules::client_error(&kind, &fields)))
}

/// Every error kind the core can report.
#[napi(catch_unwind)]
pub fn error_kinds() -> Vec<&'static str> {
    idmint_core::Error::KINDS.to_vec()
}

/// One row of the core's table of error kinds, for the JS error classes.
#[napi(object)]
pub struct ErrorKindInfo {
    /// The kind string, e.g. `lease_lost` (the error's `kind`; its `code` in upper case).
    pub kind: String,
    /// The class-name stem, e.g. `LeaseLost` (the class is `LeaseLostError`).
    pub name: String,
    /// What sort of error: `invalid_value`, `out_of_range` (a `RangeError`), `state`, `store`
    /// or `lookup`.
    pub family: String,
    /// The core's description of the kind, for doc comments.
    pub description: String,
}

/// The core's table of error kinds, in the core's order.
#[napi(catch_unwind)]
pub fn error_table() -> Vec<ErrorKindInfo> {
    idmint_core::Error::TABLE
        .iter()
        .map(|k| ErrorKindInfo {
            kind: k.kind.to_string(),
            name: k.name.to_string(),
            family: k.family.as_str().to_string(),
            description: k.description(),
        })
        .collect()
}

/// The preset layout names, in the core's order.
#[napi(catch_unwind)]
pub fn presets() -> Vec<&'static str> {
    idmint_core::PRESETS.to_vec()
}

/// The preset names of 64-bit layouts ([`idmint_core::UNSIGNED_PRESETS`]): they parse and
/// compose; a generator mints with them only with the `unsigned` opt-in.
#[napi(catch_unwind)]
pub fn unsigned_presets() -> Vec<&'static str> {
    idmint_core::UNSIGNED_PRESETS.to_vec()
}

/// The preset of a generator given no layout ([`idmint_core::Layout::DEFAULT_PRESET`]).
#[napi(catch_unwind)]
pub fn default_preset() -> &'static str {
    idmint_core::Layout::DEFAULT_PRESET
}

/// A time given as unix ms digits or RFC 3339, as unix ms (exact as a number: at most year 9999).
#[napi(catch_unwind)]
pub fn parse_time_ms(what: String, text: String) -> Result<f64> {
    idmint_core::parse_time_ms(&what, &text)
        .map(|ms| ms as f64)
        .map_err(js_err)
}

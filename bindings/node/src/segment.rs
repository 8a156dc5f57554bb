//! Segment IDs ([`idmint_core::segment::SegmentClient`]), worker leases and everything else that
//! waits on a store, for the Node package's native entry. Conversion only, as the rest of the
//! crate.
//!
//! Nothing here blocks the JS thread on a store round trip: a call that may wait returns a
//! Promise settled from napi-rs' tokio runtime (the client's refills run there too, from the
//! core's async `connect()`), and a call that must be synchronous ([`NativeTag::try_block`])
//! only takes what the core already holds in memory ([`TagHandle::try_next_ids`]), failing
//! with the core's `would_block` otherwise.

use std::time::Duration;

use idmint_core::lease::{list_leases, LeaseInfo, DEFAULT_LIST_TIMEOUT};
use idmint_core::segment::{IdRange, SegmentClient, TagHandle, TagMetrics, TagSpec};
use idmint_core::Error;
use napi::bindgen_prelude::{BigInt, Either};
use napi::Env;
use napi_derive::napi;

use crate::settle::{blocking, promise};
use crate::{invalid_argument, js_err, wide, RawValue, Result};

/// A whole number from JS (a bigint) as `u64`: negative or wider values are `invalid_argument`
/// naming the option as JS spells it.
pub(crate) fn whole_u64(name: &str, v: &BigInt, expected: &str) -> Result<u64> {
    let w = wide(name, v)?;
    u64::try_from(w).map_err(|_| invalid_argument(name, w.to_string(), expected))
}

/// Milliseconds from JS as a [`Duration`] (a duration is never negative).
pub(crate) fn millis(name: &str, v: &BigInt) -> Result<Duration> {
    whole_u64(name, v, "milliseconds >= 0").map(Duration::from_millis)
}

/// Whole numbers from JS that the core takes as `u64`: a value outside `u64` goes to the core
/// as the nearest one (0 or 2^64-1, outside every range the core accepts), and the core's error
/// then gets the value back as the caller wrote it ([`Error::with_given`]).
#[derive(Default)]
pub(crate) struct Given(pub(crate) Vec<(&'static str, i128)>);

impl Given {
    /// `w` as the `u64` to give the core's option `name`.
    pub(crate) fn take(&mut self, name: &'static str, w: i128) -> u64 {
        let v = u64::try_from(w).unwrap_or(if w < 0 { 0 } else { u64::MAX });
        if i128::from(v) != w {
            self.0.push((name, w));
        }
        v
    }

    /// The core's error about an option given out of `u64`, with the value as given.
    pub(crate) fn restore(&self, e: Error) -> Error {
        let name = match &e {
            Error::InvalidArgument { name, .. } => name,
            Error::ValueOutOfRange { field, .. } => field,
            _ => return e,
        };
        match self.0.iter().find(|(n, _)| n == name) {
            Some((_, w)) => e.with_given(Some(*w)),
            None => e,
        }
    }
}

/// The core's error about a builder option, naming the option as JS spells it (`names`: core
/// name, JS name); shared by every native class with a builder.
pub(crate) fn rename_option(e: Error, names: &[(&str, &str)]) -> Error {
    match e {
        Error::InvalidArgument {
            name,
            value,
            expected,
        } => Error::InvalidArgument {
            name: names
                .iter()
                .find(|(core, _)| *core == name)
                .map_or(name, |(_, js)| js.to_string()),
            value,
            expected,
        },
        other => other,
    }
}

/// The core's error about a builder option, naming the option as JS spells it.
fn js_option_name(e: Error) -> Error {
    const NAMES: [(&str, &str); 6] = [
        ("refill_at", "refillAt"),
        ("max_step", "maxStep"),
        ("default_step", "defaultStep"),
        ("default_tag", "defaultTag"),
        ("max_wait", "maxWaitMs"),
        ("op_timeout", "opTimeoutMs"),
    ];
    rename_option(e, &NAMES)
}

/// A range `[start, end)` of IDs for JS: two bigints.
fn range_pair(r: IdRange) -> Vec<u64> {
    vec![r.start, r.end]
}

/// A segment client connected with the core's async `connect()` on napi-rs' tokio runtime,
/// whose background refills run there.
#[napi]
pub struct NativeSegmentClient {
    inner: SegmentClient,
}

/// The builder options of [`NativeSegmentClient::connect`], as `index.js` converts them.
#[napi(object)]
pub struct SegmentOptions {
    /// Refill share in percent (the core checks 0..=99).
    pub refill_at: Option<BigInt>,
    /// The largest dynamic step.
    pub max_step: Option<BigInt>,
    /// The step of tags the client creates.
    pub default_step: Option<BigInt>,
    /// Whether unknown tags are created on first use.
    pub auto_create: Option<bool>,
    /// The tag unknown tags draw from.
    pub default_tag: Option<String>,
    /// The longest wait for a refill, ms.
    pub max_wait_ms: Option<BigInt>,
    /// The bound of one store call, ms.
    pub op_timeout_ms: Option<BigInt>,
}

impl NativeSegmentClient {
    /// The core's client (for the metrics module).
    pub(crate) fn inner(&self) -> &SegmentClient {
        &self.inner
    }
}

#[napi]
impl NativeSegmentClient {
    /// Connect to the store at `url`: a Promise of the client.
    #[napi(catch_unwind)]
    pub fn connect(env: &Env, url: String, options: SegmentOptions) -> Result<RawValue> {
        let mut given = Given::default();
        let mut b = SegmentClient::builder().store_url(&url);
        if let Some(v) = &options.refill_at {
            let w = wide("refillAt", v)?;
            let p = u8::try_from(w).unwrap_or_else(|_| {
                given.0.push(("refill_at", w));
                u8::MAX
            });
            b = b.refill_at(p);
        }
        if let Some(v) = &options.max_step {
            b = b.max_step(given.take("max_step", wide("maxStep", v)?));
        }
        if let Some(v) = &options.default_step {
            b = b.default_step(given.take("default_step", wide("defaultStep", v)?));
        }
        if let Some(on) = options.auto_create {
            b = b.auto_create(on);
        }
        if let Some(t) = &options.default_tag {
            b = b.default_tag(t);
        }
        if let Some(v) = &options.max_wait_ms {
            b = b.max_wait(millis("maxWaitMs", v)?);
        }
        if let Some(v) = &options.op_timeout_ms {
            b = b.op_timeout(millis("opTimeoutMs", v)?);
        }
        promise(env, async move {
            match b.connect().await {
                Ok(inner) => Ok(NativeSegmentClient { inner }),
                Err(e) => Err(js_option_name(given.restore(e))),
            }
        })
    }

    /// A Promise of the tag's handle (loaded from the store on first use).
    #[napi(catch_unwind)]
    pub fn tag(&self, env: &Env, tag: String) -> Result<RawValue> {
        let client = self.inner.clone();
        promise(env, async move {
            client.tag_async(&tag).await.map(NativeTag::new)
        })
    }

    /// A Promise of whether the tag was created (false: it existed, nothing changed).
    #[napi(catch_unwind)]
    pub fn create_tag(
        &self,
        env: &Env,
        tag: String,
        start: Option<BigInt>,
        step: Option<BigInt>,
        description: Option<String>,
    ) -> Result<RawValue> {
        let mut given = Given::default();
        let mut spec = TagSpec::new(&tag).map_err(js_err)?;
        if let Some(v) = &start {
            let s = given.take("start", wide("start", v)?);
            spec = spec.start(s).map_err(|e| js_err(given.restore(e)))?;
        }
        if let Some(v) = &step {
            let s = given.take("step", wide("step", v)?);
            spec = spec.step(s).map_err(|e| js_err(given.restore(e)))?;
        }
        if let Some(d) = &description {
            spec = spec.description(d).map_err(js_err)?;
        }
        let client = self.inner.clone();
        promise(env, async move { client.create_tag_async(&spec).await })
    }

    /// Metrics of every tag this client has loaded, sorted by tag.
    #[napi(catch_unwind)]
    pub fn metrics(&self) -> Vec<TagMetricsInfo> {
        self.inner.metrics().into_iter().map(metrics_info).collect()
    }

    /// A Promise that stops the background refills, gives the unused tails of the buffered
    /// ranges back to the store (where nobody allocated after them) and closes the store the
    /// client opened (so a SQLite file can be deleted once it resolves, as Windows requires);
    /// later calls fail with `closed` at once. Never blocks the event loop; the core bounds
    /// each step by `opTimeout`.
    #[napi(catch_unwind)]
    pub fn close(&self, env: &Env) -> Result<RawValue> {
        let client = self.inner.clone();
        promise(env, async move {
            client.close_async().await;
            Ok(())
        })
    }

    /// The store, as kind and address (no credentials).
    #[napi(getter, catch_unwind)]
    pub fn store(&self) -> String {
        self.inner.store().to_string()
    }
}

/// A tag's counters, camelCase for JS (durations in ms).
#[napi(object, object_from_js = false)]
pub struct TagMetricsInfo {
    /// The tag as stored.
    pub tag: String,
    /// IDs left in the core's memory.
    pub remaining: f64,
    /// The step of the last range fetched.
    pub step: f64,
    /// Ranges fetched from the store.
    pub refills: f64,
    /// The last successful refill, request to answer, ms.
    pub last_refill_latency_ms: f64,
    /// The slowest successful refill, ms.
    pub max_refill_latency_ms: f64,
    /// The mean successful refill, ms.
    pub mean_refill_latency_ms: f64,
    /// Failed store calls.
    pub store_errors: f64,
    /// The last store error, if any.
    pub last_error: Option<String>,
}

fn ms_f64(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Counters are far below 2^53 (IDs in memory are at most two steps of up to 2^40 each): exact.
fn metrics_info(m: TagMetrics) -> TagMetricsInfo {
    TagMetricsInfo {
        tag: m.tag,
        remaining: m.remaining as f64,
        step: m.step as f64,
        refills: m.refills as f64,
        last_refill_latency_ms: ms_f64(m.last_refill_latency),
        max_refill_latency_ms: ms_f64(m.max_refill_latency),
        mean_refill_latency_ms: ms_f64(m.mean_refill_latency),
        store_errors: m.store_errors as f64,
        last_error: m.last_error,
    }
}

/// How many IDs the JS side takes from the core at once, at most: enough to keep the FFI cost
/// off each ID, few enough that the IDs a process leaves unused at exit stay few.
const MAX_BLOCK: u64 = 64;

/// A cached tag. The JS side hands IDs out of blocks the core granted
/// ([`try_block`](NativeTag::try_block)), so the hot path never crosses into Rust.
#[napi]
pub struct NativeTag {
    handle: TagHandle,
}

impl NativeTag {
    fn new(handle: TagHandle) -> NativeTag {
        NativeTag { handle }
    }
}

#[napi]
impl NativeTag {
    /// `[start, end)`: a block of up to 64 IDs the core holds in memory, never waiting;
    /// `would_block` when it holds none (the refill is then on its way).
    #[napi(catch_unwind)]
    pub fn try_block(&self) -> Result<Vec<u64>> {
        // The core serves a run only within one range and only up to the tag's step: the
        // largest power of two that fits is taken, down to one ID.
        let mut k = MAX_BLOCK;
        loop {
            match self.handle.try_next_ids(k) {
                Ok(r) => return Ok(range_pair(r)),
                Err(Error::WouldBlock { .. }) if k > 1 => k /= 2,
                Err(e) => return Err(js_err(e)),
            }
        }
    }

    /// A Promise of the next ID, waiting for the refill when memory is empty.
    #[napi(catch_unwind)]
    pub fn next_id_async(&self, env: &Env) -> Result<RawValue> {
        let h = self.handle.clone();
        promise(env, async move { h.next_id_async().await })
    }

    /// A Promise of `[start, end)`: `n` contiguous IDs (longer runs than the step come straight
    /// from the store).
    #[napi(catch_unwind)]
    pub fn next_ids_async(&self, env: &Env, n: BigInt) -> Result<RawValue> {
        let mut given = Given::default();
        let n = given.take("n", wide("n", &n)?);
        let h = self.handle.clone();
        promise(env, async move {
            match h.next_ids_async(n).await {
                Ok(r) => Ok(range_pair(r)),
                Err(e) => Err(given.restore(e)),
            }
        })
    }

    /// The tag's counters.
    #[napi(catch_unwind)]
    pub fn metrics(&self) -> TagMetricsInfo {
        metrics_info(self.handle.metrics())
    }

    /// The tag as stored.
    #[napi(getter, catch_unwind)]
    pub fn tag(&self) -> String {
        self.handle.tag().to_string()
    }
}

/// An ID as a JS number, or the core's `value_out_of_range` above 2^53-1.
#[napi(catch_unwind)]
pub fn exact_number(id: BigInt) -> Result<f64> {
    let id = whole_u64("id", &id, "an ID, 0..=18446744073709551615")?;
    idmint_core::args::exact_double("id", id).map_err(js_err)
}

/// One value of a lease store, for `leaseList`.
#[napi(object, object_from_js = false)]
pub struct LeaseInfoJs {
    /// The value: a number, or a bigint above 2^53-1.
    pub value: Either<f64, u64>,
    /// `held`, `frozen` or `free`.
    pub state: String,
    /// The holder's name, empty when released.
    pub holder: String,
    /// Ms until the lease ends (negative: ended that long ago).
    pub expires_in_ms: f64,
    /// Ms until others may take the value.
    pub free_in_ms: f64,
    /// The fence: IDs of this value so far carry times up to this (unix ms).
    pub last_time_ms: f64,
}

fn lease_info(l: LeaseInfo) -> LeaseInfoJs {
    // Times and durations are far below 2^53: exact as numbers.
    LeaseInfoJs {
        state: l.state().to_string(),
        value: match idmint_core::args::exact_double("value", l.value) {
            Ok(v) => Either::A(v),
            Err(_) => Either::B(l.value),
        },
        holder: l.holder,
        expires_in_ms: l.expires_in_ms as f64,
        free_in_ms: l.free_in_ms as f64,
        last_time_ms: l.last_time_ms as f64,
    }
}

/// A Promise of the leases of the store at `url`, within `timeout_ms` (default
/// [`DEFAULT_LIST_TIMEOUT`]).
#[napi(catch_unwind)]
pub fn lease_list(env: &Env, url: String, timeout_ms: Option<BigInt>) -> Result<RawValue> {
    let timeout = match &timeout_ms {
        Some(ms) => millis("timeoutMs", ms)?,
        None => DEFAULT_LIST_TIMEOUT,
    };
    blocking(env, move || {
        list_leases(&url, timeout).map(|v| v.into_iter().map(lease_info).collect::<Vec<_>>())
    })
}

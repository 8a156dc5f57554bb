//! Segment IDs: `SegmentClient` and its cached `SegmentTag` handles over the core's
//! [`idmint_core::segment::SegmentClient`], and the tag's metrics.
//!
//! Conversion only. Java hands over `long`/`int` numbers and durations in whole ms; the core
//! checks them (a negative one is passed on as a value the core refuses, and
//! [`idmint_core::Error::with_given`] puts the caller's value back into its error). The Java
//! facade serves blocks of IDs granted here ([`SegmentTag::fast_handle`] with
//! [`crate::fast::idmint_jvm_fast_segment_block`]) from a local counter.

// Without the stores the methods of a store object are never reached (crate::stores).
#![cfg_attr(not(feature = "stores"), allow(unused_variables))]

use std::sync::Arc;
#[cfg(feature = "stores")]
use std::time::Duration;

#[cfg(feature = "stores")]
use idmint_core::segment as seg;
#[cfg(feature = "stores")]
use idmint_core::{self as core, args};

#[cfg(feature = "stores")]
use crate::convert::*;
use crate::errors::*;
use crate::stores::stores;

/// A client's options as the Java builder sets them; `None` keeps the core's default.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct SegmentOptions {
    /// `sqlite:PATH`, `postgres://…`, `mysql://…`, `redis://…` (`?shards=N`), `memory:`.
    pub url: String,
    /// Refill share in percent.
    pub refill_at: Option<i32>,
    /// Largest dynamic step.
    pub max_step: Option<i64>,
    /// Step of tags this client creates.
    pub default_step: Option<i64>,
    /// Whether unknown tags are created on first use.
    pub auto_create: Option<bool>,
    /// The tag unknown tags draw from.
    pub default_tag: Option<String>,
    /// Longest wait for a range, ms.
    pub max_wait_ms: Option<i64>,
    /// Longest store call, ms.
    pub op_timeout_ms: Option<i64>,
}

/// A tag to create, as the Java `TagSpec` holds it; `None` keeps the core's default.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TagSpecInfo {
    /// The tag.
    pub tag: String,
    /// Its first ID.
    pub start: Option<i64>,
    /// Its step.
    pub step: Option<i64>,
    /// Its description.
    pub description: Option<String>,
}

/// Counters of one tag ([`idmint_core::segment::TagMetrics`]); latencies in µs.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TagMetrics {
    /// The tag as stored.
    pub tag: String,
    /// IDs left in the core's memory (not counting a block the Java side holds).
    pub remaining: i64,
    /// The step of the last range fetched.
    pub step: i64,
    /// Ranges fetched from the store.
    pub refills: i64,
    /// Last successful refill, µs.
    pub last_refill_us: i64,
    /// Slowest successful refill, µs.
    pub max_refill_us: i64,
    /// Mean successful refill, µs.
    pub mean_refill_us: i64,
    /// Failed store calls.
    pub store_errors: i64,
    /// The last store error.
    pub last_error: Option<String>,
}

/// A contiguous run of IDs, `start..end` (end excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct IdRun {
    /// The first ID.
    pub start: i64,
    /// One past the last ID.
    pub end: i64,
}

/// A `long` the core takes as `u64`, read by the core's check `check` (a negative one passed as
/// `u64::MAX`, which every such check refuses, then named as given).
#[cfg(feature = "stores")]
fn unsigned<T>(v: i64, check: impl FnOnce(u64) -> core::Result<T>) -> Result<T> {
    let (u, given) = stand_in(v);
    check(u).map_err(|e| ffi_error(e.with_given(given)))
}

#[cfg(feature = "stores")]
pub(crate) fn duration(name: &str, ms: Option<i64>) -> Result<Option<Duration>> {
    ms.map(|ms| args::duration_ms(name, ms)).transpose().ffi()
}

#[cfg(feature = "stores")]
pub(crate) fn run(r: seg::IdRange) -> Result<IdRun> {
    Ok(IdRun {
        start: to_long(r.start)?,
        end: to_long(r.end)?,
    })
}

/// The core's error for a builder option given a Java number its type cannot hold (negative,
/// or an `int` share above 255): `set` applies a stand-in the core refuses just as it would the
/// number, and the error names the number as given.
#[cfg(feature = "stores")]
fn refused(
    set: impl FnOnce(seg::SegmentClientBuilder) -> seg::SegmentClientBuilder,
    given: i128,
) -> Arc<FfiError> {
    match set(seg::SegmentClient::builder()).connect_blocking() {
        Err(e) => ffi_error(e.with_given(Some(given))),
        Ok(_) => unreachable!("a builder without a store never connects"),
    }
}

#[cfg(feature = "stores")]
fn micros(d: Duration) -> i64 {
    count(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

#[cfg(feature = "stores")]
fn metrics(m: seg::TagMetrics) -> TagMetrics {
    TagMetrics {
        tag: m.tag,
        remaining: count(m.remaining),
        step: count(m.step),
        refills: count(m.refills),
        last_refill_us: micros(m.last_refill_latency),
        max_refill_us: micros(m.max_refill_latency),
        mean_refill_us: micros(m.mean_refill_latency),
        store_errors: count(m.store_errors),
        last_error: m.last_error,
    }
}

/// A segment client ([`idmint_core::segment::SegmentClient`]) on its own runtime thread.
#[derive(Debug, uniffi::Object)]
pub struct SegmentClient(#[cfg(feature = "stores")] pub(crate) seg::SegmentClient);

#[uniffi::export]
impl SegmentClient {
    /// Open the store and build the client ([`seg::SegmentClientBuilder::connect_blocking`]).
    #[uniffi::constructor]
    pub fn connect(options: SegmentOptions) -> Result<Arc<Self>> {
        stores!("SegmentClient.connect", {
            let mut b = seg::SegmentClient::builder().store_url(&options.url);
            if let Some(p) = options.refill_at {
                b = match u8::try_from(p) {
                    Ok(share) => b.refill_at(share),
                    Err(_) => return Err(refused(|b| b.refill_at(u8::MAX), p.into())),
                };
            }
            if let Some(s) = options.max_step {
                b = match u64::try_from(s) {
                    Ok(step) => b.max_step(step),
                    Err(_) => return Err(refused(|b| b.max_step(u64::MAX), s.into())),
                };
            }
            if let Some(s) = options.default_step {
                b = match u64::try_from(s) {
                    Ok(step) => b.default_step(step),
                    Err(_) => return Err(refused(|b| b.default_step(u64::MAX), s.into())),
                };
            }
            if let Some(on) = options.auto_create {
                b = b.auto_create(on);
            }
            if let Some(tag) = &options.default_tag {
                b = b.default_tag(tag);
            }
            if let Some(d) = duration("max_wait", options.max_wait_ms)? {
                b = b.max_wait(d);
            }
            if let Some(d) = duration("op_timeout", options.op_timeout_ms)? {
                b = b.op_timeout(d);
            }
            Ok(Arc::new(SegmentClient(b.connect_blocking().ffi()?)))
        })
    }

    /// The cached handle of a tag, loaded from the store on first use.
    pub fn tag(&self, tag: String) -> Result<Arc<SegmentTag>> {
        stores!(unreachable {
        let handle = self.0.tag(&tag).ffi()?;
        // The step the tag was loaded with (the facade loads each tag once per client, so the
        // core's state is new and its step is the tag's own): the largest run the core serves
        // from memory. A tag that falls back to a default tag already in use may report a grown
        // step; its blocks may then go to the store one by one, still unique.
        let step = handle.metrics().step;
        Ok(Arc::new(SegmentTag { handle, step }))
        })
    }

    /// Create a tag; true if created, false if it existed (then nothing changes).
    pub fn create_tag(&self, spec: TagSpecInfo) -> Result<bool> {
        stores!(unreachable {
        let mut s = seg::TagSpec::new(&spec.tag).ffi()?;
        if let Some(start) = spec.start {
            s = unsigned(start, |u| s.start(u))?;
        }
        if let Some(step) = spec.step {
            s = unsigned(step, |u| s.step(u))?;
        }
        if let Some(d) = &spec.description {
            s = s.description(d).ffi()?;
        }
        self.0.create_tag(&s).ffi()
        })
    }

    /// Metrics of every tag this client has loaded, sorted by tag.
    pub fn metrics(&self) -> Vec<TagMetrics> {
        stores!(unreachable { self.0.metrics().into_iter().map(metrics).collect() })
    }

    /// Stop the background refills and release the store; later calls fail with `closed`.
    /// (Not `close`: the generated Java object has its own `close()`, which frees it.)
    pub fn shutdown(&self) {
        stores!(unreachable { self.0.close() })
    }

    /// The store, as kind and address (no credentials).
    pub fn store(&self) -> String {
        stores!(unreachable { self.0.store().to_string() })
    }
}

/// A cached tag handle ([`idmint_core::segment::TagHandle`]).
#[derive(Debug, uniffi::Object)]
pub struct SegmentTag {
    #[cfg(feature = "stores")]
    pub(crate) handle: seg::TagHandle,
    #[cfg(feature = "stores")]
    step: u64,
}

#[uniffi::export]
impl SegmentTag {
    /// The next ID (waits on the store only when the core's two ranges are used up).
    pub fn next_id(&self) -> Result<i64> {
        stores!(unreachable { to_long(self.handle.next_id().ffi()?) })
    }

    /// `n` contiguous IDs (1..=2^40).
    pub fn next_ids(&self, n: i64) -> Result<IdRun> {
        stores!(unreachable { run(unsigned(n, |u| self.handle.next_ids(u))?) })
    }

    /// The tag as stored.
    pub fn name(&self) -> String {
        stores!(unreachable { self.handle.tag().to_string() })
    }

    /// The tag's counters.
    pub fn metrics(&self) -> TagMetrics {
        stores!(unreachable { metrics(self.handle.metrics()) })
    }

    /// How many IDs the facade takes at once for its local counter: a quarter of the step the
    /// tag was loaded with, at most 1024 and at least 1. Within the step, the core serves a
    /// block from its buffered ranges (never a store round trip of its own), and four blocks a
    /// range leave the background refill its time.
    pub fn block_size(&self) -> i64 {
        stores!(unreachable { count((self.step / 4).clamp(1, 1024)) })
    }

    /// The address of this handle, for [`crate::fast::idmint_jvm_fast_segment_block`]; valid
    /// while the Java object holding it is reachable.
    pub fn fast_handle(&self) -> i64 {
        self as *const SegmentTag as i64
    }
}

//! Snowflake IDs minted on Redis: `RedisSnowflake` over the core's [`core::RedisSnowflake`].
//!
//! Conversion only. Java hands over `long` numbers and durations in whole ms; the core checks
//! them (a negative one is passed on as a value the core refuses, and
//! [`core::Error::with_given`] puts the caller's value back into its error). Calls block the
//! calling thread; the Java facade runs its `*Async` variants on idmint's daemon threads.

// Without the stores the calls that reach one are refused (crate::stores).
#![cfg_attr(not(feature = "stores"), allow(unused_variables))]

use std::sync::Arc;
#[cfg(feature = "stores")]
use std::sync::Mutex;

#[cfg(feature = "stores")]
use idmint_core as core;

#[cfg(feature = "stores")]
use crate::convert::*;
use crate::errors::*;
#[cfg(feature = "stores")]
use crate::segment::duration;
use crate::stores::stores;

/// A generator's options as the Java builder sets them; `None` keeps the core's default.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct RedisSnowflakeOptions {
    /// The servers, comma separated, in order.
    pub urls: String,
    /// The ID space.
    pub tag: Option<String>,
    /// The shard of `nextId` / `nextIds`.
    pub shard: Option<i64>,
    /// A preset name or spec with one node field.
    pub layout: Option<String>,
    /// Key prefix.
    pub prefix: Option<String>,
    /// IDs per round trip behind `nextId`.
    pub batch: Option<i64>,
    /// One call to one server, ms.
    pub op_timeout_ms: Option<i64>,
    /// One call, every server and retry, ms.
    pub max_wait_ms: Option<i64>,
    /// How long a failed server is skipped, ms.
    pub retry_after_ms: Option<i64>,
    /// How far past the server's clock IDs may carry, ms.
    pub max_ahead_ms: Option<i64>,
    /// Life of a millisecond's counter, s.
    pub counter_ttl_secs: Option<i64>,
    /// Never issue at or before this unix ms.
    pub resume_after_ms: Option<i64>,
    /// Tests only: the key the script reads its time from.
    pub test_clock_key: Option<String>,
}

/// Round trips and server failures so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct RedisSnowflakeStats {
    /// Mint calls answered.
    pub round_trips: i64,
    /// Server calls that failed.
    pub node_failures: i64,
}

#[cfg(feature = "stores")]
type Set = fn(core::RedisSnowflakeBuilder, u64) -> core::RedisSnowflakeBuilder;

/// A generator; `shutdown()` drops the core's (later calls fail with `closed`).
#[derive(Debug, uniffi::Object)]
pub struct RedisSnowflake(#[cfg(feature = "stores")] Mutex<Option<core::RedisSnowflake>>);

#[cfg(feature = "stores")]
impl RedisSnowflake {
    fn gen(&self) -> Result<core::RedisSnowflake> {
        let g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        g.clone().ok_or_else(|| {
            ffi_error(core::Error::Closed {
                what: "Redis snowflake generator".into(),
            })
        })
    }
}

/// A shard and a count from Java, as the core's numbers (negative: stand-ins it refuses).
#[cfg(feature = "stores")]
fn shard_and_count(shard: i64, k: i64) -> (u64, u64, impl Fn(core::Error) -> Arc<FfiError>) {
    let (s, s_given) = stand_in(shard);
    let (n, k_given) = stand_in(k);
    let given = move |e: core::Error| {
        // The core checks the shard first: a shard error is about the shard, others about k.
        let g = match e {
            core::Error::ValueOutOfRange { .. } => s_given,
            _ => k_given,
        };
        ffi_error(e.with_given(g))
    };
    (s, n, given)
}

#[uniffi::export]
impl RedisSnowflake {
    /// Connect to the servers ([`core::RedisSnowflakeBuilder::connect_blocking`]).
    #[uniffi::constructor]
    pub fn connect(options: RedisSnowflakeOptions) -> Result<Arc<Self>> {
        stores!("RedisSnowflake.connect", {
            let mut b = core::RedisSnowflake::builder().urls(&options.urls);
            if let Some(l) = &options.layout {
                b = b.layout(core::Layout::parse(l).ffi()?);
            }
            let ints: [(&str, Option<i64>, Set); 4] = [
                ("shard", options.shard, |b, v| b.shard(v)),
                ("batch", options.batch, |b, v| b.batch(v)),
                ("counter_ttl_secs", options.counter_ttl_secs, |b, v| {
                    b.counter_ttl_secs(v)
                }),
                ("resume_after_ms", options.resume_after_ms, |b, v| {
                    b.resume_after_ms(v)
                }),
            ];
            for (name, v, set) in ints.iter().filter_map(|(n, v, s)| v.map(|v| (*n, v, s))) {
                let (u, given) = stand_in(v);
                if given.is_some() {
                    // The core's own error for the stand-in, before any server is met, with the
                    // value as given (only into the error about this option).
                    let e = match set(b, u).connect_blocking() {
                        Err(e) => e,
                        // Not reached: the stand-in is refused before any server is met.
                        Ok(_) => core::Error::InvalidArgument {
                            name: name.into(),
                            value: v.to_string(),
                            expected: "0..=2^64-1".into(),
                        },
                    };
                    let about = match &e {
                        core::Error::InvalidArgument { name: n, .. } => n == name,
                        core::Error::ValueOutOfRange { .. } => name == "shard",
                        _ => false,
                    };
                    return Err(ffi_error(if about { e.with_given(given) } else { e }));
                }
                b = set(b, u);
            }
            if let Some(t) = &options.tag {
                b = b.tag(t);
            }
            if let Some(p) = &options.prefix {
                b = b.prefix(p);
            }
            if let Some(d) = duration("op_timeout", options.op_timeout_ms)? {
                b = b.op_timeout(d);
            }
            if let Some(d) = duration("max_wait", options.max_wait_ms)? {
                b = b.max_wait(d);
            }
            if let Some(d) = duration("retry_after", options.retry_after_ms)? {
                b = b.retry_after(d);
            }
            if let Some(d) = duration("max_ahead", options.max_ahead_ms)? {
                b = b.max_ahead(d);
            }
            if let Some(k) = &options.test_clock_key {
                b = b.test_clock_key(k);
            }
            let gen = b.connect_blocking().ffi()?;
            Ok(Arc::new(RedisSnowflake(Mutex::new(Some(gen)))))
        })
    }

    /// The next ID of the generator's shard, from the buffer.
    pub fn next_id(&self) -> Result<i64> {
        stores!(unreachable { to_long(self.gen()?.next_id().ffi()?) })
    }

    /// The next ID of `shard`, from that shard's buffer.
    pub fn next_id_for(&self, shard: i64) -> Result<i64> {
        stores!(unreachable {
            let (s, _, given) = shard_and_count(shard, 1);
            to_long(self.gen()?.next_id_for(s).map_err(given)?)
        })
    }

    /// `k` increasing IDs of `shard` (the generator's own when absent), one round trip.
    pub fn next_ids(&self, shard: Option<i64>, k: i64) -> Result<Vec<i64>> {
        stores!(unreachable {
        let gen = self.gen()?;
        let ids = match shard {
            Some(shard) => {
                let (s, n, given) = shard_and_count(shard, k);
                gen.next_ids_for(s, n).map_err(given)?
            }
            None => {
                let (_, n, given) = shard_and_count(0, k);
                gen.next_ids(n).map_err(given)?
            }
        };
        ids.into_iter().map(to_long).collect()
        })
    }

    /// The layout: its preset name when it is one, else its canonical spec.
    pub fn layout_spec(&self) -> Result<String> {
        stores!(unreachable {
            let gen = self.gen()?;
            let l = gen.layout();
            Ok(l.preset_name().map_or_else(|| l.spec(), str::to_string))
        })
    }

    /// The servers, in order, without credentials.
    pub fn servers(&self) -> Result<Vec<String>> {
        stores!(unreachable { Ok(self.gen()?.servers()) })
    }

    /// Round trips and server failures so far.
    pub fn stats(&self) -> Result<RedisSnowflakeStats> {
        stores!(unreachable {
            let s = self.gen()?.stats();
            Ok(RedisSnowflakeStats {
                round_trips: count(s.round_trips),
                node_failures: count(s.node_failures),
            })
        })
    }

    /// Drop the generator (connections, buffered IDs); later calls fail with `closed`.
    /// (Not `close`: the generated Java object has its own `close()`, which frees it.)
    pub fn shutdown(&self) {
        stores!(unreachable {
            let gen = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
            drop(gen);
        })
    }
}

//! Snowflake IDs minted on Redis ([`idmint_core::RedisSnowflake`]) for the Node package's native
//! entry. Conversion only.
//!
//! Nothing here blocks the JS thread on a server: connecting and every call that may wait return
//! a Promise settled from napi-rs' tokio runtime (the generator is connected there with the
//! core's async `connect()`), and the one synchronous call, [`NativeRedisSnowflake::try_next_id`],
//! only takes an ID the core already holds ([`RedisSnowflake::try_next_id_for`]), failing with
//! the core's `would_block` otherwise.

use std::sync::Mutex;

use idmint_core::{Error, Layout, RedisSnowflake};
use napi::bindgen_prelude::BigInt;
use napi::Env;
use napi_derive::napi;

use crate::segment::{millis, rename_option, Given};
use crate::settle::promise;
use crate::{js_err, wide, RawValue, Result};

/// The options of [`NativeRedisSnowflake::connect`], as `redis-snowflake.js` converts them.
#[napi(object)]
pub struct RedisSnowflakeOptions {
    /// The ID space (default `default`).
    pub tag: Option<String>,
    /// The shard of `nextId` / `nextIds`.
    pub shard: Option<BigInt>,
    /// A preset name or spec with one node field (default `redis-lua`).
    pub layout: Option<String>,
    /// Key prefix (default `idmint:sf`).
    pub prefix: Option<String>,
    /// IDs per round trip behind `nextId`.
    pub batch: Option<BigInt>,
    /// One call to one server, ms.
    pub op_timeout_ms: Option<BigInt>,
    /// One call, every server and retry, ms.
    pub max_wait_ms: Option<BigInt>,
    /// How long a failed server is skipped, ms.
    pub retry_after_ms: Option<BigInt>,
    /// How far past the server's clock IDs may carry, ms.
    pub max_ahead_ms: Option<BigInt>,
    /// Life of a millisecond's counter, s.
    pub counter_ttl_secs: Option<BigInt>,
    /// Never issue at or before this unix ms.
    pub resume_after_ms: Option<BigInt>,
    /// Tests only: the key the script reads its time from.
    pub test_clock_key: Option<String>,
}

/// The core's error about a builder option, naming the option as JS spells it.
fn js_option_name(e: Error) -> Error {
    const NAMES: [(&str, &str); 8] = [
        ("batch", "batch"),
        ("op_timeout", "opTimeoutMs"),
        ("max_wait", "maxWaitMs"),
        ("retry_after", "retryAfterMs"),
        ("max_ahead", "maxAheadMs"),
        ("counter_ttl_secs", "counterTtlSecs"),
        ("resume_after_ms", "resumeAfterMs"),
        ("redis", "urls"),
    ];
    rename_option(e, &NAMES)
}

/// A generator connected on napi-rs' tokio runtime; `close()` drops it.
#[napi]
pub struct NativeRedisSnowflake {
    gen: Mutex<Option<RedisSnowflake>>,
}

impl NativeRedisSnowflake {
    fn gen(&self) -> Result<RedisSnowflake> {
        let g = self.gen.lock().unwrap_or_else(|p| p.into_inner());
        g.clone().ok_or_else(|| {
            js_err(Error::Closed {
                what: "Redis snowflake generator".into(),
            })
        })
    }
}

/// A shard from JS: the core's shard or, outside `u64`, `u64::MAX`, which no layout's shard
/// field holds (`given` keeps the value for the core's error; 0, `Given::take`'s stand-in for a
/// negative value, is a valid shard).
fn shard_arg(given: &mut Given, shard: &Option<BigInt>) -> Result<Option<u64>> {
    let Some(s) = shard else { return Ok(None) };
    let w = wide("shard", s)?;
    Ok(Some(u64::try_from(w).unwrap_or_else(|_| {
        given.0.push(("shard", w));
        u64::MAX
    })))
}

#[napi]
impl NativeRedisSnowflake {
    /// A Promise of a generator on the servers `urls` (comma separated, in order).
    #[napi(catch_unwind)]
    pub fn connect(env: &Env, urls: String, options: RedisSnowflakeOptions) -> Result<RawValue> {
        let mut given = Given::default();
        let mut b = RedisSnowflake::builder().urls(&urls);
        if let Some(l) = &options.layout {
            b = b.layout(Layout::parse(l).map_err(js_err)?);
        }
        if let Some(t) = &options.tag {
            b = b.tag(t);
        }
        if let Some(p) = &options.prefix {
            b = b.prefix(p);
        }
        if let Some(s) = shard_arg(&mut given, &options.shard)? {
            b = b.shard(s);
        }
        if let Some(v) = &options.batch {
            b = b.batch(given.take("batch", wide("batch", v)?));
        }
        if let Some(v) = &options.counter_ttl_secs {
            let w = wide("counterTtlSecs", v)?;
            b = b.counter_ttl_secs(given.take("counter_ttl_secs", w));
        }
        if let Some(v) = &options.resume_after_ms {
            let w = wide("resumeAfterMs", v)?;
            b = b.resume_after_ms(given.take("resume_after_ms", w));
        }
        if let Some(v) = &options.op_timeout_ms {
            b = b.op_timeout(millis("opTimeoutMs", v)?);
        }
        if let Some(v) = &options.max_wait_ms {
            b = b.max_wait(millis("maxWaitMs", v)?);
        }
        if let Some(v) = &options.retry_after_ms {
            b = b.retry_after(millis("retryAfterMs", v)?);
        }
        if let Some(v) = &options.max_ahead_ms {
            b = b.max_ahead(millis("maxAheadMs", v)?);
        }
        if let Some(k) = &options.test_clock_key {
            b = b.test_clock_key(k);
        }
        promise(env, async move {
            match b.connect().await {
                Ok(gen) => Ok(NativeRedisSnowflake {
                    gen: Mutex::new(Some(gen)),
                }),
                Err(e) => Err(js_option_name(given.restore(e))),
            }
        })
    }

    /// The next ID of `shard` (the generator's own when absent) if the core holds one, never
    /// waiting; `would_block` otherwise (a run is then fetched in the background).
    #[napi(catch_unwind)]
    pub fn try_next_id(&self, shard: Option<BigInt>) -> Result<u64> {
        let mut given = Given::default();
        let shard = shard_arg(&mut given, &shard)?;
        let gen = self.gen()?;
        match shard {
            Some(s) => gen.try_next_id_for(s),
            None => gen.try_next_id(),
        }
        .map_err(|e| js_err(given.restore(e)))
    }

    /// A Promise of the next ID of `shard` (the generator's own when absent).
    #[napi(catch_unwind)]
    pub fn next_id_async(&self, env: &Env, shard: Option<BigInt>) -> Result<RawValue> {
        let mut given = Given::default();
        let shard = shard_arg(&mut given, &shard)?;
        let gen = self.gen()?;
        promise(env, async move {
            match shard {
                Some(s) => gen.next_id_for_async(s).await,
                None => gen.next_id_async().await,
            }
            .map_err(|e| given.restore(e))
        })
    }

    /// A Promise of `k` increasing IDs of `shard` (the generator's own when absent), bigints.
    #[napi(catch_unwind)]
    pub fn next_ids_async(&self, env: &Env, shard: Option<BigInt>, k: BigInt) -> Result<RawValue> {
        let mut given = Given::default();
        let shard = shard_arg(&mut given, &shard)?;
        let k = given.take("k", wide("k", &k)?);
        let gen = self.gen()?;
        promise(env, async move {
            match shard {
                Some(s) => gen.next_ids_for_async(s, k).await,
                None => gen.next_ids_async(k).await,
            }
            .map_err(|e| given.restore(e))
        })
    }

    /// The layout: its preset name when it is one, else its canonical spec.
    #[napi(getter, catch_unwind)]
    pub fn layout_spec(&self) -> Result<String> {
        let gen = self.gen()?;
        let l = gen.layout();
        Ok(l.preset_name().map_or_else(|| l.spec(), str::to_string))
    }

    /// The servers, in order, without credentials.
    #[napi(getter, catch_unwind)]
    pub fn servers(&self) -> Result<Vec<String>> {
        Ok(self.gen()?.servers())
    }

    /// `[roundTrips, nodeFailures]` (counters far below 2^53: exact as numbers).
    #[napi(catch_unwind)]
    pub fn stats(&self) -> Result<Vec<f64>> {
        let s = self.gen()?.stats();
        Ok(vec![s.round_trips as f64, s.node_failures as f64])
    }

    /// Drops the generator (its connections and buffered IDs); later calls fail with `closed`.
    /// Never blocks: a generator connected on napi-rs' runtime has no runtime of its own.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        let gen = self.gen.lock().unwrap_or_else(|p| p.into_inner()).take();
        drop(gen);
    }
}

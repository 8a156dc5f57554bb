//! Leases in Redis: a key per value, taken with an atomic check-and-set, renewed and released
//! only with the holder's token.
//!
//! # Keys (`P` is the prefix, default `idmint:lease`, in braces so all share a cluster slot)
//! - `{P}:w:{VALUE}`: a hash `token`, `holder`, `until` (unix ms, Redis's clock), with a
//!   `PEXPIRE` of TTL + freeze: the key outlives the holder's right by the freeze period, so
//!   an expired value stays taken (frozen) until the key itself goes.
//! - `{P}:f:{VALUE}`: the fence (`last_time_ms`), no expiry: it must outlive every holder.
//!
//! Each step is a Lua script (atomic on Redis's one thread). Redis must persist (`appendonly
//! yes`): a restart that loses the fence keys lets a new holder mint below an old one's IDs.

use std::collections::BTreeMap;

use redis::Script;

use super::{Grant, LeaseInfo, LeaseRequest, LeaseStore};
use crate::segment::{RedisStore, StoreFuture, StoreOptions};
use crate::Result;

// ARGV: prefix, first, last, prefer (-1: none), token, holder, ttl, freeze.
// Returns {value, fence} or false. The loop runs in Redis, so finding a free value among
// thousands is one round trip.
const ACQUIRE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local p, ttl, freeze = ARGV[1], tonumber(ARGV[7]), tonumber(ARGV[8])
local function try(v)
  local k = p .. ':w:' .. string.format('%.0f', v)
  if redis.call('EXISTS', k) == 1 then return nil end
  redis.call('HSET', k, 'token', ARGV[5], 'holder', ARGV[6], 'until', string.format('%.0f', now + ttl))
  redis.call('PEXPIRE', k, ttl + freeze)
  return {v, redis.call('GET', p .. ':f:' .. string.format('%.0f', v)) or '0'}
end
local prefer = tonumber(ARGV[4])
if prefer >= 0 then
  local r = try(prefer)
  if r then return r end
end
for v = tonumber(ARGV[2]), tonumber(ARGV[3]) do
  local r = try(v)
  if r then return r end
end
return false
";

// ARGV: prefix, value, token, ttl, freeze, fence. Returns 1 if held (and renewed), else 0.
const RENEW: &str = r"
local k = ARGV[1] .. ':w:' .. ARGV[2]
if redis.call('HGET', k, 'token') ~= ARGV[3] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', k, 'until', string.format('%.0f', now + tonumber(ARGV[4])))
redis.call('PEXPIRE', k, tonumber(ARGV[4]) + tonumber(ARGV[5]))
local f = ARGV[1] .. ':f:' .. ARGV[2]
if tonumber(redis.call('GET', f) or '0') < tonumber(ARGV[6]) then redis.call('SET', f, ARGV[6]) end
return 1
";

// ARGV: prefix, value, token, fence. Returns 1 if it was held.
const RELEASE: &str = r"
local k = ARGV[1] .. ':w:' .. ARGV[2]
if redis.call('HGET', k, 'token') ~= ARGV[3] then return 0 end
redis.call('DEL', k)
redis.call('SET', ARGV[1] .. ':f:' .. ARGV[2], ARGV[4])
return 1
";

/// A lease store in Redis (feature `redis`): `redis://host:port[/db]`, keys under `?prefix=…`
/// (default `idmint:lease`).
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::lease::RedisLeaseStore;
/// use idmint_core::segment::StoreOptions;
/// let store = RedisLeaseStore::connect("redis://127.0.0.1:6379", &StoreOptions::default().redis_prefix("app:lease")?).await?;
/// # Ok(()) }
/// ```
pub struct RedisLeaseStore {
    redis: RedisStore,
    prefix: String,
    acquire: Script,
    renew: Script,
    release: Script,
}

impl std::fmt::Debug for RedisLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLeaseStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisLeaseStore {
    /// Connects (one multiplexed connection, re-opened after a failure).
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::RedisLeaseStore;
    /// let store = RedisLeaseStore::connect("redis://127.0.0.1:6379", &Default::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<RedisLeaseStore> {
        Ok(RedisLeaseStore {
            redis: RedisStore::connect(url, opts).await?,
            prefix: format!("{{{}}}", opts.redis_prefix),
            acquire: Script::new(ACQUIRE),
            renew: Script::new(RENEW),
            release: Script::new(RELEASE),
        })
    }

    /// The key holding the lease of `value`.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::RedisLeaseStore;
    /// use idmint_core::segment::StoreOptions;
    /// let opts = StoreOptions::default().redis_prefix("idmint:lease")?;
    /// let store = RedisLeaseStore::connect("redis://127.0.0.1:6379", &opts).await?;
    /// assert_eq!(store.lease_key(7), "{idmint:lease}:w:7");
    /// # Ok(()) }
    /// ```
    pub fn lease_key(&self, value: u64) -> String {
        format!("{}:w:{value}", self.prefix)
    }
}

impl LeaseStore for RedisLeaseStore {
    fn describe(&self) -> String {
        crate::segment::SegmentStore::describe(&self.redis)
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            let mut inv = self.acquire.prepare_invoke();
            inv.key(self.lease_key(req.first))
                .arg(&self.prefix)
                .arg(req.first)
                .arg(req.last)
                .arg(req.prefer.map_or(-1, |v| v as i64))
                .arg(&req.token)
                .arg(&req.holder)
                .arg(req.ttl_ms)
                .arg(req.freeze_ms);
            let got: Option<(u64, String)> = self.redis.run("leasing", &inv).await?;
            Ok(got.map(|(value, fence)| Grant {
                value,
                fence_ms: fence.parse().unwrap_or(0),
            }))
        })
    }

    fn renew<'a>(
        &'a self,
        value: u64,
        token: &'a str,
        ttl_ms: u64,
        freeze_ms: u64,
        fence_ms: u64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut inv = self.renew.prepare_invoke();
            inv.key(self.lease_key(value))
                .arg(&self.prefix)
                .arg(value)
                .arg(token)
                .arg(ttl_ms)
                .arg(freeze_ms)
                .arg(fence_ms);
            let held: i64 = self.redis.run("renewing", &inv).await?;
            Ok(held == 1)
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut inv = self.release.prepare_invoke();
            inv.key(self.lease_key(value))
                .arg(&self.prefix)
                .arg(value)
                .arg(token)
                .arg(fence_ms);
            let held: i64 = self.redis.run("releasing", &inv).await?;
            Ok(held == 1)
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(async move {
            let mut found: BTreeMap<u64, LeaseInfo> = BTreeMap::new();
            let (secs, micros): (u64, u64) = self.redis.cmd("listing", &redis::cmd("TIME")).await?;
            let now = (secs * 1000 + micros / 1000) as i64;
            for kind in ["w", "f"] {
                let mut cursor = 0u64;
                loop {
                    let (next, keys): (u64, Vec<String>) = self
                        .redis
                        .cmd(
                            "listing",
                            redis::cmd("SCAN")
                                .arg(cursor)
                                .arg("MATCH")
                                .arg(format!("{}:{kind}:*", self.prefix))
                                .arg("COUNT")
                                .arg(1000),
                        )
                        .await?;
                    for key in keys {
                        let Some(value) = key.rsplit(':').next().and_then(|v| v.parse().ok())
                        else {
                            continue;
                        };
                        let info = found.entry(value).or_insert_with(|| LeaseInfo {
                            value,
                            holder: String::new(),
                            expires_in_ms: 0,
                            free_in_ms: 0,
                            last_time_ms: 0,
                        });
                        if kind == "f" {
                            let f: Option<u64> = self
                                .redis
                                .cmd("listing", redis::cmd("GET").arg(&key))
                                .await?;
                            info.last_time_ms = f.unwrap_or(0);
                        } else {
                            let (holder, until): (Option<String>, Option<i64>) = self
                                .redis
                                .cmd(
                                    "listing",
                                    redis::cmd("HMGET").arg(&key).arg("holder").arg("until"),
                                )
                                .await?;
                            let pttl: i64 = self
                                .redis
                                .cmd("listing", redis::cmd("PTTL").arg(&key))
                                .await?;
                            info.holder = holder.unwrap_or_default();
                            info.expires_in_ms = until.map_or(0, |u| u - now);
                            info.free_in_ms = pttl.max(0);
                        }
                    }
                    cursor = next;
                    if cursor == 0 {
                        break;
                    }
                }
            }
            Ok(found.into_values().collect())
        })
    }
}

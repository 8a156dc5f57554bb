//! Leases in Redis: one hash per prefix holding every value's lease and fence, taken with an
//! atomic check-and-set, renewed and released only with the holder's token.
//!
//! # Keys (`P` is the prefix, default `idmint:lease`)
//! - `{P}:leases`, a hash with, per value `V`: `t:V` (token), `h:V` (holder), `u:V` (until:
//!   the holder's right ends, unix ms of Redis's clock), `x:V` (free at: until + the freeze
//!   period; the value stays taken, frozen, until then) and `f:V`, the fence
//!   (`last_time_ms`), which outlives every holder. Expiry is read against Redis's `TIME`.
//!
//! One key, so each script declares the only key it touches in `KEYS`, and the store runs on a
//! Redis Cluster as on one server. Each step is a Lua script (atomic on Redis's one thread).
//! Redis must persist (`appendonly yes`): a restart that loses the fences lets a new holder
//! mint below an old one's IDs.
//!
//! # Upgrading from the key-per-value format
//!
//! Earlier versions kept `{P}:w:V` (a hash per held value, with a `PEXPIRE`) and `{P}:f:V`
//! (the fence). On its first connect to a store without the field `{P}:leases` → `v`, a
//! client moves those keys into the hash (a fence only ever grows; a live lease keeps its
//! holder and its remaining time) and deletes them. A client of an earlier version still
//! running then loses its lease at its next renewal (its key is gone), and so stops minting;
//! stop those before starting new ones, since an old client that acquires afterwards does not
//! see the hash.

use std::collections::BTreeMap;

use std::time::Duration;

use super::cas::parse_fence;
use super::store::{Grant, LeaseInfo, LeaseRequest, LeaseStore, DEFAULT_LEASE_PREFIX};
use crate::error::quoted;
use crate::store::{Lua, RedisConn, StoreFuture, StoreOptions, Topology, Use};
use crate::{Error, Result};

// The clock of every script: Redis's own, in unix ms.
macro_rules! now_ms {
    () => {
        "local t = redis.call('TIME')\nlocal now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    };
}

// KEYS: the hash. ARGV: first, last, prefer (-1: none), token, holder, ttl, freeze.
// Returns {value, fence} or false. The loop runs in Redis, so finding a free value among
// thousands is one round trip. A free value whose fence is not a whole number is not taken:
// its {value, fence} comes back as it is, and the client refuses it as damaged.
const ACQUIRE: &str = concat!(
    now_ms!(),
    r"
local h, ttl, freeze = KEYS[1], tonumber(ARGV[6]), tonumber(ARGV[7])
local function try(v)
  local s = string.format('%.0f', v)
  local x = redis.call('HGET', h, 'x:' .. s)
  if x and tonumber(x) > now then return nil end
  local f = redis.call('HGET', h, 'f:' .. s) or '0'
  if not string.match(f, '^%d+$') then return {v, f} end
  redis.call('HSET', h, 't:' .. s, ARGV[4], 'h:' .. s, ARGV[5],
    'u:' .. s, string.format('%.0f', now + ttl), 'x:' .. s, string.format('%.0f', now + ttl + freeze))
  return {v, f}
end
local prefer = tonumber(ARGV[3])
if prefer >= 0 then
  local r = try(prefer)
  if r then return r end
end
for v = tonumber(ARGV[1]), tonumber(ARGV[2]) do
  local r = try(v)
  if r then return r end
end
return false
"
);

// A renewal only raises the fence (a late renewal never lowers it); RELEASE sets it.
// KEYS: the hash. ARGV: value, token, ttl, freeze, fence. Returns 1 if held (and renewed).
const RENEW: &str = concat!(
    now_ms!(),
    r"
local h, v = KEYS[1], ARGV[1]
local x = redis.call('HGET', h, 'x:' .. v)
if redis.call('HGET', h, 't:' .. v) ~= ARGV[2] or not x or tonumber(x) <= now then return 0 end
redis.call('HSET', h, 'u:' .. v, string.format('%.0f', now + tonumber(ARGV[3])),
  'x:' .. v, string.format('%.0f', now + tonumber(ARGV[3]) + tonumber(ARGV[4])))
if tonumber(redis.call('HGET', h, 'f:' .. v) or '0') < tonumber(ARGV[5]) then
  redis.call('HSET', h, 'f:' .. v, ARGV[5])
end
return 1
"
);

// KEYS: the hash. ARGV: value, token, fence. Returns 1 if it was held.
const RELEASE: &str = concat!(
    now_ms!(),
    r"
local h, v = KEYS[1], ARGV[1]
local x = redis.call('HGET', h, 'x:' .. v)
if redis.call('HGET', h, 't:' .. v) ~= ARGV[2] or not x or tonumber(x) <= now then return 0 end
redis.call('HDEL', h, 't:' .. v, 'h:' .. v, 'u:' .. v, 'x:' .. v)
-- The holder's last issued time, even below the fence its renewals wrote ahead of the clock:
-- the holder (its token, its lease unexpired) has stopped minting, and a fence left ahead
-- would hold the next holder's first IDs back for up to a TTL.
redis.call('HSET', h, 'f:' .. v, string.format('%.0f', tonumber(ARGV[3])))
return 1
"
);

// One key of the earlier format into the hash, then deleted.
// KEYS: the hash, the old key. ARGV: 'w' or 'f', value.
const MIGRATE: &str = concat!(
    now_ms!(),
    r"
local h, v = KEYS[1], ARGV[2]
if ARGV[1] == 'f' then
  local old = redis.call('GET', KEYS[2])
  if old and tonumber(redis.call('HGET', h, 'f:' .. v) or '0') < tonumber(old) then
    redis.call('HSET', h, 'f:' .. v, old)
  end
else
  local left = redis.call('PTTL', KEYS[2])
  local w = redis.call('HMGET', KEYS[2], 'token', 'holder', 'until')
  local x = now + left
  if left > 0 and w[1] and tonumber(redis.call('HGET', h, 'x:' .. v) or '0') < x then
    redis.call('HSET', h, 't:' .. v, w[1], 'h:' .. v, w[2] or '', 'u:' .. v, w[3] or string.format('%.0f', now),
      'x:' .. v, string.format('%.0f', x))
  end
end
redis.call('DEL', KEYS[2])
return 1
"
);

// KEYS: the hash. Marks the store as moved to the hash format.
const MIGRATED: &str = r"
redis.call('HSET', KEYS[1], 'v', '2')
return 1
";

/// A lease store in Redis (feature `redis`): `redis://host:port[/db]` (and the Sentinel and
/// Cluster URLs of the segment stores), keys under the options' or the URL's `?prefix=…`, by
/// default [`DEFAULT_LEASE_PREFIX`] (`idmint:lease`).
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::lease::{RedisLeaseStore, StoreOptions};
/// let store = RedisLeaseStore::connect("redis://127.0.0.1:6379", &StoreOptions::default().key_prefix("app:lease")?).await?;
/// assert_eq!(store.leases_key(), "{app:lease}:leases");
/// # Ok(()) }
/// ```
pub struct RedisLeaseStore {
    /// The connection: leases need no more of Redis than this (no segment store, none of its
    /// scripts).
    conn: RedisConn,
    /// `{prefix}`: in braces, so every key of the store shares one Cluster slot.
    prefix: String,
    acquire: Lua,
    renew: Lua,
    release: Lua,
}

impl std::fmt::Debug for RedisLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLeaseStore")
            .field("store", &self.conn.describe())
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisLeaseStore {
    /// Connects (one multiplexed connection, re-opened after a failure); keys under the
    /// options' prefix, or [`DEFAULT_LEASE_PREFIX`] when they name none (as
    /// `Default::default()` does).
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::RedisLeaseStore;
    /// let store = RedisLeaseStore::connect("redis://127.0.0.1:6379", &Default::default()).await?;
    /// assert_eq!(store.leases_key(), "{idmint:lease}:leases");
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<RedisLeaseStore> {
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for leases, as `open_lease_store` does.
        let (opts, url) = opts.for_url(url, Use::Leases)?;
        let (opts, url) = (&opts, url.as_str());
        let store = RedisLeaseStore {
            conn: RedisConn::open(url, Duration::from_secs(2))?,
            prefix: format!("{{{}}}", opts.key_prefix_or(DEFAULT_LEASE_PREFIX)),
            acquire: Lua::new(ACQUIRE),
            renew: Lua::new(RENEW),
            release: Lua::new(RELEASE),
        };
        // Fails here, not at the first lease, when Redis cannot be reached.
        store.conn.connection().await?;
        // A cluster never held the earlier format (its scripts could not run there), and its
        // keys are spread over nodes a SCAN of one would miss.
        if store.conn.topology() != Topology::Cluster {
            store.migrate().await?;
        }
        Ok(store)
    }

    /// The hash holding every lease and fence of the store.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::{RedisLeaseStore, StoreOptions};
    /// let opts = StoreOptions::default().key_prefix("app:lease")?;
    /// let store = RedisLeaseStore::connect("redis://127.0.0.1:6379", &opts).await?;
    /// assert_eq!(store.leases_key(), "{app:lease}:leases");
    /// # Ok(()) }
    /// ```
    pub fn leases_key(&self) -> String {
        format!("{}:leases", self.prefix)
    }

    /// Moves the keys of the earlier format into the hash, once (see the module's docs).
    async fn migrate(&self) -> Result<()> {
        let hash = self.leases_key();
        let done: Option<String> = self
            .conn
            .cmd("upgrading", redis::cmd("HGET").arg(&hash).arg("v"))
            .await?;
        if done.is_some() {
            return Ok(());
        }
        let (migrate, migrated) = (Lua::new(MIGRATE), Lua::new(MIGRATED));
        for kind in ["w", "f"] {
            let mut cursor = 0u64;
            loop {
                let (next, keys): (u64, Vec<String>) = self
                    .conn
                    .cmd(
                        "upgrading",
                        redis::cmd("SCAN")
                            .arg(cursor)
                            .arg("MATCH")
                            .arg(format!("{}:{kind}:*", self.prefix))
                            .arg("COUNT")
                            .arg(1000),
                    )
                    .await?;
                for key in keys {
                    let Some(value) = key.rsplit(':').next().filter(|v| v.parse::<u64>().is_ok())
                    else {
                        continue;
                    };
                    let mut call = migrate.call();
                    call.key(&hash).key(&key).arg(kind).arg(value);
                    let _: i64 = self.conn.run("upgrading", &call).await?;
                }
                cursor = next;
                if cursor == 0 {
                    break;
                }
            }
        }
        let mut call = migrated.call();
        call.key(&hash);
        let _: i64 = self.conn.run("upgrading", &call).await?;
        Ok(())
    }
}

impl RedisLeaseStore {
    /// The fence `text` of `value` says (none: 0). A field that holds no whole number is
    /// damaged, and refused: read as 0 it would let IDs repeat.
    fn fence(&self, value: u64, text: Option<&str>) -> Result<u64> {
        parse_fence(text.map(str::as_bytes)).ok_or_else(|| Error::StoreUnavailable {
            store: self.conn.describe().to_string(),
            reason: format!(
                "field `f:{value}` of `{}` does not hold what idmint writes (a fence, a whole \
                 number of ms) but {}: a damaged store, or another program's field",
                self.leases_key(),
                quoted(text.unwrap_or_default())
            ),
        })
    }
}

impl LeaseStore for RedisLeaseStore {
    fn describe(&self) -> String {
        self.conn.describe().to_string()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            let mut inv = self.acquire.call();
            inv.key(self.leases_key())
                .arg(req.first)
                .arg(req.last)
                .arg(req.prefer.map_or(-1, |v| v as i64))
                .arg(&req.token)
                .arg(&req.holder)
                .arg(req.ttl_ms)
                .arg(req.freeze_ms);
            let got: Option<(u64, String)> = self.conn.run("leasing", &inv).await?;
            got.map(|(value, fence)| {
                Ok(Grant {
                    value,
                    fence_ms: self.fence(value, Some(&fence))?,
                })
            })
            .transpose()
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
            let mut inv = self.renew.call();
            inv.key(self.leases_key())
                .arg(value)
                .arg(token)
                .arg(ttl_ms)
                .arg(freeze_ms)
                .arg(fence_ms);
            let held: i64 = self.conn.run("renewing", &inv).await?;
            Ok(held == 1)
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut inv = self.release.call();
            inv.key(self.leases_key())
                .arg(value)
                .arg(token)
                .arg(fence_ms);
            let held: i64 = self.conn.run("releasing", &inv).await?;
            Ok(held == 1)
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(async move {
            let (secs, micros): (u64, u64) = self.conn.cmd("listing", &redis::cmd("TIME")).await?;
            let now = (secs * 1000 + micros / 1000) as i64;
            let fields: std::collections::HashMap<String, String> = self
                .conn
                .cmd("listing", redis::cmd("HGETALL").arg(self.leases_key()))
                .await?;
            let get = |kind: &str, v: u64| fields.get(&format!("{kind}:{v}"));
            let num = |kind: &str, v: u64| get(kind, v).and_then(|s| s.parse::<i64>().ok());
            let fence = |v: u64| self.fence(v, get("f", v).map(String::as_str));
            let mut found: BTreeMap<u64, LeaseInfo> = BTreeMap::new();
            for name in fields.keys() {
                let Some((kind, value)) = name.split_once(':') else {
                    continue;
                };
                let Ok(value) = value.parse::<u64>() else {
                    continue;
                };
                let free_at = num("x", value).unwrap_or(0);
                // Like a key that expired: a value free again shows only its fence.
                if kind == "x" && free_at <= now && get("f", value).is_none() {
                    continue;
                }
                if found.contains_key(&value) || !matches!(kind, "x" | "f") {
                    continue;
                }
                let held = free_at > now;
                found.insert(
                    value,
                    LeaseInfo {
                        value,
                        holder: if held {
                            get("h", value).cloned().unwrap_or_default()
                        } else {
                            String::new()
                        },
                        expires_in_ms: if held {
                            num("u", value).map_or(0, |u| u - now)
                        } else {
                            0
                        },
                        free_in_ms: if held { free_at - now } else { 0 },
                        last_time_ms: fence(value)?,
                    },
                );
            }
            Ok(found.into_values().collect())
        })
    }
}

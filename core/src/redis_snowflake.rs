//! Snowflake IDs minted on Redis (feature `redis`): the scheme of redis-id-generator, without
//! its duplicates.
//!
//! A Lua script, loaded once per server and run with `EVALSHA` (loaded again after
//! `NOSCRIPT`), reads Redis's `TIME` and counts sequence numbers per *tag*, *shard* and
//! millisecond; the client composes IDs of a layout with exactly one node field, the shard
//! (`redis-lua` by default: `time 41 | shard 12 | sequence 10`, Unix epoch). Clients need no
//! worker ID and share the server's clock.
//!
//! # Keys (per tag and shard, `{prefix}` default `idmint:sf`)
//!
//! - `{prefix}:{TAG:SHARD}:seq`: a persistent hash, the state of the shard on this server: the
//!   last millisecond issued (`ms`), how many sequence numbers of it were issued (`used`), and
//!   the server's place (`residue`, `of`, checked on every mint).
//! - `{prefix}:{TAG:SHARD}:last`: the last millisecond this server issued, a persistent key
//!   (the format of earlier versions, kept). The script never issues a millisecond below it,
//!   and the last one again only when the state hash knows its count (not after an earlier
//!   version's `last`, which counted in keys per millisecond); so a Redis clock that steps
//!   back (a restart, a failover to a machine with an older clock) never reissues an ID. A
//!   clock behind it by up to `max_ahead` (1 s) goes on from it; further behind, that server
//!   refuses ([`Error::ClockMovedBackwards`]) and the client mints from its other servers.
//! - `{prefix}:node`: a hash recording the server's identity (`self`, random), its residue and
//!   the number of servers (`residue`, `of`) and the identities of the whole set (`members`).
//!
//! # Several servers
//!
//! Servers are given once, in order (`redis://a,redis://b,redis://c`): server `i` of `N`
//! issues only sequence numbers `s ≡ i (mod N)`, so the servers never issue the same ID and
//! each holds `1/N` of a millisecond's sequence. Each records its place in `{prefix}:node`
//! when a client first meets it; a client configured otherwise (the same server twice, a
//! reordered list, another server in a recorded place) is refused with
//! [`Error::InvalidArgument`], before it mints anything. Calls go round robin over the
//! servers, each bounded by `op_timeout`; a server that fails is skipped for `retry_after`
//! while the others go on minting.
//!
//! # Persistence and failover
//!
//! The `last` and `node` keys must survive a restart: run Redis with `appendonly yes`
//! (`appendfsync always` for no window at all; `everysec` loses up to a second of `last`
//! updates, safe while a restart takes longer than the clock step it could hide). Without
//! persistence a restart with a clock behind the last issued millisecond reissues IDs, as any
//! snowflake generator would.
//!
//! Both keys of a shard share the hash slot of `{TAG:SHARD}` and the script declares them, so
//! a server of the set may be a Redis Cluster or a master found through Sentinel
//! (`redis+cluster://h1:p1,h2:p2`, `redis+sentinel://s1:p1,s2:p2/MASTER`, one server of the
//! set each). There every mint waits for a replica (`WAIT`, `replicas=N` in the URL, default
//! 1): a mint a failover could lose is not used. On a plain primary with asynchronous replicas
//! (`replicas=0`, the default of `redis://`) a failover may lose the newest `last` updates as a
//! restart does: safe as long as the replica's clock reads later than the primary's last
//! issued millisecond when it takes over.
//!
//! # Guarantees
//!
//! IDs of a tag are unique across every client, process and server of the set; runs of one
//! call are increasing. Across calls and clients they are ordered only by time, roughly.
//! Different tags are different ID spaces (as in the original): the same ID may appear in two
//! tags. [`RedisSnowflake::next_id`] serves from a buffer filled by runs of `batch` IDs (100):
//! its IDs carry the time of their run.
//!
//! ```no_run
//! use idmint_core::RedisSnowflake;
//!
//! let gen = RedisSnowflake::builder()
//!     .urls("redis://10.0.0.1:6379,redis://10.0.0.2:6379,redis://10.0.0.3:6379")
//!     .tag("orders")
//!     .shard(53)
//!     .connect_blocking()?;
//! let id = gen.next_id()?;                 // from the buffer, a round trip per 100 IDs
//! let run = gen.next_ids(100)?;            // one round trip
//! let user_shard = gen.next_id_for(123_456_789 % 4096)?;  // the caller's shard
//! assert_eq!(gen.layout().decompose(id)?.node("shard"), Some(53));
//! # let _ = (run, user_shard);
//! # Ok::<(), idmint_core::Error>(())
//! ```

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime};

use crate::store::{background_runtime, describe_url, validate_tag, Lua, RedisConn};
use crate::{Error, Layout, Result};

/// The key prefix by default.
///
/// ```
/// assert_eq!(idmint_core::redis_snowflake::DEFAULT_PREFIX, "idmint:sf");
/// ```
pub const DEFAULT_PREFIX: &str = "idmint:sf";
/// The tag by default.
///
/// ```
/// assert_eq!(idmint_core::redis_snowflake::DEFAULT_TAG, "default");
/// ```
pub const DEFAULT_TAG: &str = "default";
/// The most IDs one call of [`RedisSnowflake::next_ids`] returns.
///
/// ```
/// assert_eq!(idmint_core::redis_snowflake::MAX_RUN, 1 << 20);
/// ```
pub const MAX_RUN: u64 = 1 << 20;
/// The most servers in a set.
///
/// ```
/// assert_eq!(idmint_core::redis_snowflake::MAX_NODES, 64);
/// ```
pub const MAX_NODES: usize = 64;

// KEYS: the last-ms key, the state hash (the count issued in the last millisecond, and the
// residue/servers of the server), [the test clock key]. All of one tag and shard, so they share
// the hash tag `{TAG:SHARD}` (one cluster slot), and every key is declared.
// ARGV: 1 count, 2 residue, 3 servers, 4 largest sequence value, 5 max_ahead (ms), 6 epoch
// (ms), 7 tick (ms), 8 resume after (unix ms; -1 = none): treated as a last millisecond issued.
// Replies {0, ms, first_seq, count, ms, first_seq, count, ...} (sequences step by the number
// of servers); {1, behind_ms} when the clock is too far behind the last issued millisecond;
// {3, residue, of} when the state records another place.
const MINT: &str = r"
local st = redis.call('HMGET', KEYS[2], 'ms', 'used', 'residue', 'of')
if st[3] and (st[3] ~= ARGV[2] or st[4] ~= ARGV[3]) then return {3, tonumber(st[3]), tonumber(st[4])} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if KEYS[3] then
  local fake = redis.call('GET', KEYS[3])
  if fake then now = tonumber(fake) end
end
local k, residue, n, smax = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local ahead, epoch, tick = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local per_tick = math.floor((smax - residue) / n) + 1
local cur = math.floor((now - epoch) / tick)
local limit = math.floor((now + ahead - epoch) / tick)
local lastk = -1
local last = redis.call('GET', KEYS[1])
if last then lastk = math.floor((tonumber(last) - epoch) / tick) end
local lastused = per_tick
if last and st[1] == last then lastused = tonumber(st[2]) end
local floor = tonumber(ARGV[8])
if floor >= 0 and math.floor((floor - epoch) / tick) > lastk then
  lastk = math.floor((floor - epoch) / tick)
  lastused = per_tick
end
if lastk > limit then return {1, epoch + lastk * tick - now} end
local tk = math.max(cur, lastk)
local out = {0}
local left = k
local top, topused = -1, 0
while left > 0 and tk <= limit do
  local used = 0
  if tk == lastk then used = lastused end
  if used < per_tick then
    local take = math.min(per_tick - used, left)
    out[#out + 1] = epoch + tk * tick
    out[#out + 1] = residue + used * n
    out[#out + 1] = take
    left = left - take
    top, topused = tk, used + take
  end
  if left > 0 then tk = tk + 1 end
end
if top >= 0 then
  local ms = string.format('%.0f', epoch + top * tick)
  redis.call('SET', KEYS[1], ms)
  redis.call('HSET', KEYS[2], 'ms', ms, 'used', topused, 'residue', ARGV[2], 'of', ARGV[3])
end
return out
";

// The last millisecond is issued again only when the state hash knows its count (its `ms`
// is the `last` key's): a `last` written by an earlier version (which counted in keys per
// millisecond), or a state lost, counts that millisecond as full, so the script moves past it;
// every earlier millisecond is below `last`.

// KEYS: node record. ARGV: a random identity, kept if the server has none yet.
const IDENT: &str = r"
redis.call('HSETNX', KEYS[1], 'self', ARGV[1])
return redis.call('HGET', KEYS[1], 'self')
";

// KEYS: node record. ARGV: residue, servers, members (identities in order, '-' unknown),
// write ('1') or only check. 'OK', or 'C…' (another place) / 'M…' (other members).
const CLAIM: &str = r"
local rec = redis.call('HMGET', KEYS[1], 'residue', 'of', 'members')
if not rec[1] then
  if ARGV[4] == '1' then
    redis.call('HSET', KEYS[1], 'residue', ARGV[1], 'of', ARGV[2], 'members', ARGV[3])
  end
  return 'OK'
end
if rec[1] ~= ARGV[1] or rec[2] ~= ARGV[2] then
  return 'C' .. rec[1] .. '/' .. rec[2] .. ' ' .. (rec[3] or '')
end
local mine, theirs = {}, {}
for id in string.gmatch(ARGV[3], '[^,]+') do mine[#mine + 1] = id end
for id in string.gmatch(rec[3] or '', '[^,]+') do theirs[#theirs + 1] = id end
for i = 1, #mine do
  local a, b = mine[i], theirs[i] or '-'
  if a ~= '-' and b ~= '-' and a ~= b then return 'M' .. (rec[3] or '') end
  if a == '-' then mine[i] = b end
end
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'members', table.concat(mine, ',')) end
return 'OK'
";

#[derive(Debug, Clone)]
struct Options {
    layout: Layout,
    tag: String,
    prefix: String,
    shard: Option<u64>,
    batch: u64,
    op_timeout: Duration,
    max_wait: Duration,
    retry_after: Duration,
    max_ahead: Duration,
    test_clock_key: Option<String>,
    resume_after_ms: Option<u64>,
}

/// Options of a [`RedisSnowflake`]; all but the servers have a default.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::{Layout, RedisSnowflake};
/// let builder = RedisSnowflake::builder()
///     .urls("redis://127.0.0.1:6379")
///     .layout(Layout::preset("redis-lua")?)
///     .tag("orders")
///     .shard(7)
///     .batch(500)
///     .op_timeout(Duration::from_millis(300));
/// # let _ = builder;
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[must_use]
pub struct RedisSnowflakeBuilder {
    urls: Vec<String>,
    opts: Options,
    error: Option<Error>,
}

fn invalid(name: &str, value: impl ToString, expected: impl Into<String>) -> Error {
    Error::InvalidArgument {
        name: name.into(),
        value: value.to_string(),
        expected: expected.into(),
    }
}

impl RedisSnowflakeBuilder {
    fn fail(mut self, err: Error) -> Self {
        self.error.get_or_insert(err);
        self
    }

    /// The servers, comma separated, in order: `redis://a:6379,redis://b:6379`. The position
    /// is each server's residue; every client of the set must list the same servers in the
    /// same order (a client that does not is refused). Adds to servers given before.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().urls("redis://a:6379,redis://b:6379");
    /// // One Cluster (or Sentinel) URL is one server of the set, whatever its own commas.
    /// let _c = idmint_core::RedisSnowflake::builder().urls("redis+cluster://a:7000,b:7001,c:7002");
    /// ```
    pub fn urls(mut self, urls: &str) -> Self {
        let mut joined: Vec<String> = Vec::new();
        for piece in urls.split(',').map(str::trim).filter(|u| !u.is_empty()) {
            // A Sentinel or Cluster URL lists its hosts with commas too: a piece without a
            // scheme is the previous URL's next host.
            match joined.last_mut() {
                Some(prev) if !piece.contains("://") => {
                    prev.push(',');
                    prev.push_str(piece);
                }
                _ => joined.push(piece.to_string()),
            }
        }
        self.urls.extend(joined);
        self
    }

    /// One more server, after those given before.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().url("redis://a:6379").url("redis://b:6379");
    /// ```
    pub fn url(mut self, url: &str) -> Self {
        self.urls.push(url.to_string());
        self
    }

    /// The layout (default `redis-lua`): exactly one node field, the shard, and a tick of
    /// whole milliseconds.
    ///
    /// ```
    /// use idmint_core::{Layout, RedisSnowflake};
    /// let _b = RedisSnowflake::builder().layout(Layout::parse("time:41,shard:10,sequence:12")?);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn layout(mut self, layout: Layout) -> Self {
        self.opts.layout = layout;
        self
    }

    /// The tag (default `default`): each tag is its own ID space, as in redis-id-generator.
    /// 1-128 characters of `A-Z a-z 0-9 _ . : -`.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().tag("orders");
    /// ```
    pub fn tag(mut self, tag: &str) -> Self {
        if let Err(e) = validate_tag(tag) {
            return self.fail(e);
        }
        self.opts.tag = tag.to_string();
        self
    }

    /// The key prefix (default `idmint:sf`), as a tag, at most 64 characters.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().prefix("app:ids");
    /// ```
    pub fn prefix(mut self, prefix: &str) -> Self {
        if let Err(e) = validate_tag(prefix) {
            return self.fail(e);
        }
        if prefix.len() > 64 {
            return self.fail(invalid("prefix", prefix, "at most 64 characters"));
        }
        self.opts.prefix = prefix.to_string();
        self
    }

    /// The shard of [`next_id`](RedisSnowflake::next_id) and
    /// [`next_ids`](RedisSnowflake::next_ids) (0..=the shard field's largest value). Without
    /// it those fail, and only the `_for(shard)` calls mint.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().shard(53);
    /// ```
    pub fn shard(mut self, shard: u64) -> Self {
        self.opts.shard = Some(shard);
        self
    }

    /// IDs fetched per round trip to fill [`next_id`](RedisSnowflake::next_id)'s buffer,
    /// 1..=2^20 (default 100). Buffered IDs carry the time of their round trip.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().batch(1000);
    /// ```
    pub fn batch(mut self, batch: u64) -> Self {
        if !(1..=MAX_RUN).contains(&batch) {
            return self.fail(invalid("batch", batch, format!("1..={MAX_RUN}")));
        }
        self.opts.batch = batch;
        self
    }

    /// The longest one call to one server may take (default 1 s): then the client tries the
    /// next server.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().op_timeout(std::time::Duration::from_millis(200));
    /// ```
    pub fn op_timeout(mut self, timeout: Duration) -> Self {
        if timeout.is_zero() {
            return self.fail(invalid("op_timeout", "0 ms", "a positive duration"));
        }
        self.opts.op_timeout = timeout;
        self
    }

    /// The longest a call waits, over every server and retry, before it fails (default 3 s).
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().max_wait(std::time::Duration::from_secs(1));
    /// ```
    pub fn max_wait(mut self, wait: Duration) -> Self {
        self.opts.max_wait = wait;
        self
    }

    /// How long a server that failed is skipped while others answer (default 1 s).
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().retry_after(std::time::Duration::from_millis(200));
    /// ```
    pub fn retry_after(mut self, after: Duration) -> Self {
        self.opts.retry_after = after;
        self
    }

    /// How far past a server's clock its IDs may carry (default 1 s, at most 60 s): a full
    /// millisecond moves on to the next, and a clock that stepped back by less goes on from
    /// the last issued millisecond. A clock further behind makes that server refuse.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().max_ahead(std::time::Duration::from_millis(100));
    /// ```
    pub fn max_ahead(mut self, ahead: Duration) -> Self {
        if ahead > Duration::from_secs(60) {
            return self.fail(invalid(
                "max_ahead",
                format!("{} ms", ahead.as_millis()),
                "0..=60000 ms",
            ));
        }
        self.opts.max_ahead = ahead;
        self
    }

    /// No longer used, still checked (2..=3600) so existing configurations keep building:
    /// earlier versions counted each millisecond in a key of its own that lived this long; the
    /// count of the last millisecond now lives, persistent, in one state key per tag and shard
    /// (see [the module](crate::redis_snowflake)).
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().counter_ttl_secs(30);
    /// ```
    pub fn counter_ttl_secs(self, secs: u64) -> Self {
        if !(2..=3600).contains(&secs) {
            return self.fail(invalid("counter_ttl_secs", secs, "2..=3600"));
        }
        self
    }

    /// Never issue an ID of this millisecond (unix) or an earlier one, as if it were the last
    /// one issued: for moving in from another generator of the same layout (e.g. the
    /// redis-id-generator script) without a gap in time, give the time of its last ID. A
    /// server's own last millisecond counts when it is later.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().resume_after_ms(1_795_000_000_000);
    /// ```
    pub fn resume_after_ms(mut self, ms: u64) -> Self {
        if ms > i64::MAX as u64 {
            return self.fail(invalid("resume_after_ms", ms, format!("0..={}", i64::MAX)));
        }
        self.opts.resume_after_ms = Some(ms);
        self
    }

    /// **For tests only**: the script reads its time (unix ms) from this key when it holds a
    /// value, instead of Redis's `TIME`, so a test can step a server's clock back. Never set
    /// it in production: a key anyone can write would be the clock.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder().test_clock_key("test:clock");
    /// ```
    pub fn test_clock_key(mut self, key: &str) -> Self {
        if let Err(e) = validate_tag(key) {
            return self.fail(e);
        }
        self.opts.test_clock_key = Some(key.to_string());
        self
    }

    fn check(&mut self) -> Result<(String, u32)> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.urls.is_empty() || self.urls.len() > MAX_NODES {
            return Err(invalid(
                "redis",
                self.urls.len(),
                format!("1..={MAX_NODES} Redis URLs (redis://host:port, comma separated)"),
            ));
        }
        let layout = &self.opts.layout;
        // A 64-bit layout mints IDs that are negative as a Java long or SQL BIGINT from 2^63
        // on; Snowflake mints them only when asked (SnowflakeBuilder::unsigned), and minting on
        // Redis has no such opt-in, so it refuses them.
        if layout.total_bits() > 63 {
            return Err(Error::InvalidLayout {
                spec: layout.spec(),
                reason: format!(
                    "it takes {} bits; minting on Redis takes layouts of at most 63 bits, whose \
                     IDs are positive as a Java long or SQL BIGINT",
                    layout.total_bits()
                ),
            });
        }
        let nodes: Vec<_> = layout.node_fields().collect();
        if nodes.len() != 1 {
            return Err(Error::InvalidLayout {
                spec: layout.spec(),
                reason: format!(
                    "a Redis-minted layout has exactly one node field, the shard; this one has {}",
                    nodes.len()
                ),
            });
        }
        let field = nodes[0].name().to_string();
        if let Some(shard) = self.opts.shard {
            if shard > nodes[0].max() {
                return Err(Error::ValueOutOfRange {
                    field,
                    value: shard as i128,
                    max: nodes[0].max(),
                });
            }
        }
        let seq_values = layout.sequence_field().max() + 1;
        if (self.urls.len() as u64) > seq_values {
            return Err(invalid(
                "redis",
                format!("{} servers", self.urls.len()),
                format!("at most {seq_values}, the layout's sequence values per tick"),
            ));
        }
        Ok((field, self.urls.len() as u32))
    }

    fn finish(
        mut self,
        handle: Handle,
        runtime: Option<Runtime>,
    ) -> Result<(RedisSnowflake, Arc<Inner>)> {
        let (field, n) = self.check()?;
        let nodes = self
            .urls
            .iter()
            .enumerate()
            .map(|(i, url)| {
                Ok(Node {
                    conn: RedisConn::open(url, self.opts.op_timeout)?,
                    residue: i as u64,
                    verified: AtomicBool::new(false),
                    refused: Mutex::new(None),
                    down_until: Mutex::new(None),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let inner = Arc::new(Inner {
            describe: nodes
                .iter()
                .map(|n| n.conn.describe())
                .collect::<Vec<_>>()
                .join(","),
            identities: Mutex::new(vec![None; nodes.len()]),
            nodes,
            n,
            shard_field: field,
            node_key: format!("{}:node", self.opts.prefix),
            opts: self.opts,
            next_node: AtomicUsize::new(0),
            buffers: Mutex::new(HashMap::new()),
            filling: Mutex::new(std::collections::HashSet::new()),
            mint: Lua::new(MINT),
            ident: Lua::new(IDENT),
            claim: Lua::new(CLAIM),
            round_trips: AtomicU64::new(0),
            node_failures: AtomicU64::new(0),
            born: crate::fork::watch(),
        });
        let gen = RedisSnowflake {
            _runtime: runtime.map(|rt| {
                Arc::new(OwnedRuntime {
                    runtime: Some(rt),
                    born: inner.born,
                })
            }),
            inner: Arc::clone(&inner),
            handle,
        };
        Ok((gen, inner))
    }

    /// Connects with a runtime of its own (one worker thread) for callers without tokio:
    /// meets every server, checks its place in the set (refusing a client configured
    /// otherwise) and records it. Servers down now are checked when they come back; at least
    /// one must answer.
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder()
    ///     .urls("redis://127.0.0.1:6379").shard(1).connect_blocking()?;
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn connect_blocking(self) -> Result<RedisSnowflake> {
        let rt = background_runtime("idmint-redis-snowflake")?;
        let handle = rt.handle().clone();
        let (gen, inner) = self.finish(handle, Some(rt))?;
        gen.block(async move { inner.verify_all().await })?;
        Ok(gen)
    }

    /// [`connect_blocking`](RedisSnowflakeBuilder::connect_blocking) on the caller's tokio
    /// runtime (multi-threaded, time and I/O enabled).
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// let gen = idmint_core::RedisSnowflake::builder()
    ///     .urls("redis://127.0.0.1:6379").shard(1).connect().await?;
    /// let id = gen.next_id_async().await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(self) -> Result<RedisSnowflake> {
        let (gen, inner) = self.finish(Handle::current(), None)?;
        inner.verify_all().await?;
        Ok(gen)
    }
}

struct Node {
    conn: RedisConn,
    residue: u64,
    verified: AtomicBool,
    /// Set when the server records another place: it is never used by this client.
    refused: Mutex<Option<Error>>,
    down_until: Mutex<Option<Instant>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Node {
    fn is_down(&self, now: Instant) -> bool {
        lock(&self.down_until).is_some_and(|t| now < t)
    }
}

struct Inner {
    nodes: Vec<Node>,
    n: u32,
    describe: String,
    shard_field: String,
    node_key: String,
    opts: Options,
    identities: Mutex<Vec<Option<String>>>,
    next_node: AtomicUsize,
    buffers: Mutex<HashMap<u64, VecDeque<u64>>>,
    /// Shards whose buffer a `try_next_id_for` is filling in the background (one fill each).
    filling: Mutex<std::collections::HashSet<u64>>,
    mint: Lua,
    ident: Lua,
    claim: Lua,
    round_trips: AtomicU64,
    node_failures: AtomicU64,
    born: u64,
}

/// Counters of a [`RedisSnowflake`].
///
/// ```no_run
/// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").shard(1).connect_blocking()?;
/// gen.next_id()?;
/// assert_eq!(gen.stats().round_trips, 1);
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RedisSnowflakeStats {
    /// Mint calls that reached a server and returned.
    pub round_trips: u64,
    /// Calls to a server that failed (timeout, connection, clock behind), each moving on to
    /// the next server.
    pub node_failures: u64,
}

impl Inner {
    fn random_identity() -> String {
        let mut b = [0u8; 8];
        if getrandom::fill(&mut b).is_err() {
            // Identities only tell servers apart; the clock and address are enough when the
            // OS has no random source.
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            b = (t ^ std::process::id() as u64).to_le_bytes();
        }
        hex::encode(b)
    }

    async fn timed<T>(
        &self,
        node: &Node,
        what: &str,
        fut: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        match tokio::time::timeout(self.opts.op_timeout, fut).await {
            Ok(r) => r,
            Err(_) => {
                node.conn.drop_connection().await;
                Err(Error::StoreUnavailable {
                    store: node.conn.describe().to_string(),
                    reason: format!(
                        "{what}: no answer within {} ms",
                        self.opts.op_timeout.as_millis()
                    ),
                })
            }
        }
    }

    async fn identity(&self, node: &Node) -> Result<String> {
        let mut inv = self.ident.call();
        inv.key(&self.node_key).arg(Self::random_identity());
        let id: String = self
            .timed(
                node,
                "reading the node record",
                node.conn.run("reading the node record", &inv),
            )
            .await?;
        Ok(id)
    }

    fn conflict(&self, node: &Node, recorded: &str) -> Error {
        invalid(
            "redis",
            format!(
                "{} at position {} of {}",
                node.conn.describe(),
                node.residue,
                self.n
            ),
            format!(
                "the place this server recorded for prefix `{}` (residue/servers and the set's server identities: {recorded}); \
                 every client must list the same servers in the same order, each server once",
                self.opts.prefix
            ),
        )
    }

    /// Checks (`write` false) or records (`write` true) a server's place in the set.
    async fn claim(&self, node: &Node, members: &str, write: bool) -> Result<()> {
        let mut inv = self.claim.call();
        inv.key(&self.node_key)
            .arg(node.residue)
            .arg(self.n)
            .arg(members)
            .arg(if write { "1" } else { "0" });
        let reply: String = self
            .timed(
                node,
                "checking the node record",
                node.conn.run("checking the node record", &inv),
            )
            .await?;
        if reply == "OK" {
            return Ok(());
        }
        let err = self.conflict(node, reply.get(1..).unwrap_or(""));
        *lock(&node.refused) = Some(err.clone());
        Err(err)
    }

    fn members(&self) -> String {
        lock(&self.identities)
            .iter()
            .map(|id| id.as_deref().unwrap_or("-"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Records a server's identity; the same server listed twice is refused.
    fn learn_identity(&self, node: &Node, id: String) -> Result<()> {
        let mut ids = lock(&self.identities);
        if let Some(other) = ids
            .iter()
            .position(|known| known.as_deref() == Some(id.as_str()))
            .filter(|&p| p as u64 != node.residue)
        {
            let err = invalid(
                "redis",
                self.describe.clone(),
                format!(
                    "each server once: positions {other} and {} are the same Redis server (identity {id})",
                    node.residue
                ),
            );
            *lock(&node.refused) = Some(err.clone());
            return Err(err);
        }
        ids[node.residue as usize] = Some(id);
        Ok(())
    }

    /// At connect: the identities of every server that answers, then every place checked
    /// before any is recorded, so a refused client leaves no record behind.
    async fn verify_all(&self) -> Result<()> {
        let mut reached = Vec::new();
        let mut errors = Vec::new();
        for node in &self.nodes {
            match self.identity(node).await {
                Ok(id) => {
                    self.learn_identity(node, id)?;
                    reached.push(node);
                }
                Err(e) => {
                    self.mark_down(node);
                    errors.push(e.to_string());
                }
            }
        }
        if reached.is_empty() {
            return Err(Error::StoreUnavailable {
                store: self.describe.clone(),
                reason: format!("no server answered: {}", errors.join("; ")),
            });
        }
        let members = self.members();
        let mut checked = Vec::new();
        for node in reached {
            match self.claim(node, &members, false).await {
                Ok(()) => checked.push(node),
                // Gone between the two calls: checked when it answers again.
                Err(Error::StoreUnavailable { .. }) => self.mark_down(node),
                Err(e) => return Err(e),
            }
        }
        for node in checked {
            match self.claim(node, &members, true).await {
                Ok(()) => node.verified.store(true, Ordering::Release),
                Err(Error::StoreUnavailable { .. }) => self.mark_down(node),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// A server met after connect (it was down then, or lost its record): checked and
    /// recorded before it mints.
    async fn verify(&self, node: &Node) -> Result<()> {
        let id = self.identity(node).await?;
        self.learn_identity(node, id)?;
        let members = self.members();
        self.claim(node, &members, true).await?;
        node.verified.store(true, Ordering::Release);
        Ok(())
    }

    fn mark_down(&self, node: &Node) {
        self.node_failures.fetch_add(1, Ordering::Relaxed);
        *lock(&node.down_until) = Some(Instant::now() + self.opts.retry_after);
    }

    /// The keys of a tag's shard: the last millisecond issued and the state hash.
    fn shard_keys(&self, shard: u64) -> (String, String) {
        let base = format!("{}:{{{}:{shard}}}", self.opts.prefix, self.opts.tag);
        (format!("{base}:last"), format!("{base}:seq"))
    }

    async fn mint_once(&self, node: &Node, shard: u64, k: u64) -> Result<Vec<u64>> {
        let layout = &self.opts.layout;
        let (last_key, state_key) = self.shard_keys(shard);
        let mut inv = self.mint.call();
        inv.key(&last_key).key(&state_key);
        if let Some(clock) = &self.opts.test_clock_key {
            inv.key(clock);
        }
        inv.arg(k)
            .arg(node.residue)
            .arg(self.n)
            .arg(layout.sequence_field().max())
            .arg(self.opts.max_ahead.as_millis() as u64)
            .arg(layout.epoch_ms())
            .arg(layout.tick_ms())
            .arg(self.opts.resume_after_ms.map_or(-1, |ms| ms as i64));
        let reply: Vec<i64> = self
            .timed(node, "minting", node.conn.run("minting", &inv))
            .await?;
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        match reply.first() {
            Some(0) => {}
            Some(1) => {
                return Err(Error::ClockMovedBackwards {
                    behind_ms: reply.get(1).copied().unwrap_or(0).max(0) as u64,
                    allowed_ms: self.opts.max_ahead.as_millis() as u64,
                })
            }
            Some(3) => {
                let recorded = format!(
                    "{}/{}",
                    reply.get(1).copied().unwrap_or(-1),
                    reply.get(2).copied().unwrap_or(-1)
                );
                let err = self.conflict(node, &recorded);
                *lock(&node.refused) = Some(err.clone());
                return Err(err);
            }
            _ => {
                return Err(Error::StoreUnavailable {
                    store: node.conn.describe().to_string(),
                    reason: format!("minting: unexpected script reply {reply:?}"),
                })
            }
        }
        let seq_shift = layout.sequence_field().shift();
        let mut ids = Vec::with_capacity(k as usize);
        for run in reply[1..].chunks_exact(3) {
            let (ms, first, count) = (run[0], run[1] as u64, run[2] as u64);
            // compose checks the time against the layout's range once per run; the
            // sequence numbers the script gave fit the field by construction.
            let base = layout.compose_values(
                ms as i128,
                [(self.shard_field.as_str(), shard as i128)],
                0,
            )?;
            ids.extend((0..count).map(|j| base + ((first + j * self.n as u64) << seq_shift)));
        }
        Ok(ids)
    }

    /// One server's IDs; it is checked first if this client has not met it yet.
    async fn mint_from(&self, node: &Node, shard: u64, k: u64) -> Result<Vec<u64>> {
        if !node.verified.load(Ordering::Acquire) {
            self.verify(node).await?;
        }
        self.mint_once(node, shard, k).await
    }

    fn check_shard(&self, shard: u64) -> Result<()> {
        let max = self.opts.layout.node_fields().next().map_or(0, |f| f.max());
        if shard > max {
            return Err(Error::ValueOutOfRange {
                field: self.shard_field.clone(),
                value: shard as i128,
                max,
            });
        }
        Ok(())
    }

    /// `k` IDs of `shard`: round robin over the servers, moving on from one that fails, is
    /// marked down or has no sequence left within `max_ahead`; bounded by `max_wait`.
    async fn mint(&self, shard: u64, k: u64) -> Result<Vec<u64>> {
        self.check_shard(shard)?;
        if !(1..=MAX_RUN).contains(&k) {
            return Err(invalid("k", k, format!("1..={MAX_RUN}")));
        }
        let deadline = Instant::now() + self.opts.max_wait;
        let mut out: Vec<u64> = Vec::with_capacity(k as usize);
        let n = self.nodes.len();
        loop {
            let start = self.next_node.fetch_add(1, Ordering::Relaxed);
            let now = Instant::now();
            let all_down = self.nodes.iter().all(|node| node.is_down(now));
            let mut errors: Vec<Error> = Vec::new();
            for off in 0..n {
                let node = &self.nodes[(start + off) % n];
                if let Some(e) = lock(&node.refused).clone() {
                    errors.push(e);
                    continue;
                }
                if node.is_down(now) && !all_down {
                    continue;
                }
                match self.mint_from(node, shard, k - out.len() as u64).await {
                    Ok(ids) => {
                        out.extend(ids);
                        if out.len() as u64 == k {
                            return Ok(out);
                        }
                    }
                    Err(
                        e @ (Error::StoreUnavailable { .. } | Error::ClockMovedBackwards { .. }),
                    ) => {
                        self.mark_down(node);
                        errors.push(e);
                    }
                    Err(e) => errors.push(e),
                }
            }
            if Instant::now() >= deadline {
                return Err(self.gave_up(errors, k));
            }
            // Every server's sequence is used up to max_ahead (or every server failed): wait
            // a tick for the clocks to move on, or for a failed server to come back.
            let pause = if errors.is_empty() {
                Duration::from_millis(1)
            } else {
                Duration::from_millis(20)
            };
            tokio::time::sleep(pause.min(deadline.saturating_duration_since(Instant::now()))).await;
        }
    }

    fn gave_up(&self, errors: Vec<Error>, k: u64) -> Error {
        if errors.is_empty() {
            return Error::StoreUnavailable {
                store: self.describe.clone(),
                reason: format!(
                    "{k} IDs did not fit the servers' sequences within max_ahead ({} ms) in {} ms",
                    self.opts.max_ahead.as_millis(),
                    self.opts.max_wait.as_millis()
                ),
            };
        }
        // A refused configuration or a clock behind on every server is the one thing to say;
        // otherwise the servers' errors, each once.
        if let Some(e) = errors
            .iter()
            .find(|e| matches!(e, Error::InvalidArgument { .. }))
        {
            if errors
                .iter()
                .all(|e| matches!(e, Error::InvalidArgument { .. }))
            {
                return e.clone();
            }
        }
        if errors
            .iter()
            .all(|e| matches!(e, Error::ClockMovedBackwards { .. }))
        {
            return errors[0].clone();
        }
        let mut reasons: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        reasons.dedup();
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!(
                "no server minted within {} ms: {}",
                self.opts.max_wait.as_millis(),
                reasons.join("; ")
            ),
        }
    }

    fn take_buffered(&self, shard: u64) -> Option<u64> {
        lock(&self.buffers)
            .get_mut(&shard)
            .and_then(VecDeque::pop_front)
    }

    fn keep(&self, shard: u64, rest: impl IntoIterator<Item = u64>) {
        lock(&self.buffers).entry(shard).or_default().extend(rest);
    }
}

/// Snowflake IDs minted on Redis (see [the module](crate::redis_snowflake) for the keys,
/// the servers' residues, persistence and failover).
///
/// Cloning is cheap and shares the connections and the buffer. Blocking calls run on the
/// generator's own runtime ([`connect_blocking`](RedisSnowflakeBuilder::connect_blocking))
/// or the runtime it was connected on; `_async` calls on the caller's.
///
/// ```no_run
/// use idmint_core::RedisSnowflake;
/// let gen = RedisSnowflake::builder().urls("redis://127.0.0.1:6379").tag("orders").shard(3).connect_blocking()?;
/// let ids = gen.next_ids(100)?;
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Clone)]
pub struct RedisSnowflake {
    inner: Arc<Inner>,
    handle: Handle,
    _runtime: Option<Arc<OwnedRuntime>>,
}

/// The runtime of a generator built with `connect_blocking`, let go of without waiting (it may
/// be dropped on an async thread, where waiting for a runtime is not allowed), and left alone
/// in a forked child, where its threads do not exist and its sockets are the parent's.
struct OwnedRuntime {
    runtime: Option<Runtime>,
    born: u64,
}

impl Drop for OwnedRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            if !crate::fork::since(self.born) {
                rt.shutdown_background();
            } else {
                crate::fork::abandon(rt);
            }
        }
    }
}

impl std::fmt::Debug for RedisSnowflake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSnowflake")
            .field("servers", &self.inner.describe)
            .field("tag", &self.inner.opts.tag)
            .field("shard", &self.inner.opts.shard)
            .finish_non_exhaustive()
    }
}

impl RedisSnowflake {
    /// A builder with the defaults: layout `redis-lua`, tag `default`, prefix `idmint:sf`,
    /// batches of 100, 1 s per server call, 3 s per call in all, 1 s ahead at most.
    ///
    /// ```
    /// let _b = idmint_core::RedisSnowflake::builder();
    /// ```
    pub fn builder() -> RedisSnowflakeBuilder {
        RedisSnowflakeBuilder {
            urls: Vec::new(),
            opts: Options {
                layout: Layout::preset("redis-lua").unwrap_or_else(|_| unreachable!()),
                tag: DEFAULT_TAG.into(),
                prefix: DEFAULT_PREFIX.into(),
                shard: None,
                batch: 100,
                op_timeout: Duration::from_secs(1),
                max_wait: Duration::from_secs(3),
                retry_after: Duration::from_secs(1),
                max_ahead: Duration::from_secs(1),
                test_clock_key: None,
                resume_after_ms: None,
            },
            error: None,
        }
    }

    fn live(&self) -> Result<()> {
        if crate::fork::since(self.inner.born) {
            return Err(Error::Forked {
                what: "Redis snowflake generator".into(),
                remedy: "its buffered IDs are the parent's too; connect a new one in the child"
                    .into(),
            });
        }
        Ok(())
    }

    fn fixed_shard(&self) -> Result<u64> {
        self.inner.opts.shard.ok_or_else(|| Error::MissingField {
            field: self.inner.shard_field.clone(),
        })
    }

    /// Runs a future on the generator's runtime and waits for it (from any thread, async or
    /// not; bounded so a runtime that cannot run it is an error, not a hang).
    fn block<T: Send + 'static>(
        &self,
        fut: impl Future<Output = Result<T>> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(fut.await);
        });
        let bound = self.inner.opts.max_wait
            + self.inner.opts.op_timeout * (2 * self.inner.nodes.len() as u32 + 2);
        rx.recv_timeout(bound).unwrap_or_else(|_| {
            Err(Error::StoreUnavailable {
                store: self.inner.describe.clone(),
                reason: format!(
                    "the call did not finish within {} ms (is the runtime it runs on blocked?)",
                    bound.as_millis()
                ),
            })
        })
    }

    /// The next ID of the generator's shard, from the buffer (a round trip per `batch` IDs).
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").shard(1).connect_blocking()?;
    /// let id = gen.next_id()?;
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_id(&self) -> Result<u64> {
        self.next_id_for(self.fixed_shard()?)
    }

    /// The next ID of `shard` (e.g. `user_id % 4096`, as redis-id-generator's callers do),
    /// from the shard's buffer.
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").connect_blocking()?;
    /// let id = gen.next_id_for(123_456_789 % 4096)?;
    /// assert_eq!(gen.layout().decompose(id)?.node("shard"), Some(123_456_789 % 4096));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_id_for(&self, shard: u64) -> Result<u64> {
        self.live()?;
        if let Some(id) = self.inner.take_buffered(shard) {
            return Ok(id);
        }
        let inner = Arc::clone(&self.inner);
        let batch = inner.opts.batch;
        let run = self.block(async move { inner.mint(shard, batch).await })?;
        Ok(self.serve(shard, run))
    }

    /// The next ID of the generator's shard if one is buffered, never waiting; see
    /// [`try_next_id_for`](RedisSnowflake::try_next_id_for).
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").shard(1).connect_blocking()?;
    /// assert_eq!(gen.try_next_id().unwrap_err().kind(), "would_block"); // nothing buffered yet
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn try_next_id(&self) -> Result<u64> {
        self.try_next_id_for(self.fixed_shard()?)
    }

    /// The next ID of `shard` if one is in its buffer, without waiting on a server: for
    /// callers that must never block (a JavaScript event loop). With the buffer empty it
    /// returns [`Error::WouldBlock`] and fetches a run of `batch` IDs in the background (one
    /// fetch per shard at a time), so a later call finds them; the async calls report the
    /// servers' errors, the background fetch does not.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").connect().await?;
    /// let id = match gen.try_next_id_for(5) {
    ///     Ok(id) => id,
    ///     Err(e) if e.kind() == "would_block" => gen.next_id_for_async(5).await?,
    ///     Err(e) => return Err(e),
    /// };
    /// # let _ = id; Ok(()) }
    /// ```
    pub fn try_next_id_for(&self, shard: u64) -> Result<u64> {
        self.live()?;
        if let Some(id) = self.inner.take_buffered(shard) {
            return Ok(id);
        }
        // A shard the layout cannot hold would fail in the background, unseen: say so here.
        self.inner.check_shard(shard)?;
        if lock(&self.inner.filling).insert(shard) {
            let inner = Arc::clone(&self.inner);
            self.handle.spawn(async move {
                if let Ok(run) = inner.mint(shard, inner.opts.batch).await {
                    inner.keep(shard, run);
                }
                lock(&inner.filling).remove(&shard);
            });
        }
        Err(Error::WouldBlock {
            tag: self.inner.opts.tag.clone(),
            store: self.inner.describe.clone(),
        })
    }

    fn serve(&self, shard: u64, run: Vec<u64>) -> u64 {
        let mut run = run.into_iter();
        let first = run.next().unwrap_or_default();
        self.inner.keep(shard, run);
        first
    }

    /// `k` IDs (1..=2^20) of the generator's shard, increasing, in one round trip (more only
    /// when they span more milliseconds than `max_ahead` allows or a server fails).
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").shard(1).connect_blocking()?;
    /// assert_eq!(gen.next_ids(100)?.len(), 100);
    /// assert_eq!(gen.next_ids(0).unwrap_err().kind(), "invalid_argument");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_ids(&self, k: u64) -> Result<Vec<u64>> {
        self.next_ids_for(self.fixed_shard()?, k)
    }

    /// `k` IDs of `shard`, as [`next_ids`](RedisSnowflake::next_ids).
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").connect_blocking()?;
    /// assert_eq!(gen.next_ids_for(9, 10)?.len(), 10);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next_ids_for(&self, shard: u64, k: u64) -> Result<Vec<u64>> {
        self.live()?;
        let inner = Arc::clone(&self.inner);
        self.block(async move { inner.mint(shard, k).await })
    }

    /// [`next_id`](RedisSnowflake::next_id) for async callers.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").shard(1).connect().await?;
    /// let id = gen.next_id_async().await?;
    /// # Ok(()) }
    /// ```
    pub async fn next_id_async(&self) -> Result<u64> {
        self.next_id_for_async(self.fixed_shard()?).await
    }

    /// [`next_id_for`](RedisSnowflake::next_id_for) for async callers.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").connect().await?;
    /// let id = gen.next_id_for_async(42).await?;
    /// # Ok(()) }
    /// ```
    pub async fn next_id_for_async(&self, shard: u64) -> Result<u64> {
        self.live()?;
        if let Some(id) = self.inner.take_buffered(shard) {
            return Ok(id);
        }
        let run = self.inner.mint(shard, self.inner.opts.batch).await?;
        Ok(self.serve(shard, run))
    }

    /// [`next_ids`](RedisSnowflake::next_ids) for async callers.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").shard(1).connect().await?;
    /// let ids = gen.next_ids_async(100).await?;
    /// # Ok(()) }
    /// ```
    pub async fn next_ids_async(&self, k: u64) -> Result<Vec<u64>> {
        self.next_ids_for_async(self.fixed_shard()?, k).await
    }

    /// [`next_ids_for`](RedisSnowflake::next_ids_for) for async callers.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").connect().await?;
    /// let ids = gen.next_ids_for_async(7, 100).await?;
    /// # Ok(()) }
    /// ```
    pub async fn next_ids_for_async(&self, shard: u64, k: u64) -> Result<Vec<u64>> {
        self.live()?;
        self.inner.mint(shard, k).await
    }

    /// The layout of the IDs.
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").connect_blocking()?;
    /// assert_eq!(gen.layout().preset_name(), Some("redis-lua"));
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.inner.opts.layout
    }

    /// The servers, in order, without credentials.
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://:pw@127.0.0.1:6379").connect_blocking()?;
    /// assert_eq!(gen.servers(), ["redis://127.0.0.1:6379"]);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn servers(&self) -> Vec<String> {
        self.inner
            .nodes
            .iter()
            .map(|n| describe_url(n.conn.describe()))
            .collect()
    }

    /// Round trips and server failures so far.
    ///
    /// ```no_run
    /// let gen = idmint_core::RedisSnowflake::builder().urls("redis://127.0.0.1:6379").shard(0).connect_blocking()?;
    /// gen.next_ids(10)?;
    /// assert_eq!(gen.stats().node_failures, 0);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn stats(&self) -> RedisSnowflakeStats {
        RedisSnowflakeStats {
            round_trips: self.inner.round_trips.load(Ordering::Relaxed),
            node_failures: self.inner.node_failures.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-bit layout is refused before any server is reached: minting on Redis has no
    /// unsigned opt-in.
    #[test]
    fn sixty_four_bit_layouts_are_refused() {
        let layout = Layout::preset("instagram").unwrap();
        let e = RedisSnowflake::builder()
            .urls("redis://127.0.0.1:1")
            .layout(layout)
            .connect_blocking()
            .unwrap_err();
        assert!(
            matches!(&e, Error::InvalidLayout { reason, .. } if reason.contains("64 bits")),
            "{e}"
        );
    }
}

//! Redis: `INCRBY` on one key per tag, or a sharded mode.
//!
//! # Keys
//!
//! Plain mode (default), per tag, with the tag in braces so both keys share a cluster slot:
//! - `{prefix}:{TAG}`: a string counter, the last ID handed out (`max_id`);
//! - `{prefix}:{TAG}:meta`: a hash with `step`, `description`, `start`.
//!
//! Sharded mode (`shards = N`), a pool of shard keys refilled from one global counter:
//! - `{prefix}:global`: one counter all shards draw blocks from;
//! - `{prefix}:shard:{i}`: a hash with `min` (next free ID) and `max` (last ID) of the block
//!   the shard holds; a tag uses shard `fnv1a64(tag) % N`, a stable hash;
//! - `{prefix}:{TAG}:meta` as above (tags must exist, with their `start`).
//!
//! Every operation is a Lua script run with `EVALSHA` (loaded on first `NOSCRIPT`); tags and
//! counts travel as `KEYS`/`ARGV`, never in the script text. Scripts run atomically on Redis's
//! single thread, which is what makes each allocation atomic.
//!
//! # Persistence
//!
//! Redis keeps counters in memory. Without persistence (`appendonly yes`, ideally
//! `appendfsync always`) a restart loses them and Redis would hand out the same IDs again.
//! Clients guard against what they can see: a range at or below one they already received is
//! refused with [`Error::RangeBelowIssued`](crate::Error::RangeBelowIssued). They cannot see
//! what *other* clients received, so persistence is required, not optional.

use std::time::Duration;

use super::store::{exhausted, give_back_to, IdRange, SegmentStore, TagInfo};
use super::tag::{check_count, TagSpec, TagUpdate, DEFAULT_PREFIX, DEFAULT_STEP};
use crate::error::quoted;
use crate::store::{
    describe_url, validate_tag, Call, Lua, RedisConn, StoreFuture, StoreOptions, Topology, Use,
};
use crate::{Error, Result};

/// Sharded-mode IDs stay below 2^53: the scripts do arithmetic in Lua numbers (doubles).
const SHARD_LIMIT: i64 = (1 << 53) - 1;

/// How a [`RedisStore`] keeps counters.
///
/// ```
/// use idmint_core::segment::RedisMode;
/// assert_eq!(RedisMode::default(), RedisMode::Plain);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RedisMode {
    /// One counter per tag, moved with `INCRBY` (default).
    #[default]
    Plain,
    /// Sharded mode: tags map to `shards` keys holding `min`/`max` blocks, refilled
    /// from one global counter by `count + refill` when short. All tags draw from the global
    /// counter, so IDs are unique across tags too, and stay below 2^53.
    Sharded {
        /// Number of shard keys, 1..=1024.
        shards: u32,
        /// Extra IDs taken from the global counter on each shard refill.
        refill: u64,
    },
}

const ALLOCATE_PLAIN: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 'U' end
redis.call('INCRBY', KEYS[1], ARGV[1])
return redis.call('GET', KEYS[1])
";

// INCRBY's own overflow check raises an error, which becomes TagExhausted. The new value is
// read back with GET: INCRBY's integer reply would pass through a Lua double and lose digits
// above 2^53.

const CREATE_PLAIN: &str = r"
local created = redis.call('SET', KEYS[1], ARGV[1], 'NX')
redis.call('HSETNX', KEYS[2], 'step', ARGV[2])
redis.call('HSETNX', KEYS[2], 'description', ARGV[3])
redis.call('HSETNX', KEYS[2], 'start', ARGV[4])
if created then return 1 else return 0 end
";

// KEYS: meta, shard, global. ARGV: count, refill.
// Hands out [min, min + count) from the shard; when the shard holds fewer, takes a fresh block
// of count + refill from the global counter. A leftover of the old block is not contiguous
// with the new one when other shards refilled in between, so it is dropped (a gap) rather
// than joined to it: joining would hand out IDs another shard holds.
const ALLOCATE_SHARD: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 'U' end
local n = tonumber(ARGV[1])
local floor = tonumber(redis.call('HGET', KEYS[1], 'start') or '1')
local min = tonumber(redis.call('HGET', KEYS[2], 'min') or '1')
local max = tonumber(redis.call('HGET', KEYS[2], 'max') or '0')
if min < floor then min = max + 1 end
if max - min + 1 < n then
  local take = n + tonumber(ARGV[2])
  local g = tonumber(redis.call('GET', KEYS[3]) or '0')
  if g + take > 9007199254740991 then return 'X' .. string.format('%.0f', g) end
  local top = redis.call('INCRBY', KEYS[3], take)
  local low = top - take + 1
  if low ~= max + 1 or min > max + 1 then min = low end
  max = top
end
redis.call('HSET', KEYS[2], 'min', string.format('%.0f', min + n), 'max', string.format('%.0f', max))
return string.format('%.0f', min)
";

// The give-back's compare-and-set. KEYS: counter. ARGV: the range's last ID, the new value
// (next - 1). Both sides are canonical decimals (INCRBY's and SET's), so equal text is an
// equal number, with no Lua double in between.
const GIVE_BACK_PLAIN: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
";

// Sharded mode's give-back. KEYS: meta, shard. ARGV: the range's end (one past its last ID),
// next.
// An allocation from the shard leaves its `min` at the end of the run it handed out, and
// every later one (of any tag on the shard) moves `min` above it or to a fresh, higher block:
// `min` still equal to the range's end means nobody drew from the shard since, so `min` can
// go back to `next`. Both are below 2^53, exact as Lua numbers.
const GIVE_BACK_SHARD: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local min = redis.call('HGET', KEYS[2], 'min')
if min and tonumber(min) == tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[2], 'min', ARGV[2])
  return 1
end
return 0
";

// KEYS: meta, global. ARGV: start - 1, step, description, start.
const CREATE_SHARD: &str = r"
local created = redis.call('HSETNX', KEYS[1], 'step', ARGV[2])
redis.call('HSETNX', KEYS[1], 'description', ARGV[3])
redis.call('HSETNX', KEYS[1], 'start', ARGV[4])
local g = tonumber(redis.call('GET', KEYS[2]) or '0')
if g < tonumber(ARGV[1]) then redis.call('SET', KEYS[2], ARGV[1]) end
return created
";

// KEYS: counter, meta. ARGV: step ('' keeps it), '1' to set the description (else '0'), the
// description, the floor: the counter's least value (next_at_least - 1, '' for none).
// The counter can pass 2^53, where Lua numbers (doubles) lose digits, so it is compared with
// the floor as decimal text: both are canonical non-negative integers (INCRBY's and SET's
// values, never with a sign or leading zeros), so the longer is larger, and at equal length
// the first differing digit decides (compared as bytes: Lua's `<` on strings follows the
// server's locale).
const UPDATE_PLAIN: &str = r"
local cur = redis.call('GET', KEYS[1])
if not cur then return 'U' end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[2], 'step', ARGV[1]) end
if ARGV[2] == '1' then redis.call('HSET', KEYS[2], 'description', ARGV[3]) end
local floor = ARGV[4]
local below = #cur < #floor
if floor ~= '' and #cur == #floor then
  for i = 1, #cur do
    local a, b = string.byte(cur, i), string.byte(floor, i)
    if a ~= b then below = a < b break end
  end
end
if floor ~= '' and below then
  redis.call('SET', KEYS[1], floor)
  cur = floor
end
return {cur, redis.call('HGET', KEYS[2], 'step') or '', redis.call('HGET', KEYS[2], 'description') or ''}
";

// KEYS: meta, global. ARGV as UPDATE_PLAIN's, but the last is next_at_least itself (below
// 2^53, so Lua numbers hold it exactly). A tag's floor is its meta `start`: ALLOCATE_SHARD
// drops a shard block below it and takes a fresh one from the global counter, which is
// raised to next_at_least - 1 here, so the fresh block starts at next_at_least or above.
// Raising the global counter only skips IDs (for every tag: a gap), and a shard block is
// always a run the global counter already passed, so no ID can come out twice.
const UPDATE_SHARD: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 'U' end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'step', ARGV[1]) end
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'description', ARGV[3]) end
if ARGV[4] ~= '' then
  local n = tonumber(ARGV[4])
  local s = tonumber(redis.call('HGET', KEYS[1], 'start') or '1')
  if s < n then redis.call('HSET', KEYS[1], 'start', ARGV[4]) end
  local g = tonumber(redis.call('GET', KEYS[2]) or '0')
  if g < n - 1 then redis.call('SET', KEYS[2], string.format('%.0f', n - 1)) end
end
return {redis.call('GET', KEYS[2]) or '0', redis.call('HGET', KEYS[1], 'step') or '', redis.call('HGET', KEYS[1], 'description') or ''}
";

/// A Redis store (feature `redis`): `redis://[:password@]host:port[/db]`, options
/// `?prefix=…` (default `idmint:seg`) and `?shards=N&shard_refill=M` for sharded mode.
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::segment::{RedisStore, SegmentStore, StoreOptions, TagSpec};
/// let store = RedisStore::connect("redis://127.0.0.1:6379", &StoreOptions::default()).await?;
/// store.create_tag(&TagSpec::new("orders")?).await?;
/// let range = store.allocate("orders", 1000).await?;
/// # Ok(()) }
/// ```
pub struct RedisStore {
    conn: RedisConn,
    describe: String,
    prefix: String,
    mode: RedisMode,
    /// The prefix of sharded mode's keys: in braces on a Cluster, so a tag's meta key, its
    /// shard and the global counter share one hash slot (one script touches all three).
    shard_prefix: String,
    allocate_plain: Lua,
    create_plain: Lua,
    allocate_shard: Lua,
    create_shard: Lua,
    update_plain: Lua,
    update_shard: Lua,
    give_back_plain: Lua,
    give_back_shard: Lua,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("store", &self.describe)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

/// FNV-1a, 64-bit: a stable hash (the same in every process and version) from tag to shard.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl RedisStore {
    /// Connects (one multiplexed connection, re-opened after a failure).
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{RedisStore, StoreOptions};
    /// let opts = StoreOptions::default().redis_sharded(4, 1000)?;
    /// let store = RedisStore::connect("redis://127.0.0.1:6379", &opts).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<RedisStore> {
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for segments, as `open_store` does.
        let (opts, url) = opts.for_url(url, Use::Segments)?;
        let (opts, url) = (&opts, url.as_str());
        let describe = describe_url(url);
        let conn = RedisConn::open(url, Duration::from_secs(2))?;
        let mode = match opts.redis_shards {
            0 => RedisMode::Plain,
            shards => RedisMode::Sharded {
                shards,
                refill: opts.redis_shard_refill,
            },
        };
        let prefix = opts.key_prefix_or(DEFAULT_PREFIX).to_string();
        let store = RedisStore {
            describe,
            shard_prefix: match conn.topology() {
                Topology::Cluster => format!("{{{prefix}}}"),
                _ => prefix.clone(),
            },
            prefix,
            conn,
            mode,
            allocate_plain: Lua::new(ALLOCATE_PLAIN),
            create_plain: Lua::new(CREATE_PLAIN),
            allocate_shard: Lua::new(ALLOCATE_SHARD),
            create_shard: Lua::new(CREATE_SHARD),
            update_plain: Lua::new(UPDATE_PLAIN),
            update_shard: Lua::new(UPDATE_SHARD),
            give_back_plain: Lua::new(GIVE_BACK_PLAIN),
            give_back_shard: Lua::new(GIVE_BACK_SHARD),
        };
        store.conn.connection().await?;
        Ok(store)
    }

    /// The mode the store runs in.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{RedisMode, RedisStore, StoreOptions};
    /// let store = RedisStore::connect("redis://127.0.0.1:6379", &StoreOptions::default()).await?;
    /// assert_eq!(store.mode(), RedisMode::Plain);
    /// # Ok(()) }
    /// ```
    pub fn mode(&self) -> RedisMode {
        self.mode
    }

    /// The counter key of a tag (plain mode).
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{RedisStore, StoreOptions};
    /// let store = RedisStore::connect("redis://127.0.0.1:6379", &StoreOptions::default()).await?;
    /// assert_eq!(store.counter_key("orders"), "idmint:seg:{orders}");
    /// # Ok(()) }
    /// ```
    pub fn counter_key(&self, tag: &str) -> String {
        format!("{}:{{{tag}}}", self.prefix)
    }

    fn meta_key(&self, tag: &str) -> String {
        match self.mode {
            RedisMode::Plain => format!("{}:{{{tag}}}:meta", self.prefix),
            RedisMode::Sharded { .. } => format!("{}:{{{tag}}}:meta", self.shard_prefix),
        }
    }

    fn global_key(&self) -> String {
        format!("{}:global", self.shard_prefix)
    }

    /// The shard key a tag maps to (sharded mode), by a stable hash.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::segment::{RedisStore, StoreOptions};
    /// let opts = StoreOptions::default().redis_sharded(3, 1000)?;
    /// let store = RedisStore::connect("redis://127.0.0.1:6379", &opts).await?;
    /// assert!(store.shard_key("orders").starts_with("idmint:seg:shard:"));
    /// # Ok(()) }
    /// ```
    pub fn shard_key(&self, tag: &str) -> String {
        let shards = match self.mode {
            RedisMode::Sharded { shards, .. } => shards.max(1) as u64,
            RedisMode::Plain => 1,
        };
        format!(
            "{}:shard:{}",
            self.shard_prefix,
            fnv1a64(tag.as_bytes()) % shards
        )
    }

    /// Runs a script (and waits for the replicas); a failure drops the connection so the next
    /// call reconnects.
    async fn run<T: redis::FromRedisValue>(&self, what: &str, call: &Call<'_>) -> Result<T> {
        self.conn.run(what, call).await
    }

    /// How the store reaches Redis.
    fn topology(&self) -> Topology {
        self.conn.topology()
    }

    async fn cmd<T: redis::FromRedisValue>(&self, what: &str, cmd: &redis::Cmd) -> Result<T> {
        self.conn.cmd(what, cmd).await
    }

    /// A tag's row from its counter (the global one in sharded mode) and its meta fields.
    fn info(
        &self,
        what: &str,
        tag: &str,
        counter: Option<&str>,
        step: Option<&str>,
        description: Option<&str>,
    ) -> Result<TagInfo> {
        Ok(TagInfo {
            tag: tag.to_string(),
            max_id: match counter {
                Some(c) => self.parse_id(what, c)?,
                None => 0,
            },
            step: step
                .and_then(|s| s.parse::<u64>().ok())
                .unwrap_or(DEFAULT_STEP)
                .max(1),
            description: description.unwrap_or_default().to_string(),
        })
    }

    /// The names of every tag under the prefix, sorted: the keys that exist once per tag
    /// (plain mode: the counter, `{prefix}:{TAG}`; sharded: the meta hash) found by `SCAN`,
    /// or on a Cluster by `KEYS` on every master (the cluster client routes `KEYS` to all
    /// of them and joins the replies; a `SCAN` cursor belongs to one node).
    async fn tag_names(&self) -> Result<Vec<String>> {
        const WHAT: &str = "listing tags";
        let (head, tail) = match self.mode {
            RedisMode::Plain => (format!("{}:{{", self.prefix), "}".to_string()),
            RedisMode::Sharded { .. } => {
                (format!("{}:{{", self.shard_prefix), "}:meta".to_string())
            }
        };
        // Prefixes and tags are made of `A-Z a-z 0-9 _ . : -` (and the Cluster's braces), none
        // of them special in a glob pattern.
        let pattern = format!("{head}*{tail}");
        let keys: Vec<String> = match self.topology() {
            Topology::Cluster => self.cmd(WHAT, redis::cmd("KEYS").arg(&pattern)).await?,
            Topology::Single | Topology::Sentinel => {
                let mut keys = Vec::new();
                let mut cursor = 0u64;
                loop {
                    let (next, batch): (u64, Vec<String>) = self
                        .cmd(
                            WHAT,
                            redis::cmd("SCAN")
                                .arg(cursor)
                                .arg("MATCH")
                                .arg(&pattern)
                                .arg("COUNT")
                                .arg(1000),
                        )
                        .await?;
                    keys.extend(batch);
                    if next == 0 {
                        break keys;
                    }
                    cursor = next;
                }
            }
        };
        // SCAN may return a key twice; a key that is not a tag's (another program's, under
        // the same prefix) is skipped.
        let names: std::collections::BTreeSet<String> = keys
            .iter()
            .filter_map(|k| k.strip_prefix(head.as_str())?.strip_suffix(tail.as_str()))
            .filter(|t| validate_tag(t).is_ok())
            .map(str::to_string)
            .collect();
        Ok(names.into_iter().collect())
    }

    fn parse_id(&self, what: &str, text: &str) -> Result<i64> {
        text.parse::<i64>().map_err(|_| Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!(
                "{what}: expected an integer, the script returned {}",
                quoted(text)
            ),
        })
    }
}

impl SegmentStore for RedisStore {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn create_tag<'a>(&'a self, spec: &'a TagSpec) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let first = spec.first_max_id().to_string();
            let step = spec.step_value().to_string();
            let start = spec.start_value().to_string();
            let created: i64 = match self.mode {
                RedisMode::Plain => {
                    let mut inv = self.create_plain.call();
                    inv.key(self.counter_key(spec.tag()))
                        .key(self.meta_key(spec.tag()))
                        .arg(&first)
                        .arg(&step)
                        .arg(spec.description_value())
                        .arg(&start);
                    self.run("creating a tag", &inv).await?
                }
                RedisMode::Sharded { .. } => {
                    if spec.first_max_id() > SHARD_LIMIT {
                        return Err(exhausted(spec.tag(), spec.first_max_id(), 1));
                    }
                    let mut inv = self.create_shard.call();
                    inv.key(self.meta_key(spec.tag()))
                        .key(self.global_key())
                        .arg(&first)
                        .arg(&step)
                        .arg(spec.description_value())
                        .arg(&start);
                    self.run("creating a tag", &inv).await?
                }
            };
            Ok(created == 1)
        })
    }

    fn tag_info<'a>(&'a self, tag: &'a str) -> StoreFuture<'a, Option<TagInfo>> {
        Box::pin(async move {
            validate_tag(tag)?;
            let meta: std::collections::HashMap<String, String> = self
                .cmd(
                    "reading a tag",
                    redis::cmd("HGETALL").arg(self.meta_key(tag)),
                )
                .await?;
            let counter_key = match self.mode {
                RedisMode::Plain => self.counter_key(tag),
                RedisMode::Sharded { .. } => self.global_key(),
            };
            let counter: Option<String> = self
                .cmd("reading a tag", redis::cmd("GET").arg(&counter_key))
                .await?;
            let exists = match self.mode {
                RedisMode::Plain => counter.is_some(),
                RedisMode::Sharded { .. } => !meta.is_empty(),
            };
            if !exists {
                return Ok(None);
            }
            self.info(
                "reading a tag",
                tag,
                counter.as_deref(),
                meta.get("step").map(String::as_str),
                meta.get("description").map(String::as_str),
            )
            .map(Some)
        })
    }

    fn list_tags(&self) -> StoreFuture<'_, Vec<TagInfo>> {
        Box::pin(async move {
            let mut tags = Vec::new();
            for name in self.tag_names().await? {
                // A tag is never deleted by idmint, but an operator may have: skip it then.
                if let Some(info) = self.tag_info(&name).await? {
                    tags.push(info);
                }
            }
            Ok(tags)
        })
    }

    fn update_tag<'a>(&'a self, tag: &'a str, update: &'a TagUpdate) -> StoreFuture<'a, TagInfo> {
        Box::pin(async move {
            const WHAT: &str = "updating a tag";
            validate_tag(tag)?;
            let step = update.step_value().map_or(String::new(), |s| s.to_string());
            let (set_description, description) = match update.description_value() {
                Some(d) => ("1", d),
                None => ("0", ""),
            };
            let inv = match self.mode {
                RedisMode::Plain => {
                    let floor = update
                        .next_at_least_value()
                        .map_or(String::new(), |n| (n - 1).to_string());
                    let mut inv = self.update_plain.call();
                    inv.key(self.counter_key(tag))
                        .key(self.meta_key(tag))
                        .arg(&step)
                        .arg(set_description)
                        .arg(description)
                        .arg(floor);
                    inv
                }
                RedisMode::Sharded { .. } => {
                    let next = match update.next_at_least_value() {
                        // IDs stay at or below 2^53 - 1 there (Lua numbers are doubles).
                        Some(n) if n - 1 > SHARD_LIMIT as u64 => {
                            return Err(Error::InvalidArgument {
                                name: "next_at_least".into(),
                                value: n.to_string(),
                                expected: format!(
                                    "1..={}: Redis sharded mode keeps IDs below 2^53",
                                    SHARD_LIMIT as u64 + 1
                                ),
                            })
                        }
                        Some(n) => n.to_string(),
                        None => String::new(),
                    };
                    let mut inv = self.update_shard.call();
                    inv.key(self.meta_key(tag))
                        .key(self.global_key())
                        .arg(&step)
                        .arg(set_description)
                        .arg(description)
                        .arg(next);
                    inv
                }
            };
            let reply: redis::Value = self.run(WHAT, &inv).await?;
            let fields: Vec<String> = match redis::from_owned_redis_value::<String>(reply.clone()) {
                Ok(u) if u == "U" => {
                    return Err(Error::UnknownTag {
                        tag: tag.to_string(),
                    })
                }
                _ => redis::from_owned_redis_value(reply).map_err(|e| self.conn.err(WHAT, e))?,
            };
            let [counter, step, description] = fields.as_slice() else {
                return Err(Error::StoreUnavailable {
                    store: self.describe.clone(),
                    reason: format!(
                        "{WHAT}: expected 3 values, the script returned {}",
                        fields.len()
                    ),
                });
            };
            let step = (!step.is_empty()).then_some(step.as_str());
            self.info(WHAT, tag, Some(counter), step, Some(description))
        })
    }

    fn give_back<'a>(&'a self, tag: &'a str, range: IdRange, next: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            const WHAT: &str = "giving back a range's tail";
            validate_tag(tag)?;
            let Some((last, back_to)) = give_back_to(range, next)? else {
                return Ok(false);
            };
            let inv = match self.mode {
                RedisMode::Plain => {
                    let mut inv = self.give_back_plain.call();
                    inv.key(self.counter_key(tag))
                        .arg(last.to_string())
                        .arg(back_to.to_string());
                    inv
                }
                RedisMode::Sharded { .. } => {
                    if range.end > SHARD_LIMIT as u64 + 1 {
                        // Never handed out by this mode: nothing of ours to give back.
                        return Ok(false);
                    }
                    let mut inv = self.give_back_shard.call();
                    inv.key(self.meta_key(tag))
                        .key(self.shard_key(tag))
                        .arg(range.end.to_string())
                        .arg(next.to_string());
                    inv
                }
            };
            let given: i64 = self.run(WHAT, &inv).await?;
            Ok(given == 1)
        })
    }

    fn allocate<'a>(&'a self, tag: &'a str, count: u64) -> StoreFuture<'a, IdRange> {
        Box::pin(async move {
            validate_tag(tag)?;
            check_count(count)?;
            match self.mode {
                RedisMode::Plain => {
                    let mut inv = self.allocate_plain.call();
                    inv.key(self.counter_key(tag)).arg(count);
                    let reply: String = match self.run("allocating", &inv).await {
                        Err(Error::StoreUnavailable { reason, .. })
                            if reason.contains("overflow") =>
                        {
                            let max_id = self.tag_info(tag).await?.map_or(i64::MAX, |i| i.max_id);
                            return Err(exhausted(tag, max_id, count));
                        }
                        other => other?,
                    };
                    if reply == "U" {
                        return Err(Error::UnknownTag {
                            tag: tag.to_string(),
                        });
                    }
                    IdRange::from_new_max(self.parse_id("allocating", &reply)?, count)
                }
                RedisMode::Sharded { refill, .. } => {
                    let mut inv = self.allocate_shard.call();
                    inv.key(self.meta_key(tag))
                        .key(self.shard_key(tag))
                        .key(self.global_key())
                        .arg(count)
                        .arg(refill);
                    let reply: String = self.run("allocating", &inv).await?;
                    if reply == "U" {
                        return Err(Error::UnknownTag {
                            tag: tag.to_string(),
                        });
                    }
                    if let Some(g) = reply.strip_prefix('X') {
                        return Err(Error::TagExhausted {
                            tag: tag.to_string(),
                            max_id: self.parse_id("allocating", g)?,
                            count,
                            limit: SHARD_LIMIT,
                        });
                    }
                    // A negative first ID comes only from damaged shard or meta fields: refused
                    // as damaged, never read as 0 (IDs from 0 up were handed out already).
                    let first = self.parse_id("allocating", &reply)?;
                    let first = u64::try_from(first).map_err(|_| Error::StoreUnavailable {
                        store: self.describe.clone(),
                        reason: format!(
                            "allocating: the shard `{}` of tag `{tag}` (or its meta `{}`) does not \
                             hold what idmint writes: its next ID would be {first}",
                            self.shard_key(tag),
                            self.meta_key(tag)
                        ),
                    })?;
                    IdRange::new(first, first + count)
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv_is_stable() {
        // Published FNV-1a 64 test vectors: the mapping must never change between versions.
        assert_eq!(super::fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(super::fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(super::fnv1a64(b"foobar"), 0x85944171f73967e8);
    }
}

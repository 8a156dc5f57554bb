//! Order-number sequences kept in shared stores: daily counters in segment stores or Redis,
//! and a segment tag as the sequence.
//!
//! Which counters are shared across processes, and their gaps: see [`open_daily_counter`].

use std::sync::{Arc, Mutex};
use std::time::Duration;
#[cfg(feature = "redis")]
use std::time::Instant;

use arc_swap::ArcSwapOption;

use super::client::{SegmentClient, TagHandle};
use super::tag::TagSpec;
use crate::clock::Clock;
use crate::rules::check_step;
use crate::store::{check_url, validate_tag, Engine, Use};
use crate::template::{DailyCounter, MemoryDailyCounter, Template};
use crate::{Error, Result};

/// The step of day tags when none is given: small, because numbers a client holds at the end
/// of a day are lost to that day.
pub const DEFAULT_DAY_STEP: u64 = 100;

/// How [`open_daily_counter`] opens a counter; every option has a default.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::segment::DailyCounterOptions;
/// let opts = DailyCounterOptions::default()
///     .step(20)?
///     .redis_prefix("shop:day:")?
///     .ttl(Duration::from_secs(3 * 86_400))?
///     .timeout(Duration::from_secs(1))?;
/// assert_eq!(opts.step_value(), 20);
/// assert!(DailyCounterOptions::default().step(0).is_err());
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DailyCounterOptions {
    step: u64,
    redis_prefix: String,
    ttl: Duration,
    timeout: Duration,
}

impl Default for DailyCounterOptions {
    fn default() -> Self {
        DailyCounterOptions {
            step: DEFAULT_DAY_STEP,
            redis_prefix: "idmint:day:".to_string(),
            ttl: Duration::from_secs(2 * 86_400),
            timeout: Duration::from_secs(3),
        }
    }
}

impl DailyCounterOptions {
    /// The step of day tags in segment stores (default [`DEFAULT_DAY_STEP`]; 1..=2^40): how
    /// many numbers a client takes at once, and may skip at the end of a day.
    ///
    /// ```
    /// assert!(idmint_core::segment::DailyCounterOptions::default().step(1).is_ok());
    /// ```
    pub fn step(mut self, step: u64) -> Result<Self> {
        check_step("step", step)?;
        self.step = step;
        Ok(self)
    }

    /// The step of day tags.
    ///
    /// ```
    /// assert_eq!(idmint_core::segment::DailyCounterOptions::default().step_value(), 100);
    /// ```
    pub fn step_value(&self) -> u64 {
        self.step
    }

    /// What Redis keys start with (default `idmint:day:`; empty, or as in tags): the key of a
    /// day is `<prefix><name>:<yyyymmdd>`.
    ///
    /// ```
    /// use idmint_core::segment::DailyCounterOptions;
    /// assert!(DailyCounterOptions::default().redis_prefix("").is_ok());
    /// assert!(DailyCounterOptions::default().redis_prefix("a b").is_err());
    /// ```
    pub fn redis_prefix(mut self, prefix: &str) -> Result<Self> {
        if !prefix.is_empty() {
            validate_tag(prefix)?;
        }
        self.redis_prefix = prefix.to_string();
        Ok(self)
    }

    /// How long a Redis day key lives after its last use (default 2 days; at least 1 s), so
    /// old days' keys do not pile up.
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::segment::DailyCounterOptions;
    /// assert!(DailyCounterOptions::default().ttl(Duration::from_millis(10)).is_err());
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> Result<Self> {
        if ttl < Duration::from_secs(1) {
            return Err(Error::InvalidArgument {
                name: "ttl".into(),
                value: format!("{} ms", ttl.as_millis()),
                expected: "at least 1 s".into(),
            });
        }
        self.ttl = ttl;
        Ok(self)
    }

    /// The longest one call may wait on the store before [`Error::StoreUnavailable`]
    /// (default 3 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use idmint_core::segment::DailyCounterOptions;
    /// assert!(DailyCounterOptions::default().timeout(Duration::ZERO).is_err());
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(Error::InvalidArgument {
                name: "timeout".into(),
                value: "0 ms".into(),
                expected: "a positive duration".into(),
            });
        }
        self.timeout = timeout;
        Ok(self)
    }
}

/// The tag (segment stores) or key suffix (Redis) of a counter's day: `<name>:<yyyymmdd>`.
fn day_tag(name: &str, day: u32) -> String {
    format!("{name}:{day:08}")
}

/// Checks that every day's tag of `name` is a valid tag: the longest day, so the length check
/// holds for all of them.
fn check_name(name: &str) -> Result<()> {
    validate_tag(&day_tag(name, 99_991_231))
}

/// Opens a daily counter by URL; `name` names the counter (the tag or key of each day is
/// `<name>:<yyyymmdd>`):
///
/// | URL | counter | feature |
/// | --- | --- | --- |
/// | `memory:` | [`MemoryDailyCounter`] (this process only) | `segment` |
/// | `sqlite:PATH`, `postgres://…`, `mysql://…`, `etcd://…`, `zk://…` | [`SegmentDailyCounter`], a tag per day | `sqlite`, `postgres`, `mysql`, `etcd`, `zookeeper` |
/// | `redis://[:pass@]host:port[/db]` | [`RedisDailyCounter`], `INCR` on a key per day | `redis` |
///
///
/// # Which counters are shared across processes
///
/// | counter | shared | numbers of a day |
/// | --- | --- | --- |
/// | [`MemoryDailyCounter`] (`memory:`) | no, one process | 1, 2, 3, … |
/// | [`SegmentDailyCounter`] (`sqlite:`, `postgres://`, `mysql://`, `etcd://`, `zk://`) | every client of the store | unique, increasing per client, with gaps |
/// | [`RedisDailyCounter`] (`redis://`) | every client of the server | 1, 2, 3, … (one `INCR` per number) |
///
/// A segment day counter keeps one tag per day, `<name>:<yyyymmdd>`, and each client holds a
/// range of `step` numbers of it (100 by default). With several clients the numbers of a day
/// are unique but not consecutive across clients (A prints 1, 2, 3 while B prints 101, 102),
/// and the numbers a client holds when the day ends or the process exits are skipped, never
/// reissued. So the day's numbers can run out before the template's
/// [`capacity`](Template::capacity): with `k` clients up to `k × step` numbers of a day may be
/// skipped. Size the sequence width for that, or pick a smaller step.
///
/// SQL URLs take the query parameters of [`open_store`](crate::segment::open_store) (`table`, `pool`).
/// Blocking: do not call it from async code.
///
/// ```
/// use idmint_core::segment::{open_daily_counter, DailyCounterOptions};
/// let opts = DailyCounterOptions::default();
/// let counter = open_daily_counter("memory:", "orders", &opts)?;
/// assert_eq!(counter.next(20240522)?, 1);
/// assert_eq!(open_daily_counter("ftp://x", "orders", &opts).unwrap_err().kind(), "invalid_argument");
/// assert_eq!(open_daily_counter("memory:", "bad name", &opts).unwrap_err().kind(), "invalid_tag");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn open_daily_counter(
    url: &str,
    name: &str,
    opts: &DailyCounterOptions,
) -> Result<Arc<dyn DailyCounter>> {
    match plan_daily_counter(url, name)? {
        Engine::Memory => Ok(Arc::new(MemoryDailyCounter::new())),
        #[cfg(feature = "redis")]
        Engine::Redis => Ok(Arc::new(RedisDailyCounter::connect(url, name, opts)?)),
        #[allow(unreachable_patterns)]
        Engine::Redis => Err(Engine::Redis.missing(url, "counter")),
        // A segment tag per day, in a SQL store, in etcd, in ZooKeeper or through an `idmint serve`
        // (`http(s)://`).
        Engine::Sqlite
        | Engine::Postgres
        | Engine::MySql
        | Engine::Etcd
        | Engine::ZooKeeper
        | Engine::Http => {
            // Steps stay at `step`: the client's dynamic step would otherwise grow them and
            // skip more of each day's numbers.
            let client = SegmentClient::builder()
                .store_url(url)
                .default_step(opts.step)
                .max_step(opts.step)
                .op_timeout(opts.timeout)
                .max_wait(opts.timeout)
                .connect_blocking()?;
            Ok(Arc::new(SegmentDailyCounter::new(client, name, opts.step)?))
        }
    }
}

/// What [`open_daily_counter`] makes of a URL and a name before it connects: the name's day
/// tags checked, and the engine.
///
/// A Redis counter is one Redis link: its URL takes the link's options only (`?replicas=`,
/// TLS files), the others a segment store's, checked when it opens.
pub(crate) fn plan_daily_counter(url: &str, name: &str) -> Result<Engine> {
    check_name(name)?;
    let engine = Engine::of(url, "counter")?;
    if engine == Engine::Redis {
        check_url(url, engine, Use::Link)?;
    }
    Ok(engine)
}

/// A daily counter's name when none is given.
pub const DEFAULT_COUNTER_NAME: &str = "orders";

struct Day {
    day: u32,
    handle: TagHandle,
}

/// A daily counter in a segment store: one tag per day, `<name>:<yyyymmdd>`, created on the
/// day's first use with start 1 (creating is create-if-missing, so processes racing to create
/// it are fine). Numbers of a day are unique across every client of the store; see the
/// [`open_daily_counter`] docs for gaps and ordering across clients.
///
/// Only the current day's tag is cached: the handle of an earlier day is dropped when a later
/// day starts, and an earlier day is then refused with [`Error::ClockMovedBackwards`] (which
/// [`OrderNumbers`](crate::OrderNumbers) answers by reading its clock again).
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient, SegmentDailyCounter};
/// use idmint_core::DailyCounter;
/// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
/// let counter = SegmentDailyCounter::new(client, "orders", 100)?;
/// assert_eq!(counter.next(20240522)?, 1);
/// assert_eq!(counter.next(20240522)?, 2);
/// assert_eq!(counter.next(20240523)?, 1);
/// assert_eq!(counter.next(20240522).unwrap_err().kind(), "clock_moved_backwards");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub struct SegmentDailyCounter {
    client: SegmentClient,
    name: String,
    step: u64,
    today: ArcSwapOption<Day>,
    /// Serializes day changes, so one caller creates the new day's tag and the rest reuse it.
    switching: Mutex<()>,
}

impl std::fmt::Debug for SegmentDailyCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentDailyCounter")
            .field("store", &self.client.store())
            .field("name", &self.name)
            .field("step", &self.step)
            .finish_non_exhaustive()
    }
}

impl SegmentDailyCounter {
    /// A counter named `name` (its day tags must be valid tags) whose day tags are created
    /// with `step`. A client whose dynamic step may grow (its `max_step` above `step`) takes
    /// larger ranges and skips more numbers at the end of a day: build it with
    /// `.max_step(step)`, as [`open_daily_counter`] does.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, SegmentDailyCounter};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// let long = "x".repeat(125);
    /// assert_eq!(SegmentDailyCounter::new(client, &long, 100).unwrap_err().kind(), "invalid_tag");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn new(client: SegmentClient, name: &str, step: u64) -> Result<Self> {
        check_name(name)?;
        check_step("step", step)?;
        Ok(SegmentDailyCounter {
            client,
            name: name.to_string(),
            step,
            today: ArcSwapOption::empty(),
            switching: Mutex::new(()),
        })
    }

    /// The tag holding `day`'s counter.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, SegmentDailyCounter};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// let counter = SegmentDailyCounter::new(client, "orders", 100)?;
    /// assert_eq!(counter.tag_of(20240522), "orders:20240522");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn tag_of(&self, day: u32) -> String {
        day_tag(&self.name, day)
    }

    /// The current day's handle if `day` is the current day, or an error for an earlier one.
    fn cached(&self, day: u32) -> Result<Option<TagHandle>> {
        match &*self.today.load() {
            Some(d) if d.day == day => Ok(Some(d.handle.clone())),
            Some(d) if day < d.day => Err(MemoryDailyCounter::refuse_earlier(day, d.day)),
            _ => Ok(None),
        }
    }

    #[cold]
    fn start_day(&self, day: u32) -> Result<TagHandle> {
        let _switching = self.switching.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(handle) = self.cached(day)? {
            return Ok(handle);
        }
        let tag = self.tag_of(day);
        self.client
            .create_tag(&TagSpec::new(&tag)?.step(self.step)?)?;
        let handle = self.client.tag(&tag)?;
        let old = self.today.swap(Some(Arc::new(Day {
            day,
            handle: handle.clone(),
        })));
        if let Some(old) = old {
            self.client.forget(old.handle.tag());
        }
        Ok(handle)
    }
}

impl DailyCounter for SegmentDailyCounter {
    fn next(&self, day: u32) -> Result<u64> {
        let handle = match self.cached(day)? {
            Some(handle) => handle,
            None => self.start_day(day)?,
        };
        handle.next_id()
    }
}

/// A daily counter in Redis (feature `redis`): `INCR` on the key `<prefix><name>:<yyyymmdd>`,
/// with an expiry (`PEXPIRE`, 2 days by default) set in the same script, so the
/// keys of old days go away by themselves. Numbers of a day are 1, 2, 3, … across every client
/// of the server, one round trip each.
///
/// Blocking, on plain connections (one per concurrent caller, kept for reuse). A call that
/// gets no answer within the timeout (connecting included) is [`Error::StoreUnavailable`],
/// naming the server without credentials. Redis needs persistence (`appendonly yes`): a
/// restart without it starts the day again at 1 and repeats numbers.
///
/// ```no_run
/// use idmint_core::segment::{DailyCounterOptions, RedisDailyCounter};
/// use idmint_core::DailyCounter;
/// let counter = RedisDailyCounter::connect("redis://127.0.0.1:6379", "orders", &DailyCounterOptions::default())?;
/// assert_eq!(counter.key_of(20240522), "idmint:day:orders:20240522");
/// let n = counter.next(20240522)?;
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[cfg(feature = "redis")]
pub struct RedisDailyCounter {
    target: crate::store::Target,
    count: crate::store::Lua,
    /// Connections kept for reuse, and the fork generation they were opened in: a forked child
    /// opens its own (the parent's sockets are shared with it) and leaves the parent's alone.
    idle: Mutex<(u64, Vec<crate::store::SyncConn>)>,
    describe: String,
    key_prefix: String,
    ttl_ms: u64,
    timeout: Duration,
}

/// Connections kept for reuse; more concurrent callers open (and then drop) their own.
#[cfg(feature = "redis")]
const IDLE_CONNECTIONS: usize = 16;

/// One number of a day: `INCR` and the key's expiry together (a script rather than `MULTI`, so
/// the `WAIT` for the replicas can follow it in the same pipeline). KEYS: the day's key.
/// ARGV: the expiry in ms.
#[cfg(feature = "redis")]
const COUNT: &str = r"
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
";

#[cfg(feature = "redis")]
impl std::fmt::Debug for RedisDailyCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisDailyCounter")
            .field("store", &self.describe)
            .field("key_prefix", &self.key_prefix)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "redis")]
impl RedisDailyCounter {
    /// Connects to `redis://[:pass@]host:port[/db]`, or a Sentinel or Cluster URL
    /// (`redis+sentinel://…`, `redis+cluster://…`, docs/segments.md): one connection, to fail
    /// early when the server is down.
    ///
    /// ```
    /// use idmint_core::segment::{DailyCounterOptions, RedisDailyCounter};
    /// let err = RedisDailyCounter::connect("redis://:secret@127.0.0.1:1", "orders", &DailyCounterOptions::default()).unwrap_err();
    /// assert_eq!(err.kind(), "store_unavailable");
    /// assert!(!err.to_string().contains("secret"));
    /// ```
    pub fn connect(url: &str, name: &str, opts: &DailyCounterOptions) -> Result<Self> {
        check_name(name)?;
        let describe = crate::store::describe_url(url);
        let target = crate::store::Target::parse(url, opts.timeout)?;
        let counter = RedisDailyCounter {
            target,
            count: crate::store::Lua::new(COUNT),
            idle: Mutex::new((crate::fork::watch(), Vec::new())),
            describe,
            key_prefix: format!("{}{name}:", opts.redis_prefix),
            ttl_ms: crate::clock::whole_ms(opts.ttl),
            timeout: opts.timeout,
        };
        let conn = counter.open(Instant::now() + counter.timeout)?;
        counter.put_back(conn);
        Ok(counter)
    }

    /// The key holding `day`'s counter.
    ///
    /// ```no_run
    /// use idmint_core::segment::{DailyCounterOptions, RedisDailyCounter};
    /// let counter = RedisDailyCounter::connect("redis://127.0.0.1:6379", "orders", &DailyCounterOptions::default())?;
    /// assert_eq!(counter.key_of(20240522), "idmint:day:orders:20240522");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn key_of(&self, day: u32) -> String {
        format!("{}{day:08}", self.key_prefix)
    }

    fn unavailable(&self, what: &str, e: impl std::fmt::Display) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!("{what}: {e}"),
        }
    }

    fn left(&self, deadline: Instant, what: &str) -> Result<Duration> {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                self.unavailable(
                    what,
                    format_args!("no answer within {} ms", self.timeout.as_millis()),
                )
            })
    }

    fn open(&self, deadline: Instant) -> Result<crate::store::SyncConn> {
        let conn = self
            .target
            .connect_sync(self.left(deadline, "connecting")?)
            .map_err(|e| self.unavailable("connecting", e))?;
        Ok(conn)
    }

    fn put_back(&self, conn: crate::store::SyncConn) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.1.len() < IDLE_CONNECTIONS {
            idle.1.push(conn);
        }
    }
}

#[cfg(feature = "redis")]
impl DailyCounter for RedisDailyCounter {
    fn next(&self, day: u32) -> Result<u64> {
        let deadline = Instant::now() + self.timeout;
        let key = self.key_of(day);
        let what = format!("counting `{key}`");
        let idle = {
            let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
            if crate::fork::since(idle.0) {
                // INCR counts on the server, so a child may count too, on its own connections.
                crate::fork::abandon(std::mem::take(&mut idle.1));
                idle.0 = crate::fork::current();
            }
            idle.1.pop()
        };
        let mut conn = match idle {
            Some(conn) => conn,
            None => self.open(deadline)?,
        };
        // The deadline covers connecting and the reply together.
        let left = Some(self.left(deadline, &what)?);
        conn.set_timeouts(left)
            .map_err(|e| self.unavailable(&what, e))?;
        // A failed connection is dropped rather than put back: the next call opens a fresh one
        // (and, through Sentinel, asks for the master again).
        let mut call = self.count.call();
        call.key(&key).arg(self.ttl_ms);
        let value: u64 = self
            .target
            .run_sync(&mut conn, &call)
            .map_err(|e| self.unavailable(&what, e))?;
        self.put_back(conn);
        Ok(value)
    }
}

/// Order numbers whose sequence is a segment tag's next ID (not a daily counter): unique
/// across every client of the store for as long as the tag lasts, and never restarting, so the
/// template needs no date. A tag ID wider than the template's sequence is
/// [`Error::CounterOverflow`].
///
/// ```
/// use idmint_core::segment::{MemoryStore, SegmentClient, TagOrderNumbers};
/// use idmint_core::{ManualClock, Template};
/// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
/// let clock = ManualClock::new(1_716_309_000_000);
/// let orders = TagOrderNumbers::new(Template::new("SO-%Y-%2S")?, client.tag("so")?, &clock);
/// assert_eq!(orders.next()?, "SO-2024-01");
/// for _ in 2..=99 { orders.next()?; }
/// let err = orders.next().unwrap_err();
/// assert_eq!(err.kind(), "counter_overflow");
/// assert!(err.to_string().contains("tag `so`"), "{err}");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub struct TagOrderNumbers<C: Clock> {
    template: Template,
    tag: TagHandle,
    clock: C,
}

impl<C: Clock> TagOrderNumbers<C> {
    /// Order numbers of `template` numbered by `tag`, dated by `clock`.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagOrderNumbers};
    /// use idmint_core::{Template, WallClock};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// let orders = TagOrderNumbers::new(Template::new("%12S")?, client.tag("so")?, WallClock);
    /// assert_eq!(orders.next()?, "000000000001");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn new(template: Template, tag: TagHandle, clock: C) -> Self {
        TagOrderNumbers {
            template,
            tag,
            clock,
        }
    }

    /// The template.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagOrderNumbers};
    /// use idmint_core::{Template, WallClock};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// let orders = TagOrderNumbers::new(Template::new("%6S")?, client.tag("so")?, WallClock);
    /// assert_eq!(orders.template().sequence_width(), 6);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// The next order number: the tag's next ID formatted at the clock's time.
    ///
    /// Errors: [`Error::CounterOverflow`] once the tag's IDs pass the sequence width; the
    /// tag's own errors ([`Error::StoreUnavailable`] …).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagOrderNumbers, TagSpec};
    /// use idmint_core::{Template, WallClock};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// client.create_tag(&TagSpec::new("so")?.start(1000)?)?;
    /// let orders = TagOrderNumbers::new(Template::new("%3S")?, client.tag("so")?, WallClock);
    /// assert_eq!(orders.next().unwrap_err().kind(), "counter_overflow");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn next(&self) -> Result<String> {
        let now = self.clock.now_ms();
        let id = self.tag.next_id()?;
        self.template
            .format_counted(now, id, || format!("tag `{}`", self.tag.tag()))
    }
}

impl<C: Clock> std::fmt::Debug for TagOrderNumbers<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TagOrderNumbers")
            .field("template", &self.template)
            .field("tag", &self.tag.tag())
            .finish_non_exhaustive()
    }
}

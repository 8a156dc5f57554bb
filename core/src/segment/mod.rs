//! Segment IDs: numeric IDs from a shared store, one store round trip per thousands of IDs.
//!
//! The scheme of Meituan Leaf's "segment" mode and Didi Tinyid: a store keeps, per *tag*, the
//! last ID handed out (`max_id`); a client moves it up by a *step* in one atomic operation and
//! owns the IDs in between, serving them from memory. Each client holds a current and a next
//! range and fetches the next one in the background once a share of the current one is used
//! (20% by default), so callers wait on the store only when both are empty.
//!
//! - [`SegmentStore`]: the trait; [`MemoryStore`] in memory; `SqlStore` for SQLite, PostgreSQL,
//!   MySQL/MariaDB (features `sqlite`, `postgres`, `mysql`, with sqlx), Redis (feature `redis`) and
//!   etcd (`EtcdStore`, feature `etcd`); ZooKeeper (`ZkStore`, feature `zookeeper`);
//!   [`open_store`] opens one by URL.
//! - Order numbers ([`Template`](crate::Template)) from shared stores: daily counters
//!   ([`SegmentDailyCounter`], a tag per day; [`RedisDailyCounter`], `INCR` per day;
//!   [`open_daily_counter`] by URL) and [`TagOrderNumbers`], a tag as the sequence.
//! - [`SegmentClient`]: the client, blocking (its own one-thread runtime) or async (the
//!   caller's tokio runtime); [`TagHandle`] is a cached tag whose
//!   [`next_id`](TagHandle::next_id) is one atomic `fetch_add`; [`TagCursor`] is one thread's
//!   cursor over blocks of it, one atomic step per block.
//!
//! Segment stores reach their databases through the store layer (`crate::store`: URLs,
//! [`StoreOptions`], the SQL table, the Redis, etcd, ZooKeeper and HTTP links), which the lease stores
//! ([`crate::lease`]) share; segments and leases never use each other.
//!
//! Guarantees: IDs of a tag are unique across every client of the store, and each client's
//! IDs for a tag only grow. They are not globally ordered across clients (client A may hold
//! 1..1000 while B holds 1001..2000), and there are gaps: IDs left in memory at exit are
//! skipped, never reissued, except that a client closing gracefully gives the unused tail of
//! its ranges back when nobody allocated after them ([`SegmentStore::give_back`], one
//! compare-and-set), so a service restarted often does not burn a step per restart.
//!
//! ```
//! use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
//!
//! let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
//! client.create_tag(&TagSpec::new("orders")?.start(1_000_001)?.step(5000)?)?;
//! let orders = client.tag("orders")?;
//! assert_eq!(orders.next_id()?, 1_000_001);
//! assert_eq!(orders.next_id()?, 1_000_002);
//! # Ok::<(), idmint_core::Error>(())
//! ```

#[cfg(feature = "serde")]
mod bodies;
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
mod cas;
mod client;
mod counters;
#[cfg(feature = "etcd")]
mod etcd;
#[cfg(feature = "http")]
mod http;
mod open;
#[cfg(feature = "redis")]
mod redis;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
mod sql;
mod store;
mod tag;
mod tinyid;
#[cfg(feature = "zookeeper")]
mod zookeeper;

pub use client::{SegmentClient, SegmentClientBuilder, TagCursor, TagHandle, TagMetrics};
#[cfg(feature = "fuzzing")]
pub(crate) use counters::plan_daily_counter;
#[cfg(feature = "redis")]
pub use counters::RedisDailyCounter;
pub use counters::{
    open_daily_counter, DailyCounterOptions, SegmentDailyCounter, TagOrderNumbers,
    DEFAULT_COUNTER_NAME, DEFAULT_DAY_STEP,
};
#[cfg(feature = "etcd")]
pub use etcd::EtcdStore;
#[cfg(feature = "http")]
pub use http::HttpStore;
#[cfg(feature = "fuzzing")]
pub(crate) use open::plan_store;
pub use open::{open_store, DEFAULT_STORE_URL};
#[cfg(feature = "redis")]
pub use redis::{RedisMode, RedisStore};
#[cfg(feature = "mysql")]
pub use sql::MySqlStore;
#[cfg(feature = "postgres")]
pub use sql::PostgresStore;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub use sql::SqlStore;
#[cfg(feature = "sqlite")]
pub use sql::SqliteStore;
pub use store::{IdRange, MemoryStore, SegmentStore, TagInfo};
pub use tag::{
    TagSpec, TagUpdate, DEFAULT_PREFIX, DEFAULT_STEP, DEFAULT_TABLE, MAX_DESCRIPTION_LEN, MAX_ID,
    MAX_STEP,
};
pub use tinyid::{
    TinyidFailure, TinyidRule, TinyidSegment, TINYID_DEFAULT_STEP, TINYID_LOADING_PERCENT,
    TINYID_MAX_DELTA, TINYID_SYS_ERROR, TINYID_TOKEN_ERROR,
};
#[cfg(feature = "zookeeper")]
pub use zookeeper::ZkStore;

// Where users have always found them: the rules and the store layer's items segment stores take.
pub use crate::rules::check_step_wide;
#[cfg(feature = "redis")]
pub use crate::store::redis_client;
#[cfg(feature = "http")]
pub use crate::store::TOKEN_VAR;
pub use crate::store::{
    describe_url, validate_table, validate_tag, MaxIdMeaning, StoreFuture, StoreOptions,
    TableMapping, MAX_TABLE_LEN, MAX_TAG_LEN,
};

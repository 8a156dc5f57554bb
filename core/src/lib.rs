//! # idmint-core
//!
//! Unique IDs for sharded systems, the core of idmint's Python, Node, JVM and browser packages:
//!
//! - [`Snowflake`]: 64-bit, time-ordered IDs of any bit [`Layout`] (presets `twitter`,
//!   `sonyflake`, `redis-lua`, `baidu`, or a spec such as `time:41,worker:10,sequence:12`),
//!   lock-free, with explicit policies for a full sequence ([`OnExhausted`]) and a clock that
//!   moves backwards ([`OnRollback`]); [`Layout::decompose`] and [`Layout::compose`] take IDs
//!   apart and put them together;
//! - [`ObjectId`]: 12-byte IDs byte-compatible with MongoDB's, that never repeat within a process;
//! - IDs to show people: order numbers (feature `orders`, on by default) from a [`Template`]
//!   such as `%L%Y%M%D%m%5S` with a daily counter ([`OrderNumbers`]) and check digits; keyed,
//!   reversible [`Obfuscator`]s that
//!   hide volume and order in 63-bit IDs; short strings ([`Encoding`]: base62, Crockford
//!   base32); and time-ordered [`Uuid7`]s with their ULID text.
//!
//! With feature `redis`, `RedisSnowflake` (module `redis_snowflake`) mints snowflake IDs on one
//! or more Redis servers (redis-id-generator's scheme, without its duplicates).
//!
//! With feature `segment` (and a feature per database: `sqlite`, `postgres`, `mysql`, `redis`,
//! `http`), module `segment` hands out numeric IDs from a shared store (Leaf's and Tinyid's
//! scheme) and module `lease` leases snowflake node values that no two live processes share.
//! The two sit side by side on one store layer (URLs, connection options whose table and key
//! prefix default to each kind's own, the SQL table, the Redis and HTTP links) and never use
//! each other; `wire` holds the JSON bodies of `idmint serve`'s API (data only) and [`rules`]
//! the clients' rules and limits. The crate's modules use one another in no circle
//! (`tests/module_cycles.py` checks it).
//!
//! Time comes from a [`Clock`], a parameter everywhere, so tests and other targets can supply
//! their own ([`ManualClock`] for tests).
//!
//! ```
//! use idmint_core::{Layout, ObjectId, Snowflake};
//!
//! let gen = Snowflake::builder(Layout::preset("twitter")?)
//!     .node("datacenter", 1)
//!     .node("worker", 7)
//!     .build()?;
//! let id = gen.next_id()?;
//! let parts = gen.layout().decompose(id)?;
//! assert_eq!(parts.node("worker"), Some(7));
//!
//! let oid = ObjectId::new();
//! assert_eq!(oid.to_hex().len(), 24);
//! # Ok::<(), idmint_core::Error>(())
//! ```

// The browser's wasm build (web/build.mjs, on nightly) sets `--cfg idmint_optimize_size`: the
// functions that parse and check a layout, a policy or a time, which run once per generator,
// are then compiled for size instead of speed, and the hot paths stay as they are.
#![cfg_attr(idmint_optimize_size, feature(optimize_attribute))]
#![deny(missing_docs)]

pub mod addon;
pub mod args;
pub mod clock;
#[cfg(feature = "orders")]
mod counter_args;
mod datetime;
mod error;
mod fork;
pub mod formats;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod guard;
pub mod health;
pub mod json;
pub mod layout;
#[cfg(feature = "segment")]
pub mod lease;
pub mod metrics;
pub mod obfuscate;
pub mod objectid;
pub mod plan;
#[cfg(feature = "redis")]
pub mod redis_snowflake;
pub mod rules;
#[cfg(feature = "segment")]
pub mod segment;
pub mod shortid;
pub mod snowflake;
pub mod sql_script;
#[cfg(feature = "segment")]
mod store;
#[cfg(feature = "orders")]
pub mod template;
pub mod typeid;
pub mod uuid7;
#[cfg(all(feature = "serde", feature = "segment"))]
pub mod wire;

pub use clock::{AnyClock, Clock, ManualClock, MonotonicClock, WallClock};
#[cfg(feature = "orders")]
pub use counter_args::CounterArgs;
pub use datetime::{format_time_ms, format_time_s, parse_time_ms, MAX_TIME_MS};
pub use error::{Error, ErrorFamily, ErrorKind, Recovery, Result};
pub use layout::{
    parse_id, parse_u64, Field, FieldKind, Layout, LayoutBuilder, Parts, WordSlot, PRESETS,
    UNSIGNED_PRESETS,
};
pub use obfuscate::{split_tagged, Key, Keyring, Obfuscator};
pub use objectid::{ObjectId, ObjectIdGenerator};
#[cfg(feature = "redis")]
pub use redis_snowflake::{RedisSnowflake, RedisSnowflakeBuilder, RedisSnowflakeStats};
#[cfg(feature = "segment")]
pub use segment::{SegmentClient, TagHandle};
pub use shortid::Encoding;
#[cfg(feature = "segment")]
pub use snowflake::{LeaseSource, LeaseStats};
pub use snowflake::{OnExhausted, OnRollback, Snowflake, SnowflakeBuilder, Stats};
#[cfg(feature = "orders")]
pub use template::{
    parse_utc_offset, CheckDigit, DailyCounter, MemoryDailyCounter, OrderNumbers, Template,
    TemplateParts,
};
pub use uuid7::{Uuid7, Uuid7Generator};

/// The module [`rules`] under its earlier name, for the paths users already write
/// (`idmint_core::remote::rules_json`).
pub use rules as remote;

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

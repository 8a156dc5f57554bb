//! # idmint-core
//!
//! Unique IDs for sharded systems, the core of idmint's Python, Node, JVM and browser packages:
//!
//! - [`Snowflake`]: 64-bit, time-ordered IDs of any bit [`Layout`] (presets `twitter`,
//!   `sonyflake`, `redis-lua`, `baidu`, or a spec such as `time:41,worker:10,sequence:12`),
//!   lock-free, with explicit policies for a full sequence ([`OnExhausted`]) and a clock that
//!   moves backwards ([`OnRollback`]); [`Layout::decompose`] and [`Layout::compose`] take IDs
//!   apart and put them together;
//! - [`ObjectId`]: 12-byte IDs byte-compatible with MongoDB's, that never repeat within a process.
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

#![deny(missing_docs)]

pub mod clock;
mod datetime;
mod error;
pub mod layout;
pub mod objectid;
pub mod snowflake;

pub use clock::{Clock, ManualClock, MonotonicClock, WallClock};
pub use datetime::{format_time_ms, format_time_s, parse_time_ms, MAX_TIME_MS};
pub use error::{Error, Result};
pub use layout::{parse_id, Field, FieldKind, Layout, LayoutBuilder, Parts, PRESETS};
pub use objectid::{ObjectId, ObjectIdGenerator};
pub use snowflake::{OnExhausted, OnRollback, Snowflake, SnowflakeBuilder, Stats};

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

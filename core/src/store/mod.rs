//! The store layer: everything that *reaches* a store, beneath the segment stores
//! ([`crate::segment`]), the lease stores ([`crate::lease`]), the shared daily counters and
//! [`RedisSnowflake`](crate::RedisSnowflake), which use it and never each other:
//!
//! - `url`: a URL's kind of store (memory, SQLite, PostgreSQL, MySQL, Redis, etcd, HTTP) and how
//!   messages show it ([`describe_url`]);
//! - `options`: how to reach a store ([`StoreOptions`]), whose table, pool and key prefix
//!   default to those of the kind of store opened; `params`: every option a store URL takes,
//!   by kind of store and use, which the URL readers consult and the docs' tables show;
//!   `mapping`: an existing SQL table's columns
//!   ([`TableMapping`]); `names`: the tag and table names that reach a store;
//! - `sql`: one SQL table, for every engine, with its pool (features `sqlite`, `postgres`,
//!   `mysql`); `redis`: the Redis link, one server, Sentinel or Cluster, with writes that
//!   survive a failover (feature `redis`); `http`: the link to an `idmint serve` (feature
//!   `http`); `etcd`: an etcd cluster (feature `etcd`); `zookeeper`: a ZooKeeper ensemble
//!   (feature `zookeeper`);
//! - `runtime`: the future store calls return ([`StoreFuture`]) and the runtime blocking
//!   clients run them on.
//! - `failure`: what a link's failure is (`not_authorized` or `store_unavailable`), one rule
//!   for the HTTP, etcd and ZooKeeper links.
//!
//! Its public items are re-exported where users have always found them: `segment::…` and,
//! for the lease stores' options, `lease::…`.

#[cfg(feature = "etcd")]
mod etcd;
#[cfg(any(feature = "http", feature = "etcd", feature = "zookeeper"))]
mod failure;
#[cfg(feature = "http")]
mod http;
mod mapping;
mod names;
mod options;
mod params;
#[cfg(feature = "redis")]
mod redis;
mod runtime;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
mod sql;
mod url;
#[cfg(feature = "zookeeper")]
mod zookeeper;

#[cfg(feature = "etcd")]
pub(crate) use etcd::EtcdLink;
#[cfg(feature = "http")]
pub(crate) use http::HttpLink;
#[cfg(all(feature = "http", feature = "fuzzing"))]
pub(crate) use http::HttpTarget;
#[cfg(feature = "http")]
pub use http::TOKEN_VAR;
pub use mapping::{MaxIdMeaning, TableMapping};
pub use names::{validate_table, validate_tag, MAX_TABLE_LEN, MAX_TAG_LEN};
pub use options::StoreOptions;
pub(crate) use params::{check as check_url, reader as option_reader, Use};
#[cfg(feature = "redis")]
pub use redis::redis_client;
#[cfg(feature = "redis")]
pub(crate) use redis::{Call, Lua, RedisConn, SyncConn, Target, Topology};
pub(crate) use runtime::background_runtime;
pub use runtime::StoreFuture;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub(crate) use sql::{Bind, Dialect, Pooling, SqlTable};
pub use url::describe_url;
pub(crate) use url::Engine;
#[cfg(feature = "zookeeper")]
pub(crate) use zookeeper::{timed_raw, ZkLink, ZkResult};

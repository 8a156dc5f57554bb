//! Worker-ID leases: node values that two live processes never share, reused safely.
//!
//! A snowflake node value (datacenter and worker, machine, shard) must belong to one process at
//! a time, and a process that takes over a value must never mint an ID its previous holder
//! could have minted. Hand-set values collide when containers come and go; Baidu's scheme
//! burns a new value on every start; Leaf never recycles. Here a store hands out values:
//!
//! - **Lease**: a free value of a range is taken for a TTL and renewed in the background every
//!   TTL/3. A value whose lease expired is *frozen* for a further period before anyone may take
//!   it (a stalled holder that wakes up late finds it still unusable for others).
//! - **Fence**: the holder records, ahead of time, the last time its IDs may carry (the value's
//!   `last_time_ms`). A later holder of the value issues only IDs with a later time: it waits,
//!   continues ahead or fails, by its [`OnRollback`](crate::OnRollback) policy, so reuse after a
//!   crash is safe even when the new process's clock is behind.
//! - **Lost lease**: when renewals fail, the generator stops issuing ([`Error::LeaseLost`](crate::Error::LeaseLost)) a
//!   safety margin before the TTL ends, and carries on once a renewal (or a new lease)
//!   succeeds.
//!
//! Stores: [`MemoryLeaseStore`] (this process), and by URL ([`open_lease_store`]) SQLite,
//! PostgreSQL, MySQL/MariaDB (table `idmint_workers`), Redis (one hash under
//! `idmint:lease`), etcd (a key per held value bound to an etcd lease, under
//! `/idmint:lease`), ZooKeeper (an ephemeral node per held value, under `/idmint:lease`, or
//! Leaf's snowflake workers in place with `?schema=leaf&leaf_name=…`), behind the same cargo features as the segment stores. They reach their
//! databases through the store layer the segment stores use too (`crate::store`: URLs,
//! [`StoreOptions`], the SQL table, the Redis, etcd and HTTP links), whose table and prefix default
//! to the lease stores' own whichever way a store is opened; leases and segments never use
//! each other.
//!
//! ```
//! use std::time::Duration;
//! use idmint_core::lease::{LeaseOptions, MemoryLeaseStore};
//! use idmint_core::{Layout, Snowflake};
//!
//! let store = MemoryLeaseStore::new();
//! let lease = LeaseOptions::store(store.clone()).range(0, 1).ttl(Duration::from_secs(5));
//! let a = Snowflake::builder(Layout::preset("twitter")?).lease(lease.clone()).build()?;
//! let b = Snowflake::builder(Layout::preset("twitter")?).lease(lease.clone()).build()?;
//! assert_ne!(a.nodes(), b.nodes());
//! let err = Snowflake::builder(Layout::preset("twitter")?).lease(lease).build().unwrap_err();
//! assert_eq!(err.kind(), "no_free_lease");
//! assert!(a.next_id()? != b.next_id()?);
//! # Ok::<(), idmint_core::Error>(())
//! ```

#[cfg(feature = "serde")]
mod bodies;
#[cfg(any(feature = "etcd", feature = "zookeeper", feature = "redis"))]
mod cas;
mod client;
#[cfg(feature = "etcd")]
mod etcd;
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
mod held_record;
#[cfg(feature = "http")]
mod http;
mod keeper;
mod memory;
mod open;
#[cfg(feature = "redis")]
mod redis;
#[cfg(unix)]
mod shared;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
mod sql;
mod store;
mod values;
#[cfg(feature = "zookeeper")]
mod zookeeper;

pub use client::{check_token, ClientLease, ClientLeases, MAX_TOKEN_LEN, MIN_TOKEN_LEN};
#[cfg(feature = "etcd")]
pub use etcd::EtcdLeaseStore;
#[cfg(feature = "http")]
pub use http::HttpLeaseStore;
pub use keeper::{LeaseOptions, DEFAULT_TTL};
pub use memory::MemoryLeaseStore;
#[cfg(feature = "fuzzing")]
pub(crate) use open::plan_lease_store;
pub use open::{lease_url_beside, list_leases, open_lease_store, DEFAULT_LIST_TIMEOUT};
#[cfg(feature = "redis")]
pub use redis::RedisLeaseStore;
#[cfg(unix)]
pub use shared::SharedLease;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub use sql::SqlLeaseStore;
pub use store::{
    Grant, LeaseInfo, LeaseRequest, LeaseStore, DEFAULT_LEASE_PREFIX, DEFAULT_LEASE_TABLE,
    MAX_VALUE,
};
pub use values::{layout_range, node_values, parse_range};
#[cfg(feature = "zookeeper")]
pub use zookeeper::{ZkLeaseStore, DEFAULT_LEAF_DEAD_AFTER};

// The store layer's items a lease store takes, here too so lease code needs no `segment::`.
pub use crate::store::{StoreFuture, StoreOptions};

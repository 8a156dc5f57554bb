//! Every option of every store URL is honoured or refused by name, in every entry point that
//! opens a store by URL: segment stores, lease stores, daily counters, Redis snowflakes. The
//! refusals come before anything connects, so they need no server; the pool sizes are read off
//! real pools and need `IDMINT_TEST_{POSTGRES,MYSQL}_URL` (tests/servers.sh starts them).
#![cfg(all(
    feature = "sqlite",
    feature = "postgres",
    feature = "mysql",
    feature = "redis"
))]

mod segment_util;

use idmint_core::lease::{
    lease_url_beside, open_lease_store, LeaseStore, SqlLeaseStore, StoreOptions,
};
use idmint_core::segment::{open_daily_counter, open_store, DailyCounterOptions};
use idmint_core::{Error, RedisSnowflake};
use segment_util::server;

/// A URL of every kind of store this build has, at an address nothing listens on: a refusal
/// must come before connecting.
fn stores() -> Vec<(&'static str, String)> {
    let db = std::env::temp_dir().join(format!("idmint-options-{}.db", std::process::id()));
    let mut urls = vec![
        ("memory", "memory:".to_string()),
        ("sqlite", format!("sqlite:{}", db.display())),
        ("postgres", "postgres://app@127.0.0.1:1/ids".to_string()),
        ("mysql", "mysql://app@127.0.0.1:1/ids".to_string()),
        ("redis", "redis://127.0.0.1:1".to_string()),
    ];
    if cfg!(feature = "etcd") {
        urls.push(("etcd", "etcd://127.0.0.1:1".into()));
    }
    if cfg!(feature = "zookeeper") {
        urls.push(("zookeeper", "zk://127.0.0.1:1".into()));
    }
    if cfg!(feature = "http") {
        urls.push(("http", "http://127.0.0.1:1".into()));
    }
    urls
}

/// `url` with `option` added to its query.
fn with(url: &str, option: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{option}")
}

/// The option an error names, or what it was instead.
fn named(result: idmint_core::Result<impl Sized>) -> String {
    match result {
        Err(Error::InvalidArgument { name, .. }) => name,
        Err(other) => format!("not refused by name: {other}"),
        Ok(_) => "accepted".into(),
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// Options a lease store does not take, on every kind of lease store: refused, naming the
/// option. Before, `?pool=`, `?shards=` and the mapping options were taken out of the URL and
/// dropped (`memory:?pool=5` opened; a PostgreSQL lease store kept its pool of 2).
#[test]
fn lease_store_options_it_does_not_take_are_refused_by_name() {
    for (kind, url) in stores() {
        let mut refused = vec!["shards=3", "shard_refill=10", "tag_column=name", "bogus=1"];
        match kind {
            "sqlite" | "postgres" | "mysql" => refused.extend(["prefix=p", "schema=leaf"]),
            "redis" | "etcd" | "zookeeper" => refused.extend(["pool=5", "table=t"]),
            _ => refused.extend(["pool=5", "table=t", "prefix=p"]),
        }
        if kind == "sqlite" {
            // SQLite always opens one connection: a pool size would be dropped.
            refused.push("pool=5");
        }
        if kind != "zookeeper" {
            refused.push("leaf_name=x");
        }
        for option in refused {
            let url = with(&url, option);
            let name = option.split('=').next().unwrap();
            assert_eq!(named(block_on(open_lease_store(&url))), name, "{url}");
        }
    }
}

/// Options a segment store does not take: refused, naming the option.
#[test]
fn segment_store_options_it_does_not_take_are_refused_by_name() {
    for (kind, url) in stores() {
        let mut refused = vec!["leaf_name=x", "bogus=1"];
        match kind {
            "sqlite" | "postgres" | "mysql" => refused.extend(["prefix=p", "shards=3"]),
            "redis" => refused.extend(["pool=5", "table=t", "schema=leaf"]),
            _ => refused.extend(["pool=5", "table=t", "shards=3", "schema=leaf"]),
        }
        for option in refused {
            let url = with(&url, option);
            let name = option.split('=').next().unwrap();
            let opened = block_on(open_store(&url, &StoreOptions::default()));
            assert_eq!(named(opened), name, "{url}");
        }
    }
}

/// A Redis daily counter and a Redis snowflake reach Redis through the link alone: the store
/// options are refused by name, not handed to the redis crate, which ignored them.
#[test]
fn redis_link_options_it_does_not_take_are_refused_by_name() {
    for option in ["prefix=p", "shards=3", "pool=5", "bogus=1"] {
        let url = with("redis://127.0.0.1:1", option);
        let name = option.split('=').next().unwrap();
        let counter = open_daily_counter(&url, "orders", &DailyCounterOptions::default());
        assert_eq!(named(counter), name, "counter {url}");
        let snowflake = RedisSnowflake::builder().url(&url).connect_blocking();
        assert_eq!(named(snowflake), name, "snowflake {url}");
    }
}

/// `idmint serve` keeps leases in the store it is given: its lease store's URL leaves out what
/// only segment stores take, and keeps the rest for the lease store to honour or refuse.
#[test]
fn the_lease_url_beside_a_segment_store() {
    let beside = lease_url_beside("redis://h:1?shards=4&prefix=p&replicas=1").unwrap();
    assert_eq!(beside, "redis://h:1?prefix=p&replicas=1");
    let beside = lease_url_beside("postgres://h/db?schema=leaf&pool=8&sslmode=disable").unwrap();
    assert_eq!(beside, "postgres://h/db?pool=8&sslmode=disable");
    assert_eq!(lease_url_beside("memory:").unwrap(), "memory:");
}

/// A SQL lease store's pool is the URL's `?pool=` (or the options'), else 2: before, always 2.
#[test]
fn sql_lease_store_pool_is_the_urls() {
    for name in ["postgres", "mysql"] {
        let Some(base) = server(name) else { continue };
        block_on(async {
            let five = SqlLeaseStore::connect(&with(&base, "pool=5"), &StoreOptions::default())
                .await
                .unwrap();
            assert_eq!(five.pool_size(), 5, "{name}");
            five.close().await.unwrap();
            let opts = StoreOptions::default().pool_size(3).unwrap();
            let three = SqlLeaseStore::connect(&base, &opts).await.unwrap();
            assert_eq!(three.pool_size(), 3, "{name}");
            three.close().await.unwrap();
            let default = SqlLeaseStore::connect(&base, &StoreOptions::default())
                .await
                .unwrap();
            assert_eq!(default.pool_size(), 2, "{name}");
            default.close().await.unwrap();
            // open_lease_store reads the URL the same way.
            let opened = open_lease_store(&with(&base, "pool=5")).await.unwrap();
            opened.close().await.unwrap();
        });
    }
}

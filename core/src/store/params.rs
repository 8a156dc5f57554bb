//! Every option a store URL takes, once: which kind of store takes it, for which use, and who
//! reads it ([`OPTIONS`]). The openers consult it before anything connects, so an option is
//! either honoured or refused by name, never passed to a driver that ignores it; the option
//! tables in docs/segments.md and docs/leases.md are rendered from it (a test compares them).

#[cfg(test)]
use super::url::ENGINES;
use super::url::{describe_url, Engine, EngineInfo};
use crate::{Error, Result};

/// What a store is opened for: the options a URL may carry depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// A segment store ([`open_store`](crate::segment::open_store)); daily counters outside
    /// Redis are segment tags in one.
    Segments,
    /// A lease store ([`open_lease_store`](crate::lease::open_lease_store)).
    Leases,
    /// A bare Redis link: a Redis daily counter, [`RedisSnowflake`](crate::RedisSnowflake).
    Link,
}

impl Use {
    fn bit(self) -> u8 {
        match self {
            Use::Segments => S,
            Use::Leases => L,
            Use::Link => C,
        }
    }

    /// Whether a kind of store serves this use (a bare link is Redis's alone).
    fn served_by(self, info: &EngineInfo) -> bool {
        match self {
            Use::Segments => info.segments,
            Use::Leases => info.leases,
            Use::Link => info.engine == Engine::Redis,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Use::Segments => "segment store",
            Use::Leases => "lease store",
            Use::Link => "link (daily counters, RedisSnowflake)",
        }
    }
}

const S: u8 = 1;
const L: u8 = 2;
const C: u8 = 4;

/// Who reads an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// [`StoreOptions`](super::StoreOptions): removed from the URL before the driver sees it.
    Options,
    /// idmint's reader of the store's URL (the link: `store/redis.rs`, `store/etcd.rs`, …).
    Link,
    /// The driver (sqlx, the redis crate), which gets the URL with it.
    Driver,
}

/// One option of store URLs: its names (aliases), the kinds of store that take it with the
/// uses they take it for, who reads it, and what it means (for the docs).
#[derive(Debug)]
pub(crate) struct UrlOption {
    pub(crate) names: &'static [&'static str],
    takers: &'static [(&'static [Engine], u8)],
    pub(crate) reader: Reader,
    /// What it does, for the docs' tables.
    #[cfg_attr(not(test), allow(dead_code))]
    meaning: &'static str,
}

const SQL: &[Engine] = &[Engine::Sqlite, Engine::Postgres, Engine::MySql];
const PG: &[Engine] = &[Engine::Postgres];
const MY: &[Engine] = &[Engine::MySql];
const PG_MY: &[Engine] = &[Engine::Postgres, Engine::MySql];
const REDIS: &[Engine] = &[Engine::Redis];
const ETCD: &[Engine] = &[Engine::Etcd];
const ZK: &[Engine] = &[Engine::ZooKeeper];
const HTTP: &[Engine] = &[Engine::Http];
const KEYED: &[Engine] = &[Engine::Redis, Engine::Etcd, Engine::ZooKeeper];
const ETCD_HTTP: &[Engine] = &[Engine::Etcd, Engine::Http];

const fn opt(
    names: &'static [&'static str],
    takers: &'static [(&'static [Engine], u8)],
    reader: Reader,
    meaning: &'static str,
) -> UrlOption {
    UrlOption {
        names,
        takers,
        reader,
        meaning,
    }
}

/// Every option of every store URL. An option not here is refused by every store; one here is
/// refused by the stores and uses it does not list.
pub(crate) const OPTIONS: &[UrlOption] = &[
    opt(&["table"], &[(SQL, S | L)], Reader::Options,
        "the table (default `idmint_segments`, leases `idmint_workers`); with a column option, the mapped table"),
    opt(&["pool"], &[(PG_MY, S | L)], Reader::Options,
        "connections in the pool, 1..=64 (default 4, leases 2); SQLite always uses one"),
    opt(&["prefix"], &[(KEYED, S | L)], Reader::Options,
        "key prefix (ZooKeeper: node path), default `idmint:seg`, leases `idmint:lease`"),
    opt(&["shards"], &[(REDIS, S)], Reader::Options,
        "sharded mode: N shard keys, 1..=1024 (0: plain mode)"),
    opt(&["shard_refill"], &[(REDIS, S)], Reader::Options,
        "sharded mode: IDs a shard takes from the global counter beyond the request"),
    opt(&["schema"], &[(SQL, S), (ZK, L)], Reader::Options,
        "`leaf`: Leaf's `leaf_alloc` (SQL segments), Leaf's snowflake workers (ZooKeeper leases, with `leaf_name`)"),
    opt(&["tag_column"], &[(SQL, S)], Reader::Options, "mapped table: the column of tag names"),
    opt(&["max_id_column"], &[(SQL, S)], Reader::Options, "mapped table: the counter column"),
    opt(&["max_id_is"], &[(SQL, S)], Reader::Options,
        "mapped table: `last` or `next`, what the counter holds"),
    opt(&["step_column"], &[(SQL, S)], Reader::Options, "mapped table: each tag's step"),
    opt(&["description_column"], &[(SQL, S)], Reader::Options,
        "mapped table: a description column"),
    opt(&["updated_column"], &[(SQL, S)], Reader::Options,
        "mapped table: a time column set on every move"),
    opt(&["replicas"], &[(REDIS, S | L | C)], Reader::Link,
        "replicas that must hold each write (`WAIT`), 0..=64"),
    opt(&["ca"], &[(REDIS, S | L | C), (ETCD_HTTP, S | L)], Reader::Link,
        "TLS (`rediss`, `etcds`, `https`): the CA file, PEM"),
    opt(&["cert"], &[(REDIS, S | L | C), (ETCD, S | L)], Reader::Link,
        "TLS: the client certificate, PEM"),
    opt(&["key"], &[(REDIS, S | L | C), (ETCD, S | L)], Reader::Link,
        "TLS: the client certificate's key, PEM"),
    opt(&["token"], &[(HTTP, S | L)], Reader::Link,
        "the bearer token (or the variable `IDMINT_STORE_TOKEN`)"),
    opt(&["leaf_name"], &[(ZK, L)], Reader::Link,
        "with `schema=leaf`: Leaf's `leaf.name`, whose workers to share"),
    opt(&["leaf_dead_after"], &[(ZK, L)], Reader::Link,
        "with `schema=leaf`: seconds without a report before a Leaf worker's value is taken"),
    opt(&["protocol"], &[(REDIS, S | L | C)], Reader::Driver,
        "one server: `resp2` or `resp3` (the redis crate's)"),
    opt(&["sslmode", "ssl-mode"], &[(PG_MY, S | L)], Reader::Driver,
        "TLS: PostgreSQL `disable`…`verify-full`, MySQL `DISABLED`…`VERIFY_IDENTITY`"),
    opt(&["sslrootcert", "ssl-root-cert"], &[(PG, S | L)], Reader::Driver, "TLS: the CA file"),
    opt(&["ssl-ca"], &[(PG_MY, S | L)], Reader::Driver, "TLS: the CA file"),
    opt(&["sslca"], &[(MY, S | L)], Reader::Driver, "TLS: the CA file"),
    opt(&["sslcert", "ssl-cert"], &[(PG_MY, S | L)], Reader::Driver,
        "TLS: the client certificate"),
    opt(&["sslkey", "ssl-key"], &[(PG_MY, S | L)], Reader::Driver,
        "TLS: the client certificate's key"),
    opt(&["statement-cache-capacity"], &[(PG_MY, S | L)], Reader::Driver,
        "prepared statements kept per connection"),
    opt(&["host", "hostaddr", "port", "dbname", "user", "password"], &[(PG, S | L)],
        Reader::Driver, "libpq's, overriding the URL's parts"),
    opt(&["application_name"], &[(PG, S | L)], Reader::Driver,
        "the name `pg_stat_activity` shows"),
    opt(&["options"], &[(PG, S | L)], Reader::Driver, "run-time parameters (`-c name=value`)"),
    opt(&["charset", "collation"], &[(MY, S | L)], Reader::Driver,
        "the connection's character set and collation"),
    opt(&["socket"], &[(MY, S | L)], Reader::Driver, "a Unix socket instead of TCP"),
    opt(&["timezone", "time-zone"], &[(MY, S | L)], Reader::Driver,
        "the session's time zone"),
    opt(&["mode"], &[(&[Engine::Sqlite], S | L)], Reader::Driver,
        "`ro`, `rw`, `rwc` (default: created if missing) or `memory`"),
    opt(&["cache", "immutable", "vfs"], &[(&[Engine::Sqlite], S | L)], Reader::Driver,
        "SQLite's open flags"),
];

impl UrlOption {
    /// The uses `engine` takes this option for, as bits.
    fn uses(&self, engine: Engine) -> u8 {
        self.takers
            .iter()
            .filter(|(engines, _)| engines.contains(&engine))
            .fold(0, |acc, (_, uses)| acc | uses)
    }
}

/// Who reads option `key` of `url`, a URL of `engine` opened for `what`; an error naming the
/// option and the store when that store does not take it for that use.
pub(crate) fn reader(key: &str, url: &str, engine: Engine, what: Use) -> Result<Reader> {
    if !what.served_by(engine.info()) {
        return Err(Error::InvalidArgument {
            name: "store".into(),
            value: describe_url(url),
            expected: format!("a kind of store that serves as a {}", what.words()),
        });
    }
    let mut known = false;
    for o in OPTIONS.iter().filter(|o| o.names.contains(&key)) {
        known = true;
        if o.uses(engine) & what.bit() != 0 {
            return Ok(o.reader);
        }
    }
    let taken: Vec<&str> = OPTIONS
        .iter()
        .filter(|o| o.uses(engine) & what.bit() != 0)
        .flat_map(|o| o.names.iter().copied())
        .collect();
    let takes = if taken.is_empty() {
        "no options".to_string()
    } else {
        taken.join(", ")
    };
    let store = format!("the {} {}", engine.title(), what.words());
    Err(Error::InvalidArgument {
        name: crate::error::escaped(key),
        value: describe_url(url),
        expected: if known {
            format!("an option {store} takes: it does not take `{key}` (it takes {takes})")
        } else {
            format!("a known URL option: {store} takes {takes}")
        },
    })
}

/// Checks every query parameter of `url` ([`reader`]).
pub(crate) fn check(url: &str, engine: Engine, what: Use) -> Result<()> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let key = pair.split_once('=').map_or(pair, |(k, _)| k);
        reader(key, url, engine, what)?;
    }
    Ok(())
}

/// The table of the options `what` takes, per kind of store, in Markdown: what the docs show
/// between `<!-- url-options:NAME -->` and `<!-- /url-options -->` (the test that compares
/// them prints it).
#[cfg(test)]
pub(crate) fn markdown(what: Use) -> String {
    let engines: Vec<_> = ENGINES.iter().filter(|e| what.served_by(e)).collect();
    let mut out = String::from("| option |");
    for e in &engines {
        out += &format!(" {} |", e.title);
    }
    out += " read by | meaning |\n| --- |";
    out += &" :-: |".repeat(engines.len());
    out += " --- | --- |\n";
    for o in OPTIONS {
        if engines.iter().all(|e| o.uses(e.engine) & what.bit() == 0) {
            continue;
        }
        let names: Vec<String> = o.names.iter().map(|n| format!("`{n}`")).collect();
        out += &format!("| {} |", names.join(", "));
        for e in &engines {
            out += if o.uses(e.engine) & what.bit() != 0 {
                " ✓ |"
            } else {
                " |"
            };
        }
        let reader = match o.reader {
            Reader::Options => "idmint (removed)",
            Reader::Link => "idmint's link",
            Reader::Driver => "the driver",
        };
        out += &format!(" {reader} | {} |\n", o.meaning);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(url: &str, engine: Engine, what: Use) -> Option<String> {
        check(url, engine, what).err().map(|e| match e {
            Error::InvalidArgument { name, .. } => name,
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn option_by_store_and_use() {
        let pg = "postgres://h/db?pool=5&sslmode=disable";
        assert_eq!(refused(pg, Engine::Postgres, Use::Leases), None);
        assert_eq!(
            refused("sqlite:x?pool=5", Engine::Sqlite, Use::Segments).as_deref(),
            Some("pool")
        );
        assert_eq!(
            refused("redis://h:1?shards=3", Engine::Redis, Use::Segments),
            None
        );
        for (url, engine, what, name) in [
            ("redis://h:1?shards=3", Engine::Redis, Use::Leases, "shards"),
            ("redis://h:1?pool=3", Engine::Redis, Use::Leases, "pool"),
            ("redis://h:1?prefix=p", Engine::Redis, Use::Link, "prefix"),
            ("redis://h:1?bogus=1", Engine::Redis, Use::Segments, "bogus"),
            ("etcd://h:1?table=t", Engine::Etcd, Use::Leases, "table"),
            (
                "zk://h:1?leaf_name=x",
                Engine::ZooKeeper,
                Use::Segments,
                "leaf_name",
            ),
            ("memory:?pool=2", Engine::Memory, Use::Segments, "pool"),
            (
                "postgres://h/db?connect_timeout=3",
                Engine::Postgres,
                Use::Segments,
                "connect_timeout",
            ),
            (
                "mysql://h/db?schema=leaf",
                Engine::MySql,
                Use::Leases,
                "schema",
            ),
        ] {
            assert_eq!(
                refused(url, engine, what).as_deref(),
                Some(name),
                "{url} {what:?}"
            );
        }
        let err = check("redis://:pw@h:1?pool=3", Engine::Redis, Use::Leases)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`pool`") && err.contains("Redis lease store"),
            "{err}"
        );
        assert!(!err.contains("pw"), "{err}");
    }

    /// The docs' option tables are this table: a stale one fails, printing the text to paste.
    #[test]
    fn docs_tables() {
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
        let mut stale = Vec::new();
        for (page, name, what) in [
            ("segments.md", "segments", Use::Segments),
            ("segments.md", "link", Use::Link),
            ("leases.md", "leases", Use::Leases),
        ] {
            let text = std::fs::read_to_string(docs.join(page)).unwrap();
            let open = format!("<!-- url-options:{name} -->\n");
            let got = text
                .split_once(&open)
                .and_then(|(_, rest)| rest.split_once("<!-- /url-options -->"))
                .map(|(table, _)| table);
            let want = markdown(what);
            if got != Some(want.as_str()) {
                stale.push(format!(
                    "docs/{page}, between `{open}` and `<!-- /url-options -->`:\n{want}"
                ));
            }
        }
        assert!(
            stale.is_empty(),
            "stale option tables; expected:\n\n{}",
            stale.join("\n")
        );
    }
}

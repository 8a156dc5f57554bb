//! How to reach a store: [`StoreOptions`], the options every opener takes (segment stores,
//! lease stores, daily counters), set in code or by a URL's query parameters.
//!
//! The SQL table and the Redis key prefix have no value of their own here: a store of each
//! kind fills in its kind's default when they are unset, so a lease store reached with
//! `StoreOptions::default()` (or `&Default::default()`) uses the lease table and prefix, never
//! the segment stores'.

use super::mapping::{MappingParams, TableMapping};
use super::names::{validate_table, validate_tag};
use super::params::{self, Reader, Use};
use super::url::Engine;
use crate::rules::check_step;
use crate::{Error, Result};

/// How to open a store by URL. URL query parameters `table`, `pool`, `prefix`, `shards` and
/// `shard_refill` override these (and are removed before the URL reaches the driver), and so
/// do the parameters that map an existing table ([`TableMapping`]): `schema=leaf`, or
/// `table`, `tag_column`, `max_id_column` with optional `step_column`, `description_column`,
/// `updated_column` and `max_id_is=last|next`. A URL option the store opened does not take
/// (`pool` on Redis, `shards` on a lease store) is refused by name: docs/segments.md and
/// docs/leases.md show which store takes which.
///
/// The SQL table, the pool size and the key prefix default to those of the kind of store opened:
/// `idmint_segments` and `idmint:seg` for segment stores
/// ([`segment::DEFAULT_TABLE`](crate::segment::DEFAULT_TABLE),
/// [`segment::DEFAULT_PREFIX`](crate::segment::DEFAULT_PREFIX)), `idmint_workers` and
/// `idmint:lease` for lease stores
/// ([`lease::DEFAULT_LEASE_TABLE`](crate::lease::DEFAULT_LEASE_TABLE),
/// [`lease::DEFAULT_LEASE_PREFIX`](crate::lease::DEFAULT_LEASE_PREFIX)); 4 connections for
/// segment stores, 2 for lease stores.
///
/// ```
/// use idmint_core::segment::StoreOptions;
/// let opts = StoreOptions::default().table("my_segments")?.pool_size(8)?;
/// assert!(StoreOptions::default().table("bad name").is_err());
/// # let _ = opts;
/// # Ok::<(), idmint_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    table: Option<String>,
    pool_size: Option<u32>,
    key_prefix: Option<String>,
    pub(crate) redis_shards: u32,
    pub(crate) redis_shard_refill: u64,
    pub(crate) mapping: Option<TableMapping>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            table: None,
            pool_size: None,
            key_prefix: None,
            redis_shards: 0,
            redis_shard_refill: 1000,
            mapping: None,
        }
    }
}

impl StoreOptions {
    /// The SQL table (default: the kind's, `idmint_segments` or `idmint_workers`), checked by
    /// [`validate_table`].
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().table("ids").is_ok());
    /// ```
    pub fn table(mut self, table: &str) -> Result<Self> {
        validate_table(table)?;
        self.table = Some(table.to_string());
        Ok(self)
    }

    /// Connections in a SQL pool, 1..=64 (default: the kind's, 4 for segment stores, 2 for
    /// lease stores; SQLite uses one).
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().pool_size(0).is_err());
    /// ```
    pub fn pool_size(mut self, n: u32) -> Result<Self> {
        if !(1..=64).contains(&n) {
            return Err(Error::InvalidArgument {
                name: "pool".into(),
                value: n.to_string(),
                expected: "1..=64".into(),
            });
        }
        self.pool_size = Some(n);
        Ok(self)
    }

    /// The prefix of the store's keys: Redis and etcd keys, ZooKeeper node paths (default:
    /// the kind's, `idmint:seg` or `idmint:lease`): 1 to 64 characters as in tags. The URL
    /// option `prefix=` sets it too.
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().key_prefix("app:ids").is_ok());
    /// ```
    pub fn key_prefix(mut self, prefix: &str) -> Result<Self> {
        validate_tag(prefix)?;
        if prefix.len() > 64 {
            return Err(Error::InvalidArgument {
                name: "prefix".into(),
                value: prefix.into(),
                expected: "at most 64 characters".into(),
            });
        }
        self.key_prefix = Some(prefix.to_string());
        Ok(self)
    }

    /// The old name of [`key_prefix`](StoreOptions::key_prefix), from when only Redis had
    /// key prefixes; it sets the same prefix for etcd and ZooKeeper too.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use idmint_core::segment::StoreOptions;
    /// let old = StoreOptions::default().redis_prefix("app:ids")?;
    /// assert_eq!(old, StoreOptions::default().key_prefix("app:ids")?);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    #[deprecated(
        since = "0.1.0",
        note = "the prefix is every keyed store's: use `key_prefix`"
    )]
    pub fn redis_prefix(self, prefix: &str) -> Result<Self> {
        self.key_prefix(prefix)
    }

    /// Redis sharded mode: `shards` keys (1..=1024) holding `min`/`max` pairs, refilled from
    /// one global counter by `count + refill` IDs. 0 shards (the default) is the plain mode,
    /// one `INCRBY` key per tag.
    ///
    /// ```
    /// assert!(idmint_core::segment::StoreOptions::default().redis_sharded(3, 1000).is_ok());
    /// ```
    pub fn redis_sharded(mut self, shards: u32, refill: u64) -> Result<Self> {
        if shards > 1024 {
            return Err(Error::InvalidArgument {
                name: "shards".into(),
                value: shards.to_string(),
                expected: "0 (plain mode) or 1..=1024".into(),
            });
        }
        check_step("shard_refill", refill)?;
        self.redis_shards = shards;
        self.redis_shard_refill = refill;
        Ok(self)
    }

    /// SQL stores: use an existing table another allocator shares (Leaf's `leaf_alloc`, a
    /// `sequence_value` table) instead of idmint's own, which is then neither created nor
    /// used.
    ///
    /// ```
    /// use idmint_core::segment::{StoreOptions, TableMapping};
    /// let opts = StoreOptions::default().map_table(TableMapping::leaf());
    /// # let _ = opts;
    /// ```
    pub fn map_table(mut self, mapping: TableMapping) -> Self {
        self.mapping = Some(mapping);
        self
    }

    /// The SQL table: the one set, or the opening kind's `default`.
    #[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
    pub(crate) fn table_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.table.as_deref().unwrap_or(default)
    }

    /// The SQL pool's size: the one set, or the opening kind's `default`.
    #[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
    pub(crate) fn pool_or(&self, default: u32) -> u32 {
        self.pool_size.unwrap_or(default)
    }

    /// The key prefix: the one set, or the opening kind's `default`.
    #[cfg(any(feature = "redis", feature = "etcd", feature = "zookeeper"))]
    pub(crate) fn key_prefix_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.key_prefix.as_deref().unwrap_or(default)
    }

    /// These options with `url`'s applied, and the URL the link and driver get: what a
    /// store's own constructor reads, so a URL given to it directly is read as an opener reads
    /// it (applying them again to a URL an opener read changes nothing).
    pub(crate) fn for_url(&self, url: &str, what: Use) -> Result<(Self, String)> {
        let (_, opts, url) = self.clone().apply_url(url, what)?;
        Ok((opts, url))
    }

    /// The engine of `url`, these options with its query parameters applied, and the URL
    /// without the ones they took (what the link and driver get). Every parameter is checked
    /// against the option table ([`params::OPTIONS`]) for the engine and `what` the store is
    /// opened for: one the store does not take is refused by name.
    pub(crate) fn apply_url(mut self, url: &str, what: Use) -> Result<(Engine, Self, String)> {
        let engine = Engine::of(url, "store")?;
        let Some((base, query)) = url.split_once('?') else {
            return Ok((engine, self, url.to_string()));
        };
        let mut keep = Vec::new();
        let mut shards = (self.redis_shards, self.redis_shard_refill);
        let mut mapping = MappingParams::default();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if params::reader(k, url, engine, what)? != Reader::Options {
                keep.push(pair);
                continue;
            }
            let num = |name: &str| {
                v.parse::<u64>().map_err(|_| Error::InvalidArgument {
                    name: name.into(),
                    value: v.into(),
                    expected: "a whole number".into(),
                })
            };
            match k {
                "table" => {
                    self = self.table(v)?;
                    mapping.table = Some(v.to_string());
                }
                "pool" => self = self.pool_size(num("pool")?.min(u32::MAX as u64) as u32)?,
                "prefix" => self = self.key_prefix(v)?,
                "shards" => shards.0 = num("shards")?.min(u32::MAX as u64) as u32,
                "shard_refill" => shards.1 = num("shard_refill")?,
                _ if mapping.take(k, v) => {}
                // Every option the table gives to `Options` is read above (a test checks),
                // so this is only reached if the two part: refuse rather than drop it.
                _ => {
                    return Err(Error::InvalidArgument {
                        name: crate::error::escaped(k),
                        value: super::describe_url(url),
                        expected: "an option this build reads".into(),
                    })
                }
            }
        }
        self = self.redis_sharded(shards.0, shards.1)?;
        if let Some(m) = mapping.resolve()? {
            self.mapping = Some(m);
        }
        let rest = if keep.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", keep.join("&"))
        };
        Ok((engine, self, rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MaxIdMeaning;

    #[cfg(all(feature = "redis", feature = "sqlite"))]
    #[test]
    fn defaults_are_the_kinds() {
        let o = StoreOptions::default();
        assert_eq!(o.table_or("kind_table"), "kind_table");
        assert_eq!(o.key_prefix_or("kind:prefix"), "kind:prefix");
        assert_eq!(o.pool_or(3), 3);
        let o = o.table("mine").unwrap().key_prefix("my:keys").unwrap();
        assert_eq!(o.table_or("kind_table"), "mine");
        assert_eq!(o.key_prefix_or("kind:prefix"), "my:keys");
        let (_, o, _) = StoreOptions::default()
            .apply_url("redis://h:1?prefix=url:keys", Use::Leases)
            .unwrap();
        assert_eq!(o.key_prefix_or("kind:prefix"), "url:keys");
    }

    #[test]
    fn url_params() {
        let (_, o, rest) = StoreOptions::default()
            .apply_url(
                "postgres://h/db?table=ids&sslmode=disable&pool=2",
                Use::Segments,
            )
            .unwrap();
        assert_eq!((o.table.as_deref(), o.pool_size), (Some("ids"), Some(2)));
        assert_eq!(rest, "postgres://h/db?sslmode=disable");
        let (_, o, rest) = StoreOptions::default()
            .apply_url("redis://h:1?shards=3&shard_refill=50", Use::Segments)
            .unwrap();
        assert_eq!((o.redis_shards, o.redis_shard_refill), (3, 50));
        assert_eq!(rest, "redis://h:1");
        assert!(StoreOptions::default()
            .apply_url("sqlite:x?table=a;drop", Use::Segments)
            .is_err());
    }

    #[test]
    fn mapping_params() {
        let (_, o, rest) = StoreOptions::default()
            .apply_url("mysql://h/db?schema=leaf&ssl-mode=disabled", Use::Segments)
            .unwrap();
        assert_eq!(o.mapping, Some(TableMapping::leaf()));
        assert_eq!(rest, "mysql://h/db?ssl-mode=disabled");
        // Order does not matter, and table= names the mapped table.
        let (_, o, _) = StoreOptions::default()
            .apply_url(
                "postgres://h/db?max_id_column=id&tag_column=name&table=sequence_value",
                Use::Segments,
            )
            .unwrap();
        let m = o.mapping.unwrap();
        assert_eq!(
            (
                m.table_name(),
                m.tag_column.as_str(),
                m.max_id_column.as_str()
            ),
            ("sequence_value", "name", "id")
        );
        assert_eq!(m.max_id_is(), MaxIdMeaning::LastIssued);
        let (_, o, _) = StoreOptions::default()
            .apply_url(
                "sqlite:x?schema=leaf&table=alloc2&max_id_is=last&step_column=block",
                Use::Segments,
            )
            .unwrap();
        let m = o.mapping.unwrap();
        assert_eq!(
            (m.table_name(), m.step_column.as_deref(), m.max_id_is()),
            ("alloc2", Some("block"), MaxIdMeaning::LastIssued)
        );
        // table= alone is idmint's own table, as before.
        let (_, o, _) = StoreOptions::default()
            .apply_url("sqlite:x?table=ids", Use::Segments)
            .unwrap();
        assert_eq!(o.mapping, None);
        for (url, name) in [
            ("sqlite:x?tag_column=name&max_id_column=id", "table"),
            ("sqlite:x?table=s&max_id_column=id", "tag_column"),
            ("sqlite:x?table=s&tag_column=name", "max_id_column"),
            ("sqlite:x?schema=tinyid", "schema"),
            ("sqlite:x?schema=idmint&tag_column=name", "schema"),
            ("sqlite:x?schema=leaf&max_id_is=first", "max_id_is"),
            ("sqlite:x?schema=leaf&tag_column=a-b", "tag_column"),
        ] {
            match StoreOptions::default().apply_url(url, Use::Segments) {
                Err(Error::InvalidArgument { name: got, .. }) => assert_eq!(got, name, "{url}"),
                other => panic!("{url}: {other:?}"),
            }
        }
    }

    /// Every option the table gives to these options is read by `apply_url`, for every store
    /// and use that takes it (else it would be refused as unread).
    #[test]
    fn every_option_read() {
        use super::super::url::ENGINES;
        for o in params::OPTIONS
            .iter()
            .filter(|o| o.reader == Reader::Options)
        {
            for name in o.names {
                let value = match *name {
                    "pool" | "shards" | "shard_refill" => "2",
                    "schema" => "leaf",
                    "max_id_is" => "next",
                    _ => "x",
                };
                for e in &ENGINES {
                    let url = format!("{}:?{name}={value}", e.schemes[0]);
                    for what in [Use::Segments, Use::Leases] {
                        if params::reader(name, &url, e.engine, what).is_err() || !e.built {
                            continue;
                        }
                        // `table` alone or with `schema`, the column options with the rest of
                        // a mapping.
                        let url = match *name {
                            "table" | "schema" => url.clone(),
                            _ => format!("{url}&table=t&tag_column=a&max_id_column=b"),
                        };
                        if let Err(Error::InvalidArgument { expected, .. }) =
                            StoreOptions::default().apply_url(&url, what)
                        {
                            assert_ne!(expected, "an option this build reads", "{url}");
                        }
                    }
                }
            }
        }
    }
}

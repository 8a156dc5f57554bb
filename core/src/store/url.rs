//! A store URL: the kind of store it names ([`Engine`]), and how messages show it
//! ([`describe_url`]: kind and address, never credentials).

use crate::{Error, Result};

/// A store URL as kind and address, without credentials or parameters, for messages.
///
/// ```
/// use idmint_core::segment::describe_url;
/// assert_eq!(describe_url("postgres://app:secret@db:5432/ids?sslmode=disable"), "postgres://db:5432/ids");
/// assert_eq!(describe_url("sqlite:./ids.db"), "sqlite:./ids.db");
/// assert_eq!(describe_url("https://ids:8443?token=s3cret&ca=/ca.pem"), "https://ids:8443");
/// ```
pub fn describe_url(url: &str) -> String {
    let url = url.split('?').next().unwrap_or("");
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
            format!("{scheme}://{rest}")
        }
        None => url.to_string(),
    }
}

/// A user and password read from a URL's `user:password@`. Its `Debug` shows the user only,
/// so a target printed in a log or a panic never carries the password. Only the etcd and
/// ZooKeeper URLs are read by hand; the drivers of the others read their own.
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub(crate) user: String,
    pub(crate) password: String,
}

#[cfg(any(feature = "etcd", feature = "zookeeper"))]
impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .finish()
    }
}

#[cfg(any(feature = "etcd", feature = "zookeeper"))]
impl Credentials {
    /// Splits a URL's authority (`[user[:password]@]hosts`) into its credentials and hosts.
    /// `Err(())` for an `@` with no user name before it: the caller says which URL.
    pub(crate) fn split(authority: &str) -> std::result::Result<(Option<Credentials>, &str), ()> {
        match authority.rsplit_once('@') {
            Some((userinfo, hosts)) => {
                let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
                if user.is_empty() {
                    return Err(());
                }
                let found = Credentials {
                    user: user.to_string(),
                    password: password.to_string(),
                };
                Ok((Some(found), hosts))
            }
            None => Ok((None, authority)),
        }
    }
}

/// The kind of store a URL names. [`Engine::of`] refuses a kind this build has no feature
/// for, so openers match only the kinds they were built with. What each kind is (its schemes,
/// feature, default port, the uses it serves) is written once, in [`ENGINES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    Memory,
    Sqlite,
    Postgres,
    MySql,
    Redis,
    Etcd,
    ZooKeeper,
    Http,
}

/// One kind of store: the one table every opener, the option table
/// ([`super::params`]) and the docs read.
#[derive(Debug)]
pub(crate) struct EngineInfo {
    pub(crate) engine: Engine,
    /// Its name in the fuzz targets' plans.
    #[cfg_attr(not(feature = "fuzzing"), allow(dead_code))]
    pub(crate) name: &'static str,
    /// Its name in messages and the docs.
    pub(crate) title: &'static str,
    /// The URL schemes naming it, lower case, without `:`.
    pub(crate) schemes: &'static [&'static str],
    /// The cargo feature of idmint-core that builds it.
    pub(crate) feature: &'static str,
    /// Whether this build has that feature.
    pub(crate) built: bool,
    /// The port a host without one gets (`None`: none, or the port must be written). Read by
    /// the one URL parser idmint writes itself that takes hosts without ports (Redis's); every
    /// engine's is kept here so that the table stays whole.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) default_port: Option<u16>,
    /// Whether it keeps segments ([`Use::Segments`](super::Use)).
    pub(crate) segments: bool,
    /// Whether it keeps leases ([`Use::Leases`](super::Use)).
    pub(crate) leases: bool,
}

/// Every kind of store, in the order the docs list them.
pub(crate) const ENGINES: [EngineInfo; 8] = [
    EngineInfo {
        engine: Engine::Memory,
        name: "memory",
        title: "memory",
        schemes: &["memory"],
        feature: "segment",
        built: true,
        default_port: None,
        segments: true,
        leases: true,
    },
    EngineInfo {
        engine: Engine::Sqlite,
        name: "sqlite",
        title: "SQLite",
        schemes: &["sqlite"],
        feature: "sqlite",
        built: cfg!(feature = "sqlite"),
        default_port: None,
        segments: true,
        leases: true,
    },
    EngineInfo {
        engine: Engine::Postgres,
        name: "postgres",
        title: "PostgreSQL",
        schemes: &["postgres", "postgresql"],
        feature: "postgres",
        built: cfg!(feature = "postgres"),
        default_port: Some(5432),
        segments: true,
        leases: true,
    },
    EngineInfo {
        engine: Engine::MySql,
        name: "mysql",
        title: "MySQL",
        schemes: &["mysql", "mariadb"],
        feature: "mysql",
        built: cfg!(feature = "mysql"),
        default_port: Some(3306),
        segments: true,
        leases: true,
    },
    EngineInfo {
        engine: Engine::Redis,
        name: "redis",
        title: "Redis",
        schemes: &[
            "redis",
            "rediss",
            "redis+sentinel",
            "rediss+sentinel",
            "redis+cluster",
            "rediss+cluster",
        ],
        feature: "redis",
        built: cfg!(feature = "redis"),
        default_port: Some(6379),
        segments: true,
        leases: true,
    },
    EngineInfo {
        engine: Engine::Etcd,
        name: "etcd",
        title: "etcd",
        schemes: &["etcd", "etcds"],
        feature: "etcd",
        built: cfg!(feature = "etcd"),
        default_port: None,
        segments: true,
        leases: true,
    },
    EngineInfo {
        engine: Engine::ZooKeeper,
        name: "zookeeper",
        title: "ZooKeeper",
        schemes: &["zk"],
        feature: "zookeeper",
        built: cfg!(feature = "zookeeper"),
        default_port: None,
        segments: true,
        leases: true,
    },
    EngineInfo {
        engine: Engine::Http,
        name: "http",
        title: "HTTP",
        schemes: &["http", "https"],
        feature: "http",
        built: cfg!(feature = "http"),
        default_port: None,
        segments: true,
        leases: true,
    },
];

impl Engine {
    /// Its row of [`ENGINES`].
    pub(crate) fn info(self) -> &'static EngineInfo {
        // The table lists the variants in declaration order (checked by a test).
        &ENGINES[self as usize]
    }

    /// The engine of `url`; errors name the argument `what` (`store`, `counter`).
    pub(crate) fn of(url: &str, what: &str) -> Result<Engine> {
        let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
        let Some(info) = ENGINES
            .iter()
            .find(|e| e.schemes.contains(&scheme.as_str()))
        else {
            let schemes: Vec<String> = ENGINES
                .iter()
                .flat_map(|e| e.schemes.iter())
                .map(|s| match *s {
                    "memory" | "sqlite" => format!("{s}:"),
                    _ => format!("{s}://"),
                })
                .collect();
            return Err(Error::InvalidArgument {
                name: what.into(),
                value: describe_url(url),
                expected: format!("a URL starting {}", schemes.join(", ")),
            });
        };
        if info.built {
            Ok(info.engine)
        } else {
            Err(info.engine.missing(url, what))
        }
    }

    /// Its name, as the fuzz targets' plans show it.
    #[cfg(feature = "fuzzing")]
    pub(crate) fn name(self) -> &'static str {
        self.info().name
    }

    /// Its name in messages: `PostgreSQL`, `Redis`.
    pub(crate) fn title(self) -> &'static str {
        self.info().title
    }

    /// The error of a URL whose kind this build has no cargo feature for.
    pub(crate) fn missing(self, url: &str, what: &str) -> Error {
        Error::InvalidArgument {
            name: what.into(),
            value: describe_url(url),
            expected: format!(
                "a store this build supports: build idmint-core with feature `{}`",
                self.info().feature
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_table() {
        for (i, e) in ENGINES.iter().enumerate() {
            assert_eq!(e.engine as usize, i, "{} out of place", e.name);
            assert!(e.schemes.iter().all(|s| *s == s.to_ascii_lowercase()));
        }
        assert_eq!(
            Engine::of("MariaDB://h/db", "store").unwrap(),
            Engine::MySql
        );
        assert_eq!(Engine::of("zk://h:1", "store").unwrap(), Engine::ZooKeeper);
        let err = Engine::of("ftp://x", "store").unwrap_err().to_string();
        assert!(
            err.contains("memory:, sqlite:, postgres://, postgresql://"),
            "{err}"
        );
        assert!(err.contains("zk://, http://, https://"), "{err}");
    }
}

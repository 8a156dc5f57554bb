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
/// so a target printed in a log or a panic never carries the password.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub(crate) user: String,
    pub(crate) password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .finish()
    }
}

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
/// for, so openers match only the kinds they were built with.
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

impl Engine {
    /// The engine of `url`; errors name the argument `what` (`store`, `counter`).
    pub(crate) fn of(url: &str, what: &str) -> Result<Engine> {
        let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
        let engine = match scheme.as_str() {
            "memory" => Engine::Memory,
            "sqlite" => Engine::Sqlite,
            "postgres" | "postgresql" => Engine::Postgres,
            "mysql" | "mariadb" => Engine::MySql,
            "redis" | "rediss" | "redis+sentinel" | "rediss+sentinel" | "redis+cluster"
            | "rediss+cluster" => Engine::Redis,
            "etcd" | "etcds" => Engine::Etcd,
            "zk" => Engine::ZooKeeper,
            "http" | "https" => Engine::Http,
            _ => return Err(Error::InvalidArgument {
                name: what.into(),
                value: describe_url(url),
                expected:
                    "a URL starting sqlite:, postgres://, mysql://, redis://, rediss://, redis+sentinel://, redis+cluster://, etcd://, etcds://, zk://, http://, https:// or memory:"
                        .into(),
            }),
        };
        let built = match engine {
            Engine::Memory => true,
            Engine::Sqlite => cfg!(feature = "sqlite"),
            Engine::Postgres => cfg!(feature = "postgres"),
            Engine::MySql => cfg!(feature = "mysql"),
            Engine::Redis => cfg!(feature = "redis"),
            Engine::Etcd => cfg!(feature = "etcd"),
            Engine::ZooKeeper => cfg!(feature = "zookeeper"),
            Engine::Http => cfg!(feature = "http"),
        };
        if built {
            Ok(engine)
        } else {
            Err(engine.missing(url, what))
        }
    }

    /// Its name, as the fuzz targets' plans show it.
    #[cfg(feature = "fuzzing")]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Engine::Memory => "memory",
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
            Engine::MySql => "mysql",
            Engine::Redis => "redis",
            Engine::Etcd => "etcd",
            Engine::ZooKeeper => "zookeeper",
            Engine::Http => "http",
        }
    }

    /// The error of a URL whose kind this build has no cargo feature for.
    pub(crate) fn missing(self, url: &str, what: &str) -> Error {
        let feature = match self {
            Engine::Memory => "segment",
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
            Engine::MySql => "mysql",
            Engine::Redis => "redis",
            Engine::Etcd => "etcd",
            Engine::ZooKeeper => "zookeeper",
            Engine::Http => "http",
        };
        Error::InvalidArgument {
            name: what.into(),
            value: describe_url(url),
            expected: format!(
                "a store this build supports: build idmint-core with feature `{feature}`"
            ),
        }
    }
}

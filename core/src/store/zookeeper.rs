//! The ZooKeeper link (feature `zookeeper`) the segment and lease stores share: reading
//! `zk://h1:2181,h2:2181[/chroot][?leaf_name=…&leaf_dead_after=…]`, sessions on the listed
//! servers, and ZooKeeper's errors as `store_unavailable`.
//!
//! Every node of a store lives under `{chroot}/{prefix}`: the URL's path (none by default) and
//! the store's prefix (the options' or the URL's `?prefix=…`, else the kind's: `idmint:seg`,
//! `idmint:lease`). The chroot is a path prefix this crate adds itself, so it need not exist
//! beforehand: the stores create their parent nodes.
//!
//! A store holds one *shared* session for its reads and segment writes, opened again when
//! ZooKeeper expires it, and the lease store opens one more per held value
//! ([`ZkLink::session`]), whose timeout is that lease's length.

use std::sync::Mutex;
use std::time::Duration;

use zookeeper_client::{Acls, Client, CreateMode, SessionState, Stat};

use super::url::describe_url;

/// What a ZooKeeper request answers.
pub(crate) type ZkResult<T> = std::result::Result<T, zookeeper_client::Error>;
use crate::{Error, Result};

/// How long connecting to the servers may take before the call fails (the keeper and the
/// segment client retry): the other links' bound.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// The shared session's timeout: it holds no ephemeral node, so its length only says how soon
/// a store cut off from ZooKeeper opens a new one.
const SHARED_SESSION: Duration = Duration::from_secs(10);

/// What a ZooKeeper URL says, before connecting (pure, so tested without a server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ZkTarget {
    /// `host:port,host:port`: the connect string without a chroot.
    pub(crate) hosts: String,
    /// The URL's path without its trailing `/`: `""` or `/something`.
    pub(crate) root: String,
    /// `?leaf_name=…`: Leaf's `leaf.name`, whose snowflake workers the lease store shares.
    pub(crate) leaf_name: Option<String>,
    /// `?leaf_dead_after=SECONDS`: how long a Leaf worker may go without reporting before its
    /// value may be reclaimed.
    pub(crate) leaf_dead_after: Option<Duration>,
}

/// The longest `leaf_dead_after` taken (a year): past it, the number means a mistake.
const MAX_LEAF_DEAD_AFTER_SECS: u64 = 365 * 86_400;

impl ZkTarget {
    pub(crate) fn parse(url: &str) -> Result<ZkTarget> {
        let shown = describe_url(url);
        let bad = |expected: &str| Error::InvalidArgument {
            name: "store".into(),
            value: shown.clone(),
            expected: expected.into(),
        };
        const FORM: &str = "zk://HOST:PORT[,HOST:PORT…][/CHROOT][?leaf_name=NAME]";
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let (scheme, rest) = base.split_once("://").ok_or_else(|| bad(FORM))?;
        if !scheme.eq_ignore_ascii_case("zk") {
            return Err(bad(FORM));
        }
        let (hosts, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        for host in hosts.split(',') {
            let ok = host
                .rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
            if !ok || host.contains(['#', ' ', '@']) {
                return Err(Error::InvalidArgument {
                    name: "store".into(),
                    value: format!("{shown}: server `{}`", crate::error::escaped(host)),
                    expected: format!("HOST:PORT for every server, comma-separated: {FORM}"),
                });
            }
        }
        let root = path.trim_end_matches('/').to_string();
        if root.contains("//") || root.contains(['#', ' ']) {
            return Err(bad("a chroot path of non-empty segments: /app or /app/ids"));
        }
        let mut target = ZkTarget {
            hosts: hosts.to_string(),
            root,
            leaf_name: None,
            leaf_dead_after: None,
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "leaf_name" => {
                    // Leaf's nodes are `/snowflake/{leaf.name}/forever`: one path segment.
                    if v.is_empty() || v.contains(['/', ' ', '#']) || v.len() > 200 {
                        return Err(Error::InvalidArgument {
                            name: "leaf_name".into(),
                            value: crate::error::escaped(v),
                            expected: "Leaf's leaf.name: 1 to 200 characters, no `/`".into(),
                        });
                    }
                    target.leaf_name = Some(v.to_string());
                }
                "leaf_dead_after" => {
                    let secs = v
                        .parse::<u64>()
                        .ok()
                        .filter(|s| (1..=MAX_LEAF_DEAD_AFTER_SECS).contains(s))
                        .ok_or_else(|| Error::InvalidArgument {
                            name: "leaf_dead_after".into(),
                            value: crate::error::escaped(v),
                            expected: format!("whole seconds, 1..={MAX_LEAF_DEAD_AFTER_SECS}"),
                        })?;
                    target.leaf_dead_after = Some(Duration::from_secs(secs));
                }
                _ => {
                    return Err(Error::InvalidArgument {
                        name: "store".into(),
                        value: format!("{shown} with parameter `{}`", crate::error::escaped(k)),
                        expected: "a ZooKeeper store takes prefix=, and for Leaf's workers \
                                   schema=leaf, leaf_name= and leaf_dead_after= only"
                            .into(),
                    })
                }
            }
        }
        Ok(target)
    }
}

/// The servers of a ZooKeeper ensemble, a shared session on them, and the root of the store's
/// nodes.
pub(crate) struct ZkLink {
    target: ZkTarget,
    describe: String,
    shared: Mutex<Client>,
}

impl std::fmt::Debug for ZkLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkLink")
            .field("store", &self.describe)
            .field("root", &self.target.root)
            .finish_non_exhaustive()
    }
}

impl ZkLink {
    /// Reads the URL and opens the shared session, so an ensemble that cannot be reached fails
    /// here rather than at the first lease or range.
    pub(crate) async fn connect(url: &str) -> Result<ZkLink> {
        let target = ZkTarget::parse(url)?;
        let describe = describe_url(url);
        let client = open(&target.hosts, &describe, SHARED_SESSION).await?;
        Ok(ZkLink {
            target,
            describe,
            shared: Mutex::new(client),
        })
    }

    pub(crate) fn describe(&self) -> &str {
        &self.describe
    }

    pub(crate) fn target(&self) -> &ZkTarget {
        &self.target
    }

    /// `{root}/{prefix}`: where a store with that prefix keeps its nodes.
    pub(crate) fn base(&self, prefix: &str) -> String {
        format!("{}/{prefix}", self.target.root)
    }

    /// The shared session, opened again when ZooKeeper expired it (a store cut off for longer
    /// than its timeout) or it was closed.
    pub(crate) async fn client(&self) -> Result<Client> {
        let current = self
            .shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if !matches!(
            current.state(),
            SessionState::Expired | SessionState::Closed | SessionState::AuthFailed
        ) {
            return Ok(current);
        }
        let fresh = open(&self.target.hosts, &self.describe, SHARED_SESSION).await?;
        *self.shared.lock().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
        Ok(fresh)
    }

    /// A session of its own with `timeout` asked for: ZooKeeper deletes its ephemeral nodes
    /// when it has not heard from it for the timeout it granted (which it may have bounded by
    /// its `minSessionTimeout`/`maxSessionTimeout`: [`Client::session_timeout`] says).
    pub(crate) async fn session(&self, timeout: Duration) -> Result<Client> {
        open(&self.target.hosts, &self.describe, timeout).await
    }

    /// Creates `path` and its parents as persistent nodes where missing.
    pub(crate) async fn mkdir(&self, path: &str, what: &str) -> Result<()> {
        let client = self.client().await?;
        let opts = CreateMode::Persistent.with_acls(Acls::anyone_all());
        self.timed(what, client.mkdir(path, &opts)).await
    }

    /// A node's data and stat, if it exists.
    pub(crate) async fn get(&self, path: &str, what: &str) -> Result<Option<(Vec<u8>, Stat)>> {
        let client = self.client().await?;
        match timed_raw(client.get_data(path)).await {
            Ok(found) => Ok(Some(found)),
            Err(zookeeper_client::Error::NoNode) => Ok(None),
            Err(e) => Err(self.err(what, e)),
        }
    }

    /// A node's children's names (none when it does not exist) and its stat.
    pub(crate) async fn children(
        &self,
        path: &str,
        what: &str,
    ) -> Result<(Vec<String>, Option<Stat>)> {
        let client = self.client().await?;
        match timed_raw(client.get_children(path)).await {
            Ok((names, stat)) => Ok((names, Some(stat))),
            Err(zookeeper_client::Error::NoNode) => Ok((Vec::new(), None)),
            Err(e) => Err(self.err(what, e)),
        }
    }

    /// Runs one request within [`REQUEST_TIMEOUT`], its error as `store_unavailable`.
    pub(crate) async fn timed<T>(
        &self,
        what: &str,
        call: impl std::future::Future<Output = ZkResult<T>>,
    ) -> Result<T> {
        timed_raw(call).await.map_err(|e| self.err(what, e))
    }

    /// A ZooKeeper error as `store_unavailable`, saying what was being done.
    pub(crate) fn err(&self, what: &str, e: impl std::fmt::Display) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!("{what}: {e}"),
        }
    }

    /// A node whose data is not what this crate writes: someone else's node under the prefix,
    /// or a damaged one.
    pub(crate) fn garbled(&self, path: &str) -> Error {
        Error::StoreUnavailable {
            store: self.describe.clone(),
            reason: format!(
                "node `{}` does not hold what idmint writes: another program's node under this prefix?",
                crate::error::escaped(path)
            ),
        }
    }
}

/// One request within [`REQUEST_TIMEOUT`]: a server that stops answering fails the call
/// (`connection loss`) rather than hold it.
pub(crate) async fn timed_raw<T>(
    call: impl std::future::Future<Output = ZkResult<T>>,
) -> ZkResult<T> {
    tokio::time::timeout(REQUEST_TIMEOUT, call)
        .await
        .unwrap_or(Err(zookeeper_client::Error::ConnectionLoss))
}

async fn open(hosts: &str, describe: &str, timeout: Duration) -> Result<Client> {
    let connect = Client::connector()
        .with_session_timeout(timeout)
        // Every listed server tried once, then the error: the caller retries, and a store
        // that cannot be reached says so within the connect bound.
        .with_fail_eagerly()
        .connect(hosts);
    let unavailable = |reason: String| Error::StoreUnavailable {
        store: describe.to_string(),
        reason,
    };
    match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(unavailable(format!("connecting: {e}"))),
        Err(_) => Err(unavailable(format!(
            "connecting: no session within {} ms",
            CONNECT_TIMEOUT.as_millis()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = ZkTarget::parse("zk://a:2181,b:2182/app/ids/").unwrap();
        assert_eq!(t.hosts, "a:2181,b:2182");
        assert_eq!(t.root, "/app/ids");
        assert_eq!(t.leaf_name, None);
        let t = ZkTarget::parse("zk://[::1]:2181?leaf_name=orders&leaf_dead_after=60").unwrap();
        assert_eq!(t.root, "");
        assert_eq!(t.leaf_name.as_deref(), Some("orders"));
        assert_eq!(t.leaf_dead_after, Some(Duration::from_secs(60)));
        for bad in [
            "zk://",
            "zk://a",
            "zk://a:0",
            "zk://a:1,,b:2",
            "zk://a:1?table=x",
            "zk://a:1//x",
            "zk://a:1?leaf_name=",
            "zk://a:1?leaf_name=a/b",
            "zk://a:1?leaf_dead_after=0",
            "zk://u:p@a:1",
            "zk:a:1",
        ] {
            let e = ZkTarget::parse(bad).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument", "{bad}");
        }
    }
}

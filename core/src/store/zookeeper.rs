//! The ZooKeeper link (feature `zookeeper`) the segment and lease stores share: reading
//! `zk://[user:password@]h1:2181,h2:2181[/chroot][?leaf_name=…&leaf_dead_after=…]`, sessions
//! on the listed servers, and ZooKeeper's errors as `store_unavailable`.
//!
//! With `user:password@`, every session authenticates with ZooKeeper's `digest` scheme and
//! every node is created with the creator's ACL (`auth::cdrwa`): only sessions with the same
//! credentials can read, change or delete them. Without, nodes are open to every client
//! (`world:anyone:cdrwa`), as before credentials were taken (docs/segments.md says how to move
//! such nodes).
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

use super::url::{describe_url, Credentials};

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
    /// `user:password@`: every session's `digest` identity, and the owner of every node.
    pub(crate) auth: Option<Credentials>,
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
        const FORM: &str = "zk://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…][/CHROOT][?leaf_name=NAME]";
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let (scheme, rest) = base.split_once("://").ok_or_else(|| bad(FORM))?;
        if !scheme.eq_ignore_ascii_case("zk") {
            return Err(bad(FORM));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let (auth, hosts) =
            Credentials::split(authority).map_err(|()| bad("a user name before `:` and `@`"))?;
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
            auth,
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
    /// Held by the one caller opening the shared session again, so callers that all find it
    /// expired wait for that one new session rather than each open one and throw all but the
    /// last away.
    reopening: tokio::sync::Mutex<()>,
    /// How many shared sessions were opened, for the test of the re-open race.
    #[cfg(test)]
    opened: std::sync::atomic::AtomicUsize,
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
        let client = open(&target, &describe, SHARED_SESSION).await?;
        Ok(ZkLink {
            target,
            describe,
            shared: Mutex::new(client),
            reopening: tokio::sync::Mutex::new(()),
            #[cfg(test)]
            opened: std::sync::atomic::AtomicUsize::new(1),
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
    /// than its timeout) or it was closed: once per expiry, however many callers found it so.
    pub(crate) async fn client(&self) -> Result<Client> {
        if let Some(live) = self.live_shared() {
            return Ok(live);
        }
        let _reopening = self.reopening.lock().await;
        // Another caller may have opened it while this one waited.
        if let Some(live) = self.live_shared() {
            return Ok(live);
        }
        let fresh = open(&self.target, &self.describe, SHARED_SESSION).await?;
        #[cfg(test)]
        self.opened
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        *self.shared.lock().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
        Ok(fresh)
    }

    /// The shared session unless it is over.
    fn live_shared(&self) -> Option<Client> {
        let current = self
            .shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let over = matches!(
            current.state(),
            SessionState::Expired | SessionState::Closed | SessionState::AuthFailed
        );
        (!over).then_some(current)
    }

    /// The ACL of every node the stores create: the creator's (`auth::cdrwa`) when the URL
    /// has credentials, else open to every client (`world:anyone:cdrwa`).
    pub(crate) fn acls(&self) -> Acls<'static> {
        match self.target.auth {
            Some(_) => Acls::creator_all(),
            None => Acls::anyone_all(),
        }
    }

    /// A session of its own with `timeout` asked for: ZooKeeper deletes its ephemeral nodes
    /// when it has not heard from it for the timeout it granted (which it may have bounded by
    /// its `minSessionTimeout`/`maxSessionTimeout`: [`Client::session_timeout`] says).
    pub(crate) async fn session(&self, timeout: Duration) -> Result<Client> {
        open(&self.target, &self.describe, timeout).await
    }

    /// Creates `path` and its parents as persistent nodes where missing.
    pub(crate) async fn mkdir(&self, path: &str, what: &str) -> Result<()> {
        let client = self.client().await?;
        let opts = CreateMode::Persistent.with_acls(self.acls());
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

    /// A ZooKeeper error, saying what was being done: `not_authorized` when the nodes' ACL
    /// refuses this session's credentials (or their absence), since an outage it is not and
    /// retrying cannot help until the credentials or the ACL change; else `store_unavailable`.
    pub(crate) fn err(&self, what: &str, e: zookeeper_client::Error) -> Error {
        let refused = match e {
            zookeeper_client::Error::NoAuth => Some(403),
            zookeeper_client::Error::AuthFailed => Some(401),
            _ => None,
        };
        super::failure::of(&self.describe, refused, format!("{what}: {e}"))
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

async fn open(target: &ZkTarget, describe: &str, timeout: Duration) -> Result<Client> {
    let mut connector = Client::connector()
        .with_session_timeout(timeout)
        // Every listed server tried once, then the error: the caller retries, and a store
        // that cannot be reached says so within the connect bound.
        .with_fail_eagerly();
    if let Some(auth) = &target.auth {
        // Sent with every (re)connection of the session, before any request.
        let digest = format!("{}:{}", auth.user, auth.password);
        connector = connector.with_auth("digest", digest.as_bytes());
    }
    let connect = connector.connect(&target.hosts);
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
    use std::future::Future;
    use std::sync::atomic::Ordering;
    use std::task::Poll;

    /// `IDMINT_TEST_ZK_URL` (tests/servers.sh); unset, the test is skipped unless
    /// `IDMINT_REQUIRE_SERVERS=1` (CI), as the store tests do.
    fn server() -> Option<String> {
        match std::env::var("IDMINT_TEST_ZK_URL") {
            Ok(url) if !url.is_empty() => Some(url),
            _ => {
                assert!(
                    std::env::var("IDMINT_REQUIRE_SERVERS").as_deref() != Ok("1"),
                    "IDMINT_TEST_ZK_URL is not set but IDMINT_REQUIRE_SERVERS=1"
                );
                eprintln!("skipped: IDMINT_TEST_ZK_URL is not set (tests/servers.sh)");
                None
            }
        }
    }

    /// Ends the session `client` holds as ZooKeeper would expire it: another connection takes
    /// the session over and closes it (Curator's `KillSession`), again until ZooKeeper answers
    /// that the session is gone. Run on a runtime of its own while the client's runtime is
    /// idle, so the client cannot take its session back in between.
    async fn take_and_close(hosts: &str, session: zookeeper_client::SessionInfo) {
        loop {
            let thief = Client::connector()
                .with_session(session.clone())
                .connect(hosts)
                .await;
            match thief {
                Ok(thief) => drop(thief), // Dropping the last handle closes the session.
                Err(zookeeper_client::Error::SessionExpired) => return,
                Err(e) => panic!("taking the session over: {e}"),
            }
        }
    }

    #[test]
    fn one_new_session_per_expiry_under_concurrent_callers() {
        let Some(url) = server() else { return };
        // The link's runtime runs only inside its `block_on`: the client's own tasks
        // (reconnecting, pinging) stand still while the thief works on the other runtime.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let link = rt.block_on(ZkLink::connect(&url)).unwrap();
        let old = rt.block_on(link.client()).unwrap();
        crate::store::background_runtime("zk-thief")
            .unwrap()
            .block_on(take_and_close(&link.target.hosts, old.session().clone()));
        rt.block_on(async {
            // Back on its runtime, the client finds its connection closed, and ZooKeeper
            // answers its reconnection with the session's expiry.
            let mut state = old.state_watcher();
            let mut now = state.state();
            while now != SessionState::Expired {
                now = state.changed().await;
            }
            assert_eq!(link.opened.load(Ordering::Relaxed), 1);

            // Eight callers polled side by side on one task: each finds the session expired
            // before any new one is open.
            let mut calls: Vec<_> = (0..8).map(|_| Box::pin(link.client())).collect();
            let mut got: Vec<Option<Result<Client>>> = (0..8).map(|_| None).collect();
            std::future::poll_fn(|cx| {
                let mut pending = false;
                for (call, out) in calls.iter_mut().zip(got.iter_mut()) {
                    if out.is_none() {
                        match call.as_mut().poll(cx) {
                            Poll::Ready(r) => *out = Some(r),
                            Poll::Pending => pending = true,
                        }
                    }
                }
                if pending {
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            })
            .await;
            drop(calls);
            let sessions: Vec<i64> = got
                .into_iter()
                .map(|c| c.unwrap().unwrap().session_id().0)
                .collect();
            assert_eq!(
                link.opened.load(Ordering::Relaxed),
                2,
                "one session opened for the one expiry; callers got sessions {sessions:?}"
            );
            assert!(sessions.iter().all(|s| *s == sessions[0]), "{sessions:?}");
            assert_ne!(sessions[0], old.session_id().0);
        });
    }

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
        assert_eq!(t.auth, None);
        let t = ZkTarget::parse("zk://app:s3:cr@t@a:2181,b:2181/ids").unwrap();
        let auth = t.auth.as_ref().unwrap();
        assert_eq!(
            (auth.user.as_str(), auth.password.as_str()),
            ("app", "s3:cr@t")
        );
        assert_eq!(t.hosts, "a:2181,b:2181");
        assert!(!format!("{t:?}").contains("s3:cr@t"), "{t:?}");
        let e = ZkTarget::parse("zk://app:s3cret@a:2181?table=x").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
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
            "zk://:p@a:1",
            "zk:a:1",
        ] {
            let e = ZkTarget::parse(bad).unwrap_err();
            assert_eq!(e.kind(), "invalid_argument", "{bad}");
        }
    }
}

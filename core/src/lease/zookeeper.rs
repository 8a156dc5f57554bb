//! Leases in ZooKeeper (feature `zookeeper`): a value is held by an ephemeral node of a session
//! opened for that lease, so ZooKeeper's own expiry of a silent session ends a holder that
//! stopped; the fence outlives every holder in a persistent node of its own.
//!
//! # Nodes (`B` is `{chroot}/{prefix}`, by default `/idmint:lease`)
//! - `B/held/V` (V zero-padded to 19 digits, so names sort as numbers): EPHEMERAL, the holder's
//!   record (`1 TOKEN TTL_MS FREEZE_MS RENEWED_MS HOLDER`), owned by a session whose timeout is
//!   the lease's TTL plus its freeze. ZooKeeper deletes it when it has not heard from that
//!   session for the timeout: the holder's keeper stopped minting a margin before its TTL ran
//!   out (counted from its last renewal), and the freeze after that is the rest of the timeout.
//! - `B/fence/V`: PERSISTENT, the fence (`last_time_ms`), raised by renewals and set to the
//!   holder's last issued time by its release.
//!
//! Acquiring is one `multi` from the new session: create `B/held/V` and check the fence's
//! version as read (or create the fence at 0), so the grant carries the fence of that moment.
//! Renewing reads the held node through the holder's own session, requires that session to
//! own it (`ephemeralOwner`) and the record's token to match, then rewrites the record and
//! raises the fence in a `multi` compared on both versions: a holder whose session expired
//! gets `session expired` from ZooKeeper and cannot touch a node another session now owns.
//! Releasing deletes the node and raises the fence the same way, then closes the session.
//!
//! ZooKeeper bounds session timeouts by its `minSessionTimeout` and `maxSessionTimeout`
//! (2 and 20 ticks, 4 s and 40 s on a stock server): a longer timeout granted only keeps a
//! value frozen longer; a shorter one is refused when it would be shorter than the TTL (a
//! holder could then still mint after its node went), and otherwise shortens the freeze.
//!
//! # Leaf's snowflake workers (`?schema=leaf&leaf_name=NAME`)
//! Meituan Leaf's snowflake mode registers each worker as a PERSISTENT_SEQUENTIAL node
//! `/snowflake/NAME/forever/{ip}:{port}-{10-digit sequence}` holding
//! `{"ip":…,"port":…,"timestamp":MS}` (rewritten every 3 s while the worker runs); its worker
//! ID is the sequence number, which ZooKeeper takes from the parent's child-change counter
//! (`cversion`), so a number once given out never comes again; a restarted worker finds its
//! `ip:port` node and keeps its number; nothing is ever reclaimed. In this schema the lease
//! store keeps its nodes under `/snowflake/NAME/{prefix}` and takes only values that:
//! - are below the `forever` node's `cversion` (numbers ZooKeeper already gave out, so no
//!   Leaf worker registering later can get one), and not 0 (a Leaf worker that finds no
//!   `forever` node at all uses worker ID 0 whatever its sequence);
//! - carry idmint's own mark, a PERSISTENT node `forever/idmint-{V:010}` that Leaf's
//!   `split("-")` reads as address `idmint` (never a worker's `ip:port`): one made by
//!   creating a PERSISTENT_SEQUENTIAL `forever/idmint-` node, ZooKeeper choosing the number as
//!   it does for Leaf, when no marked value is free;
//! - or belong to a dead Leaf worker: one whose node has not been rewritten for
//!   `leaf_dead_after` seconds (default 3600) by its timestamp and by the node's `mtime`. The
//!   same `multi` that takes the value deletes that worker's node (on the version read, so a
//!   worker that reported meanwhile keeps it), marks the value as idmint's, and raises the
//!   fence to the worker's last timestamp plus `leaf_dead_after`: every ID the worker minted
//!   is behind it, and if it is ever started again on its `ip:port` it finds no node and
//!   registers a new number.
//!
//! [`list`](LeaseStore::list) shows live Leaf workers as held by `leaf IP:PORT`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use zookeeper_client::{Client, CreateMode, Error as ZkError, MultiWriteError, SessionState, Stat};

use super::cas::{candidates, changing, parse_fence, wall_ms, TRIES};
use super::held_record::Record;
use super::store::{Grant, LeaseInfo, LeaseRequest, LeaseStore, DEFAULT_LEASE_PREFIX};
use crate::store::{timed_raw, StoreFuture, StoreOptions, TableMapping, Use, ZkLink, ZkResult};
use crate::{Error, Result};

/// How many `idmint-` marks one acquire may create while looking for a number in its range
/// (a range that starts far above the numbers given out so far).
const MAX_MARKS: usize = 64;

/// How long a Leaf worker may go without reporting before its value may be reclaimed, unless
/// the URL says `leaf_dead_after=SECONDS`.
///
/// ```
/// assert_eq!(idmint_core::lease::DEFAULT_LEAF_DEAD_AFTER.as_secs(), 3600);
/// ```
pub const DEFAULT_LEAF_DEAD_AFTER: Duration = Duration::from_secs(3600);

/// The name idmint's marks carry in Leaf's `forever` node, where Leaf workers put `ip:port`.
const MARK: &str = "idmint";

/// A lease store in ZooKeeper (feature `zookeeper`): `zk://h1:2181,h2:2181[/chroot]`, nodes
/// under `{chroot}/{prefix}`, the prefix being the options' or the URL's `?prefix=…`, by
/// default [`DEFAULT_LEASE_PREFIX`] (`idmint:lease`); with `?schema=leaf&leaf_name=NAME`,
/// sharing the worker IDs of Leaf's snowflake workers (see the module's documentation).
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::lease::{ZkLeaseStore, StoreOptions};
/// let opts = StoreOptions::default().key_prefix("app:lease")?;
/// let store = ZkLeaseStore::connect("zk://127.0.0.1:2181/ids", &opts).await?;
/// assert_eq!(store.node_base(), "/ids/app:lease");
/// # Ok(()) }
/// ```
pub struct ZkLeaseStore {
    link: ZkLink,
    base: String,
    leaf: Option<LeafSpace>,
    /// The session of each value this store holds, with the token it holds it with.
    sessions: Mutex<HashMap<u64, (String, Client)>>,
}

/// Leaf's `forever` node and when its workers count as dead.
#[derive(Debug, Clone)]
struct LeafSpace {
    forever: String,
    dead_after_ms: u64,
}

impl std::fmt::Debug for ZkLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkLeaseStore")
            .field("store", &self.link.describe())
            .field("base", &self.base)
            .field("leaf", &self.leaf)
            .finish_non_exhaustive()
    }
}

/// One child of Leaf's `forever` node: `ADDRESS-SEQUENCE`, as Leaf splits it.
fn leaf_child(name: &str) -> Option<(&str, u64)> {
    let (address, seq) = name.split_once('-')?;
    Some((address, seq.split('-').next()?.parse().ok()?))
}

/// The timestamp a Leaf worker last reported (`{"ip":…,"port":…,"timestamp":MS}`).
fn leaf_timestamp(data: &[u8]) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_slice(data).ok()?;
    v.get("timestamp")?.as_u64()
}

/// The error a `multi` failed with, whichever operation it was.
fn multi_error(e: MultiWriteError) -> ZkError {
    e.into()
}

/// Errors that mean another client changed or took the nodes: try the next value, or read
/// again.
fn lost_race(e: &ZkError) -> bool {
    matches!(
        e,
        ZkError::NodeExists | ZkError::BadVersion | ZkError::NoNode
    )
}

/// Errors that mean the session is over: what it held is gone.
fn session_over(e: &ZkError) -> bool {
    matches!(e, ZkError::SessionExpired | ZkError::ClientClosed)
}

impl ZkLeaseStore {
    /// Connects (a session on the URL's servers, and one more for each value held); nodes
    /// under the options' prefix, or [`DEFAULT_LEASE_PREFIX`] when they name none (as
    /// `Default::default()` does). Options mapping Leaf's table (`?schema=leaf`) with the
    /// URL's `leaf_name=` share Leaf's snowflake workers.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::ZkLeaseStore;
    /// let store = ZkLeaseStore::connect("zk://127.0.0.1:2181", &Default::default()).await?;
    /// assert_eq!(store.node_base(), "/idmint:lease");
    /// # Ok(()) }
    /// ```
    ///
    /// A URL it cannot use is refused before any connection:
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::lease::ZkLeaseStore;
    /// let err = ZkLeaseStore::connect("zk://db?leaf_name=x", &Default::default()).await.unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// # });
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<ZkLeaseStore> {
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for leases, as `open_lease_store` does.
        let (opts, url) = opts.for_url(url, Use::Leases)?;
        let (opts, url) = (&opts, url.as_str());
        let link = ZkLink::connect(url).await?;
        let target = link.target().clone();
        let prefix = opts.key_prefix_or(DEFAULT_LEASE_PREFIX);
        let leaf = match (&opts.mapping, &target.leaf_name) {
            (None, None) => None,
            (Some(m), Some(name)) if *m == TableMapping::leaf() => Some(LeafSpace {
                forever: format!("{}/snowflake/{name}/forever", target.root),
                dead_after_ms: target
                    .leaf_dead_after
                    .unwrap_or(DEFAULT_LEAF_DEAD_AFTER)
                    .as_millis() as u64,
            }),
            _ => {
                return Err(Error::InvalidArgument {
                    name: "schema".into(),
                    value: link.describe().to_string(),
                    expected: "schema=leaf together with leaf_name=NAME (Leaf's leaf.name), \
                               or neither"
                        .into(),
                })
            }
        };
        let base = match &leaf {
            Some(_) => format!(
                "{}/snowflake/{}/{prefix}",
                target.root,
                target.leaf_name.as_deref().unwrap_or_default()
            ),
            None => link.base(prefix),
        };
        let store = ZkLeaseStore {
            link,
            base,
            leaf,
            sessions: Mutex::new(HashMap::new()),
        };
        const WHAT: &str = "creating the lease nodes";
        store
            .link
            .mkdir(&format!("{}/held", store.base), WHAT)
            .await?;
        store
            .link
            .mkdir(&format!("{}/fence", store.base), WHAT)
            .await?;
        if let Some(leaf) = &store.leaf {
            store.link.mkdir(&leaf.forever, WHAT).await?;
        }
        Ok(store)
    }

    /// Where the store's nodes live: `{chroot}/{prefix}` (with `?schema=leaf`,
    /// `{chroot}/snowflake/{leaf_name}/{prefix}`), with `held/V` and `fence/V` below.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::ZkLeaseStore;
    /// let store = ZkLeaseStore::connect("zk://127.0.0.1:2181/app", &Default::default()).await?;
    /// assert_eq!(store.node_base(), "/app/idmint:lease");
    /// # Ok(()) }
    /// ```
    pub fn node_base(&self) -> &str {
        &self.base
    }

    fn held_path(&self, value: u64) -> String {
        format!("{}/held/{value:019}", self.base)
    }

    fn fence_path(&self, value: u64) -> String {
        format!("{}/fence/{value:019}", self.base)
    }

    /// The fence `data` holds (the node `fence/V` of `value`; none: 0). A node that holds no
    /// whole number is damaged, and refused: read as 0 it would let IDs repeat.
    fn fence_of(&self, value: u64, data: Option<&[u8]>) -> Result<u64> {
        parse_fence(data).ok_or_else(|| self.link.garbled(&self.fence_path(value)))
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<u64, (String, Client)>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session `value` is held with under `token`, while ZooKeeper has not ended it.
    fn holding(&self, value: u64, token: &str) -> Option<Client> {
        let mut sessions = self.sessions();
        let (held_with, client) = sessions.get(&value)?;
        if held_with != token {
            return None;
        }
        if matches!(
            client.state(),
            SessionState::Expired | SessionState::Closed | SessionState::AuthFailed
        ) {
            sessions.remove(&value);
            return None;
        }
        Some(client.clone())
    }

    fn too_short(&self, ttl_ms: u64, client: &Client) -> Error {
        Error::InvalidArgument {
            name: "ttl".into(),
            value: format!("{ttl_ms} ms"),
            expected: format!(
                "at most the session timeout {} grants ({} ms): raise its maxSessionTimeout or shorten the TTL",
                self.link.describe(),
                client.session_timeout().as_millis()
            ),
        }
    }

    /// The values held now, by anyone.
    async fn held_values(&self, what: &str) -> Result<HashSet<u64>> {
        let (names, _) = self
            .link
            .children(&format!("{}/held", self.base), what)
            .await?;
        Ok(names.iter().filter_map(|n| n.parse().ok()).collect())
    }

    /// One `multi` from `session` taking `value`: `before` (Leaf's worker node deleted, the
    /// mark made), the held node created, the fence raised to at least `fence_at_least`.
    /// `None` when another client took or changed something first.
    async fn take(
        &self,
        session: &Client,
        value: u64,
        record: &Record,
        before: &[Before],
        fence_at_least: u64,
        what: &str,
    ) -> Result<Option<u64>> {
        let fence_path = self.fence_path(value);
        let fence = match timed_raw(session.get_data(&fence_path)).await {
            Ok(found) => Some(found),
            Err(ZkError::NoNode) => None,
            Err(e) => return Err(self.link.err(what, e)),
        };
        let persistent = CreateMode::Persistent.with_acls(self.link.acls());
        let ephemeral = CreateMode::Ephemeral.with_acls(self.link.acls());
        let mut multi = session.new_multi_writer();
        let add = |r: ZkResult<()>| r.map_err(|e| self.link.err(what, e));
        for op in before {
            match op {
                Before::Delete(path, version) => add(multi.add_delete(path, Some(*version)))?,
                Before::Mark(path) => add(multi.add_create(path, b"", &persistent))?,
            }
        }
        add(multi.add_create(
            &self.held_path(value),
            record.encode().as_bytes(),
            &ephemeral,
        ))?;
        let was = self.fence_of(value, fence.as_ref().map(|(data, _)| &data[..]))?;
        let now = was.max(fence_at_least);
        match &fence {
            Some((_, stat)) if now == was => {
                add(multi.add_check_version(&fence_path, stat.version))?
            }
            Some((_, stat)) => add(multi.add_set_data(
                &fence_path,
                now.to_string().as_bytes(),
                Some(stat.version),
            ))?,
            None => add(multi.add_create(&fence_path, now.to_string().as_bytes(), &persistent))?,
        }
        match timed_raw(async { multi.commit().await.map_err(multi_error) }).await {
            Ok(_) => Ok(Some(now)),
            Err(e) if lost_race(&e) => Ok(None),
            Err(e) => Err(self.link.err(what, e)),
        }
    }

    /// The values of Leaf's space this store may try, in the request's order, and what taking
    /// each needs first; the `forever` node's `cversion` (the next number ZooKeeper gives).
    async fn leaf_candidates(
        &self,
        leaf: &LeafSpace,
        req: &LeaseRequest,
        held: &HashSet<u64>,
        what: &str,
    ) -> Result<(Vec<Candidate>, u64)> {
        let (names, stat) = self.link.children(&leaf.forever, what).await?;
        let next = stat.map_or(0, |s| s.cversion.max(0) as u64);
        let mut marked = HashSet::new();
        let mut workers = HashMap::new();
        for name in &names {
            if let Some((address, seq)) = leaf_child(name) {
                if address == MARK {
                    marked.insert(seq);
                } else {
                    workers.insert(seq, name.clone());
                }
            }
        }
        let mut out = Vec::new();
        let order = req.prefer.into_iter().chain(req.first..=req.last);
        let mut seen = HashSet::new();
        for value in order {
            if value >= next {
                if req.prefer != Some(value) {
                    break;
                }
                continue;
            }
            if value == 0 || held.contains(&value) || !seen.insert(value) {
                continue;
            }
            if let Some(name) = workers.get(&value) {
                // A Leaf worker's number, and a mark with it would mean idmint reclaimed it
                // already and the worker registered again under it: never.
                let path = format!("{}/{name}", leaf.forever);
                let Some((data, stat)) = self.link.get(&path, what).await? else {
                    continue;
                };
                let Some(last) = leaf_timestamp(&data) else {
                    continue;
                };
                let reported = last.max(stat.mtime.max(0) as u64);
                if wall_ms().saturating_sub(reported) <= leaf.dead_after_ms {
                    continue;
                }
                let mark = format!("{}/{MARK}-{value:010}", leaf.forever);
                let mut before = vec![Before::Delete(path, stat.version)];
                if !marked.contains(&value) {
                    before.push(Before::Mark(mark));
                }
                out.push((value, before, reported.saturating_add(leaf.dead_after_ms)));
            } else if marked.contains(&value) {
                out.push((value, Vec::new(), 0));
            }
        }
        Ok((out, next))
    }

    /// Makes a new `idmint-` mark in Leaf's `forever` node: ZooKeeper gives it the next number.
    async fn mark(&self, leaf: &LeafSpace, what: &str) -> Result<u64> {
        let client = self.link.client().await?;
        let opts = CreateMode::PersistentSequential.with_acls(self.link.acls());
        let data = format!(
            "{{\"ip\":\"{MARK}\",\"port\":\"0\",\"timestamp\":{}}}",
            wall_ms()
        );
        let (_, seq) = self
            .link
            .timed(
                what,
                client.create(&format!("{}/{MARK}-", leaf.forever), data.as_bytes(), &opts),
            )
            .await?;
        Ok(seq.into_i64().max(0) as u64)
    }

    /// The held node of `value` as `session` sees it, when that session owns it with `token`.
    async fn owned(
        &self,
        session: &Client,
        value: u64,
        token: &str,
        what: &str,
    ) -> Result<Option<Owned>> {
        let read = async {
            let (data, stat) = session.get_data(&self.held_path(value)).await?;
            let fence = match session.get_data(&self.fence_path(value)).await {
                Ok(found) => Some(found),
                Err(ZkError::NoNode) => None,
                Err(e) => return Err(e),
            };
            Ok((data, stat, fence))
        };
        let (data, stat, fence) = match timed_raw(read).await {
            Ok(found) => found,
            Err(e) if session_over(&e) || e == ZkError::NoNode => return Ok(None),
            Err(e) => return Err(self.link.err(what, e)),
        };
        if stat.ephemeral_owner != session.session_id().0 {
            return Ok(None);
        }
        let record =
            Record::decode(&data).ok_or_else(|| self.link.garbled(&self.held_path(value)))?;
        if record.token != token {
            return Ok(None);
        }
        let fence = match fence {
            Some((data, stat)) => Some((self.fence_of(value, Some(&data))?, stat)),
            None => None,
        };
        Ok(Some((record, stat, fence)))
    }

    /// Adds to `multi` the fence of `value` raised to `fence_ms` (or checked unchanged).
    fn fence_op(
        &self,
        multi: &mut zookeeper_client::MultiWriter<'_>,
        value: u64,
        fence: &Option<(u64, Stat)>,
        fence_ms: u64,
    ) -> ZkResult<()> {
        let path = self.fence_path(value);
        match fence {
            Some((was, stat)) if *was >= fence_ms => multi.add_check_version(&path, stat.version),
            Some((_, stat)) => {
                multi.add_set_data(&path, fence_ms.to_string().as_bytes(), Some(stat.version))
            }
            None => multi.add_create(
                &path,
                fence_ms.to_string().as_bytes(),
                &CreateMode::Persistent.with_acls(self.link.acls()),
            ),
        }
    }
}

/// A value of Leaf's space to try: the value, what taking it needs first, and the fence it
/// must get at least.
type Candidate = (u64, Vec<Before>, u64);

/// The held node's record and stat, and the fence with its stat, as its owner read them.
type Owned = (Record, Stat, Option<(u64, Stat)>);

/// What a `multi` taking a value of Leaf's space does first.
#[derive(Debug, Clone)]
enum Before {
    /// Delete a dead Leaf worker's node at the version read.
    Delete(String, i32),
    /// Mark the value as idmint's.
    Mark(String),
}

impl LeaseStore for ZkLeaseStore {
    fn describe(&self) -> String {
        self.link.describe().to_string()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            const WHAT: &str = "leasing";
            let timeout = Duration::from_millis(req.ttl_ms.saturating_add(req.freeze_ms).max(1));
            let session = self.link.session(timeout).await?;
            if (session.session_timeout().as_millis() as u64) < req.ttl_ms {
                return Err(self.too_short(req.ttl_ms, &session));
            }
            let record = Record {
                token: req.token.clone(),
                ttl_ms: req.ttl_ms,
                freeze_ms: req.freeze_ms,
                renewed_ms: wall_ms(),
                holder: req.holder.clone(),
            };
            let taken = |value: u64, fence_ms: u64| {
                self.sessions()
                    .insert(value, (req.token.clone(), session.clone()));
                Ok(Some(Grant { value, fence_ms }))
            };
            for _ in 0..MAX_MARKS {
                let held = self.held_values(WHAT).await?;
                // Outside Leaf's space: every free value of the range, tried one by one as the
                // range yields it (never collected: a 22-bit range is 4 M values).
                let Some(leaf) = &self.leaf else {
                    for value in candidates(req, &held) {
                        if let Some(fence_ms) =
                            self.take(&session, value, &record, &[], 0, WHAT).await?
                        {
                            return taken(value, fence_ms);
                        }
                    }
                    return Ok(None);
                };
                let (candidates, next) = self.leaf_candidates(leaf, req, &held, WHAT).await?;
                for (value, before, fence_at_least) in candidates {
                    if let Some(fence_ms) = self
                        .take(&session, value, &record, &before, fence_at_least, WHAT)
                        .await?
                    {
                        return taken(value, fence_ms);
                    }
                }
                // In Leaf's space a new number is the way on while ZooKeeper's next one is
                // still in the range.
                if next > req.last {
                    return Ok(None);
                }
                self.mark(leaf, WHAT).await?;
            }
            Ok(None)
        })
    }

    fn renew<'a>(
        &'a self,
        value: u64,
        token: &'a str,
        ttl_ms: u64,
        freeze_ms: u64,
        fence_ms: u64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            const WHAT: &str = "renewing";
            let Some(session) = self.holding(value, token) else {
                return Ok(false);
            };
            if (session.session_timeout().as_millis() as u64) < ttl_ms {
                return Err(self.too_short(ttl_ms, &session));
            }
            for _ in 0..TRIES {
                let Some((old, stat, fence)) = self.owned(&session, value, token, WHAT).await?
                else {
                    self.sessions().remove(&value);
                    return Ok(false);
                };
                let record = Record {
                    ttl_ms,
                    freeze_ms,
                    renewed_ms: wall_ms(),
                    ..old
                };
                let mut multi = session.new_multi_writer();
                multi
                    .add_set_data(
                        &self.held_path(value),
                        record.encode().as_bytes(),
                        Some(stat.version),
                    )
                    .and_then(|()| self.fence_op(&mut multi, value, &fence, fence_ms))
                    .map_err(|e| self.link.err(WHAT, e))?;
                match timed_raw(async { multi.commit().await.map_err(multi_error) }).await {
                    Ok(_) => return Ok(true),
                    Err(e) if session_over(&e) => {
                        self.sessions().remove(&value);
                        return Ok(false);
                    }
                    Err(e) if lost_race(&e) => continue,
                    Err(e) => return Err(self.link.err(WHAT, e)),
                }
            }
            Err(changing(self.link.describe(), value, WHAT))
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            const WHAT: &str = "releasing";
            let Some(session) = self.holding(value, token) else {
                return Ok(false);
            };
            for _ in 0..TRIES {
                let Some((_, stat, fence)) = self.owned(&session, value, token, WHAT).await? else {
                    self.sessions().remove(&value);
                    return Ok(false);
                };
                let mut multi = session.new_multi_writer();
                // The fence becomes the holder's last issued time, as in the SQL stores, even
                // below the one its renewals wrote ahead of the clock: the holder, proven by the
                // version check on its node, has stopped minting, and a fence left a TTL ahead
                // would fail the next holder's first IDs (ClockMovedBackwards) for a TTL. It is
                // written even when unchanged: a released value is listed (as free, with its
                // fence) like the other stores list it.
                let fence_write = match &fence {
                    Some((_, stat)) => multi.add_set_data(
                        &self.fence_path(value),
                        fence_ms.to_string().as_bytes(),
                        Some(stat.version),
                    ),
                    None => self.fence_op(&mut multi, value, &None, fence_ms),
                };
                multi
                    .add_delete(&self.held_path(value), Some(stat.version))
                    .and(fence_write)
                    .map_err(|e| self.link.err(WHAT, e))?;
                match timed_raw(async { multi.commit().await.map_err(multi_error) }).await {
                    Ok(_) => {
                        // Dropping the last handle closes the session.
                        self.sessions().remove(&value);
                        return Ok(true);
                    }
                    Err(e) if session_over(&e) => {
                        self.sessions().remove(&value);
                        return Ok(false);
                    }
                    Err(e) if lost_race(&e) => continue,
                    Err(e) => return Err(self.link.err(WHAT, e)),
                }
            }
            Err(changing(self.link.describe(), value, WHAT))
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(async move {
            const WHAT: &str = "listing";
            let now = wall_ms() as i64;
            let mut found: BTreeMap<u64, LeaseInfo> = BTreeMap::new();
            let free = |value: u64, last_time_ms: u64| LeaseInfo {
                value,
                holder: String::new(),
                expires_in_ms: 0,
                free_in_ms: 0,
                last_time_ms,
            };
            let fences = format!("{}/fence", self.base);
            for name in self.link.children(&fences, WHAT).await?.0 {
                let Ok(value) = name.parse::<u64>() else {
                    continue;
                };
                if let Some((data, _)) = self.link.get(&format!("{fences}/{name}"), WHAT).await? {
                    found.insert(value, free(value, self.fence_of(value, Some(&data))?));
                }
            }
            let held = format!("{}/held", self.base);
            for name in self.link.children(&held, WHAT).await?.0 {
                let Ok(value) = name.parse::<u64>() else {
                    continue;
                };
                // Gone since the listing: released or expired, so free.
                let Some((data, _)) = self.link.get(&format!("{held}/{name}"), WHAT).await? else {
                    continue;
                };
                let record = Record::decode(&data)
                    .ok_or_else(|| self.link.garbled(&self.held_path(value)))?;
                let info = found.entry(value).or_insert_with(|| free(value, 0));
                let expires = (record.renewed_ms as i64)
                    .saturating_add(record.ttl_ms.min(i64::MAX as u64) as i64)
                    .saturating_sub(now);
                // The node stands until ZooKeeper expires its session: never free before.
                let free_in = expires
                    .saturating_add(record.freeze_ms.min(i64::MAX as u64) as i64)
                    .max(1);
                info.holder = record.holder;
                info.expires_in_ms = expires;
                info.free_in_ms = free_in;
            }
            if let Some(leaf) = &self.leaf {
                for name in self.link.children(&leaf.forever, WHAT).await?.0 {
                    let Some((address, value)) = leaf_child(&name) else {
                        continue;
                    };
                    if address == MARK || found.contains_key(&value) {
                        continue;
                    }
                    let path = format!("{}/{name}", leaf.forever);
                    let Some((data, stat)) = self.link.get(&path, WHAT).await? else {
                        continue;
                    };
                    let last = leaf_timestamp(&data).unwrap_or(0);
                    let reported = last.max(stat.mtime.max(0) as u64) as i64;
                    let left = reported
                        .saturating_add(leaf.dead_after_ms as i64)
                        .saturating_sub(now);
                    found.insert(
                        value,
                        LeaseInfo {
                            value,
                            holder: format!("leaf {address}"),
                            expires_in_ms: left,
                            free_in_ms: left.max(0),
                            last_time_ms: last,
                        },
                    );
                }
            }
            Ok(found.into_values().collect())
        })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            // Dropping the sessions closes them; their nodes go with them.
            self.sessions().clear();
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_leaf_names() {
        let r = Record {
            token: "ab12".into(),
            ttl_ms: 1500,
            freeze_ms: 10,
            renewed_ms: 1_700_000_000_000,
            holder: "web 1:42".into(),
        };
        assert_eq!(Record::decode(r.encode().as_bytes()), Some(r));
        assert_eq!(Record::decode(b"2 x 1 1 1 h"), None);
        assert_eq!(
            leaf_child("10.0.0.7:8080-0000000012"),
            Some(("10.0.0.7:8080", 12))
        );
        assert_eq!(leaf_child("idmint-0000000003"), Some(("idmint", 3)));
        assert_eq!(leaf_child("junk"), None);
        assert_eq!(
            leaf_timestamp(br#"{"ip":"10.0.0.7","port":"8080","timestamp":1700000000000}"#),
            Some(1_700_000_000_000)
        );
        assert_eq!(leaf_timestamp(b"{}"), None);
    }
}

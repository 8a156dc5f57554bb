//! Leases in etcd (feature `etcd`): a value is held by a key bound to an etcd lease, so etcd's
//! own clock ends a holder that stops renewing; the fence outlives every holder in a key of its
//! own.
//!
//! # Keys (`B` is `{root}/{prefix}`, by default `/idmint:lease`)
//! - `B/held/V` (V zero-padded to 19 digits, so keys sort as numbers): the holder's record
//!   (`1 TOKEN TTL_MS FREEZE_MS RENEWED_MS HOLDER`), bound to an etcd lease of
//!   `ceil((ttl + freeze) / 1 s)` seconds. The key lives while the holder may mint and through
//!   the freeze after, and etcd deletes it when its lease runs out: then the value is free.
//! - `B/fence/V`: the fence (`last_time_ms`), bound to no lease, raised by renewals and set to
//!   the holder's last issued time by its release.
//!
//! Acquiring is a transaction that creates `B/held/V` only if it does not exist (compared on
//! its version) and reads the fence in the same revision. Renewing keeps the holder's etcd
//! lease alive, then rewrites the record and raises the fence in a transaction compared on the
//! mod revisions it read, so a holder whose etcd lease ran out (its key deleted, maybe created
//! again by another holder) cannot renew what another took: its keep-alive fails, or its
//! comparison does. Releasing deletes the key and sets the fence to the holder's last issued
//! time in a transaction compared the same way, then revokes the lease.
//!
//! etcd counts lease time in whole seconds on its leader's clock: a value is frozen up to a
//! second longer than asked, never shorter. [`list`](LeaseStore::list) tells the time left
//! from etcd's remaining seconds, refined to the millisecond by the time of the last renewal
//! the record holds (the holder's clock, kept within etcd's second).

use std::collections::BTreeMap;

use etcd_client::{Compare, CompareOp, KeyValue, PutOptions, Txn, TxnOp, TxnOpResponse};

use super::cas::{candidates, changing, parse_fence, wall_ms, TRIES};
use super::held_record::Record;
use super::store::{Grant, LeaseInfo, LeaseRequest, LeaseStore, DEFAULT_LEASE_PREFIX};
use crate::store::{EtcdLink, StoreFuture, StoreOptions, Use};
use crate::Result;

/// The longest lease etcd grants (its `MaxLeaseTTL`, in seconds).
const MAX_LEASE_SECS: u64 = 9_000_000_000;

/// A lease store in etcd (feature `etcd`): `etcd://h1:2379,h2:2379[/root]`, `etcds://…?ca=…`,
/// keys under `{root}/{prefix}`, the prefix being the options' or the URL's `?prefix=…`, by
/// default [`DEFAULT_LEASE_PREFIX`] (`idmint:lease`).
///
/// ```no_run
/// # async fn f() -> idmint_core::Result<()> {
/// use idmint_core::lease::{EtcdLeaseStore, StoreOptions};
/// let opts = StoreOptions::default().key_prefix("app:lease")?;
/// let store = EtcdLeaseStore::connect("etcd://127.0.0.1:2379/ids", &opts).await?;
/// assert_eq!(store.key_base(), "/ids/app:lease");
/// # Ok(()) }
/// ```
pub struct EtcdLeaseStore {
    link: EtcdLink,
    base: String,
}

impl std::fmt::Debug for EtcdLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdLeaseStore")
            .field("store", &self.link.describe())
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// The etcd lease's length for a holder's TTL and freeze: whole seconds, rounded up.
fn lease_secs(ttl_ms: u64, freeze_ms: u64) -> i64 {
    let ms = ttl_ms.saturating_add(freeze_ms);
    ms.div_ceil(1000).clamp(1, MAX_LEASE_SECS) as i64
}

impl EtcdLeaseStore {
    /// Connects (one client balanced over the URL's members); keys under the options' prefix,
    /// or [`DEFAULT_LEASE_PREFIX`] when they name none (as `Default::default()` does).
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::EtcdLeaseStore;
    /// let store = EtcdLeaseStore::connect("etcd://127.0.0.1:2379", &Default::default()).await?;
    /// assert_eq!(store.key_base(), "/idmint:lease");
    /// # Ok(()) }
    /// ```
    ///
    /// A URL it cannot use is refused before any connection, without its password:
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::lease::EtcdLeaseStore;
    /// let err = EtcdLeaseStore::connect("etcd://me:s3cret@db", &Default::default()).await.unwrap_err();
    /// assert_eq!(err.kind(), "invalid_argument");
    /// assert!(!err.to_string().contains("s3cret"), "{err}");
    /// # });
    /// ```
    pub async fn connect(url: &str, opts: &StoreOptions) -> Result<EtcdLeaseStore> {
        // The URL's own options (`?prefix=`, `?pool=`, …), checked against what this store
        // takes for leases, as `open_lease_store` does.
        let (opts, url) = opts.for_url(url, Use::Leases)?;
        let (opts, url) = (&opts, url.as_str());
        let link = EtcdLink::connect(url).await?;
        let base = link.base(opts.key_prefix_or(DEFAULT_LEASE_PREFIX));
        Ok(EtcdLeaseStore { link, base })
    }

    /// Where the store's keys live: `{root}/{prefix}`, with `held/V` and `fence/V` below.
    ///
    /// ```no_run
    /// # async fn f() -> idmint_core::Result<()> {
    /// use idmint_core::lease::EtcdLeaseStore;
    /// let store = EtcdLeaseStore::connect("etcd://127.0.0.1:2379/app", &Default::default()).await?;
    /// assert_eq!(store.key_base(), "/app/idmint:lease");
    /// # Ok(()) }
    /// ```
    pub fn key_base(&self) -> &str {
        &self.base
    }

    fn held_key(&self, value: u64) -> String {
        format!("{}/held/{value:019}", self.base)
    }

    fn fence_key(&self, value: u64) -> String {
        format!("{}/fence/{value:019}", self.base)
    }

    /// The value a `held/` or `fence/` key names.
    fn value_of(&self, key: &[u8], kind: &str) -> Option<u64> {
        let key = std::str::from_utf8(key).ok()?;
        key.strip_prefix(&self.base)?
            .strip_prefix('/')?
            .strip_prefix(kind)?
            .strip_prefix('/')?
            .parse()
            .ok()
    }

    /// The fence `kv` holds (`fence/V` of `value`; none: 0). A key that holds no whole number is
    /// damaged, and refused: read as 0 it would let IDs repeat.
    fn fence_of(&self, value: u64, kv: Option<&KeyValue>) -> Result<u64> {
        parse_fence(kv.map(KeyValue::value))
            .ok_or_else(|| self.link.garbled(&self.fence_key(value)))
    }

    /// The holder's key and the fence key of `value`, read in one revision.
    async fn read(&self, value: u64, what: &str) -> Result<(Option<KeyValue>, Option<KeyValue>)> {
        let txn = Txn::new().and_then([
            TxnOp::get(self.held_key(value), None),
            TxnOp::get(self.fence_key(value), None),
        ]);
        let resp = self
            .link
            .client()
            .txn(txn)
            .await
            .map_err(|e| self.link.err(what, e))?;
        let mut got = resp.op_responses().into_iter().map(|r| match r {
            TxnOpResponse::Get(mut g) => g.take_kvs().into_iter().next(),
            _ => None,
        });
        Ok((got.next().flatten(), got.next().flatten()))
    }

    /// The holder's record of `value` if `token` holds it, with the key as read.
    async fn held_with(
        &self,
        value: u64,
        token: &str,
        what: &str,
    ) -> Result<Option<(KeyValue, Record, Option<KeyValue>)>> {
        let (held, fence) = self.read(value, what).await?;
        let Some(held) = held else {
            return Ok(None);
        };
        let record =
            Record::decode(held.value()).ok_or_else(|| self.link.garbled(&self.held_key(value)))?;
        Ok((record.token == token).then_some((held, record, fence)))
    }

    /// The comparison that the fence is still as read, and the write that raises it to
    /// `fence_ms` (none when it is already there).
    fn raise_fence(
        &self,
        value: u64,
        read: Option<&KeyValue>,
        fence_ms: u64,
    ) -> Result<(Compare, Option<TxnOp>)> {
        let key = self.fence_key(value);
        let rev = read.map_or(0, KeyValue::mod_revision);
        let put = (self.fence_of(value, read)? < fence_ms)
            .then(|| TxnOp::put(key.clone(), fence_ms.to_string(), None));
        Ok((Compare::mod_revision(key, CompareOp::Equal, rev), put))
    }

    async fn grant(&self, secs: i64, what: &str) -> Result<i64> {
        let resp = self
            .link
            .client()
            .lease_grant(secs, None)
            .await
            .map_err(|e| self.link.err(what, e))?;
        Ok(resp.id())
    }

    /// Gives an etcd lease up. Best effort: a lease not revoked runs out on its own.
    async fn revoke(&self, id: i64) {
        let _ = self.link.client().lease_revoke(id).await;
    }
}

impl LeaseStore for EtcdLeaseStore {
    fn describe(&self) -> String {
        self.link.describe().to_string()
    }

    fn acquire<'a>(&'a self, req: &'a LeaseRequest) -> StoreFuture<'a, Option<Grant>> {
        Box::pin(async move {
            const WHAT: &str = "leasing";
            // The values held now; one that frees up meanwhile waits for the next acquire, one
            // taken meanwhile fails its comparison below.
            let held: std::collections::HashSet<u64> = self
                .link
                .scan(&format!("{}/held/", self.base), WHAT)
                .await?
                .iter()
                .filter_map(|kv| self.value_of(kv.key(), "held"))
                .collect();
            let secs = lease_secs(req.ttl_ms, req.freeze_ms);
            let mut lease = None;
            for value in candidates(req, &held) {
                // Read before the grant, so the record's time is never later than the
                // lease's start on etcd's clock: a listing may only under-state the time left.
                let record = Record {
                    token: req.token.clone(),
                    ttl_ms: req.ttl_ms,
                    freeze_ms: req.freeze_ms,
                    renewed_ms: wall_ms(),
                    holder: req.holder.clone(),
                };
                let id = match lease {
                    Some(id) => id,
                    None => *lease.insert(self.grant(secs, WHAT).await?),
                };
                let key = self.held_key(value);
                let txn = Txn::new()
                    .when([Compare::version(key.clone(), CompareOp::Equal, 0)])
                    .and_then([
                        TxnOp::put(key, record.encode(), Some(PutOptions::new().with_lease(id))),
                        TxnOp::get(self.fence_key(value), None),
                    ]);
                let resp = match self.link.client().txn(txn).await {
                    Ok(resp) => resp,
                    Err(e) => {
                        self.revoke(id).await;
                        return Err(self.link.err(WHAT, e));
                    }
                };
                if !resp.succeeded() {
                    continue;
                }
                let fence = resp.op_responses().into_iter().find_map(|r| match r {
                    TxnOpResponse::Get(mut g) => g.take_kvs().into_iter().next(),
                    _ => None,
                });
                // A damaged fence fails the acquire (its key given up again): no ID is minted
                // on a fence that is not known.
                return match self.fence_of(value, fence.as_ref()) {
                    Ok(fence_ms) => Ok(Some(Grant { value, fence_ms })),
                    Err(e) => {
                        self.revoke(id).await;
                        Err(e)
                    }
                };
            }
            if let Some(id) = lease {
                self.revoke(id).await;
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
            for _ in 0..TRIES {
                let Some((held, old, fence)) = self.held_with(value, token, WHAT).await? else {
                    return Ok(false);
                };
                let renewed_ms = wall_ms();
                let same_length =
                    lease_secs(old.ttl_ms, old.freeze_ms) == lease_secs(ttl_ms, freeze_ms);
                // The same length: the lease kept alive. Another length: a new lease, the key
                // moved onto it below, the old one revoked after.
                let (id, old_id) = if same_length {
                    match self.link.client().lease_keep_alive(held.lease()).await {
                        Ok(_) => (held.lease(), None),
                        // Run out (etcd deletes the key with it): no longer held.
                        Err(etcd_client::Error::LeaseKeepAliveError(_)) => return Ok(false),
                        Err(e) => return Err(self.link.err(WHAT, e)),
                    }
                } else {
                    let id = self.grant(lease_secs(ttl_ms, freeze_ms), WHAT).await?;
                    (id, Some(held.lease()))
                };
                let record = Record {
                    ttl_ms,
                    freeze_ms,
                    renewed_ms,
                    ..old
                };
                let key = self.held_key(value);
                let (fence_same, fence_put) = self.raise_fence(value, fence.as_ref(), fence_ms)?;
                let mut ops = vec![TxnOp::put(
                    key.clone(),
                    record.encode(),
                    Some(PutOptions::new().with_lease(id)),
                )];
                ops.extend(fence_put);
                let txn = Txn::new()
                    .when([
                        Compare::mod_revision(key, CompareOp::Equal, held.mod_revision()),
                        fence_same,
                    ])
                    .and_then(ops);
                let done = self.link.client().txn(txn).await;
                let revoke = match (&done, old_id) {
                    (Ok(r), Some(old)) if r.succeeded() => Some(old),
                    (_, Some(_)) => Some(id),
                    _ => None,
                };
                if let Some(gone) = revoke {
                    self.revoke(gone).await;
                }
                if done.map_err(|e| self.link.err(WHAT, e))?.succeeded() {
                    return Ok(true);
                }
            }
            Err(changing(self.link.describe(), value, WHAT))
        })
    }

    fn release<'a>(&'a self, value: u64, token: &'a str, fence_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            const WHAT: &str = "releasing";
            for _ in 0..TRIES {
                let Some((held, _, fence)) = self.held_with(value, token, WHAT).await? else {
                    return Ok(false);
                };
                let key = self.held_key(value);
                let (fence_same, _) = self.raise_fence(value, fence.as_ref(), fence_ms)?;
                // The fence becomes the holder's last issued time, as in the SQL stores, even
                // below the one its renewals wrote ahead of the clock: the holder, proven by the
                // comparison on its key, has stopped minting, and a fence left a TTL ahead
                // would fail the next holder's first IDs (ClockMovedBackwards) for a TTL.
                let ops = vec![
                    TxnOp::delete(key.clone(), None),
                    TxnOp::put(self.fence_key(value), fence_ms.to_string(), None),
                ];
                let txn = Txn::new()
                    .when([
                        Compare::mod_revision(key, CompareOp::Equal, held.mod_revision()),
                        fence_same,
                    ])
                    .and_then(ops);
                let resp = self
                    .link
                    .client()
                    .txn(txn)
                    .await
                    .map_err(|e| self.link.err(WHAT, e))?;
                if resp.succeeded() {
                    self.revoke(held.lease()).await;
                    return Ok(true);
                }
            }
            Err(changing(self.link.describe(), value, WHAT))
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<LeaseInfo>> {
        Box::pin(async move {
            const WHAT: &str = "listing";
            let mut found: BTreeMap<u64, LeaseInfo> = BTreeMap::new();
            for kv in self
                .link
                .scan(&format!("{}/fence/", self.base), WHAT)
                .await?
            {
                if let Some(value) = self.value_of(kv.key(), "fence") {
                    found.insert(
                        value,
                        LeaseInfo {
                            value,
                            holder: String::new(),
                            expires_in_ms: 0,
                            free_in_ms: 0,
                            last_time_ms: self.fence_of(value, Some(&kv))?,
                        },
                    );
                }
            }
            for kv in self
                .link
                .scan(&format!("{}/held/", self.base), WHAT)
                .await?
            {
                let Some(value) = self.value_of(kv.key(), "held") else {
                    continue;
                };
                let record = Record::decode(kv.value())
                    .ok_or_else(|| self.link.garbled(&self.held_key(value)))?;
                // The seconds left, and the lease's length as etcd granted it (its minimum
                // lease may have lengthened what was asked).
                let (ttl, granted) = match self
                    .link
                    .client()
                    .lease_time_to_live(kv.lease(), None)
                    .await
                {
                    Ok(ttl) => (ttl.ttl(), ttl.granted_ttl()),
                    // Revoked since the scan (etcd answers NotFound): the key is gone with it.
                    Err(etcd_client::Error::GRpcStatus(s))
                        if s.message().contains("lease not found") =>
                    {
                        (-1, 0)
                    }
                    Err(e) => return Err(self.link.err(WHAT, e)),
                };
                let info = found.entry(value).or_insert(LeaseInfo {
                    value,
                    holder: String::new(),
                    expires_in_ms: 0,
                    free_in_ms: 0,
                    last_time_ms: 0,
                });
                // Run out, the key about to go with it: free, as a Redis field past its time.
                if ttl <= 0 {
                    continue;
                }
                // etcd says whole seconds left (rounded down); the record's renewal time says
                // where in that second the lease ends.
                let secs_ms = ttl * 1000;
                let by_record = (record.renewed_ms as i64)
                    .saturating_add(granted.saturating_mul(1000))
                    .saturating_sub(wall_ms() as i64);
                let free_in = by_record.clamp(secs_ms, secs_ms + 999);
                info.holder = record.holder;
                info.free_in_ms = free_in;
                info.expires_in_ms = free_in - record.freeze_ms.min(i64::MAX as u64) as i64;
            }
            Ok(found.into_values().collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_lengths() {
        let r = Record {
            token: "ab12".into(),
            ttl_ms: 1500,
            freeze_ms: 10,
            renewed_ms: 1_700_000_000_000,
            holder: "web 1:42".into(),
        };
        assert_eq!(Record::decode(r.encode().as_bytes()), Some(r));
        assert_eq!(Record::decode(b"2 x 1 1 1 h"), None);
        assert_eq!(Record::decode(b"1 x 1 1"), None);
        assert_eq!(lease_secs(1000, 2000), 3);
        assert_eq!(lease_secs(1001, 0), 2);
        assert_eq!(lease_secs(0, 0), 1);
        assert_eq!(lease_secs(u64::MAX, u64::MAX), MAX_LEASE_SECS as i64);
    }
}

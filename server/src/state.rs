//! What the server mints with: one of each core generator, opened once at start and shared by
//! every listener (HTTP, gRPC, the compatible endpoints). Everything here is a core object or
//! a call into one; the handlers only convert.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use idmint_core::health::{health_requiring, Health};
use idmint_core::lease::{lease_url_beside, open_lease_store, ClientLeases, LeaseOptions};
use idmint_core::metrics::{observe_segments, observe_snowflake};
use idmint_core::segment::{
    open_store, IdRange, SegmentClient, SegmentStore, StoreOptions, TagHandle, TagInfo,
    TagOrderNumbers,
};
use idmint_core::{
    Layout, MonotonicClock, ObjectId, ObjectIdGenerator, OnExhausted, OnRollback, Snowflake, Uuid7,
    Uuid7Generator,
};

use crate::config::{template_of, Config};
use crate::metrics::{keep_first, HandleMap, Issued, Metrics};

/// The generators, shared by every handler.
pub struct Ids {
    /// Segment IDs per tag.
    pub segments: SegmentClient,
    /// The store behind them, for the admin API.
    pub store: Arc<dyn SegmentStore>,
    /// Snowflake IDs from this server's leased node value (shared with the blocking threads a
    /// batch is minted on).
    pub snowflake: Arc<Snowflake>,
    /// ObjectIds.
    pub object_ids: ObjectIdGenerator,
    /// UUIDv7s.
    pub uuids: Uuid7Generator,
    /// Order numbers by template name.
    pub orders: BTreeMap<String, Arc<TagOrderNumbers<MonotonicClock>>>,
    /// Leases handed to clients.
    pub leases: ClientLeases,
    /// The largest `count` of one request.
    pub max_count: usize,
    /// Tags whose first range must be loaded before the server is ready.
    pub preload: Vec<String>,
    /// False once SIGTERM arrived: readiness off while requests drain.
    pub accepting: AtomicBool,
    /// True once the listeners are bound, the signal handlers installed and "ready" logged:
    /// `/readyz` never says ready before a SIGTERM would be drained.
    pub started: AtomicBool,
    /// Counters and histograms of the listeners.
    pub metrics: Metrics,
    /// The tags asked for so far, each with its handle and its issued counter: a request for
    /// one costs a lock-free map read, not the segment client's checks and locks and counter
    /// lookups. Copied on the rare insert (a tag's first request).
    tags: HandleMap<TagEntry>,
    /// The issued counters of the kinds without a tag, each resolved on first use.
    issued: [OnceLock<Issued>; 3],
}

/// A tag the server has served: its handle and its issued counter.
struct TagEntry {
    handle: TagHandle,
    issued: Issued,
}

/// The kinds without a tag, indexing [`Ids::issued`].
#[derive(Clone, Copy)]
enum Untagged {
    Snowflake,
    ObjectId,
    Uuid7,
}

impl std::fmt::Debug for Ids {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ids")
            .field("segments", &self.segments)
            .field("snowflake", &self.snowflake)
            .finish_non_exhaustive()
    }
}

/// What opening the generators can fail with: the key of the configuration it came from, and
/// core's error.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {source}")]
pub struct OpenError {
    /// The configuration key (`store`, `snowflake`, `orders.NAME`).
    pub key: String,
    /// Core's error.
    #[source]
    pub source: idmint_core::Error,
}

fn at(key: &str) -> impl Fn(idmint_core::Error) -> OpenError + '_ {
    move |source| OpenError {
        key: key.to_string(),
        source,
    }
}

impl Ids {
    /// Opens the store, leases this server's node value and loads the configured tags' first
    /// ranges.
    pub async fn open(config: &Config) -> Result<Ids, OpenError> {
        let store = open_store(&config.store, &StoreOptions::default())
            .await
            .map_err(at("store"))?;
        let segments = SegmentClient::builder()
            .store(store.clone())
            .auto_create(config.segment.auto_create)
            .default_step(config.segment.default_step)
            .max_wait(Duration::from_millis(config.segment.max_wait_ms))
            .connect()
            .await
            .map_err(at("segment"))?;
        let layout = Layout::parse(&config.snowflake.layout).map_err(at("snowflake.layout"))?;
        // The same store keeps the leases: without the options only segment stores take.
        let lease_url = lease_url_beside(&config.store).map_err(at("store"))?;
        let lease_store = open_lease_store(&lease_url).await.map_err(at("store"))?;
        let leases = ClientLeases::new(
            lease_store,
            layout.clone(),
            Duration::from_millis(config.leases.default_ttl_ms),
            Duration::from_millis(config.leases.max_ttl_ms),
        )
        .map_err(at("leases"))?;
        // The node lease opens the store again, by URL, on the lease keeper's own runtime: its
        // renewals then never wait on this runtime's I/O driver, which a request minting a
        // batch (waiting for the clock or for the fence to move) may be holding up.
        let mut lease = LeaseOptions::url(&lease_url)
            .ttl(Duration::from_millis(config.snowflake.lease_ttl_ms))
            .holder(&format!(
                "idmint-serve@{}:{}",
                config.listen,
                std::process::id()
            ));
        if let Some(r) = &config.snowflake.lease_range {
            let (first, last) =
                idmint_core::lease::parse_range(r).map_err(at("snowflake.lease_range"))?;
            lease = lease.range(first, last);
        }
        let on_exhausted: OnExhausted = config
            .snowflake
            .on_exhausted
            .parse()
            .map_err(at("snowflake.on_exhausted"))?;
        let on_rollback: OnRollback = config
            .snowflake
            .on_rollback
            .parse()
            .map_err(at("snowflake.on_rollback"))?;
        // Leasing blocks (the keeper runs its store calls on a runtime of its own).
        let snowflake = tokio::task::spawn_blocking(move || {
            Snowflake::builder(layout)
                .lease(lease)
                .on_exhausted(on_exhausted)
                .on_rollback(on_rollback)
                .build()
        })
        .await
        .expect("the lease task does not panic")
        .map_err(at("snowflake"))
        .map(Arc::new)?;
        let mut orders = BTreeMap::new();
        for (name, order) in &config.orders {
            let key = format!("orders.{name}");
            let template = template_of(order).map_err(at(&key))?;
            let tag = segments.tag_async(name).await.map_err(at(&key))?;
            orders.insert(
                name.clone(),
                Arc::new(TagOrderNumbers::new(template, tag, MonotonicClock::new())),
            );
        }
        for tag in &config.segment.tags {
            segments
                .tag_async(tag)
                .await
                .map_err(at("segment.tags"))?
                .next_ids_async(1)
                .await
                .map_err(at("segment.tags"))?;
        }
        Ok(Ids {
            segments,
            store,
            snowflake,
            object_ids: ObjectIdGenerator::new(),
            uuids: Uuid7Generator::new(),
            orders,
            leases,
            max_count: config.max_count as usize,
            preload: config.segment.tags.clone(),
            accepting: AtomicBool::new(true),
            started: AtomicBool::new(false),
            metrics: Metrics::new(),
            tags: HandleMap::default(),
            issued: Default::default(),
        })
    }

    /// `count` as a request gave it (absent: 1), checked against the server's maximum.
    pub fn count(&self, count: Option<u64>) -> idmint_core::Result<usize> {
        idmint_core::args::request_count(count, self.max_count)
    }

    /// A tag's handle (created on first use when `segment.auto_create`).
    pub async fn tag(&self, tag: &str) -> idmint_core::Result<TagHandle> {
        self.segments.tag_async(tag).await
    }

    /// A tag's row in the store, loaded through the segment client first (so an unknown tag
    /// is created when `segment.auto_create`, as minting would).
    pub async fn tag_info(&self, tag: &str) -> idmint_core::Result<TagInfo> {
        self.tag(tag).await?;
        self.store
            .tag_info(tag)
            .await?
            .ok_or_else(|| idmint_core::Error::UnknownTag {
                tag: tag.to_string(),
            })
    }

    /// The issued counter of a kind without a tag.
    fn issued(&self, kind: Untagged) -> &Issued {
        let name = match kind {
            Untagged::Snowflake => "snowflake",
            Untagged::ObjectId => "objectid",
            Untagged::Uuid7 => "uuid7",
        };
        self.issued[kind as usize].get_or_init(|| self.metrics.issued_counter(name, ""))
    }

    /// `tag`'s entry, loaded through the segment client the first time.
    async fn tag_entry(&self, tag: &str) -> idmint_core::Result<Arc<TagEntry>> {
        if let Some(e) = self.tags.load().get(tag) {
            return Ok(e.clone());
        }
        let entry = Arc::new(TagEntry {
            handle: self.tag(tag).await?,
            issued: self.metrics.issued_counter("segment", tag),
        });
        Ok(keep_first(&self.tags, tag, entry))
    }

    /// `count` segment IDs of `tag`, contiguous. IDs in memory are taken without waiting and
    /// without cloning a handle; the rest waits on the segment client.
    pub async fn segment_range(
        &self,
        tag: &str,
        count: Option<u64>,
    ) -> idmint_core::Result<IdRange> {
        let n = self.count(count)? as u64;
        let waiting = match self.tags.load().get(tag) {
            Some(e) => match e.handle.try_next_ids(n) {
                Ok(range) => {
                    e.issued.add(range.len());
                    return Ok(range);
                }
                Err(idmint_core::Error::WouldBlock { .. }) => e.clone(),
                Err(other) => return Err(other),
            },
            None => self.tag_entry(tag).await?,
        };
        let range = waiting.handle.next_ids_async(n).await?;
        waiting.issued.add(range.len());
        Ok(range)
    }

    /// `count` snowflake IDs. One ID is minted in place; a batch may wait for the clock to
    /// tick or for the lease's fence to move, so it is minted on a blocking thread, where the
    /// wait holds up no other request.
    pub async fn snowflakes(&self, count: Option<u64>) -> idmint_core::Result<Vec<u64>> {
        let n = self.count(count)?;
        let ids = if n == 1 {
            vec![self.snowflake.next_id()?]
        } else {
            let snowflake = self.snowflake.clone();
            tokio::task::spawn_blocking(move || snowflake.next_ids(n))
                .await
                .expect("minting does not panic")?
        };
        self.issued(Untagged::Snowflake).add(ids.len() as u64);
        Ok(ids)
    }

    /// `count` ObjectIds.
    pub fn object_ids(&self, count: Option<u64>) -> idmint_core::Result<Vec<ObjectId>> {
        let mut out = vec![ObjectId::from_parts(0, [0; 5], 0)?; self.count(count)?];
        let mut filled = 0;
        while filled < out.len() {
            filled += self.object_ids.next_block(&mut out[filled..]);
        }
        self.issued(Untagged::ObjectId).add(out.len() as u64);
        Ok(out)
    }

    /// `count` UUIDv7s.
    pub fn uuid7s(&self, count: Option<u64>) -> idmint_core::Result<Vec<Uuid7>> {
        let ids = self.uuids.next_uuids(self.count(count)?)?;
        self.issued(Untagged::Uuid7).add(ids.len() as u64);
        Ok(ids)
    }

    /// `count` order numbers of the template `name`. Drawing may wait on the store, so it runs
    /// on a blocking thread.
    pub async fn order_numbers(
        &self,
        name: &str,
        count: Option<u64>,
    ) -> idmint_core::Result<Vec<String>> {
        let n = self.count(count)?;
        let orders =
            self.orders
                .get(name)
                .cloned()
                .ok_or_else(|| idmint_core::Error::InvalidTemplate {
                    template: name.chars().take(64).collect(),
                    reason: format!(
                        "no template of that name is configured; configured: {}",
                        self.orders.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                })?;
        let out: Vec<String> = tokio::task::spawn_blocking(move || {
            (0..n)
                .map(|_| orders.next())
                .collect::<idmint_core::Result<Vec<_>>>()
        })
        .await
        .expect("order numbering does not panic")?;
        self.metrics.issued("orders", name, n as u64);
        Ok(out)
    }

    /// The core's state now, for a `/metrics` scrape.
    pub fn core_state(&self) -> crate::metrics::CoreState {
        crate::metrics::CoreState {
            tags: self.segments.metrics(),
            stats: self.snowflake.stats(),
            lease: self.snowflake.lease_stats(),
            nodes: self.snowflake.nodes(),
            object_id_waits: self.object_ids.waits(),
            layout_remaining: self.snowflake.layout_remaining(),
        }
    }

    /// The core's reasons when its health is degraded (a layout within a year of its end):
    /// still ready, and `/readyz` says why in its body.
    pub fn degraded(&self) -> Option<String> {
        let health = self.health();
        (health.status == idmint_core::health::Status::Degraded).then(|| health.reasons.join("; "))
    }

    /// The core's health of this server's generators (`idmint_core::health`): the rule of the
    /// packages' `health()`, with the preloaded tags required.
    pub fn health(&self) -> Health {
        health_requiring(
            observe_snowflake(&self.snowflake)
                .into_iter()
                .chain(observe_segments(&self.segments)),
            &self.preload,
        )
    }

    /// Ready: accepting, started, and up by the core's rule ([`Ids::health`]: the node lease
    /// held, the clock sane, no tag starved, every preloaded tag's range in memory); when not,
    /// the core's reasons.
    pub fn not_ready(&self) -> Option<String> {
        if !self.accepting.load(Ordering::Acquire) {
            return Some("shutting down".into());
        }
        if !self.started.load(Ordering::Acquire) {
            return Some("starting".into());
        }
        let health = self.health();
        (!health.is_up()).then(|| health.reasons.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/readyz`'s text is the core's health of the same generators, preloaded tags required:
    /// a preloaded tag with no range loaded is the core's reason, word for word.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn readiness_is_the_cores_health() {
        let config = Config {
            store: "memory:".into(),
            segment: crate::config::SegmentConfig {
                tags: vec!["orders".into()],
                ..Default::default()
            },
            ..Default::default()
        };
        let mut ids = Ids::open(&config).await.unwrap();
        assert_eq!(ids.not_ready().as_deref(), Some("starting"));
        ids.started.store(true, Ordering::Release);
        assert_eq!(ids.not_ready(), None, "{:?}", ids.health());
        // The fault: a tag the server must serve that was never loaded.
        ids.preload.push("users".into());
        let core = health_requiring(
            observe_snowflake(&ids.snowflake)
                .into_iter()
                .chain(observe_segments(&ids.segments)),
            &["orders", "users"],
        );
        assert_eq!(core.reasons, ["tag `users` has no range loaded"]);
        assert_eq!(ids.not_ready(), Some(core.reasons.join("; ")));
        ids.accepting.store(false, Ordering::Release);
        assert_eq!(ids.not_ready().as_deref(), Some("shutting down"));
    }
}

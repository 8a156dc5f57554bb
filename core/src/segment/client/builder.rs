//! The builder of a [`SegmentClient`]: its store and options.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::runtime::{Handle, Runtime};

use super::handles::SegmentClient;
use super::refill::{Life, Options, Shared};
use crate::rules::check_step;
use crate::segment::open::open_store_timeout;
use crate::segment::store::SegmentStore;
use crate::store::{background_runtime, describe_url, validate_tag, StoreOptions};
use crate::{Error, Result};

/// Options of a [`SegmentClient`]; every one has a default.
///
/// ```
/// use std::time::Duration;
/// use idmint_core::segment::SegmentClient;
/// let client = SegmentClient::builder()
///     .store_url("sqlite::memory:")
///     .refill_at(10)
///     .max_wait(Duration::from_millis(500))
///     .connect_blocking();
/// # let _ = client;
/// ```
#[must_use]
pub struct SegmentClientBuilder {
    store: Option<Arc<dyn SegmentStore>>,
    url: Option<String>,
    store_opts: StoreOptions,
    opts: Options,
    error: Option<Error>,
}

impl SegmentClient {
    /// A builder with the defaults: refill at 20% used, steps up to 1,000,000, unknown tags
    /// created with step 1000, a 3 s bound on waits and on each store call.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder();
    /// ```
    pub fn builder() -> SegmentClientBuilder {
        SegmentClientBuilder {
            store: None,
            url: None,
            store_opts: StoreOptions::default(),
            opts: Options::default(),
            error: None,
        }
    }
}

impl SegmentClientBuilder {
    fn fail(mut self, err: Error) -> Self {
        self.error.get_or_insert(err);
        self
    }

    /// The store, by URL: `sqlite:PATH`, `postgres://…`, `mysql://…`, `redis://…`, `memory:`
    /// (see [`open_store`](crate::segment::open_store)); each needs its cargo feature.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().store_url("sqlite:./ids.db");
    /// ```
    pub fn store_url(mut self, url: &str) -> Self {
        self.url = Some(url.to_string());
        self
    }

    /// A store already opened (it must be usable from the runtime the client runs on).
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let _b = SegmentClient::builder().store(MemoryStore::new());
    /// ```
    pub fn store(mut self, store: Arc<dyn SegmentStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Options for opening the store by URL (table name, pool size, Redis mode).
    ///
    /// ```
    /// use idmint_core::segment::{SegmentClient, StoreOptions};
    /// let _b = SegmentClient::builder().store_options(StoreOptions::default().table("ids")?);
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn store_options(mut self, opts: StoreOptions) -> Self {
        self.store_opts = opts;
        self
    }

    /// The share of a range, in percent (0..=99), used when the next range is fetched in the
    /// background (default 20, as Tinyid; Leaf uses 10).
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().refill_at(10);
    /// ```
    pub fn refill_at(mut self, percent: u8) -> Self {
        if percent > 99 {
            return self.fail(Error::InvalidArgument {
                name: "refill_at".into(),
                value: percent.to_string(),
                expected: "a share in percent, 0..=99".into(),
            });
        }
        self.opts.refill_at = percent;
        self
    }

    /// The largest step the dynamic step may grow to (default 1,000,000; 1..=2^40). A tag
    /// whose own step is larger keeps its own.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().max_step(100_000);
    /// ```
    pub fn max_step(mut self, max_step: u64) -> Self {
        if let Err(e) = check_step("max_step", max_step) {
            return self.fail(e);
        }
        self.opts.max_step = max_step;
        self
    }

    /// The step of tags this client creates (default 1000; 1..=2^40).
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().default_step(5000);
    /// ```
    pub fn default_step(mut self, step: u64) -> Self {
        if let Err(e) = check_step("default_step", step) {
            return self.fail(e);
        }
        self.opts.default_step = step;
        self
    }

    /// Whether unknown tags are created on first use (default true) or are
    /// [`Error::UnknownTag`].
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().auto_create(false);
    /// ```
    pub fn auto_create(mut self, on: bool) -> Self {
        self.opts.auto_create = on;
        self
    }

    /// A tag that tags unknown to the store draw from (one shared sequence for rare tags): with
    /// auto-creation off, `next_id("rare_table")` then hands out IDs of this tag.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient, TagSpec};
    /// let client = SegmentClient::builder().store(MemoryStore::new())
    ///     .auto_create(false).default_tag("shared").connect_blocking()?;
    /// client.create_tag(&TagSpec::new("shared")?)?;
    /// assert_eq!(client.tag("rare_table")?.tag(), "shared");
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn default_tag(mut self, tag: &str) -> Self {
        if let Err(e) = validate_tag(tag) {
            return self.fail(e);
        }
        self.opts.default_tag = Some(tag.to_string());
        self
    }

    /// The longest a caller waits when both ranges are empty, before
    /// [`Error::StoreUnavailable`] (default 3 s).
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().max_wait(std::time::Duration::from_millis(200));
    /// ```
    pub fn max_wait(mut self, wait: Duration) -> Self {
        self.opts.max_wait = wait;
        self
    }

    /// The longest one store call may take before it counts as failed (default 3 s). A call
    /// cut short may still have moved the counter: its range is skipped, never reused.
    ///
    /// ```
    /// let _b = idmint_core::segment::SegmentClient::builder().op_timeout(std::time::Duration::from_secs(1));
    /// ```
    pub fn op_timeout(mut self, timeout: Duration) -> Self {
        if timeout.is_zero() {
            return self.fail(Error::InvalidArgument {
                name: "op_timeout".into(),
                value: "0 ms".into(),
                expected: "a positive duration".into(),
            });
        }
        self.opts.op_timeout = timeout;
        self
    }

    /// Backoff between failed refills: starts at `min`, doubles up to `max`
    /// (default 50 ms to 2 s). Refills go on until the store answers.
    ///
    /// ```
    /// use std::time::Duration;
    /// let _b = idmint_core::segment::SegmentClient::builder()
    ///     .retry_backoff(Duration::from_millis(10), Duration::from_millis(500));
    /// ```
    pub fn retry_backoff(mut self, min: Duration, max: Duration) -> Self {
        if min.is_zero() || max < min {
            return self.fail(Error::InvalidArgument {
                name: "retry_backoff".into(),
                value: format!("{} ms..{} ms", min.as_millis(), max.as_millis()),
                expected: "0 < min <= max".into(),
            });
        }
        self.opts.retry_min = min;
        self.opts.retry_max = max;
        self
    }

    /// The dynamic step's thresholds: a range that lasted under `grow_below` doubles the next
    /// step, one that lasted over `shrink_above` halves it (default 15 and 30 minutes, Leaf's).
    ///
    /// ```
    /// use std::time::Duration;
    /// let _b = idmint_core::segment::SegmentClient::builder()
    ///     .step_timing(Duration::from_secs(60), Duration::from_secs(600));
    /// ```
    pub fn step_timing(mut self, grow_below: Duration, shrink_above: Duration) -> Self {
        if shrink_above < grow_below {
            return self.fail(Error::InvalidArgument {
                name: "step_timing".into(),
                value: format!("{grow_below:?}, {shrink_above:?}"),
                expected: "grow_below <= shrink_above".into(),
            });
        }
        self.opts.grow_below = grow_below;
        self.opts.shrink_above = shrink_above;
        self
    }

    fn check(&mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.store.is_none() && self.url.is_none() {
            return Err(Error::InvalidArgument {
                name: "store".into(),
                value: "none".into(),
                expected: "a store or a store URL (sqlite:PATH, postgres://…, mysql://…, redis://…, memory:)".into(),
            });
        }
        Ok(())
    }

    fn finish(
        self,
        store: Arc<dyn SegmentStore>,
        owns_store: bool,
        handle: Handle,
        rt: Option<Runtime>,
    ) -> SegmentClient {
        let born = crate::fork::watch();
        let shared = Arc::new(Shared {
            describe: store.describe(),
            store,
            opts: self.opts,
            handle,
            tags: RwLock::new(HashMap::new()),
            alive: AtomicU64::new(born),
            born,
            owns_store,
        });
        SegmentClient {
            life: Arc::new(Life {
                shared,
                runtime: Mutex::new(rt),
                closing: Mutex::new(None),
            }),
        }
    }

    /// Builds a client with its own runtime (one worker thread) for store I/O and background
    /// refills: for callers without tokio. Do not call it from async code.
    ///
    /// ```
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect_blocking()?;
    /// # Ok::<(), idmint_core::Error>(())
    /// ```
    pub fn connect_blocking(mut self) -> Result<SegmentClient> {
        self.check()?;
        let rt = background_runtime("idmint-segment")?;
        let owns_store = self.store.is_none();
        let store = match self.store.take() {
            Some(store) => store,
            None => {
                let url = self.url.clone().unwrap_or_default();
                let opts = self.store_opts.clone();
                let timeout = self.opts.op_timeout;
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                rt.spawn(async move {
                    let _ = tx.send(open_store_timeout(&url, &opts, timeout).await);
                });
                match rx.recv_timeout(timeout * 2 + Duration::from_secs(1)) {
                    Ok(r) => r?,
                    Err(_) => {
                        rt.shutdown_background();
                        return Err(Error::StoreUnavailable {
                            store: describe_url(self.url.as_deref().unwrap_or("")),
                            reason: "opening the store did not finish".into(),
                        });
                    }
                }
            }
        };
        let handle = rt.handle().clone();
        Ok(self.finish(store, owns_store, handle, Some(rt)))
    }

    /// Builds a client on the caller's tokio runtime (multi-threaded, time and I/O enabled),
    /// for async callers.
    ///
    /// ```
    /// # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// use idmint_core::segment::{MemoryStore, SegmentClient};
    /// let client = SegmentClient::builder().store(MemoryStore::new()).connect().await?;
    /// # Ok::<(), idmint_core::Error>(()) }).unwrap();
    /// ```
    pub async fn connect(mut self) -> Result<SegmentClient> {
        self.check()?;
        let owns_store = self.store.is_none();
        let store = match self.store.take() {
            Some(store) => store,
            None => {
                let url = self.url.clone().unwrap_or_default();
                open_store_timeout(&url, &self.store_opts, self.opts.op_timeout).await?
            }
        };
        Ok(self.finish(store, owns_store, Handle::current(), None))
    }
}

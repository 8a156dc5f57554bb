//! The URL readers of the stores, without connecting: what the fuzz targets in `fuzz/` call
//! (cargo feature `fuzzing`, on in the workspace build too, for `tests/fuzz_corpus.rs`, which
//! replays the targets' seeds). Each function runs the same code the openers run before they
//! connect, so a finding here is a finding in them.

use crate::lease::plan_lease_store;
use crate::segment::{plan_daily_counter, plan_store};
use crate::store::{Engine, StoreOptions, Use};
use crate::Result;

/// What an opener makes of a store URL before it connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPlan {
    /// `memory`, `sqlite`, `postgres`, `mysql`, `redis` or `http`.
    pub engine: &'static str,
    /// The options, with the URL's parameters applied.
    pub options: StoreOptions,
    /// The URL without idmint's parameters, as the driver gets it.
    pub driver_url: String,
    /// What the store is opened for, whose options the URL was read with.
    what: Use,
}

fn plan(what: Use) -> impl Fn((Engine, StoreOptions, String)) -> UrlPlan {
    move |(engine, options, driver_url)| UrlPlan {
        engine: engine.name(),
        options,
        driver_url,
        what,
    }
}

/// A segment store URL as [`open_store`](crate::segment::open_store) reads it.
///
/// ```
/// let p = idmint_core::fuzzing::store_url("postgres://h/db?table=ids&sslmode=disable")?;
/// assert_eq!((p.engine, p.driver_url.as_str()), ("postgres", "postgres://h/db?sslmode=disable"));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn store_url(url: &str) -> Result<UrlPlan> {
    plan_store(url, &StoreOptions::default()).map(plan(Use::Segments))
}

/// A worker-lease store URL as [`open_lease_store`](crate::lease::open_lease_store) reads it.
///
/// ```
/// let p = idmint_core::fuzzing::lease_url("redis://h:1?prefix=w")?;
/// assert_eq!((p.engine, p.driver_url.as_str()), ("redis", "redis://h:1"));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn lease_url(url: &str) -> Result<UrlPlan> {
    plan_lease_store(url).map(plan(Use::Leases))
}

/// A daily-counter URL and name as
/// [`open_daily_counter`](crate::segment::open_daily_counter) reads them: the engine.
///
/// ```
/// assert_eq!(idmint_core::fuzzing::counter_url("memory:", "orders")?, "memory");
/// assert!(idmint_core::fuzzing::counter_url("memory:", "bad name").is_err());
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn counter_url(url: &str, name: &str) -> Result<&'static str> {
    plan_daily_counter(url, name).map(Engine::name)
}

/// Applies a plan's driver URL's parameters to its options again, for the same kind of store
/// (what a plan's `driver_url` must leave unchanged: every idmint parameter was taken out, and
/// every one left is one that store takes).
///
/// ```
/// let p = idmint_core::fuzzing::store_url("redis://h:1?shards=3")?;
/// let again = idmint_core::fuzzing::reapply(&p)?;
/// assert_eq!(again, (p.options, p.driver_url));
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn reapply(plan: &UrlPlan) -> Result<(StoreOptions, String)> {
    plan.options.for_url(&plan.driver_url, plan.what)
}

/// Hands a plan's driver URL to the driver's own URL parser (no connection): PostgreSQL and
/// MySQL through sqlx, Redis through the stores' parser (the redis crate's for one server),
/// `http(s)://` through the HTTP stores' reader. `Err` is the driver's refusal as text
/// (sqlx refuses `mariadb://`, which the SQL store rewrites to `mysql://` first); `Ok` for
/// engines whose URL no driver parses here (memory, SQLite).
///
/// ```
/// let p = idmint_core::fuzzing::store_url("redis://h:1")?;
/// assert!(idmint_core::fuzzing::driver_parse(&p).is_ok());
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn driver_parse(plan: &UrlPlan) -> std::result::Result<(), String> {
    let url = plan.driver_url.as_str();
    match plan.engine {
        #[cfg(feature = "postgres")]
        "postgres" => url
            .parse::<sqlx::postgres::PgConnectOptions>()
            .map(drop)
            .map_err(|e| e.to_string()),
        #[cfg(feature = "mysql")]
        "mysql" => url
            .parse::<sqlx::mysql::MySqlConnectOptions>()
            .map(drop)
            .map_err(|e| e.to_string()),
        #[cfg(feature = "redis")]
        // The stores' own Redis parser: one server through the redis crate, and the Sentinel
        // and Cluster URLs it does not know.
        // The TLS file options are left out: reading a path a fuzzer made up (`/dev/zero`)
        // is not parsing.
        "redis" => {
            let (base, query) = url.split_once('?').unwrap_or((url, ""));
            let kept: Vec<&str> = query
                .split('&')
                .filter(|p| !matches!(p.split('=').next(), Some("ca" | "cert" | "key")))
                .collect();
            let url = format!("{base}?{}", kept.join("&"));
            crate::store::Target::parse(&url, std::time::Duration::from_secs(1))
                .map(drop)
                .map_err(|e| e.to_string())
        }
        // `http(s)://` (an `idmint serve`): idmint's own reader of the URL, token and `ca=`.
        #[cfg(feature = "http")]
        "http" => crate::store::HttpTarget::parse(url, None)
            .map(drop)
            .map_err(|e| e.to_string()),
        _ => Ok(()),
    }
}

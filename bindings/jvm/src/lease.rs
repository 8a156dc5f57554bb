//! Worker leases: the options a `Snowflake` leases its node value with, and the list of a
//! lease store's values ([`idmint_core::lease`]).

// Without the stores the calls that reach one are refused (crate::stores).
#![cfg_attr(not(feature = "stores"), allow(unused_variables))]

use idmint_core as core;

#[cfg(feature = "stores")]
use crate::convert::*;
use crate::errors::*;
#[cfg(feature = "stores")]
use crate::segment::duration;
use crate::stores::stores;

/// A worker lease as the Java builder sets it ([`idmint_core::lease::LeaseOptions`]); `None`
/// keeps the core's default.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct LeaseSpec {
    /// The lease store: `memory:`, `sqlite:PATH`, `postgres://…`, `mysql://…`, `redis://…`.
    pub url: String,
    /// The range to lease from, first and last value (both or neither).
    pub range: Option<LeaseRange>,
    /// How long a lease lasts unrenewed, ms.
    pub ttl_ms: Option<i64>,
    /// How long an expired value stays frozen, ms.
    pub freeze_ms: Option<i64>,
    /// The holder's name shown in the store.
    pub holder: Option<String>,
}

/// The values a lease may take, `first..=last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct LeaseRange {
    /// First value.
    pub first: i64,
    /// Last value (included).
    pub last: i64,
}

/// The core's lease options of `spec`, and a negative range bound as given: it is passed on as
/// `u64::MAX`, which the core's range check refuses when the generator is built, and that
/// error then names it as given.
#[cfg(feature = "stores")]
pub(crate) fn lease_options(spec: LeaseSpec) -> Result<(core::lease::LeaseOptions, Option<i128>)> {
    let mut opts = core::lease::LeaseOptions::url(&spec.url);
    let mut given = None;
    if let Some(r) = spec.range {
        let (first, first_given) = stand_in(r.first);
        let (last, last_given) = stand_in(r.last);
        opts = opts.range(first, last);
        given = first_given.or(last_given);
    }
    if let Some(d) = duration("ttl", spec.ttl_ms)? {
        opts = opts.ttl(d);
    }
    if let Some(d) = duration("freeze", spec.freeze_ms)? {
        opts = opts.freeze(d);
    }
    if let Some(h) = &spec.holder {
        opts = opts.holder(h);
    }
    Ok((opts, given))
}

/// The build error, naming a negative lease-range bound as the caller gave it.
/// Without the stores no lease is made: the core's `stores_not_installed` error.
#[cfg(not(feature = "stores"))]
pub(crate) fn lease_options(spec: LeaseSpec) -> Result<(std::convert::Infallible, Option<i128>)> {
    stores!("Snowflake.Builder.lease", {})
}

pub(crate) fn range_given(e: core::Error, given: Option<i128>) -> core::Error {
    match e {
        core::Error::InvalidArgument { ref name, .. } if name == "lease range" => {
            e.with_given(given)
        }
        e => e,
    }
}

/// The leases of the store at `url` (`memory:`, `sqlite:`, `postgres://`, `mysql://`,
/// `redis://`), within `timeout_ms` (none: [`idmint_core::lease::DEFAULT_LIST_TIMEOUT`]).
#[uniffi::export]
pub fn lease_list(url: String, timeout_ms: Option<i64>) -> Result<Vec<LeaseInfo>> {
    stores!("Idmint.leaseList", {
        let timeout = duration("timeout", timeout_ms)?.unwrap_or(core::lease::DEFAULT_LIST_TIMEOUT);
        core::lease::list_leases(&url, timeout)
            .ffi()?
            .into_iter()
            .map(|l| {
                Ok(LeaseInfo {
                    value: to_long(l.value)?,
                    state: l.state().to_string(),
                    holder: l.holder,
                    expires_in_ms: l.expires_in_ms,
                    free_in_ms: l.free_in_ms,
                    last_time_ms: to_long(l.last_time_ms)?,
                })
            })
            .collect()
    })
}

/// One value of a lease store ([`idmint_core::lease::LeaseInfo`]).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct LeaseInfo {
    /// The value.
    pub value: i64,
    /// `held`, `frozen` or `free`.
    pub state: String,
    /// The holder's name, empty when released.
    pub holder: String,
    /// ms until the holder's lease ends (negative: ended that long ago).
    pub expires_in_ms: i64,
    /// ms until others may take the value.
    pub free_in_ms: i64,
    /// The fence: IDs of this value so far carry times up to this.
    pub last_time_ms: i64,
}

/// A lease range written `FIRST..LAST` (`FIRST..=LAST` too), as the CLI's `--lease-range`, the
/// server's `snowflake.lease_range` and the Spring Boot starter's `idmint.snowflake.lease.range`
/// take it ([`idmint_core::lease::parse_range`]).
///
/// ```
/// let r = idmint_jvm::lease_range_parse("8..=15".into())?;
/// assert_eq!((r.first, r.last), (8, 15));
/// assert_eq!(idmint_jvm::lease_range_parse("7..3".into()).unwrap_err().kind(), "invalid_argument");
/// # Ok::<(), std::sync::Arc<idmint_jvm::FfiError>>(())
/// ```
#[uniffi::export]
pub fn lease_range_parse(text: String) -> Result<LeaseRange> {
    stores!("LeaseRange.parse", {
        let (first, last) = core::lease::parse_range(&text).ffi()?;
        Ok(LeaseRange {
            first: to_long(first)?,
            last: to_long(last)?,
        })
    })
}

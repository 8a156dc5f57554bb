//! What the lease stores that keep a value as versioned keys share (etcd: keys and their mod
//! revisions; ZooKeeper: nodes and their versions), the lease counterpart of the segment
//! stores' `segment/cas.rs`: the order in which a free value is looked for, how often a change
//! that lost its comparison reads again, and how a fence is read. Redis keeps its fences as
//! text too and reads them with the same [`parse_fence`].

#[cfg(any(feature = "etcd", feature = "zookeeper"))]
use std::collections::HashSet;
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(any(feature = "etcd", feature = "zookeeper"))]
use super::store::LeaseRequest;
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
use crate::Error;

/// How often a renewal or release reads again after a comparison failed on keys only its holder
/// writes: more than one failure means the store is changing under it faster than it can look.
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
pub(super) const TRIES: usize = 8;

/// The error of a renewal or release that found `value` changed under each of its [`TRIES`].
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
pub(super) fn changing(store: &str, value: u64, what: &str) -> Error {
    Error::StoreUnavailable {
        store: store.to_string(),
        reason: format!("{what}: value {value} changed under each of {TRIES} tries"),
    }
}

/// This machine's clock in unix ms: the renewal time a held record carries (the stores' own
/// clocks decide expiry; this only refines a listing).
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
pub(super) fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The values an acquire tries, in order: the request's `prefer` (inside its range), then the
/// range from its first value up, leaving out `held`. Lazy: a range of millions of values costs
/// nothing until a value is tried, and the first free one ends the search.
#[cfg(any(feature = "etcd", feature = "zookeeper"))]
pub(super) fn candidates<'a>(
    req: &'a LeaseRequest,
    held: &'a HashSet<u64>,
) -> impl Iterator<Item = u64> + Send + 'a {
    req.prefer
        .filter(|v| (req.first..=req.last).contains(v))
        .into_iter()
        .chain(req.first..=req.last)
        .filter(move |v| !held.contains(v))
}

/// A fence as a store keeps it, the decimal text of a unix-ms time: absent is 0 (a value never
/// leased), and anything else that is not a whole number (`None`) is a damaged store. The
/// fence is what keeps a re-leased value's IDs above its previous holders', so a damaged one is
/// refused, never read as 0.
pub(super) fn parse_fence(text: Option<&[u8]>) -> Option<u64> {
    match text {
        None => Some(0),
        Some(bytes) => std::str::from_utf8(bytes).ok()?.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_absent_are_zero_damaged_are_refused() {
        assert_eq!(parse_fence(None), Some(0));
        assert_eq!(parse_fence(Some(b"1700000000000")), Some(1_700_000_000_000));
        for damaged in [&b""[..], b"garbage", b"-5", b"12 ", b"1e3", b"\xff"] {
            assert_eq!(parse_fence(Some(damaged)), None, "{damaged:?}");
        }
    }

    /// The widest range a store keeps (2^62 values): its first free value comes at once, and a
    /// held one is passed over; collecting the range first would never get there.
    #[cfg(any(feature = "etcd", feature = "zookeeper"))]
    #[test]
    fn candidates_are_lazy_over_the_widest_range() {
        use super::super::store::MAX_VALUE;
        let mut req = LeaseRequest {
            first: 0,
            last: MAX_VALUE,
            prefer: Some(MAX_VALUE),
            holder: "a:1".into(),
            token: "t".repeat(32),
            ttl_ms: 1000,
            freeze_ms: 1000,
        };
        let held = HashSet::from([0, 1]);
        let first: Vec<u64> = candidates(&req, &held).take(3).collect();
        assert_eq!(first, [MAX_VALUE, 2, 3]);
        req.prefer = Some(MAX_VALUE + 1);
        assert_eq!(
            candidates(&req, &held).next(),
            Some(2),
            "a prefer outside the range"
        );
    }
}

//! The rules and limits of idmint's clients, each number in one place: the lease keeper's
//! timings (module `lease`: renew every TTL/3, a lease counts as lost a margin of TTL/5
//! before it ends, a failed renewal is retried after TTL/10, one store call may take TTL/4),
//! the segment client's defaults and bounds (module `segment`: the next range is fetched
//! once 20 % of the current one is used, steps are 1..=2^40, …), and the checks the bindings
//! apply to what their callers give ([`check_step_wide`], [`check_option`]).
//!
//! The core's lease keeper and segment client are built on these constants, and so is a client
//! whose I/O is not Rust's: the browser package's lease and segment client (`idmint-web`, its
//! HTTP over `fetch`, in JavaScript) talks to `idmint serve` itself and reads every number and
//! text it needs from here (the wasm extras module exports [`rules_json`] and
//! [`client_error`]), so that JavaScript does the I/O, the timers and the conversions, and
//! decides nothing. (The module was `idmint_core::remote`, a path that still works.)
//!
//! ```
//! use idmint_core::rules;
//! assert_eq!(rules::lease_renew_ms(9_000), 3_000);
//! assert_eq!(rules::lease_margin_ms(10_000), 2_000);
//! let e = rules::client_error("store_unavailable", &["http://127.0.0.1:8080", "connection refused"]);
//! assert_eq!(e.kind(), "store_unavailable");
//! ```

use crate::{Error, Result};

/// A lease is renewed every TTL / this.
pub const LEASE_RENEW_DIVISOR: u64 = 3;
/// An unrenewed lease counts as lost TTL / this before it ends.
pub const LEASE_MARGIN_DIVISOR: u64 = 5;
/// A failed renewal (or lease) is tried again after TTL / this.
pub const LEASE_RETRY_DIVISOR: u64 = 10;
/// One lease call may take TTL / this.
pub const LEASE_OP_TIMEOUT_DIVISOR: u64 = 4;
/// The shortest TTL a lease may have: renewals every TTL/3 must fit a round trip.
pub const LEASE_MIN_TTL_MS: u64 = 300;
/// The longest TTL a lease may have (a day).
pub const LEASE_MAX_TTL_MS: u64 = 86_400_000;
/// The TTL of a lease unless set (the core's `lease::DEFAULT_TTL`, feature `segment`).
pub const LEASE_DEFAULT_TTL_MS: u64 = 10_000;

/// The share of a range used, in percent, when the next one is fetched.
pub const SEGMENT_REFILL_AT: u64 = 20;
/// The IDs one refill asks for unless set (the step of the tags a client creates).
pub const SEGMENT_DEFAULT_STEP: u64 = 1000;
/// The longest a caller waits for a refill before `store_unavailable`, ms.
pub const SEGMENT_MAX_WAIT_MS: u64 = 3000;
/// The longest one store call may take, ms.
pub const SEGMENT_OP_TIMEOUT_MS: u64 = 3000;
/// The first pause after a failed refill, ms; each further failure doubles it.
pub const SEGMENT_RETRY_MIN_MS: u64 = 50;
/// The longest pause between refills that fail, ms.
pub const SEGMENT_RETRY_MAX_MS: u64 = 2000;

/// The most IDs a JavaScript tag handle takes from the buffered ranges at once and counts
/// through itself (as the Node binding's blocks): the hot path stays in JavaScript.
pub const SEGMENT_JS_BLOCK: u64 = 64;

/// Why a lease whose renewals did not succeed in time is lost.
pub const LOST_NOT_RENEWED: &str = "not renewed in time";
/// Why a lease the store no longer holds with our token is lost.
pub const LOST_TAKEN: &str = "the store no longer holds the lease";
/// Why a process minting under a lease another process holds for it
/// ([`SharedLease`](crate::lease::SharedLease): PostgreSQL's backends) refuses.
#[cfg(feature = "segment")]
pub const LOST_NOT_HELD_SHARED: &str =
    "the process that leases the node value for this generator does not hold it now (its log says why)";

/// How often a lease of `ttl_ms` is renewed, ms.
///
/// ```
/// assert_eq!(idmint_core::rules::lease_renew_ms(10_000), 3_333);
/// ```
pub fn lease_renew_ms(ttl_ms: u64) -> u64 {
    ttl_ms / LEASE_RENEW_DIVISOR
}

/// How long before a lease of `ttl_ms` ends, unrenewed, its holder stops, ms.
///
/// ```
/// assert_eq!(idmint_core::rules::lease_margin_ms(30_000), 6_000);
/// ```
pub fn lease_margin_ms(ttl_ms: u64) -> u64 {
    ttl_ms / LEASE_MARGIN_DIVISOR
}

/// Every rule above as one JSON object, for a client in another language (the browser's).
///
/// ```
/// let rules = idmint_core::rules::rules_json();
/// assert!(rules.contains("\"lease_renew_divisor\":3"));
/// assert!(rules.starts_with('{') && rules.ends_with('}'));
/// ```
pub fn rules_json() -> String {
    let numbers: [(&str, u64); 14] = [
        ("lease_renew_divisor", LEASE_RENEW_DIVISOR),
        ("lease_margin_divisor", LEASE_MARGIN_DIVISOR),
        ("lease_retry_divisor", LEASE_RETRY_DIVISOR),
        ("lease_op_timeout_divisor", LEASE_OP_TIMEOUT_DIVISOR),
        ("lease_min_ttl_ms", LEASE_MIN_TTL_MS),
        ("lease_max_ttl_ms", LEASE_MAX_TTL_MS),
        ("lease_default_ttl_ms", LEASE_DEFAULT_TTL_MS),
        ("segment_refill_at", SEGMENT_REFILL_AT),
        ("segment_default_step", SEGMENT_DEFAULT_STEP),
        ("segment_max_wait_ms", SEGMENT_MAX_WAIT_MS),
        ("segment_op_timeout_ms", SEGMENT_OP_TIMEOUT_MS),
        ("segment_retry_min_ms", SEGMENT_RETRY_MIN_MS),
        ("segment_retry_max_ms", SEGMENT_RETRY_MAX_MS),
        ("segment_js_block", SEGMENT_JS_BLOCK),
    ];
    let texts = [
        ("lost_not_renewed", LOST_NOT_RENEWED),
        ("lost_taken", LOST_TAKEN),
    ];
    let mut out: Vec<String> = numbers
        .iter()
        .map(|(k, v)| format!("\"{k}\":{v}"))
        .collect();
    out.extend(texts.iter().map(|(k, v)| format!("\"{k}\":\"{v}\"")));
    format!("{{{}}}", out.join(","))
}

/// The core's error of `kind` with its fields given as text, in the variant's order, for a
/// client that found it outside Rust (a network failure, a 401, an empty buffer):
///
/// | kind | fields |
/// |---|---|
/// | `store_unavailable` | store, reason |
/// | `segment_unavailable` (a `store_unavailable`: a caller waited `max_wait` in vain) | store, tag, waited ms, last store error or empty |
/// | `timed_out` (a `store_unavailable`: one call took over `op_timeout`) | store, what, ms |
/// | `lease_lost` | value, store, reason |
/// | `not_authorized` | store, status, reason |
/// | `would_block` | tag, store |
/// | `closed` | what |
/// | `range_below_issued` | tag, start, end, issued |
/// | `invalid_argument` | name, value, expected |
/// | `invalid_id` | id, reason |
/// | `invalid_object_id` | input, reason |
/// | `invalid_template` | template, reason |
/// | `invalid_encoding` | encoding, input, reason |
/// | `invalid_key` | key, reason |
/// | `invalid_uuid` | input, reason |
///
/// Any other kind, or a field that does not read, is `invalid_argument` naming it.
///
/// ```
/// use idmint_core::rules::client_error;
/// let e = client_error("lease_lost", &["7", "http://ids", "not renewed in time"]);
/// assert!(e.to_string().contains("not renewed in time"), "{e}");
/// assert_eq!(client_error("nope", &[]).kind(), "invalid_argument");
/// ```
pub fn client_error(kind: &str, fields: &[&str]) -> Error {
    let text = |i: usize| field(fields, i).to_string();
    let num = |i: usize| field(fields, i).parse::<u64>();
    match kind {
        "store_unavailable" => Error::StoreUnavailable {
            store: text(0),
            reason: text(1),
        },
        "segment_unavailable" => Error::StoreUnavailable {
            store: text(0),
            reason: format!(
                "tag `{}` has no buffered IDs left and no range arrived within {} ms (max_wait); last store error: {}",
                text(1),
                text(2),
                fields
                    .get(3)
                    .filter(|e| !e.is_empty())
                    .map_or("none (the store did not answer)", |e| e)
            ),
        },
        "timed_out" => Error::StoreUnavailable {
            store: text(0),
            reason: format!("{}: no answer within {} ms (op_timeout)", text(1), text(2)),
        },
        "lease_lost" => match num(0) {
            Ok(value) => Error::LeaseLost {
                value,
                store: text(1),
                reason: text(2),
            },
            Err(_) => not_a_client_error(kind, fields),
        },
        "not_authorized" => match num(1) {
            Ok(status) => Error::NotAuthorized {
                store: text(0),
                status,
                reason: text(2),
            },
            Err(_) => not_a_client_error(kind, fields),
        },
        "would_block" => Error::WouldBlock {
            tag: text(0),
            store: text(1),
        },
        "closed" => Error::Closed { what: text(0) },
        "range_below_issued" => match (num(1), num(2), num(3)) {
            (Ok(start), Ok(end), Ok(issued)) => Error::RangeBelowIssued {
                tag: text(0),
                start,
                end,
                issued,
            },
            _ => not_a_client_error(kind, fields),
        },
        _ => input_error(kind, fields),
    }
}

/// The part of [`client_error`] for the kinds a check of input raises, whose fields are all
/// text: `invalid_argument`, `invalid_id`, `invalid_object_id`, `invalid_template`,
/// `invalid_encoding`, `invalid_key`, `invalid_uuid` (fields as in [`client_error`]'s table).
///
/// A JS facade's checks of its own arguments need only these. It is its own function so that the
/// browser's main wasm module, which has a size budget, holds none of the I/O kinds' texts.
///
/// ```
/// use idmint_core::rules::input_error;
/// let e = input_error("invalid_id", &["12x", "not a decimal integer"]);
/// assert_eq!(e.kind(), "invalid_id");
/// assert!(e.to_string().contains("12x"), "{e}");
/// // An I/O kind is not an input kind: it is refused as `client_error` refuses an unknown one.
/// assert_eq!(input_error("lease_lost", &["7", "x", "y"]).kind(), "invalid_argument");
/// ```
#[cfg_attr(idmint_optimize_size, optimize(size))]
pub fn input_error(kind: &str, fields: &[&str]) -> Error {
    let text = |i: usize| field(fields, i).to_string();
    match kind {
        "invalid_argument" => Error::InvalidArgument {
            name: text(0),
            value: text(1),
            expected: text(2),
        },
        "invalid_id" => Error::InvalidId {
            id: text(0),
            reason: text(1),
        },
        "invalid_object_id" => Error::InvalidObjectId {
            input: text(0),
            reason: text(1),
        },
        "invalid_template" => Error::InvalidTemplate {
            template: text(0),
            reason: text(1),
        },
        "invalid_encoding" => Error::InvalidEncoding {
            encoding: text(0),
            input: text(1),
            reason: text(2),
        },
        "invalid_key" => Error::InvalidKey {
            key: text(0),
            reason: text(1),
        },
        "invalid_uuid" => Error::InvalidUuid {
            input: text(0),
            reason: text(1),
        },
        _ => not_a_client_error(kind, fields),
    }
}

/// Field `i` of a client error, empty when not given.
fn field<'a>(fields: &[&'a str], i: usize) -> &'a str {
    fields.get(i).copied().unwrap_or_default()
}

/// What [`client_error`] and [`input_error`] return for a kind they do not build, or a field that
/// does not read.
#[cfg_attr(idmint_optimize_size, optimize(size))]
fn not_a_client_error(kind: &str, fields: &[&str]) -> Error {
    Error::InvalidArgument {
        name: "kind".into(),
        value: format!("{kind}: {}", fields.join(", ")),
        expected: "a kind of idmint_core::rules::client_error with its fields".into(),
    }
}

/// The largest step a tag or a segment client may use (`segment::MAX_STEP`): segments are
/// addressed by 44-bit offsets.
pub const SEGMENT_MAX_STEP: u64 = 1 << 40;

/// A step checked as [`check_step_wide`] checks it, for callers that hold a `u64`.
#[cfg(feature = "segment")]
pub(crate) fn check_step(name: &str, step: u64) -> Result<()> {
    check_step_wide(name, step.into()).map(|_| ())
}

/// A step (or a count of IDs) as a binding receives it, any whole number: `1..=2^40`
/// ([`SEGMENT_MAX_STEP`]), so one below 0 or above `u64::MAX` gets the same error as one the
/// core's `u64` holds, showing the value as given.
///
/// ```
/// use idmint_core::rules::check_step_wide;
/// assert_eq!(check_step_wide("max_step", 5_000)?, 5_000);
/// let err = check_step_wide("max_step", -3).unwrap_err();
/// assert_eq!(err.to_string(), "invalid argument `max_step` = -3: 1..=1099511627776");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn check_step_wide(name: &str, step: i128) -> Result<u64> {
    match u64::try_from(step) {
        Ok(s) if (1..=SEGMENT_MAX_STEP).contains(&s) => Ok(s),
        _ => Err(Error::InvalidArgument {
            name: name.into(),
            value: step.to_string(),
            expected: format!("1..={SEGMENT_MAX_STEP}"),
        }),
    }
}

/// An option of the browser's client, given as decimal text, checked as the core's builders
/// check theirs: `refillAt` (0..=99), `defaultStep`, `maxStep` and `n` (1..=2^40),
/// `maxWaitMs`, `opTimeoutMs` (1 ms ..= a day), `leaseTtlMs` (300 ms ..= a day), `leaseRange`
/// (a node value, 0..=2^62-1), `id` (an ID as a JavaScript number: at most 2^53-1).
///
/// ```
/// use idmint_core::rules::check_option;
/// assert_eq!(check_option("refillAt", "20")?, 20);
/// assert_eq!(check_option("refillAt", "100").unwrap_err().kind(), "invalid_argument");
/// assert_eq!(check_option("id", "9007199254740993").unwrap_err().kind(), "value_out_of_range");
/// # Ok::<(), idmint_core::Error>(())
/// ```
pub fn check_option(name: &str, value: &str) -> Result<u64> {
    let (lo, hi, expected): (i64, i64, &str) = match name {
        "refillAt" => (0, 99, "a share in percent, 0..=99"),
        "defaultStep" | "maxStep" | "n" => (1, SEGMENT_MAX_STEP as i64, "a step 1..=2^40"),
        "maxWaitMs" | "opTimeoutMs" => (1, LEASE_MAX_TTL_MS as i64, "a duration 1..=86400000 ms"),
        "leaseTtlMs" => (
            LEASE_MIN_TTL_MS as i64,
            LEASE_MAX_TTL_MS as i64,
            "a TTL 300..=86400000 ms",
        ),
        "leaseRange" => (0, (1 << 62) - 1, "a node value 0..=2^62-1"),
        "id" => {
            let id = value.parse::<u64>().map_err(|_| Error::InvalidId {
                id: value.into(),
                reason: "not a decimal ID".into(),
            })?;
            return crate::args::exact_double("id", id).map(|v| v as u64);
        }
        _ => (1, 0, "an option of the browser's lease or segment client"),
    };
    match value.parse::<i64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v as u64),
        _ => Err(Error::InvalidArgument {
            name: name.into(),
            value: value.into(),
            expected: expected.into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_kind_is_built() {
        for (kind, fields) in [
            ("segment_unavailable", &["s", "t", "3000", ""][..]),
            ("timed_out", &["s", "renewal", "2500"][..]),
        ] {
            assert_eq!(client_error(kind, fields).kind(), "store_unavailable");
        }
        let cases: [(&str, &[&str]); 13] = [
            ("store_unavailable", &["s", "r"]),
            ("lease_lost", &["3", "s", "r"]),
            ("not_authorized", &["s", "401", "r"]),
            ("would_block", &["t", "s"]),
            ("closed", &["segment client"]),
            ("range_below_issued", &["t", "1", "2", "5"]),
            ("invalid_argument", &["n", "v", "e"]),
            ("invalid_id", &["-1", "negative"]),
            ("invalid_object_id", &["xyz", "give 24 hex characters"]),
            ("invalid_template", &["5", "a string"]),
            ("invalid_encoding", &["base62", "5", "a string"]),
            ("invalid_key", &["5", "a string"]),
            ("invalid_uuid", &["5", "a string"]),
        ];
        for (kind, fields) in cases {
            assert_eq!(client_error(kind, fields).kind(), kind);
        }
        assert_eq!(
            client_error("lease_lost", &["x"]).kind(),
            "invalid_argument"
        );
        // input_error builds the input kinds as client_error does, and no other kind.
        for (kind, fields) in cases {
            let whole = client_error(kind, fields);
            let input = input_error(kind, fields);
            if kind.starts_with("invalid_") {
                assert_eq!(input.to_string(), whole.to_string(), "{kind}");
            } else {
                assert_eq!(input.kind(), "invalid_argument", "{kind}");
            }
        }
    }

    #[test]
    fn rules_are_json() {
        let r = rules_json();
        assert_eq!(r.matches(':').count(), 16);
        assert!(r.contains("\"segment_refill_at\":20"));
    }
}

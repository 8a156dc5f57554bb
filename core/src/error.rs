//! The one error type of idmint.

/// Everything that can go wrong in idmint.
///
/// Each message names the bad value and the valid range, so it can be shown to a user as it is.
/// Bindings map each variant to an exception class or error code by [`Error::kind`], whose
/// strings are stable and are the ones used in `tests/vectors/`.
///
/// ```
/// use idmint_core::{Error, Layout};
///
/// let err = Layout::parse("time:41,worker:30,sequence:12").unwrap_err();
/// assert_eq!(err.kind(), "invalid_layout");
/// assert!(matches!(err, Error::InvalidLayout { .. }));
/// assert!(err.to_string().contains("83 bits"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A layout spec or preset name that does not describe a valid layout.
    #[error("invalid layout `{spec}`: {reason}")]
    InvalidLayout {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A node field or the sequence given a value that does not fit its bits.
    #[error("{field} value {value} is out of range: valid values are 0..={max}")]
    ValueOutOfRange {
        /// The field's name (`sequence` for the sequence).
        field: String,
        /// The value given (wide so negative inputs from other languages can be reported).
        value: i128,
        /// The largest value the field can hold.
        max: u64,
    },

    /// Parts name a field the layout does not have.
    #[error("unknown field `{field}`: this layout's node fields are {valid}")]
    UnknownField {
        /// The name given.
        field: String,
        /// The node fields of the layout, comma separated.
        valid: String,
    },

    /// Parts lack a node field of the layout.
    #[error("missing value for node field `{field}`")]
    MissingField {
        /// The field without a value.
        field: String,
    },

    /// A time that the layout's time field cannot represent.
    #[error("time {time_ms} ms is out of range for this layout: valid times are {min_ms}..{end_ms} ms (unix)")]
    TimeOutOfRange {
        /// The time given, in unix milliseconds.
        time_ms: i128,
        /// The layout's epoch, the earliest time it can hold.
        min_ms: u64,
        /// The first instant past the end of the time field.
        end_ms: u64,
    },

    /// A generator whose epoch lies ahead of the clock.
    #[error("epoch {epoch_ms} ms is in the future: the clock reads {now_ms} ms (unix)")]
    EpochInFuture {
        /// The layout's epoch.
        epoch_ms: u64,
        /// The clock's reading.
        now_ms: u64,
    },

    /// The time field has run out: no more IDs can be minted with this layout and epoch.
    #[error("layout's time field ran out at {end} ({end_ms} ms); choose a later epoch or more time bits")]
    LayoutExhausted {
        /// The first instant past the end of the time field, unix ms.
        end_ms: u64,
        /// The same instant in RFC 3339.
        end: String,
    },

    /// The clock reads earlier than the last issued time and the policy does not allow going on.
    #[error("clock moved backwards: it is {behind_ms} ms behind the last issued time (policy allows {allowed_ms} ms)")]
    ClockMovedBackwards {
        /// How far the clock is behind the last issued time, in ms.
        behind_ms: u64,
        /// How far behind the policy would have waited, in ms.
        allowed_ms: u64,
    },

    /// An ID that does not fit the layout (negative, above 2^63-1, above the layout's bits, not a number).
    #[error("invalid id `{id}`: {reason}")]
    InvalidId {
        /// The ID as given.
        id: String,
        /// Why it is not valid.
        reason: String,
    },

    /// An ObjectId in text or bytes that is not 12 bytes / 24 hex characters.
    #[error("invalid ObjectId `{input}`: {reason}")]
    InvalidObjectId {
        /// The input, escaped for display.
        input: String,
        /// Why it is not valid.
        reason: String,
    },

    /// An argument outside the values an operation accepts.
    #[error("invalid argument `{name}` = {value}: {expected}")]
    InvalidArgument {
        /// The argument's name.
        name: String,
        /// The value given.
        value: String,
        /// What would have been accepted.
        expected: String,
    },

    /// A store (segment, lease, daily counter, high-water-mark file) that could not be reached
    /// or answered with an error; a segment client returns it only once no buffered IDs are
    /// left to serve while it waits.
    #[error("store `{store}` unavailable: {reason}")]
    StoreUnavailable {
        /// The store, as `kind://host` without credentials (e.g. `postgres://127.0.0.1:5432`).
        store: String,
        /// What went wrong, and how long the caller waited.
        reason: String,
    },

    /// A segment tag the store does not hold, with auto-creation off.
    #[error("unknown segment tag `{tag}`: create it first, or turn on auto-creation")]
    UnknownTag {
        /// The tag given.
        tag: String,
    },

    /// A segment tag name or table name that is not allowed.
    #[error("invalid tag `{tag}`: {reason}")]
    InvalidTag {
        /// The name given, escaped for display.
        tag: String,
        /// What is allowed.
        reason: String,
    },

    /// A store returned a range that starts at or below an ID this client already handed out:
    /// the store lost its state (e.g. Redis restarted without persistence). The range is refused.
    #[error("store returned range {start}..={end} for tag `{tag}`, but IDs up to {issued} were already handed out; the store lost its state (is Redis persisting with AOF?)")]
    RangeBelowIssued {
        /// The tag.
        tag: String,
        /// First ID of the refused range.
        start: u64,
        /// Last ID of the refused range.
        end: u64,
        /// The highest ID this client had already received for the tag.
        issued: u64,
    },

    /// A segment tag whose counter cannot grow by the requested count without passing 2^63-1.
    #[error("segment tag `{tag}` is exhausted: max_id {max_id} + {count} would pass {limit}")]
    TagExhausted {
        /// The tag.
        tag: String,
        /// The tag's current max_id.
        max_id: i64,
        /// The count requested.
        count: u64,
        /// The largest ID a tag can reach (2^63-1).
        limit: i64,
    },

    /// An obfuscation key, key text or key file that cannot be used. The message never shows
    /// the key's secret bytes.
    #[error("invalid key {key}: {reason}")]
    InvalidKey {
        /// Which key: its version tag or its line in a key file, never its secret.
        key: String,
        /// What is wrong with it.
        reason: String,
    },

    /// Text that is not a valid value of a short-string encoding (base62, base32, ULID).
    #[error("invalid {encoding} `{input}`: {reason}")]
    InvalidEncoding {
        /// The encoding expected, e.g. `base62` or `base32-fixed`.
        encoding: String,
        /// The input, escaped for display.
        input: String,
        /// Why it is not valid.
        reason: String,
    },

    /// An order-number template that cannot be used.
    #[error("invalid template `{template}`: {reason}")]
    InvalidTemplate {
        /// The template as given.
        template: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A period's counter passed what its fixed-width field can hold.
    #[error("the sequence for {period} reached {value}, past {max}, the most {width} digits can hold; widen the sequence field")]
    CounterOverflow {
        /// The period whose counter ran out, e.g. `2024-05-22 (+08:00)`, or the segment tag
        /// (e.g. ``tag `orders` ``) whose IDs no longer fit.
        period: String,
        /// The value the counter reached.
        value: u64,
        /// The largest value that fits.
        max: u64,
        /// The field's width in digits.
        width: u32,
    },

    /// Text or bytes that are not a version-7 UUID.
    #[error("invalid UUIDv7 `{input}`: {reason}")]
    InvalidUuid {
        /// The input, escaped for display.
        input: String,
        /// Why it is not valid.
        reason: String,
    },

    /// A formatted ID whose check digits do not match the rest of it (a typo, most likely).
    #[error("check digits of `{id}` do not match: expected {expected}, found {found}")]
    CheckDigitMismatch {
        /// The ID as given.
        id: String,
        /// The check digits the rest of the ID calls for.
        expected: String,
        /// The check digits it carries.
        found: String,
    },

    /// No value of a worker-ID range could be leased: every value is held, or frozen after its
    /// holder's lease expired.
    #[error("no free worker value in {first}..={last} at {store}: {reason}")]
    NoFreeLease {
        /// The lease store, without credentials.
        store: String,
        /// First value of the range.
        first: u64,
        /// Last value of the range.
        last: u64,
        /// How many are held and frozen, or what else kept them.
        reason: String,
    },

    /// A generator's worker lease is no longer known to be held (renewals failed, or another
    /// holder took the value), so it issues no IDs until it holds a lease again.
    #[error("lease of worker value {value} at {store} is lost: {reason}")]
    LeaseLost {
        /// The leased value.
        value: u64,
        /// The lease store, without credentials.
        store: String,
        /// Why: the renewal errors, or the value's new holder.
        reason: String,
    },
}

impl Error {
    /// A stable, lowercase name for the variant, used by bindings and test vectors.
    ///
    /// ```
    /// use idmint_core::ObjectId;
    /// assert_eq!(ObjectId::parse_str("xyz").unwrap_err().kind(), "invalid_object_id");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Error::InvalidLayout { .. } => "invalid_layout",
            Error::ValueOutOfRange { .. } => "value_out_of_range",
            Error::UnknownField { .. } => "unknown_field",
            Error::MissingField { .. } => "missing_field",
            Error::TimeOutOfRange { .. } => "time_out_of_range",
            Error::EpochInFuture { .. } => "epoch_in_future",
            Error::LayoutExhausted { .. } => "layout_exhausted",
            Error::ClockMovedBackwards { .. } => "clock_moved_backwards",
            Error::InvalidId { .. } => "invalid_id",
            Error::InvalidObjectId { .. } => "invalid_object_id",
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::StoreUnavailable { .. } => "store_unavailable",
            Error::UnknownTag { .. } => "unknown_tag",
            Error::InvalidTag { .. } => "invalid_tag",
            Error::RangeBelowIssued { .. } => "range_below_issued",
            Error::TagExhausted { .. } => "tag_exhausted",
            Error::InvalidKey { .. } => "invalid_key",
            Error::InvalidEncoding { .. } => "invalid_encoding",
            Error::InvalidTemplate { .. } => "invalid_template",
            Error::CounterOverflow { .. } => "counter_overflow",
            Error::InvalidUuid { .. } => "invalid_uuid",
            Error::CheckDigitMismatch { .. } => "check_digit_mismatch",
            Error::NoFreeLease { .. } => "no_free_lease",
            Error::LeaseLost { .. } => "lease_lost",
        }
    }

    /// Every value [`Error::kind`] can return, for bindings that build one class per kind.
    ///
    /// ```
    /// assert!(idmint_core::Error::KINDS.contains(&"invalid_id"));
    /// ```
    pub const KINDS: &'static [&'static str] = &[
        "invalid_layout",
        "value_out_of_range",
        "unknown_field",
        "missing_field",
        "time_out_of_range",
        "epoch_in_future",
        "layout_exhausted",
        "clock_moved_backwards",
        "invalid_id",
        "invalid_object_id",
        "invalid_argument",
        "store_unavailable",
        "unknown_tag",
        "invalid_tag",
        "range_below_issued",
        "tag_exhausted",
        "invalid_key",
        "invalid_encoding",
        "invalid_template",
        "counter_overflow",
        "invalid_uuid",
        "check_digit_mismatch",
        "no_free_lease",
        "lease_lost",
    ];

    pub(crate) fn invalid_id(id: impl ToString, reason: impl Into<String>) -> Error {
        Error::InvalidId {
            id: id.to_string(),
            reason: reason.into(),
        }
    }
}

/// The result type of idmint.
pub type Result<T, E = Error> = std::result::Result<T, E>;

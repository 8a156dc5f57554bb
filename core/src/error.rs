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

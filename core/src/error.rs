//! The one error type of idmint, and the table of its kinds.

/// Defines [`Error`] and its table of kinds from one list of variants, so that [`Error::kind`],
/// [`Error::KINDS`], [`Error::TABLE`] and the fields of [`Error::fields`] cannot drift apart:
/// each variant carries its docs, its message (`#[error]`) and
/// `#[kind("kind_string", Family, http_status, Recovery)]`.
macro_rules! error_table {
    (
        $(#[$enum_attr:meta])*
        pub enum Error {
            $(
                $(#[doc = $doc:literal])*
                #[error($($message:tt)+)]
                #[kind($kind:literal, $family:ident, $status:literal, $recovery:ident)]
                $variant:ident {
                    $(
                        $(#[doc = $fdoc:literal])*
                        $field:ident : $fty:ty
                    ),* $(,)?
                },
            )+
        }
    ) => {
        $(#[$enum_attr])*
        pub enum Error {
            $(
                $(#[doc = $doc])*
                #[error($($message)+)]
                $variant {
                    $(
                        $(#[doc = $fdoc])*
                        $field: $fty,
                    )*
                },
            )+
        }

        impl Error {
            /// Every kind of error, in the order of the variants: the one table bindings build
            /// their exception classes from, and the server its statuses.
            ///
            /// ```
            /// use idmint_core::{Error, ErrorFamily, Recovery};
            ///
            /// let lost = Error::TABLE.iter().find(|k| k.kind == "lease_lost").unwrap();
            /// assert_eq!(lost.name, "LeaseLost");
            /// assert_eq!(lost.family, ErrorFamily::State);
            /// assert_eq!((lost.status, lost.recovery), (409, Recovery::StateChange));
            /// ```
            pub const TABLE: &'static [ErrorKind] = &[$(
                ErrorKind {
                    kind: $kind,
                    name: stringify!($variant),
                    family: ErrorFamily::$family,
                    doc: concat!($($doc, "\n"),*),
                    status: $status,
                    recovery: Recovery::$recovery,
                },
            )+];

            /// Every value [`Error::kind`] can return, for bindings that build one class per kind.
            ///
            /// ```
            /// assert!(idmint_core::Error::KINDS.contains(&"invalid_id"));
            /// ```
            pub const KINDS: &'static [&'static str] = &[$($kind),+];

            /// A stable, lowercase name for the variant, used by bindings and test vectors.
            ///
            /// ```
            /// use idmint_core::ObjectId;
            /// assert_eq!(ObjectId::parse_str("xyz").unwrap_err().kind(), "invalid_object_id");
            /// ```
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Error::$variant { .. } => $kind,)+
                }
            }

            /// The error's fields by name, each as text (numbers in decimal, so a reader in
            /// any language keeps every digit): what the message says, for a program to read
            /// instead of the message. The names are the variant's field names.
            ///
            /// ```
            /// use idmint_core::Error;
            ///
            /// let err = Error::TagExhausted { tag: "orders".into(), max_id: 9, count: 5, limit: i64::MAX };
            /// assert_eq!(err.fields()[1], ("max_id", "9".to_string()));
            /// ```
            pub fn fields(&self) -> Vec<(&'static str, String)> {
                match self {
                    $(Error::$variant { $($field),* } => {
                        vec![$((stringify!($field), FieldText::text($field))),*]
                    })+
                }
            }

            /// The error of `kind` rebuilt from its [`fields`](Error::fields), each looked up
            /// by name with `field`: how a client of `idmint serve` gets back the error the
            /// server reported, without reading its message. `None` for a kind that is not
            /// core's, or a field that is missing or does not read as its type.
            ///
            /// ```
            /// use idmint_core::Error;
            ///
            /// let err = Error::TagExhausted { tag: "orders".into(), max_id: 9, count: 5, limit: i64::MAX };
            /// let fields = err.fields();
            /// let get = |name: &str| fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str());
            /// assert_eq!(Error::from_fields("tag_exhausted", get), Some(err));
            /// assert_eq!(Error::from_fields("tag_exhausted", |_| None), None);
            /// ```
            pub fn from_fields<'a>(
                kind: &str,
                field: impl Fn(&str) -> Option<&'a str>,
            ) -> Option<Error> {
                match kind {
                    $($kind => Some(Error::$variant {
                        $($field: <$fty as FieldText>::read(field(stringify!($field))?)?,)*
                    }),)+
                    _ => None,
                }
            }
        }
    };
}

/// A field of an [`Error`] variant as text and back, for [`Error::fields`] and
/// [`Error::from_fields`].
trait FieldText: Sized {
    fn text(&self) -> String;
    fn read(text: &str) -> Option<Self>;
}

impl FieldText for String {
    fn text(&self) -> String {
        self.clone()
    }
    fn read(text: &str) -> Option<Self> {
        Some(text.to_string())
    }
}

impl FieldText for i128 {
    fn text(&self) -> String {
        Wide(*self).to_string()
    }
    fn read(text: &str) -> Option<Self> {
        text.parse().ok()
    }
}

macro_rules! field_text_of_numbers {
    ($($ty:ty),*) => {$(
        impl FieldText for $ty {
            fn text(&self) -> String {
                self.to_string()
            }
            fn read(text: &str) -> Option<Self> {
                text.parse().ok()
            }
        }
    )*};
}
field_text_of_numbers!(u64, i64, u32);

error_table! {
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
    #[kind("invalid_layout", InvalidValue, 400, Permanent)]
    InvalidLayout {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A node field or the sequence given a value that does not fit its bits.
    #[error("{field} value {} is out of range: valid values are 0..={max}", Wide(*.value))]
    #[kind("value_out_of_range", OutOfRange, 400, Permanent)]
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
    #[kind("unknown_field", InvalidValue, 400, Permanent)]
    UnknownField {
        /// The name given.
        field: String,
        /// The node fields of the layout, comma separated.
        valid: String,
    },

    /// Parts lack a node field of the layout.
    #[error("missing value for node field `{field}`")]
    #[kind("missing_field", InvalidValue, 400, Permanent)]
    MissingField {
        /// The field without a value.
        field: String,
    },

    /// A time that the layout's time field cannot represent.
    #[error("time {} ms is out of range for this layout: valid times are {min_ms}..{end_ms} ms (unix)", Wide(*.time_ms))]
    #[kind("time_out_of_range", OutOfRange, 400, Permanent)]
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
    #[kind("epoch_in_future", InvalidValue, 400, Permanent)]
    EpochInFuture {
        /// The layout's epoch.
        epoch_ms: u64,
        /// The clock's reading.
        now_ms: u64,
    },

    /// The time field has run out: no more IDs can be minted with this layout and epoch.
    #[error("layout's time field ran out at {end} ({end_ms} ms); choose a later epoch or more time bits")]
    #[kind("layout_exhausted", State, 409, Permanent)]
    LayoutExhausted {
        /// The first instant past the end of the time field, unix ms.
        end_ms: u64,
        /// The same instant in RFC 3339.
        end: String,
    },

    /// The clock reads earlier than the last issued time and the policy does not allow going on.
    #[error("clock moved backwards: it is {behind_ms} ms behind the last issued time (policy allows {allowed_ms} ms)")]
    #[kind("clock_moved_backwards", State, 503, Retry)]
    ClockMovedBackwards {
        /// How far the clock is behind the last issued time, in ms.
        behind_ms: u64,
        /// How far behind the policy would have waited, in ms.
        allowed_ms: u64,
    },

    /// An ID that does not fit the layout (negative, above 2^63-1, above the layout's bits, not a number).
    #[error("invalid id `{id}`: {reason}")]
    #[kind("invalid_id", OutOfRange, 400, Permanent)]
    InvalidId {
        /// The ID as given.
        id: String,
        /// Why it is not valid.
        reason: String,
    },

    /// An ObjectId in text or bytes that is not 12 bytes / 24 hex characters.
    #[error("invalid ObjectId `{input}`: {reason}")]
    #[kind("invalid_object_id", InvalidValue, 400, Permanent)]
    InvalidObjectId {
        /// The input, escaped for display.
        input: String,
        /// Why it is not valid.
        reason: String,
    },

    /// An argument outside the values an operation accepts.
    #[error("invalid argument `{name}` = {value}: {expected}")]
    #[kind("invalid_argument", OutOfRange, 400, Permanent)]
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
    #[kind("store_unavailable", Store, 503, Retry)]
    StoreUnavailable {
        /// The store, as `kind://host` without credentials (e.g. `postgres://127.0.0.1:5432`).
        store: String,
        /// What went wrong, and how long the caller waited.
        reason: String,
    },

    /// A segment tag the store does not hold, with auto-creation off.
    #[error("unknown segment tag `{tag}`: create it first, or turn on auto-creation")]
    #[kind("unknown_tag", Lookup, 404, StateChange)]
    UnknownTag {
        /// The tag given.
        tag: String,
    },

    /// A segment tag name or table name that is not allowed.
    #[error("invalid tag `{tag}`: {reason}")]
    #[kind("invalid_tag", InvalidValue, 400, Permanent)]
    InvalidTag {
        /// The name given, escaped for display.
        tag: String,
        /// What is allowed.
        reason: String,
    },

    /// A store returned a range that starts at or below an ID this client already handed out:
    /// the store lost its state (e.g. Redis restarted without persistence). The range is refused.
    #[error("store returned range {start}..={end} for tag `{tag}`, but IDs up to {issued} were already handed out; the store lost its state (is Redis persisting with AOF?)")]
    #[kind("range_below_issued", State, 503, Retry)]
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
    #[kind("tag_exhausted", State, 409, Permanent)]
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
    #[kind("invalid_key", InvalidValue, 400, Permanent)]
    InvalidKey {
        /// Which key: its version tag or its line in a key file, never its secret.
        key: String,
        /// What is wrong with it.
        reason: String,
    },

    /// Text that is not a valid value of a short-string encoding (base62, base32, ULID).
    #[error("invalid {encoding} `{input}`: {reason}")]
    #[kind("invalid_encoding", InvalidValue, 400, Permanent)]
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
    #[kind("invalid_template", InvalidValue, 400, Permanent)]
    InvalidTemplate {
        /// The template as given.
        template: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A period's counter passed what its fixed-width field can hold.
    #[error("the sequence for {period} reached {value}, past {max}, the most {width} digits can hold; widen the sequence field")]
    #[kind("counter_overflow", State, 409, StateChange)]
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
    #[kind("invalid_uuid", InvalidValue, 400, Permanent)]
    InvalidUuid {
        /// The input, escaped for display.
        input: String,
        /// Why it is not valid.
        reason: String,
    },

    /// A formatted ID whose check digits do not match the rest of it (a typo, most likely).
    #[error("check digits of `{id}` do not match: expected {expected}, found {found}")]
    #[kind("check_digit_mismatch", InvalidValue, 400, Permanent)]
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
    #[kind("no_free_lease", State, 409, StateChange)]
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
    #[kind("lease_lost", State, 409, StateChange)]
    LeaseLost {
        /// The leased value.
        value: u64,
        /// The lease store, without credentials.
        store: String,
        /// Why: the renewal errors, or the value's new holder.
        reason: String,
    },

    /// A stateful object built before `fork()` was used in the child process, where it would
    /// repeat IDs its parent also issues (its node values, buffered ranges or counter belong
    /// to the parent). Build a new one in the child, or give the generator a lease or random
    /// node values, which the child replaces by its own.
    #[error("this {what} belongs to the parent process (built before fork()); {remedy}")]
    #[kind("forked", State, 400, Permanent)]
    Forked {
        /// What was used: `snowflake generator with explicit node values`, `segment client` …
        what: String,
        /// What to do instead.
        remedy: String,
    },

    /// The object was closed (a segment client after `close()`), so it hands out nothing.
    #[error("this {what} is closed")]
    #[kind("closed", State, 400, Permanent)]
    Closed {
        /// What was used: `segment client` …
        what: String,
    },

    /// A call that needs a store (segments, worker leases, Redis-minted snowflakes, counters
    /// on a store, an `idmint serve` client) in a package built without them: the slim default
    /// package of a language. Installing its stores add-on (`idmint[stores]`, `idmint-stores`,
    /// `io.idmint:idmint-stores`) makes the same call work, with no change to the code.
    #[error("{what} needs idmint's stores, which this package does not include: {install}")]
    #[kind("stores_not_installed", State, 501, Permanent)]
    StoresNotInstalled {
        /// What was called: `SegmentClient.connect`, `Snowflake(lease=...)` …
        what: String,
        /// How to install the add-on, in the words of the caller's package manager.
        install: String,
    },

    /// No ID is in memory and getting one means waiting on the store, which the caller asked
    /// never to do (a JavaScript event loop): the next range is already being fetched; await
    /// the asynchronous call instead.
    #[error("tag `{tag}` has no buffered IDs left; the next range is on its way from {store}: await the async call (e.g. nextIdAsync) instead")]
    #[kind("would_block", State, 503, Retry)]
    WouldBlock {
        /// The tag.
        tag: String,
        /// The store, without credentials.
        store: String,
    },

    /// A store that refused the caller's credentials: an `http(s)://` store (`idmint serve`)
    /// answered 401 (no token, or one it does not know) or 403 (the token lacks the scope).
    /// Retrying does not help until the token or its scopes change, so clients never retry it
    /// in a loop: each call that needs the store tries once.
    #[error("store `{store}` refused the credentials (HTTP {status}): {reason}")]
    #[kind("not_authorized", Store, 400, StateChange)]
    NotAuthorized {
        /// The store, without credentials.
        store: String,
        /// The HTTP status: 401 (unauthenticated) or 403 (forbidden). A `u64` as the other
        /// numbers here: a `u16` field alone cost the browser's main wasm module 450 bytes
        /// gzipped (the whole error enum's code grew), which its 40 KB budget has not.
        status: u64,
        /// The server's message (it names the token's name and the scope, never the token).
        reason: String,
    },
}
}

/// What sort of error a kind is, so that each language can pick the base class it extends (in
/// Python `ValueError`, `RuntimeError`, `ConnectionError` or `LookupError`; in JavaScript
/// `RangeError` for [`ErrorFamily::OutOfRange`]).
///
/// ```
/// use idmint_core::{Error, ErrorFamily};
///
/// let err = Error::UnknownTag { tag: "orders".into() };
/// assert_eq!(err.error_kind().family, ErrorFamily::Lookup);
/// assert_eq!(ErrorFamily::Lookup.as_str(), "lookup");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorFamily {
    /// An input that is not valid as given (a spec, text, a name, a key): fix the input.
    InvalidValue,
    /// A number or time outside the range an operation accepts.
    OutOfRange,
    /// A generator, counter or lease that cannot go on in its present state.
    State,
    /// A store that could not be reached or answered with an error.
    Store,
    /// A name the store does not hold.
    Lookup,
}

impl ErrorFamily {
    /// Every family, in declaration order.
    ///
    /// ```
    /// assert_eq!(idmint_core::ErrorFamily::ALL.len(), 5);
    /// ```
    pub const ALL: &'static [ErrorFamily] = &[
        ErrorFamily::InvalidValue,
        ErrorFamily::OutOfRange,
        ErrorFamily::State,
        ErrorFamily::Store,
        ErrorFamily::Lookup,
    ];

    /// The family's stable, lowercase name, as the bindings export it.
    ///
    /// ```
    /// assert_eq!(idmint_core::ErrorFamily::OutOfRange.as_str(), "out_of_range");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorFamily::InvalidValue => "invalid_value",
            ErrorFamily::OutOfRange => "out_of_range",
            ErrorFamily::State => "state",
            ErrorFamily::Store => "store",
            ErrorFamily::Lookup => "lookup",
        }
    }
}

/// One kind of [`Error`]: what a binding needs to define its exception class for it.
///
/// ```
/// use idmint_core::{Error, ErrorFamily, ErrorKind};
///
/// let kind: &ErrorKind = ErrorKind::get("invalid_id").unwrap();
/// assert_eq!((kind.name, kind.family), ("InvalidId", ErrorFamily::OutOfRange));
/// assert!(kind.description().starts_with("An ID that does not fit the layout"));
/// assert!(ErrorKind::get("no_such_kind").is_none());
/// assert_eq!(Error::TABLE.len(), Error::KINDS.len());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ErrorKind {
    /// The stable kind string, as [`Error::kind`] returns it (`"lease_lost"`).
    pub kind: &'static str,
    /// The variant's name, the stem of each language's class name (`"LeaseLost"`: Python
    /// `LeaseLost`, Java `LeaseLostException`, JavaScript `LeaseLostError`).
    pub name: &'static str,
    /// What sort of error it is.
    pub family: ErrorFamily,
    /// The variant's rustdoc, one source line per line.
    pub doc: &'static str,
    /// The HTTP status `idmint serve` answers it with (its gRPC code follows from it:
    /// [`ErrorKind::grpc_code`]).
    pub status: u16,
    /// What it takes for the call that failed to succeed: whether to retry it.
    pub recovery: Recovery,
}

/// What it takes for a call that failed with a kind of error to succeed: the one rule every
/// client (the core's own, the server's, the bindings') follows to decide whether to retry.
///
/// ```
/// use idmint_core::{Error, Recovery};
///
/// let down = Error::StoreUnavailable { store: "redis://db".into(), reason: "refused".into() };
/// assert_eq!(down.error_kind().recovery, Recovery::Retry);
/// assert!(down.is_retryable() && !down.is_permanent());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Recovery {
    /// Nothing: the same call may succeed later (a store down, a clock behind, a server
    /// stopping). Retry it, with backoff.
    Retry,
    /// A change someone makes: a value freed, a tag created, a token granted its scope, a new
    /// lease taken. Retrying the same call at once does not help; a client that waits for the
    /// change (a lease keeper, an operator) may try again.
    StateChange,
    /// Never, as it was made: the input or the configuration is wrong (a bad value, a layout
    /// that cannot lease, an exhausted tag or layout, a closed object). Fix it; never retry.
    Permanent,
}

impl Recovery {
    /// The stable, lowercase name, as the bindings export it.
    ///
    /// ```
    /// assert_eq!(idmint_core::Recovery::StateChange.as_str(), "state_change");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Recovery::Retry => "retry",
            Recovery::StateChange => "state_change",
            Recovery::Permanent => "permanent",
        }
    }
}

impl ErrorKind {
    /// The entry of [`Error::TABLE`] for a kind string.
    ///
    /// ```
    /// assert_eq!(idmint_core::ErrorKind::get("lease_lost").unwrap().name, "LeaseLost");
    /// ```
    pub fn get(kind: &str) -> Option<&'static ErrorKind> {
        Error::TABLE.iter().find(|k| k.kind == kind)
    }

    /// The refusals `idmint serve` makes itself, beside core's kinds ([`Error::TABLE`]): a
    /// request it cannot read, a token it does not know, a rate exceeded … Their statuses and
    /// recoveries are decided here, so that the server and every client of it read one table.
    ///
    /// ```
    /// let limited = idmint_core::ErrorKind::wire("rate_limited").unwrap();
    /// assert_eq!((limited.status, limited.grpc_code()), (429, 8));
    /// assert!(limited.retryable());
    /// ```
    pub const SERVER: &'static [ErrorKind] = &[
        ErrorKind::server(
            "unauthorized",
            "Unauthorized",
            ErrorFamily::Store,
            401,
            Recovery::StateChange,
            "No credentials, or credentials that match no token.",
        ),
        ErrorKind::server(
            "forbidden",
            "Forbidden",
            ErrorFamily::Store,
            403,
            Recovery::StateChange,
            "A valid token without the scope the request needs.",
        ),
        ErrorKind::server(
            "rate_limited",
            "RateLimited",
            ErrorFamily::Store,
            429,
            Recovery::Retry,
            "The token's rate was exceeded: retry after the seconds of `Retry-After`.",
        ),
        ErrorKind::server(
            "bad_request",
            "BadRequest",
            ErrorFamily::InvalidValue,
            400,
            Recovery::Permanent,
            "A request the API cannot read: a bad query, path or body.",
        ),
        ErrorKind::server(
            "not_found",
            "NotFound",
            ErrorFamily::Lookup,
            404,
            Recovery::Permanent,
            "No such route, or an endpoint this server has turned off.",
        ),
        ErrorKind::server(
            "method_not_allowed",
            "MethodNotAllowed",
            ErrorFamily::InvalidValue,
            405,
            Recovery::Permanent,
            "A route asked with a method it does not take.",
        ),
        ErrorKind::server(
            "payload_too_large",
            "PayloadTooLarge",
            ErrorFamily::OutOfRange,
            413,
            Recovery::Permanent,
            "A request body above the server's limit.",
        ),
        ErrorKind::server(
            "timeout",
            "Timeout",
            ErrorFamily::Store,
            503,
            Recovery::Retry,
            "A request that took longer than the server's limit.",
        ),
        ErrorKind::server(
            "shutting_down",
            "ShuttingDown",
            ErrorFamily::Store,
            503,
            Recovery::Retry,
            "The server is stopping.",
        ),
    ];

    const fn server(
        kind: &'static str,
        name: &'static str,
        family: ErrorFamily,
        status: u16,
        recovery: Recovery,
        doc: &'static str,
    ) -> ErrorKind {
        ErrorKind {
            kind,
            name,
            family,
            doc,
            status,
            recovery,
        }
    }

    /// The entry for any kind an error body of `idmint serve` can carry: core's
    /// ([`Error::TABLE`]) or the server's own ([`ErrorKind::SERVER`]).
    ///
    /// ```
    /// use idmint_core::ErrorKind;
    /// assert_eq!(ErrorKind::wire("unknown_tag").unwrap().status, 404);
    /// assert_eq!(ErrorKind::wire("forbidden").unwrap().status, 403);
    /// assert!(ErrorKind::wire("no_such_kind").is_none());
    /// ```
    pub fn wire(kind: &str) -> Option<&'static ErrorKind> {
        ErrorKind::get(kind).or_else(|| ErrorKind::SERVER.iter().find(|k| k.kind == kind))
    }

    /// Whether the same call may succeed if made again later ([`Recovery::Retry`]).
    ///
    /// ```
    /// assert!(idmint_core::ErrorKind::get("store_unavailable").unwrap().retryable());
    /// assert!(!idmint_core::ErrorKind::get("unknown_tag").unwrap().retryable());
    /// ```
    pub fn retryable(&self) -> bool {
        self.recovery == Recovery::Retry
    }

    /// The gRPC status code (its number, as `google.rpc.Code` has it) of the kind's HTTP
    /// status: 401 `UNAUTHENTICATED` (16), 403 `PERMISSION_DENIED` (7), 404 `NOT_FOUND` (5),
    /// 409 `FAILED_PRECONDITION` (9), 429 `RESOURCE_EXHAUSTED` (8), 503 `UNAVAILABLE` (14),
    /// any other `INVALID_ARGUMENT` (3).
    ///
    /// ```
    /// assert_eq!(idmint_core::ErrorKind::get("lease_lost").unwrap().grpc_code(), 9);
    /// ```
    pub fn grpc_code(&self) -> i32 {
        match self.status {
            401 => 16,
            403 => 7,
            404 => 5,
            409 => 9,
            429 => 8,
            503 => 14,
            _ => 3,
        }
    }

    /// The rustdoc as one line of prose (lines trimmed and joined by spaces), for the doc
    /// comments of generated classes.
    ///
    /// ```
    /// let kind = idmint_core::ErrorKind::get("store_unavailable").unwrap();
    /// assert!(kind.description().starts_with("A store (segment, lease,"));
    /// assert!(!kind.description().contains('\n'));
    /// ```
    pub fn description(&self) -> String {
        self.doc
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Error {
    /// This error's entry of [`Error::TABLE`].
    ///
    /// ```
    /// use idmint_core::{ErrorFamily, ObjectId};
    ///
    /// let err = ObjectId::parse_str("xyz").unwrap_err();
    /// assert_eq!(err.error_kind().name, "InvalidObjectId");
    /// assert_eq!(err.error_kind().family, ErrorFamily::InvalidValue);
    /// ```
    pub fn error_kind(&self) -> &'static ErrorKind {
        // Every kind is in the table: both come from the same list of variants.
        ErrorKind::get(self.kind()).expect("every kind is in Error::TABLE")
    }

    /// The HTTP status `idmint serve` answers this error with (its kind's, in [`Error::TABLE`]).
    ///
    /// ```
    /// assert_eq!(idmint_core::Error::UnknownTag { tag: "t".into() }.http_status(), 404);
    /// ```
    pub fn http_status(&self) -> u16 {
        self.error_kind().status
    }

    /// Whether the same call may succeed if made again later: a store down, a clock behind
    /// ([`Recovery::Retry`]).
    ///
    /// ```
    /// let e = idmint_core::Error::ClockMovedBackwards { behind_ms: 5, allowed_ms: 0 };
    /// assert!(e.is_retryable());
    /// ```
    pub fn is_retryable(&self) -> bool {
        self.error_kind().retryable()
    }

    /// Whether no retry can make the call succeed as it was made: the input or configuration
    /// is wrong ([`Recovery::Permanent`]). A lease holder stops on such an error instead of
    /// trying again.
    ///
    /// ```
    /// use idmint_core::Error;
    /// let bad = Error::InvalidArgument { name: "ttl".into(), value: "1".into(), expected: "300..".into() };
    /// assert!(bad.is_permanent());
    /// assert!(!Error::UnknownTag { tag: "t".into() }.is_permanent());
    /// ```
    pub fn is_permanent(&self) -> bool {
        self.error_kind().recovery == Recovery::Permanent
    }

    /// The same range error naming `given`, the value as the caller wrote it, in place of the
    /// stand-in a binding passed on: a whole number its language holds but the core's type cannot
    /// (a negative Java `long` or Python `int` for a `u64`), passed as a value the core refuses.
    /// `None`, or an error of another kind, is returned as it is.
    ///
    /// ```
    /// use idmint_core::Error;
    ///
    /// let err = Error::TimeOutOfRange { time_ms: u64::MAX as i128, min_ms: 0, end_ms: 10 };
    /// assert!(err.with_given(Some(-5)).to_string().starts_with("time -5 ms is out of range"));
    /// ```
    pub fn with_given(self, given: Option<i128>) -> Error {
        let Some(given) = given else { return self };
        match self {
            Error::TimeOutOfRange { min_ms, end_ms, .. } => Error::TimeOutOfRange {
                time_ms: given,
                min_ms,
                end_ms,
            },
            Error::ValueOutOfRange { field, max, .. } => Error::ValueOutOfRange {
                field,
                value: given,
                max,
            },
            Error::InvalidArgument { name, expected, .. } => Error::InvalidArgument {
                name,
                value: Wide(given).to_string(),
                expected,
            },
            other => other,
        }
    }

    pub(crate) fn invalid_id(id: impl ToString, reason: impl Into<String>) -> Error {
        Error::InvalidId {
            id: id.to_string(),
            reason: reason.into(),
        }
    }
}

/// A wide integer (an `i128` a binding passed on) in decimal, as error messages show it.
///
/// Its own digits, not `i128`'s `Display`: that one brings 128-bit division and formatting
/// code, 2 KiB of the browser's wasm module, for values that are almost always small.
#[derive(Clone, Copy)]
pub(crate) struct Wide(pub(crate) i128);

impl std::fmt::Display for Wide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The magnitude as four 32-bit limbs, most significant first, divided by 10 with 64-bit
        // arithmetic until nothing is left: one digit a round, least significant first.
        let mut magnitude = self.0.unsigned_abs();
        let mut limbs = [0u32; 4];
        for limb in limbs.iter_mut().rev() {
            *limb = magnitude as u32;
            magnitude >>= 32;
        }
        let mut text = [b'-'; 40]; // 39 digits and a sign
        let mut at = text.len();
        loop {
            let mut rest = 0u64;
            for limb in limbs.iter_mut() {
                let cur = (rest << 32) | u64::from(*limb);
                *limb = (cur / 10) as u32;
                rest = cur % 10;
            }
            at -= 1;
            text[at] = b'0' + rest as u8;
            if limbs == [0; 4] {
                break;
            }
        }
        if self.0 < 0 {
            at -= 1; // text[at] is already the sign
        }
        f.write_str(std::str::from_utf8(&text[at..]).unwrap_or_default())
    }
}

/// Whether error messages show `c` as a `\u{…}` escape: the control characters (C0, DEL, C1)
/// and the characters that draw nothing or change how the text around them draws (soft hyphen,
/// zero-width and bidirectional marks, fillers, variation selectors, the byte-order mark, tag
/// characters), so a value that looks right but is not shows what is in it.
fn hidden(c: char) -> bool {
    matches!(c,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{ad}' | '\u{34f}' | '\u{61c}'
        | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}'
        | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{ffa0}'
        | '\u{fff0}'..='\u{fffb}' | '\u{e0000}'..='\u{e0fff}')
}

/// Append `text` as error messages show a value a caller gave: `\t`, `\r`, `\n`, `\0`, `\\`
/// and the quote marks asked for as backslash escapes, [`hidden`] characters as `\u{hex}`, and
/// every other character, CJK and accents included, as it is. For ASCII this is exactly Rust's
/// `escape_debug`; it is idmint's own rule beyond that because Rust's needs Unicode tables that
/// would be a tenth of the browser's wasm module.
fn escape_into(out: &mut String, text: &str, single: bool, double: bool) {
    use std::fmt::Write;
    for c in text.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\0' => out.push_str("\\0"),
            '\\' => out.push_str("\\\\"),
            '\'' if single => out.push_str("\\'"),
            '"' if double => out.push_str("\\\""),
            c if hidden(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// `text` escaped for an error message, without quotes (both quote marks escaped).
pub(crate) fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text, true, true);
    out
}

/// `text` in double quotes for an error message: `"a\tb"`.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    escape_into(&mut out, text, false, true);
    out.push('"');
    out
}

/// One character in single quotes for an error message: `'g'`.
pub(crate) fn quoted_char(c: char) -> String {
    let mut out = String::with_capacity(3);
    out.push('\'');
    escape_into(&mut out, c.encode_utf8(&mut [0; 4]), true, false);
    out.push('\'');
    out
}

/// The result type of idmint.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_is_i128s_decimal() {
        let mut cases = vec![0, 1, -1, 999_999_999, 1_000_000_000, i128::MAX, i128::MIN];
        for shift in [31, 32, 63, 64, 65, 95, 96, 97, 126] {
            let v = 1i128 << shift;
            cases.extend([v - 1, v, v + 1, -v, -v - 1, v / 7 * 3]);
        }
        cases.push(10i128.pow(38));
        cases.push(-(10i128.pow(27)) - 1);
        for v in cases {
            assert_eq!(Wide(v).to_string(), v.to_string());
        }
    }

    #[test]
    fn ascii_is_shown_as_rusts_escape_debug() {
        let all: String = (0u8..=127).map(char::from).collect();
        assert_eq!(escaped(&all), all.escape_debug().to_string());
        assert_eq!(quoted(&all), format!("{all:?}"));
        for c in all.chars() {
            assert_eq!(quoted_char(c), format!("{c:?}"));
        }
    }

    #[test]
    fn beyond_ascii_hidden_characters_are_escaped_others_shown() {
        assert_eq!(quoted("订单é"), "\"订单é\"");
        assert_eq!(quoted("a\u{200b}b\u{feff}"), "\"a\\u{200b}b\\u{feff}\"");
        assert_eq!(escaped("\u{85}\u{202e}x"), "\\u{85}\\u{202e}x");
        assert_eq!(quoted_char('\u{ad}'), "'\\u{ad}'");
        assert_eq!(quoted_char('１'), "'１'");
    }
}

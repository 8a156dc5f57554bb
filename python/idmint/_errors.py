"""The exceptions of idmint: one class per error kind of the Rust core.

Every exception the core raises is an :class:`Error` carrying the core's message (which names
the bad value and the valid range) and a stable ``.kind`` string, the same string the Node and
JVM packages use. Classes for bad arguments also subclass :class:`ValueError`, so code that
catches ``ValueError`` around parsing keeps working.
"""

from __future__ import annotations

__all__ = [
    "Error",
    "InvalidLayout",
    "ValueOutOfRange",
    "UnknownField",
    "MissingField",
    "TimeOutOfRange",
    "EpochInFuture",
    "LayoutExhausted",
    "ClockMovedBackwards",
    "InvalidId",
    "InvalidObjectId",
    "InvalidArgument",
    "StoreUnavailable",
    "UnknownTag",
    "InvalidTag",
    "RangeBelowIssued",
    "TagExhausted",
    "InvalidKey",
    "InvalidEncoding",
    "InvalidTemplate",
    "CounterOverflow",
    "InvalidUuid",
    "CheckDigitMismatch",
    "NoFreeLease",
    "LeaseLost",
]


class Error(Exception):
    """Base class of every idmint error.

    ``kind`` is the core's stable name for the error (``"invalid_id"``, ...); ``message`` is
    its text, also ``str(err)``.
    """

    kind: str = "error"

    def __init__(self, message: str = "", *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidLayout(Error, ValueError):
    """A layout spec or preset name that does not describe a valid layout."""

    kind = "invalid_layout"


class ValueOutOfRange(Error, ValueError):
    """A node field, the sequence or an ObjectId part given a value that does not fit its bits."""

    kind = "value_out_of_range"


class UnknownField(Error, ValueError):
    """A node field name the layout does not have."""

    kind = "unknown_field"


class MissingField(Error, ValueError):
    """A node field of the layout without a value (compose)."""

    kind = "missing_field"


class TimeOutOfRange(Error, ValueError):
    """A time before the layout's epoch or past the end of its time field."""

    kind = "time_out_of_range"


class EpochInFuture(Error, ValueError):
    """A generator whose epoch lies ahead of the clock."""

    kind = "epoch_in_future"


class LayoutExhausted(Error, RuntimeError):
    """The layout's time field has run out: choose a later epoch or more time bits."""

    kind = "layout_exhausted"


class ClockMovedBackwards(Error, RuntimeError):
    """The clock reads earlier than the last issued time and the rollback policy refuses."""

    kind = "clock_moved_backwards"


class InvalidId(Error, ValueError):
    """An ID that does not fit the layout: negative, above 2^63-1, above the layout's bits, not a number."""

    kind = "invalid_id"


class InvalidObjectId(Error, ValueError):
    """An ObjectId that is not 24 hex characters or 12 bytes."""

    kind = "invalid_object_id"


class InvalidArgument(Error, ValueError):
    """An argument outside the values an operation accepts (a policy, an epoch, a count)."""

    kind = "invalid_argument"


# Segment IDs (the core's segment client); the classes exist so that errors of that part of the
# core map to their own class as soon as it is bound.


class StoreUnavailable(Error, ConnectionError):
    """A segment store that could not be reached, with no buffered IDs left to serve."""

    kind = "store_unavailable"


class UnknownTag(Error, LookupError):
    """A segment tag the store does not hold, with auto-creation off."""

    kind = "unknown_tag"


class InvalidTag(Error, ValueError):
    """A segment tag or table name that is not allowed."""

    kind = "invalid_tag"


class RangeBelowIssued(Error, RuntimeError):
    """A store handed out a range below IDs already issued: it lost its state."""

    kind = "range_below_issued"


class TagExhausted(Error, RuntimeError):
    """A segment tag whose counter cannot grow without passing 2^63-1."""

    kind = "tag_exhausted"


# Display IDs of the core (obfuscation keys, short strings, order-number templates, UUIDv7).


class InvalidKey(Error, ValueError):
    """An obfuscation key, key text or key file that cannot be used (the secret is never shown)."""

    kind = "invalid_key"


class InvalidEncoding(Error, ValueError):
    """Text that is not a valid value of a short-string encoding (base62, base32, ULID)."""

    kind = "invalid_encoding"


class InvalidTemplate(Error, ValueError):
    """An order-number template that cannot be used."""

    kind = "invalid_template"


class CounterOverflow(Error, RuntimeError):
    """A period's counter passed what its fixed-width field can hold."""

    kind = "counter_overflow"


class InvalidUuid(Error, ValueError):
    """Text or bytes that are not a version-7 UUID."""

    kind = "invalid_uuid"


class CheckDigitMismatch(Error, ValueError):
    """A formatted ID whose check digits do not match the rest of it (a typo, most likely)."""

    kind = "check_digit_mismatch"


# Worker-ID leases of the core (the classes exist so that those errors map to their own class as
# soon as leases are bound).


class NoFreeLease(Error, RuntimeError):
    """No worker value of the range could be leased: all are held, or frozen after expiry."""

    kind = "no_free_lease"


class LeaseLost(Error, RuntimeError):
    """A generator's worker lease is no longer known to be held; it issues nothing until re-leased."""

    kind = "lease_lost"


#: Each error kind of the core to its class; the native module looks classes up here.
BY_KIND: dict[str, type[Error]] = {
    cls.kind: cls
    for cls in (
        InvalidLayout,
        ValueOutOfRange,
        UnknownField,
        MissingField,
        TimeOutOfRange,
        EpochInFuture,
        LayoutExhausted,
        ClockMovedBackwards,
        InvalidId,
        InvalidObjectId,
        InvalidArgument,
        StoreUnavailable,
        UnknownTag,
        InvalidTag,
        RangeBelowIssued,
        TagExhausted,
        InvalidKey,
        InvalidEncoding,
        InvalidTemplate,
        CounterOverflow,
        InvalidUuid,
        CheckDigitMismatch,
        NoFreeLease,
        LeaseLost,
    )
}

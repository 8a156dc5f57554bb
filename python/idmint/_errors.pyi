"""Type stubs of ``idmint._errors``, generated from the core's table of error kinds by
``python/tests/test_error_stubs.py``: run it to regenerate, do not edit."""

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

    kind: str
    def __init__(self, message: str = "", *, kind: str | None = None) -> None: ...
    @property
    def message(self) -> str: ...

FAMILY_BASES: dict[str, tuple[type[Exception], ...]]
BY_KIND: dict[str, type[Error]]

class InvalidLayout(Error, ValueError):
    """A layout spec or preset name that does not describe a valid layout."""

class ValueOutOfRange(Error, ValueError):
    """A node field or the sequence given a value that does not fit its bits."""

class UnknownField(Error, ValueError):
    """Parts name a field the layout does not have."""

class MissingField(Error, ValueError):
    """Parts lack a node field of the layout."""

class TimeOutOfRange(Error, ValueError):
    """A time that the layout's time field cannot represent."""

class EpochInFuture(Error, ValueError):
    """A generator whose epoch lies ahead of the clock."""

class LayoutExhausted(Error, RuntimeError):
    """The time field has run out: no more IDs can be minted with this layout and epoch."""

class ClockMovedBackwards(Error, RuntimeError):
    """The clock reads earlier than the last issued time and the policy does not allow going on."""

class InvalidId(Error, ValueError):
    """An ID that does not fit the layout (negative, above 2^63-1, above the layout's bits, not a
    number)."""

class InvalidObjectId(Error, ValueError):
    """An ObjectId in text or bytes that is not 12 bytes / 24 hex characters."""

class InvalidArgument(Error, ValueError):
    """An argument outside the values an operation accepts."""

class StoreUnavailable(Error, ConnectionError):
    """A store (segment, lease, daily counter, high-water-mark file) that could not be reached or
    answered with an error; a segment client returns it only once no buffered IDs are left to
    serve while it waits."""

class UnknownTag(Error, LookupError):
    """A segment tag the store does not hold, with auto-creation off."""

class InvalidTag(Error, ValueError):
    """A segment tag name or table name that is not allowed."""

class RangeBelowIssued(Error, RuntimeError):
    """A store returned a range that starts at or below an ID this client already handed out: the
    store lost its state (e.g. Redis restarted without persistence). The range is refused."""

class TagExhausted(Error, RuntimeError):
    """A segment tag whose counter cannot grow by the requested count without passing 2^63-1."""

class InvalidKey(Error, ValueError):
    """An obfuscation key, key text or key file that cannot be used. The message never shows the key's
    secret bytes."""

class InvalidEncoding(Error, ValueError):
    """Text that is not a valid value of a short-string encoding (base62, base32, ULID)."""

class InvalidTemplate(Error, ValueError):
    """An order-number template that cannot be used."""

class CounterOverflow(Error, RuntimeError):
    """A period's counter passed what its fixed-width field can hold."""

class InvalidUuid(Error, ValueError):
    """Text or bytes that are not a version-7 UUID."""

class CheckDigitMismatch(Error, ValueError):
    """A formatted ID whose check digits do not match the rest of it (a typo, most likely)."""

class NoFreeLease(Error, RuntimeError):
    """No value of a worker-ID range could be leased: every value is held, or frozen after its
    holder's lease expired."""

class LeaseLost(Error, RuntimeError):
    """A generator's worker lease is no longer known to be held (renewals failed, or another holder
    took the value), so it issues no IDs until it holds a lease again."""

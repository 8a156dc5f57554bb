"""idmint: unique IDs for sharded systems.

- :class:`Snowflake`: 64-bit, time-ordered IDs of any bit :class:`Layout` (presets ``twitter``,
  ``sonyflake``, ``redis-lua``, ``baidu``, or a spec such as ``time:41,worker:10,sequence:12``),
  lock-free and thread-safe, with explicit policies for a full sequence and a clock that moves
  backwards; :func:`parse` takes any ID apart: snowflakes of any layout (64-bit ones such as
  Discord's too), ObjectIds, UUIDs, ULIDs, KSUIDs, xids and TSIDs.
- :class:`SegmentClient`: dense, increasing IDs per tag drawn in ranges from SQLite,
  PostgreSQL, MySQL or Redis (with an asyncio surface); snowflake node values leased from the
  same stores (``Snowflake(lease=URL)``, :func:`lease_list`).
- :class:`ObjectId`: MongoDB-compatible 12-byte IDs, interchangeable with pymongo's
  ``bson.ObjectId``.
- IDs to show people: order numbers from a :class:`Template` (``%L%Y%M%D%m%5S``) with a daily
  counter (:class:`OrderNumbers`, in memory or shared in SQLite, PostgreSQL, MySQL or Redis) and
  Luhn or MOD 97-10 check digits; keyed, reversible
  obfuscation of 63-bit IDs (:class:`Keyring`); short strings (:func:`encode`,
  :func:`decode`: base62, Crockford base32); and time-ordered UUIDv7s (:func:`uuid7`,
  :class:`Uuid7Generator`, :func:`parse_uuid7`) with their ULID text.

The same Rust core (``idmint-core``) serves the Node, JVM and browser packages, so a layout
means the same bits everywhere.

>>> import idmint
>>> gen = idmint.Snowflake(datacenter=0, worker=1)   # twitter layout
>>> parts = idmint.parse(gen.next_id(), "twitter")
>>> (parts.datacenter, parts.worker)
(0, 1)
>>> idmint.parse("01ARZ3NDEKTSV4RRFFQ69G5FAV").time_text
'2016-07-30T23:54:10.259Z'
>>> idmint.encode(1541815603606036480, "base62")
'1ptWyK4WgZU'
>>> idmint.Template("%L%Y%M%D%m%5S", tz="+08:00", label="7").format(1716309000000, 42)
'7202405223000042'
>>> idmint.parse_uuid7("017f22e2-79b0-7cc3-98c4-dc0c0c07398f").ulid
'01FWHE4YDGFK1SHH6W1G60EECF'
"""

from __future__ import annotations

import sys as _sys

from ._platform import load_error as _load_error


def _native():  # type: ignore[no-untyped-def]
    """The native module. The stores add-on's (``pip install 'idmint[stores]'``: this same API
    with every store) when it is installed, else this package's own, which has no store. A
    process loads one of the two, never both: ObjectId's counter, the fork handling and the
    metrics stay one per process."""
    # Tried by importing it, not by importlib.util.find_spec, whose import costs ~3 ms of every
    # `import idmint` (docs/bench/size.md, "Load time"). Only the add-on itself missing means
    # "not installed"; any other failure is its native module's and is said as such.
    try:
        from idmint_stores import _idmint as native
    except ModuleNotFoundError as e:
        if e.name != "idmint_stores":
            raise _load_error(e, dist="idmint-stores") from e
    except ImportError as e:  # a wheel of another platform or C library: say which
        raise _load_error(e, dist="idmint-stores") from e
    else:
        from ._platform import check_addon_version

        check_addon_version(native.__version__)
        return native
    try:
        from . import _idmint as native
    except ImportError as e:
        raise _load_error(e) from e
    return native


_idmint = _native()
# Every module of this package imports `idmint._idmint`: make that the one loaded.
_sys.modules[__name__ + "._idmint"] = _idmint

from . import _errors  # noqa: E402 (after the native module is chosen)
from ._errors import *  # noqa: E402, F403 (the exception classes, one per core error kind)
from ._idmint import *  # noqa: E402, F403 (the native module's classes and functions)
from ._idmint import __version__  # noqa: E402

# Both modules list their public names: the exception classes from the core's table of error
# kinds, the native module's names from its stub and the names it adds.
__all__: list[str] = []
__all__ += _errors.__all__
__all__ += _idmint.__all__

if not _idmint._STORES:
    # The slim package: the store classes are stand-ins that raise StoresNotInstalled.
    from . import _slim
    from ._slim import *  # noqa: E402, F403

    __all__ += _slim.__all__

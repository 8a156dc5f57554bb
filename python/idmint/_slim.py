"""The slim package's stand-ins for what needs a store.

``pip install idmint`` installs a native module without stores (no database driver, async
runtime, TLS or HTTP client). Its classes and functions that need one are these stand-ins:
calling them raises :class:`idmint.StoresNotInstalled`, whose message (the core's) names the
command that installs the add-on, ``pip install 'idmint[stores]'``. With the add-on installed,
``import idmint`` loads its native module instead and these are never used: the same imports
and calls then work.
"""

from __future__ import annotations

# `typing` only for the type checker (which takes any TYPE_CHECKING as true): importing it
# costs ~2 ms of every `import idmint` of the slim package (docs/bench/size.md, "Load time").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

from . import _idmint

__all__ = ["SegmentClient", "Tag", "TagMetrics", "RedisSnowflake", "LeaseInfo", "lease_list"]


def _refuse(what: str) -> NoReturn:
    raise _idmint._stores_missing(what)


class _NeedsStores:
    """A class of the stores add-on: making one raises StoresNotInstalled."""

    def __new__(cls, *_args: Any, **_kwargs: Any) -> Any:
        _refuse(cls.__name__)


class SegmentClient(_NeedsStores):
    """Segment IDs from a store: in the stores add-on (``pip install 'idmint[stores]'``)."""

    @classmethod
    def connect(cls, *_args: Any, **_kwargs: Any) -> Any:
        _refuse("SegmentClient.connect")


class Tag(_NeedsStores):
    """A segment client's tag: in the stores add-on (``pip install 'idmint[stores]'``)."""


class TagMetrics(_NeedsStores):
    """A tag's metrics: in the stores add-on (``pip install 'idmint[stores]'``)."""


class RedisSnowflake(_NeedsStores):
    """Snowflake IDs minted on Redis: in the stores add-on (``pip install 'idmint[stores]'``)."""


class LeaseInfo(_NeedsStores):
    """A held lease: in the stores add-on (``pip install 'idmint[stores]'``)."""


def lease_list(*_args: Any, **_kwargs: Any) -> NoReturn:
    """The leases in a store: in the stores add-on (``pip install 'idmint[stores]'``)."""
    _refuse("lease_list")

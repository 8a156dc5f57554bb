"""What the framework integrations share: the clients (one segment client and one snowflake
generator per configuration, an SQLAlchemy engine or a Django project, opened on first use)
and :func:`read_or`, a core reader whose refusal becomes the framework's validation error.

Used by :mod:`idmint.sqlalchemy` and :mod:`idmint.django`; no ID rule is here. Each client
is the core's, with the core's defaults and checks: the options are passed through as given.

``fork()``: the core refuses a segment client made in the parent (``Forked``: its buffered
ranges are the parent's), so a forked child (a pre-fork server's worker) opens its own on the
next call; the core abandons the parent's copy without touching the parent's connections. A
snowflake generator is kept: a leased or random one takes a node value of its own in the child
(the core's rule), and one with explicit node values keeps raising ``Forked``, since a second
process with the same node values would repeat the parent's IDs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from . import _idmint
from ._errors import Error, Forked

T = TypeVar("T")


def read_or(refusal: Callable[[str], Exception], read: Callable[[Any], T], value: Any) -> T:
    """``read(value)`` with a reader of the package (``ObjectId``, ``parse``); its refusal (an
    idmint error, or a ``TypeError`` for a value of the wrong type) raised again as
    ``refusal(message)``, the framework's validation error, with the core's message."""
    try:
        return read(value)
    except (Error, TypeError) as e:
        raise refusal(str(e)) from e


class Clients:
    """One :class:`idmint.SegmentClient` and one :class:`idmint.Snowflake`, made on first use.

    ``segments`` is the segment store's URL, or a mapping of ``SegmentClient`` arguments with
    ``url``; ``snowflake`` a mapping of ``Snowflake`` arguments (``{"lease": URL}``,
    ``{"random_nodes": True}``, ``{"datacenter": 1, "worker": 2}``). ``unconfigured`` makes the
    framework's own configuration error when segment IDs are asked for without a store.
    ``meter_provider``: where :mod:`idmint.otel` publishes the clients' metrics when
    ``opentelemetry-api`` is installed (default: the global provider).
    """

    def __init__(
        self,
        *,
        segments: str | Mapping[str, Any] | None = None,
        snowflake: Mapping[str, Any] | None = None,
        unconfigured: Callable[[], Exception],
        meter_provider: Any = None,
    ) -> None:
        self._segment_args = {"url": segments} if isinstance(segments, str) else segments
        self._snowflake_args = dict(snowflake or {})
        self._unconfigured = unconfigured
        self._meter_provider = meter_provider
        self._lock = threading.Lock()
        self._client: _idmint.SegmentClient | None = None
        self._tags: dict[str, _idmint.Tag] = {}
        self._snowflake: _idmint.Snowflake | None = None

    def segment_id(self, tag: str) -> int:
        """The next ID of ``tag``; in a forked child, from a client of the child's own."""
        try:
            return self._tag(tag).next_id()
        except Forked:
            self._drop_segments()
            return self._tag(tag).next_id()

    def snowflake_id(self) -> int:
        """The next ID of the shared generator."""
        gen = self._snowflake or self._open(lambda: self._snowflake, self._new_snowflake)
        return gen.next_id()

    def close(self) -> None:
        """Closes both (the lease is released); the next call opens new ones."""
        with self._lock:
            client, gen = self._client, self._snowflake
            self._client, self._snowflake, self._tags = None, None, {}
        for source in (client, gen):
            if source is not None:
                _unpublish(source)
                source.close()

    def _tag(self, tag: str) -> _idmint.Tag:
        handle = self._tags.get(tag)
        if handle is None:
            client = self._client or self._open(lambda: self._client, self._new_client)
            handle = self._tags[tag] = client.tag(tag)
        return handle

    def _open(self, current: Callable[[], Any], make: Callable[[], Any]) -> Any:
        # One client for every thread: the first caller opens it, the others wait for it.
        with self._lock:
            return current() or make()

    def _new_client(self) -> _idmint.SegmentClient:
        if not self._segment_args:
            raise self._unconfigured()
        self._client = _idmint.SegmentClient(**self._segment_args)
        _publish(self._client, self._meter_provider)
        return self._client

    def _new_snowflake(self) -> _idmint.Snowflake:
        self._snowflake = _idmint.Snowflake(**self._snowflake_args)
        _publish(self._snowflake, self._meter_provider)
        return self._snowflake

    def _drop_segments(self) -> None:
        with self._lock:
            client, self._client, self._tags = self._client, None, {}
        if client is not None:
            _unpublish(client)
            client.close()  # in a forked child the core lets go without closing the parent's


def _publish(source: Any, meter_provider: Any) -> None:
    """Hands ``source`` to :mod:`idmint.otel` if the OpenTelemetry API is installed."""
    try:
        from . import otel
    except ImportError:  # no opentelemetry-api: nothing to publish to
        return
    otel.publish(source, meter_provider=meter_provider)


def _unpublish(source: Any) -> None:
    import sys

    otel = sys.modules.get(f"{__package__}.otel")
    if otel is not None:
        otel.unpublish(source)

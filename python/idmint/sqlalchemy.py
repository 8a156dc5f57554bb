"""SQLAlchemy 2: column defaults that mint snowflake and segment keys, and a column type for
ObjectIds.

Models name what kind of key they take; the engine says where it comes from::

    class Order(Base):
        __tablename__ = "orders"
        id: Mapped[int] = mapped_column(BigInteger, primary_key=True, default=segment_id("orders"))

    engine = create_engine(DATABASE_URL)
    attach(engine, segments="postgres://app@db/app", snowflake={"lease": "postgres://app@db/app"})

Each engine has one segment client and one snowflake generator (``idmint._clients``), opened on
its first insert and closed by ``engine.dispose()``; every call and every thread shares them. A
forked worker (gunicorn's pre-fork model) opens its own on its first insert. Alembic needs
nothing: the columns are ``BigInteger`` and ``ObjectIdType`` (a ``CHAR(24)``), and the
defaults are applied by SQLAlchemy, not the database.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.engine.interfaces import ExecutionContext
from sqlalchemy.exc import InvalidRequestError
from sqlalchemy.types import CHAR, TypeDecorator

from . import _idmint
from ._clients import Clients

__all__ = ["ObjectIdType", "attach", "clients", "segment_id", "snowflake_id"]

_engines: weakref.WeakKeyDictionary[Engine, Clients] = weakref.WeakKeyDictionary()


def attach(
    engine: Engine,
    *,
    segments: str | Mapping[str, Any] | None = None,
    snowflake: Mapping[str, Any] | None = None,
    meter_provider: Any = None,
) -> Clients:
    """Gives ``engine`` its idmint clients: ``segments`` is the segment store's URL (or a mapping
    of ``SegmentClient`` arguments with ``url``), ``snowflake`` the ``Snowflake`` arguments.
    Both open on first use; ``engine.dispose()`` closes them (a lease is released). With
    ``opentelemetry-api`` installed their metrics are published (``idmint.otel``)."""
    previous = _engines.get(engine)
    if previous is not None:
        previous.close()
    else:
        event.listen(engine, "engine_disposed", _disposed)
    made = Clients(
        segments=segments,
        snowflake=snowflake,
        meter_provider=meter_provider,
        unconfigured=lambda: InvalidRequestError(
            f"{engine!r} has no segment store: idmint.sqlalchemy.attach(engine, segments=URL)"
        ),
    )
    _engines[engine] = made
    return made


def clients(engine: Engine) -> Clients:
    """The clients :func:`attach` gave ``engine``."""
    found = _engines.get(engine)
    if found is None:
        raise InvalidRequestError(f"{engine!r} has no idmint clients: idmint.sqlalchemy.attach(engine)")
    return found


def _disposed(engine: Engine) -> None:
    found = _engines.get(engine)
    if found is not None:
        found.close()


def segment_id(tag: str) -> Callable[[ExecutionContext], int]:
    """A column default: the next ID of segment ``tag`` from the inserting engine's client."""

    def next_segment_id(context: ExecutionContext) -> int:
        return clients(context.engine).segment_id(tag)

    return next_segment_id


def snowflake_id(context: ExecutionContext) -> int:
    """A column default: the next ID of the inserting engine's snowflake generator."""
    return clients(context.engine).snowflake_id()


class ObjectIdType(TypeDecorator[_idmint.ObjectId]):
    """An :class:`idmint.ObjectId` column, stored as its 24 hex digits (``CHAR(24)``). Binds
    anything ``ObjectId()`` reads (the core refuses the rest); loads ``ObjectId``s. A new one
    per row: ``default=idmint.ObjectId``."""

    impl = CHAR(24)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else str(_idmint.ObjectId(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> _idmint.ObjectId | None:
        return None if value is None else _idmint.ObjectId(value)

    @property
    def python_type(self) -> type[_idmint.ObjectId]:
        return _idmint.ObjectId

"""Model fields whose value idmint mints when the row is inserted (a value set by hand is
kept): ``SnowflakeField`` and ``SegmentField(tag=...)`` are ``BigIntegerField``s,
``ObjectIdField`` a ``CharField`` of the 24 hex digits holding :class:`idmint.ObjectId`\\ s.
Each deconstructs to its own path and arguments, so migrations serialise it.

    class Order(models.Model):
        id = SegmentField(tag="orders", primary_key=True)
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from .. import _idmint
from .._clients import read_or
from . import clients

__all__ = ["ObjectIdField", "SegmentField", "SnowflakeField"]


def _minted_on_insert() -> None:
    """The default of a minted field: nothing until the row is inserted. Having a default at
    all tells Django that a new row's key is new, so ``save()`` INSERTs at once instead of
    trying an UPDATE of that key first."""
    return None


class _Minted:
    """Mints the value when the row is inserted: a primary key in ``get_pk_value_on_save``
    (which ``save()`` and ``bulk_create()`` ask before the INSERT), another field in
    ``pre_save``. Until then the value is ``None``; one set by hand is kept."""

    attname: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("default", _minted_on_insert)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        # Migrations need not name the stand-in default: __init__ puts it back.
        name, path, args, kwargs = super().deconstruct()  # type: ignore[misc]
        if kwargs.get("default") is _minted_on_insert:
            del kwargs["default"]
        return name, path, args, kwargs

    def mint(self) -> Any:
        raise NotImplementedError

    def get_pk_value_on_save(self, instance: models.Model) -> Any:
        return self.mint()

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        value = getattr(model_instance, self.attname)
        if add and value is None:
            value = self.mint()
            setattr(model_instance, self.attname, value)
        return value


class SnowflakeField(_Minted, models.BigIntegerField):
    """A snowflake ID from the process's generator (``settings.IDMINT["SNOWFLAKE"]``)."""

    description = "Snowflake ID (idmint)"

    def mint(self) -> int:
        return clients().snowflake_id()


class SegmentField(_Minted, models.BigIntegerField):
    """The next ID of segment ``tag`` from the process's client (``settings.IDMINT["SEGMENTS"]``)."""

    description = "Segment ID (idmint)"

    def __init__(self, *args: Any, tag: str, **kwargs: Any) -> None:
        self.tag = tag
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        kwargs["tag"] = self.tag
        return name, path, args, kwargs

    def mint(self) -> int:
        return clients().segment_id(self.tag)


def _invalid(message: str) -> ValidationError:
    return ValidationError(message, code="invalid")


def _object_id(value: Any) -> _idmint.ObjectId:
    return read_or(_invalid, _idmint.ObjectId, value)


class ObjectIdField(_Minted, models.CharField):
    """An :class:`idmint.ObjectId`, stored as its 24 hex digits; a new one on insert."""

    description = "ObjectId (idmint)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["max_length"] = 24
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        del kwargs["max_length"]
        return name, path, args, kwargs

    def mint(self) -> _idmint.ObjectId:
        return _idmint.ObjectId()

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else _idmint.ObjectId(value)

    def to_python(self, value: Any) -> Any:
        return None if value is None else _object_id(value)

    def get_prep_value(self, value: Any) -> Any:
        return None if value is None else str(_object_id(value))

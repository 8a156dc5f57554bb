"""Pydantic v2 types for idmint's IDs: fields that validate through the core and serialise,
integer IDs as strings in JSON where a JavaScript reader would round them.

    class Order(BaseModel):
        id: IdStr                  # an int; "1541815603606036480" in JSON (either form read back)
        shard_key: Id              # an int, in JSON too
        created_by: ObjectId       # idmint.ObjectId; its 24 hex digits in JSON
        event: Annotated[int, IdType(layout="twitter", json_string=True)]   # of a layout

Validation is the core's: an ObjectId is whatever :class:`idmint.ObjectId` reads (24 hex digits,
12 bytes, an ``ObjectId``, a ``bson.ObjectId``); an ID is an int or decimal text that
:func:`idmint.parse` reads as an integer (0..2^64-1) or as a snowflake of ``layout``. Its
refusal, with the core's message, is the ``ValidationError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from . import _idmint
from ._clients import read_or

__all__ = ["Id", "IdStr", "IdType", "ObjectId", "ObjectIdType"]


def _schema(
    read: Any, json_string: bool, json_input: core_schema.CoreSchema
) -> core_schema.CoreSchema:
    # Without json_string the value (an int) serialises as itself.
    text = core_schema.plain_serializer_function_ser_schema(str, when_used="json")
    return core_schema.no_info_plain_validator_function(
        # pydantic reports a ValueError as the field's error.
        lambda v: read_or(ValueError, read, v),
        json_schema_input_schema=json_input,
        serialization=text if json_string else None,
    )


@dataclass(frozen=True)
class IdType:
    """``Annotated[int, IdType(layout=None, json_string=False)]``: an integer ID, given as an
    int or decimal text; with ``layout`` (a preset name, a spec or a :class:`idmint.Layout`) it
    must be an ID of that layout. ``json_string``: written to JSON as a string."""

    layout: str | _idmint.Layout | None = None
    json_string: bool = False

    def read(self, value: Any) -> int:
        if self.layout is None:
            decoded = _idmint.parse(value, format="integer")
        else:
            decoded = _idmint.parse(value, self.layout, format="snowflake")
        assert decoded.value is not None  # both formats have one
        return decoded.value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        json_input = core_schema.union_schema(
            [core_schema.int_schema(), core_schema.str_schema()]
        )
        return _schema(self.read, self.json_string, json_input)

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string"} if self.json_string else {"type": "integer"}


class ObjectIdType:
    """``Annotated[idmint.ObjectId, ObjectIdType()]``: read by :class:`idmint.ObjectId`,
    written to JSON as its 24 hex digits."""

    @staticmethod
    def __get_pydantic_core_schema__(
        source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return _schema(_idmint.ObjectId, True, core_schema.str_schema())


#: An :class:`idmint.ObjectId` field (JSON: a string).
ObjectId = Annotated[_idmint.ObjectId, ObjectIdType]
#: An integer ID field (JSON: a number).
Id = Annotated[int, IdType()]
#: An integer ID field written to JSON as a string (JavaScript reads numbers above 2^53
#: rounded); a string or a number is read back.
IdStr = Annotated[int, IdType(json_string=True)]

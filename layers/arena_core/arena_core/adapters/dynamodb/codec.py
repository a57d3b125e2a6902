"""Domain models ↔ DynamoDB attribute maps.

Numbers stay ``Decimal`` end to end and are written in fixed-point form within DynamoDB's
limits (``limits.number_text``); datetimes are fixed-width UTC strings; enums their values.
Free-form payloads (decision checkpoints and outcomes) and whole markets (whose recorded prices
can exceed DynamoDB's 38 digits) are stored as JSON text.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar

from boto3.dynamodb.types import DYNAMODB_CONTEXT, TypeDeserializer
from pydantic import BaseModel

from arena_core.adapters.dynamodb.limits import number_text
from arena_core.adapters.dynamodb.schema import PK, SK, stamp

M = TypeVar("M", bound=BaseModel)

_deserializer = TypeDeserializer()
KEY_FIELDS = frozenset({PK, SK, "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "entity"})


# What ``plain`` returns as it is, tested by exact type first: most of an item's values are
# these, and the abstract ``Mapping`` test below costs more than the rest together.
_PLAIN_TYPES = frozenset({str, Decimal, int, bool, type(None)})


def plain(value: Any) -> Any:
    """Python values DynamoDB's serializer accepts."""
    if type(value) in _PLAIN_TYPES:
        return value
    if isinstance(value, BaseModel):
        return plain(value.model_dump(mode="python"))
    if isinstance(value, datetime):
        return stamp(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def serialize(value: Any) -> dict[str, Any]:
    """One plain value as a low-level attribute value (numbers in fixed-point form)."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, (Decimal, int)):
        return {"N": number_text(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bytes):
        return {"B": value}
    if isinstance(value, Mapping):
        return {"M": {str(k): serialize(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"L": [serialize(v) for v in value]}
    raise TypeError(f"cannot store a {type(value).__name__}")


def to_attributes(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A low-level attribute map; None becomes DynamoDB's NULL so optional fields round-trip."""
    return {k: serialize(plain(v)) for k, v in fields.items()}


def from_attributes(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: deserialized(v) for k, v in item.items()}


def deserialized(value: Any) -> Any:
    """``TypeDeserializer.deserialize`` of one attribute value, the kinds the stores read
    (strings, numbers, maps, lists, null, booleans) without its per-value method lookup;
    anything else (binary, sets, a malformed value) by boto3's own."""
    if type(value) is dict and len(value) == 1:
        ((kind, body),) = value.items()
        if kind == "S":
            return body
        if kind == "N":
            return DYNAMODB_CONTEXT.create_decimal(body)
        if kind == "M":
            return {k: deserialized(v) for k, v in body.items()}
        if kind == "L":
            return [deserialized(v) for v in body]
        if kind == "NULL":
            return None
        if kind == "BOOL":
            return body
    return _deserializer.deserialize(value)


def value(v: Any) -> Any:
    """One expression value."""
    return serialize(plain(v))


def encode(model: BaseModel, entity: str, keys: Mapping[str, str], **extra: Any) -> dict[str, Any]:
    """A full item: keys, entity tag, the model's fields and any extra attributes."""
    return to_attributes({**keys, "entity": entity, **plain(model), **extra})


def decode(model: type[M], item: Mapping[str, Any]) -> M:
    return from_fields(model, from_attributes(item))


def from_fields(model: type[M], fields: Mapping[str, Any]) -> M:
    """Validate a deserialized item, ignoring keys, index attributes and unknown fields."""
    allowed = model.model_fields
    return model.model_validate({k: v for k, v in fields.items() if k in allowed})

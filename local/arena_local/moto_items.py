"""moto's DynamoDB items measured, encoded and copied once per version, not once per request.

moto 5.2 keeps every stored item as a tree of ``DynamoType`` objects and, at every request,
walks it again: a query measures each result twice (the 1 MB page) and deep-copies it, then
``dynamo_to_dict`` turns it back into the wire's JSON; a batch read measures and encodes each
item; an update deep-copies the item for its answer. A simulated week reads the same items
thousands of times between two writes of them.

``item_caches`` keeps, on each item's attribute dict, its size and its wire JSON, computed at
the first request that needs them; every write of the item (``forget``, called by the write
tracking of ``moto_orders``) drops them. A read hands moto's read paths the stored items
instead of deep copies (they are only measured, filtered, projected into new items and encoded,
all inside the request, which ``AtomicClient`` runs alone; an update's answer encodes the item
before changing it). A string value (every key of this table) is hashed and compared as its
text: moto's ``DynamoType`` hashes and compares the value its ``cast_value`` computes, five type
tests later, at every dictionary lookup of a partition or an item. Answers are unchanged:
tests/infra/test_moto_caches.py replays mixed writes and reads with and without these caches.
"""

from __future__ import annotations

import copy as real_copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb import responses as moto_responses
from moto.dynamodb.models import table as moto_table
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import dynamo_to_dict

SIZE = "_arena_size"  # the attribute dict's keys for its cached size and wire JSON
WIRE = "_arena_wire"


def forget(item: Item | None) -> None:
    """Drop what was cached about ``item`` (it was written, or may have been)."""
    if item is not None:
        vars(item.attrs).clear()


_MEASURE = Item.size  # moto's own, for the first request after each write


def _cached_size(item: Item) -> int:
    cache = vars(item.attrs)
    size = cache.get(SIZE)
    if size is None:
        size = cache[SIZE] = _MEASURE(item)
    return int(size)


def _wire(value: Any) -> Any:
    """``dynamo_to_dict`` with an item's attribute dict encoded once per version. The encoded
    dict is shared between answers: every consumer serializes it (JSON, or moto's serializer)
    and none changes it."""
    kind = type(value)
    if kind is LimitedSizeDict:
        cache = vars(value)
        encoded = cache.get(WIRE)
        if encoded is None:
            encoded = cache[WIRE] = dynamo_to_dict(value)
        return encoded
    if kind is dict:
        return {key: _wire(member) for key, member in value.items()}
    if kind is list:
        return [_wire(member) for member in value]
    return dynamo_to_dict(value)


_HASH, _EQUALS = DynamoType.__hash__, DynamoType.__eq__


def _string_hash(value: DynamoType) -> int:
    """moto's hash, ``hash((type, cast_value))``: a string's cast value is its text."""
    if value.type == "S":
        return hash(("S", value.value))
    return _HASH(value)


def _string_equals(value: DynamoType, other: Any) -> bool:
    """moto's equality (same type, equal cast values) for two strings, as their texts."""
    if value.type == "S" and type(other) is DynamoType and other.type == "S":
        return bool(value.value == other.value)
    return bool(_EQUALS(value, other))


class _ReadCopies:
    """Stands in for the ``copy`` module in moto's table and responses modules: a "deep copy"
    of a stored item (or a list of them) on a read path is the item itself (a new list);
    anything else (a table's backup, an index) is copied as before."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        if type(value) is Item:
            return value
        if type(value) is list and all(type(member) is Item for member in value):
            return list(value)
        return self._real.deepcopy(value, memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@contextmanager
def item_caches() -> Iterator[None]:
    """Sizes and wire JSON cached per item version, reads without deep copies (see the
    module's docstring)."""
    modules = (moto_table, moto_responses)
    setattr(Item, "size", _cached_size)  # noqa: B010 - moto's class, patched while inside
    setattr(DynamoType, "__hash__", _string_hash)  # noqa: B010
    setattr(DynamoType, "__eq__", _string_equals)  # noqa: B010
    setattr(moto_responses, "dynamo_to_dict", _wire)  # noqa: B010
    for module in modules:
        setattr(module, "copy", _ReadCopies(real_copy))  # noqa: B010 - moto's module global
    try:
        yield
    finally:
        setattr(Item, "size", _MEASURE)  # noqa: B010
        setattr(DynamoType, "__hash__", _HASH)  # noqa: B010
        setattr(DynamoType, "__eq__", _EQUALS)  # noqa: B010
        setattr(moto_responses, "dynamo_to_dict", dynamo_to_dict)  # noqa: B010
        for module in modules:
            setattr(module, "copy", real_copy)  # noqa: B010

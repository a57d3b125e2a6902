"""What is kept about moto's DynamoDB tables between writes, for ``moto_queries``.

- ``_IndexBook``: which items carry which index hash key value (built by one scan at a table's
  first index query);
- each partition's items in sort-key order, and the table's in moto's scan order (hash key,
  then sort key), with their keys as plain strings for bisection (``Order``).

Every write moto's backend makes (put, update, delete: batches and transactions write through
them) and every restore of a cancelled transaction reports the item it touched to ``written``
(``item_writes`` tracks the backend's three), which redoes the index book's entry, places the
item in its partition's order, drops the table's order and the item's caches (``moto_items``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from arena_local.moto_items import forget


def _hash_attributes(table: Any) -> dict[str, str]:
    """Index name -> its hash key attribute, for the table's single-attribute hash indexes."""
    found = {}
    for index in table.all_indexes():
        schema = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
        if len(schema) == 1:
            found[index.name] = schema[0]
    return found


class _IndexBook:
    """Which items carry which index hash key value, for one table: built by one scan at the
    table's first index query, then kept current by every write of an item (``written``), so
    an index query looks at its partition only."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.attributes = _hash_attributes(table)
        self.by_value: dict[tuple[str, str, Any], set[tuple[Any, Any]]] = {}
        self.of_item: dict[tuple[Any, Any], list[tuple[str, str, Any]]] = {}
        for hash_key, partition in table.items.items():
            for range_key in partition:
                self.reindex(hash_key, range_key)

    def reindex(self, hash_key: Any, range_key: Any) -> None:
        """Record the item now stored under these keys (or its absence)."""
        where = (hash_key, range_key)
        for entry in self.of_item.pop(where, ()):
            self.by_value.get(entry, set()).discard(where)
        item = self.table.items.get(hash_key, {}).get(range_key)
        if item is None:
            return
        entries = []
        for index_name, attribute in self.attributes.items():
            value = item.attrs.get(attribute)
            if value is not None:
                entry = (index_name, value.type, value.value)
                self.by_value.setdefault(entry, set()).add(where)
                entries.append(entry)
        if entries:
            self.of_item[where] = entries

    def candidates(self, index_name: str, hash_key: Any) -> list[Any]:
        found = []
        for stored_hash, stored_range in self.by_value.get(
            (index_name, hash_key.type, hash_key.value), ()
        ):
            item = self.table.items.get(stored_hash, {}).get(stored_range)
            if item is not None:
                found.append(item)
        return found


class Order:
    """Items in key order, and their keys as plain strings (for bisection)."""

    def __init__(self, items: list[Item], keys: list[Any]) -> None:
        self.items = items
        self.keys = keys


# What is kept per table while ``partitioned_queries`` is active, by id(table); each entry
# holds its table, so a new table reusing an id is never mistaken for the old one.
_BOOKS: dict[int, _IndexBook] = {}
_PARTITION_ORDERS: dict[tuple[int, Any], tuple[Any, Order | None]] = {}
_TABLE_ORDERS: dict[int, tuple[Any, Order | None]] = {}


def _book(table: Any) -> _IndexBook:
    book = _BOOKS.get(id(table))
    if book is None or book.table is not table:
        book = _BOOKS[id(table)] = _IndexBook(table)
    return book


def written(table: Any, hash_key: Any, range_key: Any) -> None:
    """An item was written or restored under these keys: what is kept about it is redone."""
    book = _BOOKS.get(id(table))
    if book is not None and book.table is table:
        book.reindex(hash_key, range_key)
    _reorder(table, hash_key, range_key)
    _TABLE_ORDERS.pop(id(table), None)
    partition = table.items.get(hash_key)
    if table.range_key_attr is None:
        forget(partition)
    elif partition is not None:
        forget(partition.get(range_key))


def _reorder(table: Any, hash_key: Any, range_key: Any) -> None:
    """Keep the partition's order after a write of one of its items: the item placed, replaced
    or removed where the order has it (a partition gains an item at almost every write, and
    sorting it again at the next query cost a week's largest share of moto's time)."""
    kept = _PARTITION_ORDERS.get((id(table), hash_key))
    if kept is None or kept[0] is not table or kept[1] is None:
        _PARTITION_ORDERS.pop((id(table), hash_key), None)
        return
    order = kept[1]
    if range_key is None or range_key.type != "S":
        _PARTITION_ORDERS.pop((id(table), hash_key), None)
        return
    item = table.items.get(hash_key, {}).get(range_key)
    where = bisect_left(order.keys, range_key.value)
    present = where < len(order.keys) and order.keys[where] == range_key.value
    if item is None and present:
        del order.items[where], order.keys[where]
    elif item is not None and present:
        order.items[where] = item
    elif item is not None:
        order.items.insert(where, item)
        order.keys.insert(where, range_key.value)


def partition_order(table: Any, hash_key: Any) -> Order | None:
    """The partition's items in ascending sort-key order (moto's order), or None when a sort
    key is not a string (moto then decides on the whole partition)."""
    kept = _PARTITION_ORDERS.get((id(table), hash_key))
    if kept is not None and kept[0] is table:
        return kept[1]
    partition = list(table.items.get(hash_key, {}).values())
    order = None
    if all(item.range_key is not None and item.range_key.type == "S" for item in partition):
        partition.sort(key=lambda item: item.range_key.value)
        order = Order(partition, [item.range_key.value for item in partition])
    _PARTITION_ORDERS[(id(table), hash_key)] = (table, order)
    return order


def table_order(table: Any) -> Order | None:
    """The table's items in moto's scan order (hash key, then sort key), or None when a key
    is not a string."""
    kept = _TABLE_ORDERS.get(id(table))
    if kept is not None and kept[0] is table:
        return kept[1]
    items = [item for partition in table.items.values() for item in _members(table, partition)]
    order = None
    if all(_string_keys(item) for item in items):
        items.sort(key=_plain_key)
        order = Order(items, [_plain_key(item) for item in items])
    _TABLE_ORDERS[id(table)] = (table, order)
    return order


def _members(table: Any, partition: Any) -> list[Item]:
    return list(partition.values()) if table.range_key_attr else [partition]


def _string_keys(item: Item) -> bool:
    return item.hash_key.type == "S" and (item.range_key is None or item.range_key.type == "S")


def _plain_key(item: Item) -> tuple[str, ...]:
    if item.range_key is None:
        return (item.hash_key.value,)
    return (item.hash_key.value, item.range_key.value)


def index_candidates(table: Any, index_name: str | None, hash_key: Any) -> list[Any]:
    """Items whose index hash key has the queried value, compared as plain strings (moto
    compares typed values item by item afterwards, so a superset would do as well)."""
    if not table.range_key_attr:
        return list(table.items.values())
    if index_name is None or hash_key is None or index_name not in _hash_attributes(table):
        # let moto report the invalid index or missing key as it does
        return [i for p in table.items.values() for i in p.values()]
    return _book(table).candidates(index_name, hash_key)


def _written_key(backend: Any, table_name: str, key: dict[str, Any]) -> tuple[Any, Any, Any]:
    table = backend.get_table(table_name)
    range_key = key.get(table.range_key_attr) if table.range_key_attr else None
    return table, DynamoType(key[table.hash_key_attr]), range_key and DynamoType(range_key)


@contextmanager
def item_writes() -> Iterator[None]:
    """Report every item moto's backend puts, updates or deletes (batches and transactions
    write through these three) to ``written``, whether the write succeeded or not."""
    originals = {
        name: getattr(DynamoDBBackend, name) for name in ("put_item", "update_item", "delete_item")
    }

    def tracked(name: str) -> Any:
        original = originals[name]

        def write(backend: Any, table_name: str, key: dict[str, Any], *a: Any, **k: Any) -> Any:
            try:
                return original(backend, table_name, key, *a, **k)
            finally:
                try:
                    table, hash_key, range_key = _written_key(backend, table_name, key)
                except Exception:
                    pass
                else:
                    written(table, hash_key, range_key)

        return write

    for name in originals:
        setattr(DynamoDBBackend, name, tracked(name))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(DynamoDBBackend, name, original)
        _BOOKS.clear()
        _PARTITION_ORDERS.clear()
        _TABLE_ORDERS.clear()

"""moto's DynamoDB queries and scans at the cost of what they return, not of the table.

moto 5.2 answers a Query by sorting every item of the table and filtering by partition, and a
Scan page by sorting the table again and walking past every item of the pages before it,
comparing ``DynamoType`` objects. Here (``partitioned_queries``):

- a base-table query sees its partition only, kept in sort-key order between writes to it,
  narrowed by bisection to the run its key condition selects (and the item after it, which
  can end moto's walk);
- an index query sees the items carrying the queried index hash key (``_IndexBook``);
- a scan sees the table in key order, kept between writes, starting after its
  ``ExclusiveStartKey``.

Every write moto's backend makes (put, update, delete: batches and transactions write through
them) and every restore of a cancelled transaction reports the item it touched to ``written``,
which keeps the index book, the orders and the item caches (``moto_items``) current. moto
still decides every answer on the candidates it is given; tests/infra/test_local_run.py
compares the answers with moto's own.
"""

from __future__ import annotations

import inspect
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table as MotoTable

from arena_local.moto_items import forget

INDEX_NAME_POSITION = 6  # in Table.query's arguments after hash_key
_QUERY_SCOPE: ContextVar[list[Any] | None] = ContextVar("moto_query_scope", default=None)


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


class _Order:
    """Items in key order, and their keys as plain strings (for bisection)."""

    def __init__(self, items: list[Item], keys: list[Any]) -> None:
        self.items = items
        self.keys = keys


# What is kept per table while ``partitioned_queries`` is active, by id(table); each entry
# holds its table, so a new table reusing an id is never mistaken for the old one.
_BOOKS: dict[int, _IndexBook] = {}
_PARTITION_ORDERS: dict[tuple[int, Any], tuple[Any, _Order | None]] = {}
_TABLE_ORDERS: dict[int, tuple[Any, _Order | None]] = {}


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


def _partition_order(table: Any, hash_key: Any) -> _Order | None:
    """The partition's items in ascending sort-key order (moto's order), or None when a sort
    key is not a string (moto then decides on the whole partition)."""
    kept = _PARTITION_ORDERS.get((id(table), hash_key))
    if kept is not None and kept[0] is table:
        return kept[1]
    partition = list(table.items.get(hash_key, {}).values())
    order = None
    if all(item.range_key is not None and item.range_key.type == "S" for item in partition):
        partition.sort(key=lambda item: item.range_key.value)
        order = _Order(partition, [item.range_key.value for item in partition])
    _PARTITION_ORDERS[(id(table), hash_key)] = (table, order)
    return order


def _table_order(table: Any) -> _Order | None:
    """The table's items in moto's scan order (hash key, then sort key), or None when a key
    is not a string."""
    kept = _TABLE_ORDERS.get(id(table))
    if kept is not None and kept[0] is table:
        return kept[1]
    items = [item for partition in table.items.values() for item in _members(table, partition)]
    order = None
    if all(_string_keys(item) for item in items):
        items.sort(key=_plain_key)
        order = _Order(items, [_plain_key(item) for item in items])
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


def _index_candidates(table: Any, index_name: str | None, hash_key: Any) -> list[Any]:
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
def _item_writes() -> Iterator[None]:
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


QUERY_ARGUMENTS = ("range_comparison", "range_objs", "limit", "exclusive_start_key", "forward")


def _run(keys: list[str], comparison: str, values: list[Any]) -> tuple[int, int] | None:
    """[first, end) of the sorted ``keys`` that moto's ``compare`` accepts, or None for a
    comparison this does not bisect (moto's compare then decides item by item)."""
    if not values or any(value.type != "S" for value in values):
        return None
    operator, low, high = comparison.upper(), values[0].value, values[-1].value
    if operator in ("=", "EQ"):
        return bisect_left(keys, low), bisect_right(keys, low)
    if operator in ("<", "LT", "<=", "LE"):
        return 0, (bisect_left if operator in ("<", "LT") else bisect_right)(keys, low)
    if operator in (">", "GT", ">=", "GE"):
        return (bisect_right if operator in (">", "GT") else bisect_left)(keys, low), len(keys)
    if operator == "BETWEEN" and len(values) == 2:
        return bisect_left(keys, low), bisect_right(keys, high)
    if operator == "BEGINS_WITH":
        return _prefixed(keys, low)
    return None


def _prefixed(keys: list[str], prefix: str) -> tuple[int, int]:
    first = end = bisect_left(keys, prefix)
    while end < len(keys) and keys[end].startswith(prefix):
        end += 1
    return first, end


def _sort_key(item: Item) -> DynamoType:
    key = item.range_key
    assert key is not None  # an ordered partition's items all have one (``_partition_order``)
    return key


def _matching_run(order: _Order, comparison: str, values: list[Any]) -> range | None:
    """The positions of the partition's items the key condition selects (empty when none
    does); None when they are not one run (moto then decides on the whole partition)."""
    run = _run(order.keys, comparison, values)
    if run is not None:
        return range(*run)
    matching = [  # a comparison not bisected: moto's compare, item by item
        i for i, item in enumerate(order.items) if _sort_key(item).compare(comparison, values)
    ]
    if matching and matching[-1] - matching[0] + 1 != len(matching):
        return None
    return range(matching[0], matching[-1] + 1) if matching else range(0)


def _narrowed(
    table: Any, hash_key: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[Any]:
    """The items of a base-table query's partition that moto's answer can depend on, in the
    order moto sorts them (ascending sort key).

    moto walks the sorted partition in the query's direction, measuring every item, until its
    ``Limit`` or 1 MB. The items its walk can reach: with a key condition on the sort key, the
    contiguous run of those matching it and the item after it in the walk's direction, which
    can end the walk; without one, the first ``Limit`` + 1 in the query's direction. Anything
    else (a sort key that is not a string, a page after ``ExclusiveStartKey``, the legacy
    ``KeyConditions``) keeps the whole partition.
    """
    named = dict(zip(QUERY_ARGUMENTS, args, strict=False))
    if (
        set(kwargs) - {"hash_key_conditions", "range_key_conditions"}
        or len(kwargs.get("range_key_conditions") or ()) > 1
        or named.get("exclusive_start_key")
        or len(args) < len(QUERY_ARGUMENTS)
    ):
        return list(table.items.get(hash_key, {}).values())
    order = _partition_order(table, hash_key)
    if order is None:
        return list(table.items.get(hash_key, {}).values())
    forward = named["forward"] is not False
    comparison, limit = named["range_comparison"], named["limit"]
    if comparison:
        run = _matching_run(order, comparison, named["range_objs"])
        if run is None:
            return list(order.items)
        if not run:
            return []
        # the item after the run in the walk's direction can end moto's walk
        first, end = run.start, run.stop
        return order.items[first : end + 1] if forward else order.items[max(first - 1, 0) : end]
    if limit:
        return order.items[: limit + 1] if forward else order.items[-(limit + 1) :]
    return list(order.items)


_SCAN_PARAMETERS = inspect.signature(MotoTable.scan).parameters


def _scan_scope(table: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
    """The items a base-table scan walks, in moto's order: those after its
    ``ExclusiveStartKey`` (moto's walk passes over the others, comparing each); None when
    moto should decide alone (an index, a key that is not a string)."""
    named = dict(zip(list(_SCAN_PARAMETERS)[1:], args, strict=False)) | kwargs
    if named.get("index_name"):
        return None
    order = _table_order(table)
    if order is None:
        return None
    start = named.get("exclusive_start_key")
    if not start:
        return list(order.items)
    try:
        bound = tuple(
            DynamoType(start[name]) for name in (table.hash_key_attr, table.range_key_attr) if name
        )
    except (KeyError, TypeError, IndexError):
        return None
    if any(value.type != "S" for value in bound):
        return None
    # moto skips the items at or before the start key: the first one after it ends its skip
    return order.items[bisect_right(order.keys, tuple(value.value for value in bound)) :]


@contextmanager
def partitioned_queries() -> Iterator[None]:
    """Make moto's DynamoDB queries and scans cost what they return, not what the table holds.

    While a query runs, ``all_items`` returns the partition's items that can matter (base-table
    query) or the items carrying the queried index hash key (index query); both of moto's query
    paths sort their candidates again, so their order is irrelevant. While a scan runs, it
    returns the table in moto's order from the page's start. Outside them it returns the table
    in moto's order, kept between writes. Results are the same; tests/infra/test_local_run.py
    compares them with moto's own.
    """
    original_query, original_scan = MotoTable.query, MotoTable.scan
    original_all_items = MotoTable.all_items

    def scoped_all_items(table: Any) -> list[Any]:
        scope = _QUERY_SCOPE.get()
        if scope is not None:
            return scope
        order = _table_order(table)
        return list(order.items) if order is not None else original_all_items(table)

    def query(table: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        # moto's backend passes index_name as the eighth positional argument
        index_name = args[INDEX_NAME_POSITION] if len(args) > INDEX_NAME_POSITION else None
        index_name = kwargs.get("index_name", index_name)
        if index_name is None and table.range_key_attr:
            candidates = _narrowed(table, hash_key, args, kwargs)
        else:
            candidates = _index_candidates(table, index_name, hash_key)
        token = _QUERY_SCOPE.set(candidates)
        try:
            return original_query(table, hash_key, *args, **kwargs)
        finally:
            _QUERY_SCOPE.reset(token)

    def scan(table: Any, *args: Any, **kwargs: Any) -> Any:
        token = _QUERY_SCOPE.set(_scan_scope(table, args, kwargs))
        try:
            return original_scan(table, *args, **kwargs)
        finally:
            _QUERY_SCOPE.reset(token)

    MotoTable.query = query  # type: ignore[method-assign,assignment]
    MotoTable.scan = scan  # type: ignore[method-assign,assignment]
    MotoTable.all_items = scoped_all_items  # type: ignore[method-assign,assignment]
    try:
        with _item_writes():
            yield
    finally:
        MotoTable.query = original_query  # type: ignore[method-assign]
        MotoTable.scan = original_scan  # type: ignore[method-assign]
        MotoTable.all_items = original_all_items  # type: ignore[method-assign]

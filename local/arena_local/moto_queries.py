"""moto's DynamoDB queries and scans at the cost of what they return, not of the table.

moto 5.2 answers a Query by sorting every item of the table and filtering by partition, and a
Scan page by sorting the table again and walking past every item of the pages before it,
comparing ``DynamoType`` objects. Here (``partitioned_queries``):

- a base-table query sees its partition only, kept in sort-key order between writes to it,
  narrowed by bisection to the run its key condition selects (and the item after it, which
  can end moto's walk);
- an index query sees the items carrying the queried index hash key;
- a scan sees the table in key order, kept between writes, starting after its
  ``ExclusiveStartKey``.

What is kept between writes, and how every write keeps it current, is ``moto_orders``'. moto
still decides every answer on the candidates it is given; tests/infra/test_moto_caches.py
compares the answers with moto's own.
"""

from __future__ import annotations

import inspect
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table as MotoTable

from arena_local.moto_orders import (
    Order,
    index_candidates,
    item_writes,
    partition_order,
    table_order,
)

INDEX_NAME_POSITION = 6  # in Table.query's arguments after hash_key
_QUERY_SCOPE: ContextVar[list[Any] | None] = ContextVar("moto_query_scope", default=None)

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
    assert key is not None  # an ordered partition's items all have one (``partition_order``)
    return key


def _matching_run(order: Order, comparison: str, values: list[Any]) -> range | None:
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
    order = partition_order(table, hash_key)
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
    order = table_order(table)
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
        order = table_order(table)
        return list(order.items) if order is not None else original_all_items(table)

    def query(table: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        # moto's backend passes index_name as the eighth positional argument
        index_name = args[INDEX_NAME_POSITION] if len(args) > INDEX_NAME_POSITION else None
        index_name = kwargs.get("index_name", index_name)
        if index_name is None and table.range_key_attr:
            candidates = _narrowed(table, hash_key, args, kwargs)
        else:
            candidates = index_candidates(table, index_name, hash_key)
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
        with item_writes():
            yield
    finally:
        MotoTable.query = original_query  # type: ignore[method-assign]
        MotoTable.scan = original_scan  # type: ignore[method-assign]
        MotoTable.all_items = original_all_items  # type: ignore[method-assign]

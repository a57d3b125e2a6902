"""moto made faithful and fast enough for the demo and the tests (no CDK needed here).

``AtomicClient`` serializes requests so moto's in-process backend applies each one atomically,
as DynamoDB does; ``lean_dynamodb`` makes moto's queries and transactions cost what they touch,
not what the table holds, and its answers cost what JSON encoding costs.
tests/infra/test_local_run.py compares their answers with moto's own.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from moto.core.responses import ActionContext, ActionResult
from moto.dynamodb import models as moto_dynamodb_models
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table as MotoTable
from moto.dynamodb.models.utilities import bytesize
from moto.dynamodb.responses import DynamoResult


class AtomicClient:
    """A boto3 client whose calls run one at a time.

    DynamoDB applies each request atomically (a conditional write's check and write are one
    step); moto's in-process backend does not, so concurrent requests (Map iterations run on
    threads) could interleave inside it. Serializing requests restores the service's guarantee
    while callers still race between requests, which is where the application's races live.
    """

    _lock = threading.Lock()

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return call


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
    table's first index query, then kept current by every write of an item (see
    ``_ItemWrites``), so an index query looks at its partition only."""

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


_BOOKS: dict[int, _IndexBook] = {}  # by id(table), while ``partitioned_queries`` is active


def _book(table: Any) -> _IndexBook:
    book = _BOOKS.get(id(table))
    if book is None or book.table is not table:
        book = _BOOKS[id(table)] = _IndexBook(table)
    return book


def _reindex(table: Any, hash_key: Any, range_key: Any) -> None:
    """Tell the table's book (if it has one yet) that an item was written or restored."""
    book = _BOOKS.get(id(table))
    if book is not None and book.table is table:
        book.reindex(hash_key, range_key)


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
    """Re-index every item moto's backend puts, updates or deletes (batches and transactions
    write through these three), whether the write succeeded or not."""
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
                    _reindex(table, hash_key, range_key)

        return write

    for name in originals:
        setattr(DynamoDBBackend, name, tracked(name))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(DynamoDBBackend, name, original)
        _BOOKS.clear()


QUERY_ARGUMENTS = ("range_comparison", "range_objs", "limit", "exclusive_start_key", "forward")


def _narrowed(partition: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The items of a base-table query's partition that moto's answer can depend on, in the
    order moto sorts them (ascending sort key).

    moto sorts the whole partition by its sort key (``DynamoType`` comparisons: the largest
    cost of a week's newest-snapshot queries, on partitions of a thousand snapshots), then
    walks it in the query's direction, measuring every item, until its ``Limit`` or 1 MB.
    The items its walk can reach: with a key condition on the sort key, the contiguous run of
    those matching it (moto's own ``compare``) and the item after it, which can end the walk;
    without one, the first ``Limit`` + 1 in the query's direction. Sorting plain strings
    first makes moto's own sort linear. Anything else (a sort key that is not a string, a
    page after ``ExclusiveStartKey``, the legacy ``KeyConditions``) keeps the whole partition.
    """
    named = dict(zip(QUERY_ARGUMENTS, args, strict=False))
    if (
        set(kwargs) - {"hash_key_conditions", "range_key_conditions"}
        or len(kwargs.get("range_key_conditions") or ()) > 1
        or named.get("exclusive_start_key")
        or len(args) < len(QUERY_ARGUMENTS)
        or any(item.range_key is None or item.range_key.type != "S" for item in partition)
    ):
        return partition
    ordered = sorted(partition, key=lambda item: item.range_key.value)
    walk = ordered if named["forward"] is not False else ordered[::-1]
    comparison, limit = named["range_comparison"], named["limit"]
    if comparison:
        matching = [
            i
            for i, item in enumerate(walk)
            if item.range_key.compare(comparison, named["range_objs"])
        ]
        if not matching:
            return []
        first, last = matching[0], matching[-1]
        if last - first + 1 != len(matching):  # not a run: moto decides on everything
            return ordered
        kept = walk[first : last + 2]
    elif limit:
        kept = walk[: limit + 1]
    else:
        return ordered
    return sorted(kept, key=lambda item: item.range_key.value)


@contextmanager
def partitioned_queries() -> Iterator[None]:
    """Make moto's DynamoDB queries cost what their partition holds, not what the table holds.

    moto 5.2 answers every Query by sorting *all* items of the table (``Table.all_items``) and
    then filtering by partition: a table that grows by a few items per simulated snapshot makes
    every query slower, and a simulated week quadratic. Both of moto's query paths sort their
    results again after filtering, so the candidates' order is irrelevant: while a query runs,
    ``all_items`` returns the partition's items (base-table query) or the items carrying the
    queried index hash key, unsorted (index query). Results are the same;
    tests/infra/test_local_run.py compares them with moto's own.
    """
    original_query, original_all_items = MotoTable.query, MotoTable.all_items

    def scoped_all_items(table: Any) -> list[Any]:
        scope = _QUERY_SCOPE.get()
        return original_all_items(table) if scope is None else scope

    def query(table: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        # moto's backend passes index_name as the eighth positional argument
        index_name = args[INDEX_NAME_POSITION] if len(args) > INDEX_NAME_POSITION else None
        index_name = kwargs.get("index_name", index_name)
        if index_name is None and table.range_key_attr:
            candidates = _narrowed(list(table.items.get(hash_key, {}).values()), args, kwargs)
        else:
            candidates = _index_candidates(table, index_name, hash_key)
        token = _QUERY_SCOPE.set(candidates)
        try:
            return original_query(table, hash_key, *args, **kwargs)
        finally:
            _QUERY_SCOPE.reset(token)

    MotoTable.query = query  # type: ignore[method-assign,assignment]
    MotoTable.all_items = scoped_all_items  # type: ignore[method-assign,assignment]
    try:
        with _item_writes():
            yield
    finally:
        MotoTable.query = original_query  # type: ignore[method-assign]
        MotoTable.all_items = original_all_items  # type: ignore[method-assign]


class _TableCopyShim:
    """Stands in for the ``copy`` module inside moto's DynamoDB backend: a table "deep copy"
    is the live table (``transactional_backups`` restores what a transaction touched)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        return value if isinstance(value, MotoTable) else self._real.deepcopy(value, memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _touched(backend: Any, entry: dict[str, Any]) -> tuple[Any, Any, Any] | None:
    """(table, hash key, range key) of one TransactWriteItems entry, as moto stores them."""
    op = next(iter(entry.values()))
    table = backend.tables.get(op.get("TableName"))
    if table is None or table.range_key_attr is None:
        return None
    key = op.get("Key") or op.get("Item") or {}
    if table.hash_key_attr not in key or table.range_key_attr not in key:
        return None
    hash_key = DynamoType(key[table.hash_key_attr])
    return table, hash_key, DynamoType(key[table.range_key_attr])


@contextmanager
def transactional_backups() -> Iterator[None]:
    """Make a moto transaction cost what it touches, not what the table holds.

    moto 5.2 backs up the whole table (a deep copy, once per item of the transaction) before a
    TransactWriteItems, to restore it on failure. Here the backup is of the items the
    transaction names (absent ones remembered as absent), restored the same way on failure.
    """
    original = DynamoDBBackend.transact_write_items
    real = getattr(moto_dynamodb_models, "copy")  # noqa: B009 - moto's module, not exported
    shim = _TableCopyShim(real)

    def transact(backend: Any, transact_items: list[dict[str, Any]]) -> None:
        backups = []
        for entry in transact_items:
            touched = _touched(backend, entry)
            if touched is not None:
                table, hash_key, range_key = touched
                item = table.items.get(hash_key, {}).get(range_key)
                backups.append((table, hash_key, range_key, copy.deepcopy(item)))
        setattr(moto_dynamodb_models, "copy", shim)  # noqa: B010
        try:
            original(backend, transact_items)
        except Exception:
            for table, hash_key, range_key, item in reversed(backups):
                if item is None:
                    table.items.get(hash_key, {}).pop(range_key, None)
                else:
                    table.items[hash_key][range_key] = item
                _reindex(table, hash_key, range_key)
            raise
        finally:
            setattr(moto_dynamodb_models, "copy", real)  # noqa: B010

    DynamoDBBackend.transact_write_items = transact  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        DynamoDBBackend.transact_write_items = original  # type: ignore[method-assign]


# The result types whose value is the whole JSON body (paginated and empty ones are not).
_PLAIN_RESULTS = (ActionResult, DynamoResult)
_DYNAMODB_CONTENT_TYPE = "application/x-amz-json-1.0"


@contextmanager
def json_responses() -> Iterator[None]:
    """Encode moto's DynamoDB answers with ``json.dumps`` instead of its shape-walking serializer.

    moto 5.2 serializes every response by walking the operation's output shape member by
    member; for DynamoDB, whose answers are already the wire's JSON (attribute values as
    ``{"S": ...}``), that walk was the largest single cost of a simulated week (about a third
    of its CPU). A result that JSON cannot encode as is (dates, bytes, NaN) takes moto's own
    path, as does every other service and every error. A ``None`` member (moto's "no
    ``LastEvaluatedKey``") goes out as ``null``, which botocore's JSON parser drops exactly as
    the shape walk omits it; DynamoDB's answers hold no ``None`` inside a list or a map.
    """
    original = ActionResult.execute_result

    def execute_result(result: ActionResult, context: ActionContext) -> Any:
        value = result.result
        plain = type(result) in _PLAIN_RESULTS and isinstance(value, dict)
        if plain and context.service_model.service_name == "dynamodb":
            try:
                body = json.dumps(value, allow_nan=False)
            except (TypeError, ValueError):
                pass  # not plain JSON: moto's serializer decides
            else:
                status = context.operation_model.http.get("responseCode", 200)
                return status, {"Content-Type": _DYNAMODB_CONTENT_TYPE}, body
        return original(result, context)

    ActionResult.execute_result = execute_result  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        ActionResult.execute_result = original  # type: ignore[method-assign]


ITEM_SIZE_LIMIT = 405000  # moto's limit, between the measured 409 and 410 KB


def _item_init(item: Item, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:
    item.hash_key = hash_key
    item.range_key = range_key
    values = {key: DynamoType(value) for key, value in attrs.items()}
    if sum(bytesize(key) + value.size() for key, value in values.items()) > ITEM_SIZE_LIMIT:
        raise ItemSizeTooLarge
    item.attrs = LimitedSizeDict.__new__(LimitedSizeDict)
    dict.update(item.attrs, values)


@contextmanager
def sized_items() -> Iterator[None]:
    """Check a new item's size once instead of once per attribute.

    moto 5.2 builds an item attribute by attribute, re-measuring everything already there at
    each one (quadratic in the attribute count; a tenth of a simulated week's CPU). The sum
    of the sizes only grows, so measuring the whole item once raises exactly when moto's
    last prefix would; later attribute writes (update expressions) keep moto's check.
    """
    original = Item.__init__
    Item.__init__ = _item_init  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        Item.__init__ = original  # type: ignore[method-assign]


@contextmanager
def lean_dynamodb() -> Iterator[None]:
    """All of the above: moto's DynamoDB with per-partition queries, per-item backups, items
    measured once and JSON-encoded answers."""
    with partitioned_queries(), transactional_backups(), sized_items(), json_responses():
        yield

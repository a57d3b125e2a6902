"""moto made faithful and fast enough for the demo and the tests (no CDK needed here).

``AtomicClient`` serializes requests so moto's in-process backend applies each one atomically,
as DynamoDB does; ``lean_dynamodb`` makes moto's queries and transactions cost what they touch,
not what the table holds. tests/local/test_moto_shims.py compares their answers with moto's own.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from moto.dynamodb import models as moto_dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table as MotoTable


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


def _index_candidates(table: Any, index_name: str | None, hash_key: Any) -> list[Any]:
    """Items whose index hash key has the queried value, compared as plain strings (moto
    compares typed values item by item afterwards, so a superset would do as well)."""
    items = [i for p in table.items.values() for i in p.values()] if table.range_key_attr else []
    if not items:
        return list(table.items.values())
    indexes = {index.name: index for index in table.all_indexes()}
    index = indexes.get(index_name)
    if index is None or hash_key is None:
        return items  # let moto report the invalid index or missing key as it does
    schema = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
    if len(schema) != 1:
        return items
    wanted = (hash_key.type, hash_key.value)
    return [
        item
        for item in items
        if (value := item.attrs.get(schema[0])) is not None and (value.type, value.value) == wanted
    ]


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
            candidates = list(table.items.get(hash_key, {}).values())
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
            raise
        finally:
            setattr(moto_dynamodb_models, "copy", real)  # noqa: B010

    DynamoDBBackend.transact_write_items = transact  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        DynamoDBBackend.transact_write_items = original  # type: ignore[method-assign]


@contextmanager
def lean_dynamodb() -> Iterator[None]:
    """Both of the above: moto's DynamoDB with per-partition queries and per-item backups."""
    with partitioned_queries(), transactional_backups():
        yield

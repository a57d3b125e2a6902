"""moto made faithful and fast enough for the demo and the tests (no CDK needed here).

``AtomicClient`` serializes requests so moto's in-process backend applies each one atomically,
as DynamoDB does; ``lean_dynamodb`` makes moto's queries, scans and transactions cost what they
touch, not what the table holds (``moto_queries``, on ``moto_orders``), its reads cost what
they read once per item version (``moto_items``), and its answers cost what JSON encoding costs.
tests/infra/test_local_run.py compares their answers with moto's own.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto.core.responses import ActionContext, ActionResult
from moto.dynamodb import models as moto_dynamodb_models
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table as MotoTable
from moto.dynamodb.models.utilities import bytesize
from moto.dynamodb.responses import DynamoResult

from arena_local.moto_expressions import expression_shortcuts
from arena_local.moto_items import item_caches
from arena_local.moto_orders import written
from arena_local.moto_queries import partitioned_queries


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
                written(table, hash_key, range_key)
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
    """All of the above, with moto_queries' (on moto_orders'), moto_items' and
    moto_expressions': moto's DynamoDB with queries and scans that cost what they return,
    per-item backups, items measured once, sizes and wire JSON cached per item version, update
    expressions parsed once and walked at a tree's cost, and JSON-encoded answers."""
    with (
        partitioned_queries(),
        item_caches(),
        expression_shortcuts(),
        transactional_backups(),
        sized_items(),
        json_responses(),
    ):
        yield

"""Low-level table access: throttling retries, pagination, batches, transactions, expressions.

Throttling (and transient transaction conflicts) is retried with backoff; any other service error
becomes a ``PersistenceError``. Conditional failures are left to the caller as ``ConditionFailed``
or ``TransactionCancelled`` so it can say *what* was contended. DynamoDB's limits (item size,
items per request) are checked before a request is sent: a ``StoreLimitError``, nothing sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.adapters.dynamodb.codec import value
from arena_core.adapters.dynamodb.limits import (
    MAX_BATCH_WRITE_ITEMS,
    MAX_TRANSACTION_ITEMS,
    check_count,
    check_item,
)
from arena_core.adapters.retry import Retrier, RetryPolicy, Transient
from arena_core.errors import PersistenceError

THROTTLING = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "TransactionInProgressException",
    }
)


class ConditionFailed(Exception):  # noqa: N818 - internal signal, translated by the repository
    def __init__(self, old_item: Mapping[str, Any] | None) -> None:
        super().__init__("condition failed")
        self.old_item = old_item


class TransactionCancelled(Exception):  # noqa: N818 - internal signal
    """A transaction refused; ``reasons`` maps each labelled item to its cancellation code."""

    def __init__(self, reasons: dict[str, str]) -> None:
        super().__init__(f"transaction cancelled: {reasons}")
        self.reasons = reasons

    def failed(self, label: str) -> bool:
        return self.reasons.get(label) == "ConditionalCheckFailed"


@dataclass
class Expr:
    """Collects placeholder names and values so every attribute name is escaped."""

    names: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    def n(self, attribute: str) -> str:
        placeholder = f"#{attribute.lower()}"
        self.names[placeholder] = attribute
        return placeholder

    def v(self, raw: Any) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = value(raw)
        return placeholder

    def assignments(self, fields: Mapping[str, Any]) -> str:
        """``#a = :v0, #b = :v1`` for a SET clause."""
        return ", ".join(f"{self.n(name)} = {self.v(raw)}" for name, raw in fields.items())

    def kwargs(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self.names:
            found["ExpressionAttributeNames"] = self.names
        if self.values:
            found["ExpressionAttributeValues"] = self.values
        return found


class Table:
    """One table's requests. Reads of the table itself are strongly consistent unless
    ``consistent`` is False (what a publication of the site tolerates: at worst it shows the
    state of a few seconds earlier, for half the read units); index reads are always eventually
    consistent (global secondary indexes offer nothing else)."""

    def __init__(
        self, client: Any, name: str, *, retrier: Retrier | None = None, consistent: bool = True
    ) -> None:
        self.client = client
        self.name = name
        self.consistent = consistent
        self._retrier = retrier or Retrier(
            RetryPolicy(max_attempts=6, base_delay=0.05, total_budget=20), give_up=PersistenceError
        )

    def call(self, operation: str, **kwargs: Any) -> dict[str, Any]:
        method: Callable[..., dict[str, Any]] = getattr(self.client, operation)

        def attempt(_: int) -> dict[str, Any]:
            try:
                return method(**kwargs)
            except ClientError as exc:
                code = exc.response.get("Error", {}).get("Code", "")
                if code in THROTTLING:
                    raise Transient(f"{operation}: {code}") from exc
                if code == "ConditionalCheckFailedException":
                    old = exc.response.get("Item")
                    raise ConditionFailed(old if isinstance(old, dict) else None) from exc
                if code == "TransactionCanceledException":
                    reasons = [
                        r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])
                    ]
                    if "TransactionConflict" in reasons or "ThrottlingError" in reasons:
                        raise Transient(f"{operation}: transaction conflict") from exc
                    raise _Cancelled(reasons) from exc
                raise PersistenceError(f"DynamoDB {operation} failed: {code}: {exc}") from exc
            except BotoCoreError as exc:
                raise Transient(f"{operation}: {exc}") from exc

        result, _ = self._retrier.run(attempt, what=f"DynamoDB {operation}")
        return result

    def get(self, key: Mapping[str, str]) -> dict[str, Any] | None:
        response = self.call(
            "get_item", TableName=self.name, Key=_key(key), ConsistentRead=self.consistent
        )
        return response.get("Item")

    def put(
        self, item: dict[str, Any], *, condition: str | None = None, expr: Expr | None = None
    ) -> None:
        check_item(item, "PutItem")
        extra: dict[str, Any] = {}
        if condition:
            extra["ConditionExpression"] = condition
        self.call(
            "put_item", TableName=self.name, Item=item, **extra, **(expr.kwargs() if expr else {})
        )

    def update(
        self, key: Mapping[str, str], update: str, expr: Expr, *, condition: str | None = None
    ) -> dict[str, Any]:
        check_item(expr.values, "UpdateItem")  # the values set alone must fit in an item
        extra: dict[str, Any] = {"ReturnValues": "ALL_NEW"}
        if condition:
            extra["ConditionExpression"] = condition
            extra["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        response = self.call(
            "update_item",
            TableName=self.name,
            Key=_key(key),
            UpdateExpression=update,
            **extra,
            **expr.kwargs(),
        )
        return dict(response.get("Attributes", {}))

    def query(
        self,
        condition: str,
        expr: Expr,
        *,
        index: str | None = None,
        consistent: bool | None = None,
    ) -> Iterator[dict[str, Any]]:
        kwargs: dict[str, Any] = {"TableName": self.name, "KeyConditionExpression": condition}
        if index:
            kwargs["IndexName"] = index
        else:
            kwargs["ConsistentRead"] = self.consistent if consistent is None else consistent
        kwargs.update(expr.kwargs())
        while True:
            page = self.call("query", **kwargs)
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def partition(
        self,
        pk: str,
        prefix: str = "",
        *,
        between: tuple[str, str] | None = None,
        consistent: bool | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Items of one partition, optionally by sort-key prefix or range (consistent as the
        table is, unless ``consistent`` says otherwise: items that never change once written
        read the same either way)."""
        expr = Expr()
        condition = f"{expr.n('PK')} = {expr.v(pk)}"
        if prefix:
            condition += f" AND begins_with({expr.n('SK')}, {expr.v(prefix)})"
        if between:
            low, high = between
            condition += f" AND {expr.n('SK')} BETWEEN {expr.v(low)} AND {expr.v(high)}"
        return self.query(condition, expr, consistent=consistent)

    def newest(self, pk: str) -> dict[str, Any] | None:
        """The item of a partition with the greatest sort key (one item read)."""
        expr = Expr()
        kwargs: dict[str, Any] = {
            "TableName": self.name,
            "KeyConditionExpression": f"{expr.n('PK')} = {expr.v(pk)}",
            "ConsistentRead": self.consistent,
            "ScanIndexForward": False,
            "Limit": 1,
            **expr.kwargs(),
        }
        items: list[dict[str, Any]] = self.call("query", **kwargs).get("Items", [])
        return items[0] if items else None

    def index_partition(
        self, index: str, key_attribute: str, value_: str
    ) -> Iterator[dict[str, Any]]:
        """Items of one partition of a global secondary index (eventually consistent)."""
        expr = Expr()
        return self.query(f"{expr.n(key_attribute)} = {expr.v(value_)}", expr, index=index)

    def batch_get(self, keys: Sequence[Mapping[str, str]]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for start in range(0, len(keys), 100):
            pending: dict[str, Any] = {
                self.name: {
                    "Keys": [_key(k) for k in keys[start : start + 100]],
                    "ConsistentRead": self.consistent,
                }
            }
            while pending:
                response = self.call("batch_get_item", RequestItems=pending)
                found.extend(response.get("Responses", {}).get(self.name, []))
                pending = response.get("UnprocessedKeys") or {}
        return found

    def batch_put(self, items: Sequence[dict[str, Any]]) -> None:
        for item in items:
            check_item(item, "BatchWriteItem")
        size = MAX_BATCH_WRITE_ITEMS
        for start in range(0, len(items), size):
            chunk = items[start : start + size]
            pending: dict[str, Any] = {self.name: [{"PutRequest": {"Item": i}} for i in chunk]}
            while pending:
                response = self.call("batch_write_item", RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}

    def transact(self, operations: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Write labelled operations atomically; ``TransactionCancelled`` says which failed."""
        check_count(len(operations), MAX_TRANSACTION_ITEMS, "TransactWriteItems")
        for label, operation in operations:
            ((_, body),) = operation.items()
            check_item(body.get("Item") or body.get("ExpressionAttributeValues") or {}, label)
        items = [_with_table(op, self.name) for _, op in operations]
        try:
            self.call("transact_write_items", TransactItems=items)
        except _Cancelled as exc:
            labels = [label for label, _ in operations]
            raise TransactionCancelled(dict(zip(labels, exc.codes, strict=False))) from exc


class _Cancelled(Exception):  # noqa: N818 - carries the raw codes from call() to transact()
    def __init__(self, codes: list[str]) -> None:
        super().__init__(codes)
        self.codes = codes


def _key(key: Mapping[str, str]) -> dict[str, Any]:
    return {k: {"S": v} for k, v in key.items()}


def _with_table(operation: dict[str, Any], table: str) -> dict[str, Any]:
    ((kind, body),) = operation.items()
    body = dict(body)
    body["TableName"] = table
    if "Key" in body:
        body["Key"] = _key(body["Key"])
    return {kind: body}

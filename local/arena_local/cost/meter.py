"""What a simulated week asks of AWS, per function: counted in the demo, not guessed.

Every boto3 call the handlers make passes botocore's ``BaseClient._make_api_call``; the meter
counts it there under the function running (the handlers are wrapped while it is attached),
with DynamoDB's request units worked out as DynamoDB bills them: a write unit per KB of each
item written (twice in a transaction, once more per index the item is in), a read unit per
4 KB read (strongly consistent; half on an index; twice in a transaction). Item sizes are
DynamoDB's own measure (``limits.item_size``). Publishing the site is metered on its own, per
scope (``PublishLight``, ``PublishFull``, ``PublishWeekly``): the deployment publishes far more
often than the demo does.
"""

from __future__ import annotations

import io
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from botocore.client import BaseClient
from botocore.exceptions import ClientError

from arena_core import entrypoints
from arena_core.adapters.dynamodb.limits import item_size
from arena_core.adapters.dynamodb.schema import GSI1PK, GSI2PK
from arena_core.observability import logger

Handler = Callable[..., Any]
# Each publication scope on its own: a snapshot tick's, the hourly resolution pass's and the
# weekly decision run's differ by far in what they read and write.
PUBLICATIONS = {"light": "PublishLight", "full": "PublishFull", "weekly": "PublishWeekly"}
PENDING = "PublishPending"  # a publication under way, before its scope is known
SHARED = ("SERIES#", "JOBS")  # partitions written per family or per deployment, not per agent


@dataclass
class Usage:
    invocations: int = 0
    seconds: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)  # "service:Operation"
    read_units: float = 0.0
    write_units: float = 0.0
    shared_write_units: float = 0.0  # per family or per deployment, not per agent
    put_bytes: Counter[str] = field(default_factory=Counter)  # S3 bytes written, by bucket
    site_uploads: int = 0  # site objects written by publishing
    log_bytes: int = 0
    prompts: int = 0  # decision prompts stored (one per model consultation)
    prompt_bytes: int = 0

    def add(self, other: Usage) -> None:
        """Fold another usage into this one (a publication, once its scope is known)."""
        self.invocations += other.invocations
        self.seconds += other.seconds
        self.requests.update(other.requests)
        self.read_units += other.read_units
        self.write_units += other.write_units
        self.shared_write_units += other.shared_write_units
        self.put_bytes.update(other.put_bytes)
        self.site_uploads += other.site_uploads
        self.log_bytes += other.log_bytes
        self.prompts += other.prompts
        self.prompt_bytes += other.prompt_bytes


def _write_units(item: Mapping[str, Any], factor: int = 1) -> float:
    units = math.ceil(max(item_size(item), 1) / 1024)
    indexed = sum(1 for key in (GSI1PK, GSI2PK) if key in item)
    return factor * units * (1 + indexed)


def _read_units(items: list[Mapping[str, Any]], factor: float = 1.0) -> float:
    size = sum(item_size(i) for i in items)
    return factor * max(1, math.ceil(size / 4096))


def _shared_share(operation: str, params: Mapping[str, Any]) -> float:
    """The share of a write's items that are per family or per deployment (series points, job
    runs): they do not grow with the active cohorts as the agents' items do."""
    if operation == "BatchWriteItem":
        items = [r["PutRequest"]["Item"] for rs in params["RequestItems"].values() for r in rs]
    elif operation == "PutItem":
        items = [params["Item"]]
    elif operation == "UpdateItem":
        items = [params["Key"]]
    else:
        return 0.0
    keys = [str(next(iter(i.get("PK", {}).values()), "")) for i in items]
    return sum(k.startswith(SHARED) for k in keys) / len(keys) if keys else 0.0


def dynamodb_units(
    operation: str, params: Mapping[str, Any], parsed: Mapping[str, Any]
) -> tuple[float, float]:
    """(read units, write units) of one DynamoDB call."""
    if operation == "PutItem":
        return 0.0, _write_units(params["Item"])
    if operation == "UpdateItem":
        return 0.0, _write_units(parsed.get("Attributes") or {})
    if operation == "DeleteItem":
        return 0.0, 1.0
    if operation == "BatchWriteItem":
        puts = [r["PutRequest"]["Item"] for rs in params["RequestItems"].values() for r in rs]
        return 0.0, sum(_write_units(i) for i in puts)
    if operation == "TransactWriteItems":
        parts = [next(iter(p.values())) for p in params["TransactItems"]]
        return 0.0, sum(_write_units(p.get("Item") or {}, factor=2) for p in parts)
    if operation == "GetItem":
        return _read_units([parsed.get("Item") or {}]), 0.0
    if operation == "Query":
        factor = 0.5 if "IndexName" in params else 1.0
        return _read_units(parsed.get("Items", []), factor), 0.0
    if operation == "BatchGetItem":
        found = [i for items in parsed.get("Responses", {}).values() for i in items]
        return sum(_read_units([i]) for i in found) or 1.0, 0.0
    return 0.0, 0.0


class Meter:
    def __init__(self) -> None:
        self.usage: dict[str, Usage] = {}
        self._stack: list[str] = ["Setup"]

    def of(self, function: str) -> Usage:
        return self.usage.setdefault(function, Usage())

    def count(
        self,
        service: str,
        operation: str,
        params: Mapping[str, Any],
        parsed: Mapping[str, Any],
        size: int,
    ) -> None:
        """One call; ``size`` is its request body's, measured before botocore wraps it."""
        usage = self.of(self._stack[-1])
        usage.requests[f"{service}:{operation}"] += 1
        if service == "dynamodb":
            read, write = dynamodb_units(operation, params, parsed)
            shared = _shared_share(operation, params)
            usage.read_units += read
            usage.write_units += write * (1 - shared)
            usage.shared_write_units += write * shared
        elif service == "s3" and operation == "PutObject":
            usage.put_bytes[str(params.get("Bucket"))] += size
            if str(params.get("Key", "")).endswith("/prompt.txt"):
                usage.prompts += 1
                usage.prompt_bytes += size

    def wrap(self, function: str, handler: Handler) -> Handler:
        def metered(*args: Any, **kwargs: Any) -> Any:
            usage = self.of(function)
            usage.invocations += 1
            self._stack.append(function)
            started = time.perf_counter()
            try:
                result = handler(*args, **kwargs)
            finally:
                usage.seconds += time.perf_counter() - started
                self._stack.pop()
            if function == PENDING:
                usage.site_uploads += int(getattr(result, "uploaded", 0))
            return result

        return metered

    def wrap_publish(self, publish: Handler) -> Handler:
        """The site's publication, metered under the scope it rendered (a tick on a site
        without a home page renders everything: counted as the full publication it was)."""
        pending = self.wrap(PENDING, publish)

        def metered(container: Any, scope: Any = None) -> Any:
            result = pending(container, scope)
            done = self.usage.pop(PENDING)
            self.of(PUBLICATIONS[str(getattr(result, "scope", "weekly"))]).add(done)
            return result

        return metered

    @contextmanager
    def attached(self, handlers: list[dict[str, Handler]]) -> Iterator[None]:
        """Count every boto3 call and log byte while the demo runs, per function."""
        original_call = getattr(BaseClient, "_make_api_call")  # noqa: B009 - private
        meter = self

        def call(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
            service = client.meta.service_model.service_name
            body = params.get("Body", b"")
            size = len(body) if isinstance(body, bytes | str) else 0
            try:
                parsed = original_call(client, operation, params)
            except ClientError:  # a refused conditional write is billed too
                meter.count(service, operation, params, {}, size)
                raise
            meter.count(service, operation, params, parsed, size)
            return parsed

        setattr(BaseClient, "_make_api_call", call)  # noqa: B010
        saved = [dict(table) for table in handlers]
        for table in handlers:
            for name, handler in table.items():
                table[name] = self.wrap(name.removeprefix("Functions"), handler)
        original_publish = entrypoints.publish_site
        entrypoints.publish_site = self.wrap_publish(original_publish)
        try:
            with self._logs():
                yield
        finally:
            entrypoints.publish_site = original_publish
            for table, old in zip(handlers, saved, strict=True):
                table.update(old)
            setattr(BaseClient, "_make_api_call", original_call)  # noqa: B010

    @contextmanager
    def _logs(self) -> Iterator[None]:
        """The JSON lines the handlers log at INFO (the deployed level), counted not shown."""
        meter = self

        class Counting(io.StringIO):
            def write(self, text: str) -> int:
                meter.of(meter._stack[-1]).log_bytes += len(text.encode())
                return len(text)

        handlers = [h for h in logger.handlers if hasattr(h, "setStream")]
        old = [h.setStream(Counting()) for h in handlers]
        try:
            yield
        finally:
            for handler, stream in zip(handlers, old, strict=True):
                handler.setStream(stream)


def table_bytes(client: Any, table: str) -> Counter[str]:
    """The table's items, their DynamoDB sizes summed by entity (snapshot, hourly, trade...)."""
    found: Counter[str] = Counter()
    kwargs: dict[str, Any] = {"TableName": table}
    while True:
        page = client.scan(**kwargs)
        for item in page.get("Items", []):
            found[item.get("entity", {}).get("S", "other")] += item_size(item)
        if "LastEvaluatedKey" not in page:
            return found
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

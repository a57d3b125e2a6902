"""What a simulated week asks of AWS, per function: counted in the demo, not guessed.

Every boto3 call the handlers make passes botocore's ``BaseClient._make_api_call``; the meter
counts it there under the function running (the handlers are wrapped while it is attached),
with DynamoDB's request units worked out as DynamoDB bills them: a write unit per KB of each
item written (twice in a transaction, once more per index the item is in), a read unit per
4 KB read when strongly consistent (``ConsistentRead``), half when eventually consistent (an
index is always), twice in a transaction. Item sizes are
DynamoDB's own measure (``limits.item_size``). Publishing the site is metered on its own, per
scope (``PublishBoard``, ``PublishLive``, ``PublishFull``, ``PublishDaily``, ``PublishWeekly``),
its site reads and uploads counted by ``site_meter.MeteredPublisher``, which also tells where a
publication starts and ends (its lease taken and released); the scope it published comes with
the function's result.

A function's seconds are its thread's CPU time less what the embedded AWS spent answering it
(moto's ``BotocoreStubber``, in the same thread): that work is DynamoDB's and S3's, which a
deployed function only waits for, and the wait is costed per request (``lambda_seconds``).
Before, the emulator's own work was billed to the function as well as the wait.
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
from moto.core.botocore_stubber import BotocoreStubber

from arena_core.adapters.dynamodb.limits import item_size
from arena_core.adapters.dynamodb.schema import GSI1PK, GSI2PK
from arena_core.observability import logger
from arena_core.services.publish_site import SCOPES
from arena_local.cost.probes import counting_http, counting_metrics

Handler = Callable[..., Any]
# Each publication scope on its own: a tick's leaderboard, the refresh window's live figures, the
# hourly, daily and weekly publications differ by far in what they read and write.
PUBLICATIONS = {scope.name: f"Publish{scope.name.title()}" for scope in SCOPES}
PENDING = "PublishPending"  # a publication under way, before its scope is known


@dataclass
class Usage:
    invocations: int = 0
    seconds: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)  # "service:Operation"
    read_units: float = 0.0
    write_units: float = 0.0
    put_bytes: Counter[str] = field(default_factory=Counter)  # S3 bytes written, by bucket
    site_uploads: int = 0  # site objects written by publishing (the manifest included)
    site_reads: int = 0  # site objects read back (the manifest, carried files)
    site_upload_bytes: int = 0  # what the uploads weigh: noncurrent versions once replaced
    log_bytes: int = 0
    prompts: int = 0  # decision prompts stored (one per model consultation)
    prompt_bytes: int = 0
    # Custom CloudWatch metrics (Powertools EMF) emitted: invocations that emitted each name.
    metrics: Counter[str] = field(default_factory=Counter)

    def add(self, other: Usage) -> None:
        """Fold another usage into this one (a publication, once its scope is known)."""
        self.invocations += other.invocations
        self.seconds += other.seconds
        self.requests.update(other.requests)
        self.read_units += other.read_units
        self.write_units += other.write_units
        self.put_bytes.update(other.put_bytes)
        self.site_uploads += other.site_uploads
        self.site_reads += other.site_reads
        self.site_upload_bytes += other.site_upload_bytes
        self.log_bytes += other.log_bytes
        self.prompts += other.prompts
        self.prompt_bytes += other.prompt_bytes
        self.metrics.update(other.metrics)

    def without(self, other: Usage) -> Usage:
        """This usage less ``other`` (metered over a part of the same span)."""
        return Usage(
            invocations=self.invocations - other.invocations,
            seconds=self.seconds - other.seconds,
            requests=self.requests - other.requests,
            read_units=self.read_units - other.read_units,
            write_units=self.write_units - other.write_units,
            put_bytes=self.put_bytes - other.put_bytes,
            site_uploads=self.site_uploads - other.site_uploads,
            site_reads=self.site_reads - other.site_reads,
            site_upload_bytes=self.site_upload_bytes - other.site_upload_bytes,
            log_bytes=self.log_bytes - other.log_bytes,
            prompts=self.prompts - other.prompts,
            prompt_bytes=self.prompt_bytes - other.prompt_bytes,
            metrics=self.metrics - other.metrics,
        )


def _write_units(item: Mapping[str, Any], factor: int = 1) -> float:
    units = math.ceil(max(item_size(item), 1) / 1024)
    indexed = sum(1 for key in (GSI1PK, GSI2PK) if key in item)
    return factor * units * (1 + indexed)


def _read_units(items: list[Mapping[str, Any]], factor: float = 1.0) -> float:
    size = sum(item_size(i) for i in items)
    return factor * max(1, math.ceil(size / 4096))


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
        return _read_units([parsed.get("Item") or {}], _consistency(params)), 0.0
    if operation == "Query":
        factor = 0.5 if "IndexName" in params else _consistency(params)
        return _read_units(parsed.get("Items", []), factor), 0.0
    if operation == "BatchGetItem":
        factor = min((_consistency(r) for r in params["RequestItems"].values()), default=1.0)
        found = [i for items in parsed.get("Responses", {}).values() for i in items]
        return sum(_read_units([i], factor) for i in found) or factor, 0.0
    return 0.0, 0.0


def _consistency(params: Mapping[str, Any]) -> float:
    """A read's units per 4 KB: 1 strongly consistent, 0.5 eventually (DynamoDB's default)."""
    return 1.0 if params.get("ConsistentRead") else 0.5


class Meter:
    def __init__(self) -> None:
        self.usage: dict[str, Usage] = {}
        self._stack: list[str] = ["Setup"]
        self._nested: list[float] = []  # seconds of the calls nested in each running one
        self._started: list[float] = []
        self._attached = False  # counting (``attached``): publications outside are not metered
        self._publishing: list[bool] = []  # each publication under way: whether it is metered

    def of(self, function: str) -> Usage:
        return self.usage.setdefault(function, Usage())

    def current(self) -> Usage:
        """The usage of the function (or publication) running now."""
        return self.of(self._stack[-1])

    def count(
        self,
        service: str,
        operation: str,
        params: Mapping[str, Any],
        parsed: Mapping[str, Any],
        size: int,
    ) -> None:
        """One call; ``size`` is its request body's, measured before botocore wraps it."""
        usage = self.current()
        usage.requests[f"{service}:{operation}"] += 1
        if service == "dynamodb":
            read, write = dynamodb_units(operation, params, parsed)
            usage.read_units += read
            usage.write_units += write
        elif service == "s3" and operation == "PutObject":
            usage.put_bytes[str(params.get("Bucket"))] += size
            if str(params.get("Key", "")).endswith("/prompt.txt"):
                usage.prompts += 1
                usage.prompt_bytes += size

    def enter(self, function: str) -> None:
        """Count what runs from now under ``function`` (until ``leave``)."""
        self.of(function).invocations += 1
        self._stack.append(function)
        self._nested.append(0.0)
        self._started.append(time.thread_time())

    def leave(self) -> None:
        """Close what ``enter`` opened: its own CPU seconds (the running thread's: what other
        work on the machine does not inflate; a nested publication's are its own, not counted
        twice)."""
        elapsed = time.thread_time() - self._started.pop()
        self.current().seconds += elapsed - self._nested.pop()
        self._stack.pop()
        if self._nested:
            self._nested[-1] += elapsed

    def publication_started(self) -> None:
        """A publication took the lease: metered under ``PENDING`` while the meter is
        attached (the warm-up's are not)."""
        self._publishing.append(self._attached)
        if self._attached:
            self.enter(PENDING)

    def publication_ended(self) -> None:
        if self._publishing.pop():
            self.leave()

    def wrap(self, function: str, handler: Handler) -> Handler:
        """Meter ``handler`` under ``function``: its calls and its own CPU seconds, and the
        publications it made under the scope its result names."""

        def metered(*args: Any, **kwargs: Any) -> Any:
            self.enter(function)
            try:
                result = handler(*args, **kwargs)
            finally:
                self.leave()
            self._publications(function, result)
            return result

        return metered

    def _publications(self, function: str, result: Any) -> None:
        """A publication the function made (metered under ``PENDING`` while it ran) under the
        scope it published, which its result names; one that published nothing stays the
        function's."""
        done = self.usage.pop(PENDING, None)
        if done is None:
            return
        scope = _site_scope(result)
        self.of(PUBLICATIONS.get(scope or "", function)).add(done)

    @contextmanager
    def attached(self, handlers: list[dict[str, Handler]]) -> Iterator[None]:
        """Count every boto3 call, log byte, metric, upstream request and statistics second
        while the demo runs, per function (``probes.py``)."""
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
        original_stub = BotocoreStubber.__call__

        def stub(stubber: BotocoreStubber, event_name: str, request: Any, **kwargs: Any) -> Any:
            """Embedded AWS answering: its work is the service's, not the function's (the
            deployed function waits for the answer instead, costed apart per request)."""
            started = time.thread_time()
            try:
                return original_stub(stubber, event_name, request, **kwargs)
            finally:
                if meter._nested:
                    meter._nested[-1] += time.thread_time() - started

        setattr(BotocoreStubber, "__call__", stub)  # noqa: B010
        saved = [dict(table) for table in handlers]
        for table in handlers:
            for name, handler in table.items():
                table[name] = self.wrap(name.removeprefix("Functions"), handler)
        self._attached = True
        try:
            with self._logs(), counting_metrics(self), counting_http(self):
                yield
        finally:
            self._attached = False
            for table, old in zip(handlers, saved, strict=True):
                table.update(old)
            setattr(BaseClient, "_make_api_call", original_call)  # noqa: B010
            setattr(BotocoreStubber, "__call__", original_stub)  # noqa: B010

    @contextmanager
    def _logs(self) -> Iterator[None]:
        """The JSON lines the handlers log at INFO (the deployed level), counted not shown."""
        meter = self

        class Counting(io.StringIO):
            def write(self, text: str) -> int:
                meter.current().log_bytes += len(text.encode())
                return len(text)

        handlers = [h for h in logger.handlers if hasattr(h, "setStream")]
        old = [h.setStream(Counting()) for h in handlers]
        try:
            yield
        finally:
            for handler, stream in zip(handlers, old, strict=True):
                handler.setStream(stream)


def _site_scope(result: Any) -> str | None:
    """The scope a function's result says it published (a snapshot's, or a run's Finalize's
    snapshot's)."""
    if not isinstance(result, Mapping):
        return None
    scope = result.get("site_scope")
    if scope is None and isinstance(result.get("snapshot"), Mapping):
        scope = result["snapshot"].get("site_scope")
    return scope if isinstance(scope, str) else None

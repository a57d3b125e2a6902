"""Run the synthesized decision state machine on embedded AWS (moto), in-process.

The definition is the one ``cdk synth`` produces (tokens resolved); moto's Step Functions
interpreter executes it and every Lambda task is routed to the real handler function in this
process. Used by the workflow tests, the fan-out benchmark and the local demo.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import boto3
from moto.awslambda_simple.models import LambdaSimpleBackend
from moto.dynamodb import models as moto_dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table as MotoTable
from moto.stepfunctions.responses import get_backend as stepfunctions_backend

from functions.decide import handler as decide_handler
from infra.app import build_app
from infra.validate import state_machine_definition

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
HANDLERS: dict[str, Handler] = {
    "FunctionsPrepare": decide_handler.prepare,
    "FunctionsDecide": decide_handler.decide,
    "FunctionsFinalize": decide_handler.finalize,
}
MOTO_CONFIG = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}


class LambdaCrash(BaseException):
    """The function's process died here (the demo's fault injection raises it).

    A ``BaseException`` so no ``except Exception`` in the code under test can swallow it: like
    a real crash, nothing after this point runs. Invoked through the state machine it is
    reported as Lambda reports a runtime that exited: ``Runtime.ExitError``.
    """


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


@dataclass
class LambdaContext:
    """The attributes Powertools reads from a Lambda context."""

    function_name: str = "arena-local"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:arena-local"
    aws_request_id: str = "local"


def synthesized_template(retry_interval_seconds: int = 1) -> dict[str, Any]:
    """The app's template, synthesized without building the layer (no Docker, no pip)."""
    context = {"aws:cdk:bundling-stacks": [], "arena:retryIntervalSeconds": retry_interval_seconds}
    app, stack = build_app(nag=False, context=context)
    template: dict[str, Any] = app.synth().get_stack_by_name(stack.stack_name).template
    return template


def invoke_in_process(handlers: dict[str, Handler]) -> Callable[..., str]:
    """A replacement for moto's Lambda invoke: call the handler, report errors like Lambda."""

    def invoke(
        self: Any,
        function_name: str,
        qualifier: Any,
        body: Any,
        headers: Any,
        response_headers: Any,
    ) -> str:
        name = function_name.rsplit(":function:", 1)[-1].split(":", maxsplit=1)[0]
        handler = next(h for prefix, h in handlers.items() if name.startswith(prefix))
        try:
            return json.dumps(handler(json.loads(body or "{}"), LambdaContext()))
        except LambdaCrash as crash:
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": "Runtime.ExitError", "errorMessage": str(crash)})
        except Exception as exc:
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": type(exc).__name__, "errorMessage": str(exc)})

    return invoke


@contextmanager
def routed_handlers(handlers: dict[str, Handler] = HANDLERS) -> Iterator[None]:
    original = LambdaSimpleBackend.invoke
    LambdaSimpleBackend.invoke = invoke_in_process(handlers)  # type: ignore[method-assign]
    try:
        yield
    finally:
        LambdaSimpleBackend.invoke = original  # type: ignore[method-assign]


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
    shim = _TableCopyShim(moto_dynamodb_models.copy)

    def transact(backend: Any, transact_items: list[dict[str, Any]]) -> None:
        backups = []
        for entry in transact_items:
            touched = _touched(backend, entry)
            if touched is not None:
                table, hash_key, range_key = touched
                item = table.items.get(hash_key, {}).get(range_key)
                backups.append((table, hash_key, range_key, copy.deepcopy(item)))
        real, moto_dynamodb_models.copy = moto_dynamodb_models.copy, shim  # type: ignore[assignment]
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
            moto_dynamodb_models.copy = real  # type: ignore[assignment]

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


POLL_SECONDS = 0.01


class LocalWorkflow:
    """The decision state machine created in moto from the synthesized definition."""

    def __init__(self, template: dict[str, Any], name: str = "decisions") -> None:
        self.client = boto3.client("stepfunctions", region_name="us-east-1")
        created = self.client.create_state_machine(
            name=name,
            definition=json.dumps(state_machine_definition(template)),
            roleArn="arn:aws:iam::123456789012:role/decisions",
        )
        self.arn: str = created["stateMachineArn"]

    def start(self, payload: dict[str, Any], name: str) -> str:
        """Start an execution (always named: moto needs it); returns its ARN."""
        started = self.client.start_execution(
            stateMachineArn=self.arn, name=name, input=json.dumps(payload)
        )
        arn: str = started["executionArn"]
        return arn

    def wait(self, execution_arn: str, timeout: float = 600) -> dict[str, Any]:
        """Wait until the execution ends; its description (from the API, once).

        The status is read from moto's backend object, not through the API: an API poll costs
        milliseconds of this interpreter's time (request, signing, moto's response
        serialization), and this interpreter also runs every handler of the execution being
        waited for. Polling the API every 20 ms took about a tenth of the CPU they need.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._status(execution_arn) != "RUNNING":
                described: dict[str, Any] = self.client.describe_execution(
                    executionArn=execution_arn
                )
                return described
            time.sleep(POLL_SECONDS)
        raise TimeoutError(f"execution {execution_arn} did not finish in {timeout:g}s")

    @staticmethod
    def _status(execution_arn: str) -> str:
        # arn:aws:states:<region>:<account>:execution:<machine>:<name>
        region, account = execution_arn.split(":")[3:5]
        execution = stepfunctions_backend(account, region).describe_execution(execution_arn)
        return str(execution.status)

    def run(self, payload: dict[str, Any], name: str, timeout: float = 600) -> dict[str, Any]:
        """Start an execution and wait for it to end."""
        return self.wait(self.start(payload, name), timeout)

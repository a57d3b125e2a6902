"""Run the synthesized decision state machine on embedded AWS (moto), in-process.

The definition is the one ``cdk synth`` produces (tokens resolved); moto's Step Functions
interpreter executes it and every Lambda task is routed to the real handler function in this
process. Used by the workflow tests, the fan-out benchmark and the local demo.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
from moto.awslambda_simple.models import LambdaSimpleBackend

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

    def run(self, payload: dict[str, Any], name: str, timeout: float = 600) -> dict[str, Any]:
        """Start an execution (always named: moto needs it) and wait for it to end."""
        started = self.client.start_execution(
            stateMachineArn=self.arn, name=name, input=json.dumps(payload)
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            described: dict[str, Any] = self.client.describe_execution(
                executionArn=started["executionArn"]
            )
            if described["status"] != "RUNNING":
                return described
            time.sleep(0.05)
        raise TimeoutError(f"execution {name} did not finish in {timeout:g}s")

"""Run the synthesized decision state machine on embedded AWS (moto), in-process.

The definition is the one ``cdk synth`` produces (tokens resolved); moto's Step Functions
interpreter executes it and every Lambda task is routed to the real handler function in this
process. Used by the workflow tests, the fan-out benchmark and the local demo.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
from moto.awslambda_simple.models import LambdaSimpleBackend
from moto.stepfunctions.responses import get_backend as stepfunctions_backend

from functions.decide import handler as decide_handler
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


@dataclass
class LambdaContext:
    """The attributes Powertools reads from a Lambda context."""

    function_name: str = "arena-local"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:arena-local"
    aws_request_id: str = "local"


def synthesized_template(retry_interval_seconds: int = 1) -> dict[str, Any]:
    """The app's template, synthesized without building the layer (no Docker, no pip)."""
    from infra.app import build_app  # noqa: PLC0415 - the CDK only where a template is needed

    context = {"aws:cdk:bundling-stacks": [], "arena:retryIntervalSeconds": retry_interval_seconds}
    app, stack = build_app(nag=False, context=context)
    template: dict[str, Any] = app.synth().get_stack_by_name(stack.stack_name).template
    return template


def lambda_error(exc: BaseException) -> dict[str, Any]:
    """An unhandled exception as the Python runtime reports it (the cause a Catch keeps)."""
    frames = traceback.format_list(traceback.extract_tb(exc.__traceback__))
    return {
        "errorMessage": str(exc),
        "errorType": type(exc).__name__,
        "requestId": "local",
        "stackTrace": frames,
    }


THROTTLED = {"errorType": "Lambda.TooManyRequestsException", "errorMessage": "Rate Exceeded."}


class AccountConcurrency:
    """The account's concurrent executions (a new account's may be as low as 10): an invocation
    beyond ``limit`` running at once is throttled, as Lambda does; ``throttled`` counts them."""

    def __init__(self, limit: int) -> None:
        self.limit, self.running, self.throttled, self.peak = limit, 0, 0, 0
        self._lock = threading.Lock()

    def enter(self) -> bool:
        with self._lock:
            if self.running >= self.limit:
                self.throttled += 1
                return False
            self.running += 1
            self.peak = max(self.peak, self.running)
            return True

    def leave(self) -> None:
        with self._lock:
            self.running -= 1


def invoke_in_process(
    handlers: dict[str, Handler], concurrency: AccountConcurrency | None = None
) -> Callable[..., str]:
    """A replacement for moto's Lambda invoke: call the handler, report errors like Lambda
    (and throttle beyond the account's ``concurrency``, when given)."""

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
        if concurrency is not None and not concurrency.enter():
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps(THROTTLED)
        try:
            return json.dumps(handler(json.loads(body or "{}"), LambdaContext()))
        except LambdaCrash as crash:
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": "Runtime.ExitError", "errorMessage": str(crash)})
        except Exception as exc:
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps(lambda_error(exc))
        finally:
            if concurrency is not None:
                concurrency.leave()

    return invoke


@contextmanager
def routed_handlers(
    handlers: dict[str, Handler] = HANDLERS, concurrency: AccountConcurrency | None = None
) -> Iterator[None]:
    original = LambdaSimpleBackend.invoke
    LambdaSimpleBackend.invoke = invoke_in_process(handlers, concurrency)  # type: ignore[method-assign]
    try:
        yield
    finally:
        LambdaSimpleBackend.invoke = original  # type: ignore[method-assign]


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

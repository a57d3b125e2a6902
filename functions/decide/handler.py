"""The decision workflow's steps: prepare (agents and universe), decide (one agent), finalize.

Each step fails with its error's type and a bounded message (``bounded_failures``): what a
failed agent leaves in the run's state stays small, however long the error was."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from arena_core import bootstrap, entrypoints
from arena_core.observability import logger, tracer
from arena_core.workflow import (
    DecideInput,
    FinalizeInput,
    RunInput,
    bounded_failures,
    parse_event,
)


@logger.inject_lambda_context(log_event=True)
@tracer.capture_lambda_handler
@bounded_failures
def prepare(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    prepared = entrypoints.prepare(bootstrap.container(), parse_event(RunInput, event))
    logger.info("prepared", extra={"agents": len(prepared.items), "markets": prepared.markets})
    return prepared.model_dump(mode="json")


@logger.inject_lambda_context(log_event=True, correlation_id_path="agent_id")
@tracer.capture_lambda_handler
@bounded_failures
def decide(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.decide(bootstrap.container(), parse_event(DecideInput, event))
    # Fallbacks, rejected trades and upstream retries are in this line (no custom metric).
    logger.info("decided", extra={"result": result.model_dump(mode="json")})
    return result.model_dump(mode="json")


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler
@bounded_failures
def finalize(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.finalize(bootstrap.container(), parse_event(FinalizeInput, event))
    logger.info("finalized", extra={"decisions": result.decisions, "undecided": result.undecided})
    return result.model_dump(mode="json")

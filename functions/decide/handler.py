"""The decision workflow's steps: prepare (agents and universe), decide (one agent), finalize."""

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from arena_core import bootstrap
from arena_core.events import DecideItem, DecisionRunInput, FinalizeInput
from arena_core.observability import logger, metrics, tracer
from arena_core.services import entrypoints


@logger.inject_lambda_context(log_event=True)
@tracer.capture_lambda_handler
def prepare(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    prepared = entrypoints.prepare(bootstrap.container(), DecisionRunInput.model_validate(event))
    logger.info(
        "prepared", extra={"agents": len(prepared["items"]), "markets": prepared["markets"]}
    )
    return prepared


@logger.inject_lambda_context(log_event=True, correlation_id_path="agent_id")
@tracer.capture_lambda_handler
@metrics.log_metrics
def decide(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.decide(bootstrap.container(), DecideItem.model_validate(event))
    metrics.add_metric(name="Decisions", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="Fallbacks", unit=MetricUnit.Count, value=int(result["fallback"]))
    metrics.add_metric(name="RejectedTrades", unit=MetricUnit.Count, value=result["rejected"])
    metrics.add_metric(
        name="UpstreamRetries", unit=MetricUnit.Count, value=result["upstream_retries"]
    )
    logger.info("decided", extra={"result": result})
    return result


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler
@metrics.log_metrics
def finalize(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.finalize(bootstrap.container(), FinalizeInput.model_validate(event))
    seconds = result["snapshot"]["seconds"]
    metrics.add_metric(name="SnapshotDuration", unit=MetricUnit.Seconds, value=seconds)
    logger.info("finalized", extra={"decisions": result["decisions"]})
    return result

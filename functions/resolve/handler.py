"""Hourly: settle what Polymarket has resolved, complete finished cohorts, publish the site."""

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from arena_core import bootstrap
from arena_core.observability import logger, metrics, tracer
from arena_core.services import entrypoints


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.resolve(bootstrap.container())
    settled = sum(result["settled"].values())
    metrics.add_metric(name="PositionsSettled", unit=MetricUnit.Count, value=settled)
    logger.info("resolved", extra={"result": result})
    return result

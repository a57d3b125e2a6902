"""Hourly: settle what Polymarket has resolved, complete finished cohorts, publish the site."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from arena_core import bootstrap, entrypoints
from arena_core.constants import Metric
from arena_core.observability import count, logger, metrics, tracer


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.resolve(bootstrap.container())
    count(Metric.POSITIONS_SETTLED, sum(result.settled.values()))
    logger.info("resolved", extra={"result": result.model_dump(mode="json")})
    return result.model_dump(mode="json")

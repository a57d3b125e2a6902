"""Sunday 00:00 UTC: open the week's cohort (idempotent under duplicate deliveries)."""

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
    result = entrypoints.open_cohort(bootstrap.container())
    metrics.add_metric(name="CohortsOpened", unit=MetricUnit.Count, value=int(result["created"]))
    logger.info("cohort", extra={"result": result})
    return result

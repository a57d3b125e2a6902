"""Every 10 minutes: mark every active portfolio to market, then publish the site."""

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
    result = entrypoints.snapshot_and_publish(bootstrap.container())
    metrics.add_metric(name="SnapshotDuration", unit=MetricUnit.Seconds, value=result["seconds"])
    metrics.add_metric(name="Snapshots", unit=MetricUnit.Count, value=1)
    metrics.add_metric(
        name="StalePositions", unit=MetricUnit.Count, value=result["stale_positions"]
    )
    logger.info("snapshot", extra={"result": result})
    return result

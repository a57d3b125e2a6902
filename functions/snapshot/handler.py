"""Every 10 minutes: mark every active portfolio to market, then publish the site."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from arena_core import bootstrap, entrypoints
from arena_core.observability import logger, tracer


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.snapshot_and_publish(bootstrap.container())
    # One JSON line per pass (seconds, stale positions, what was published): no custom metric.
    logger.info("snapshot", extra={"result": result.model_dump(mode="json")})
    return result.model_dump(mode="json")

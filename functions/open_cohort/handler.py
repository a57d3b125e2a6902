"""Sunday 00:00 UTC: open the week's cohort (idempotent under duplicate deliveries)."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from arena_core import bootstrap, entrypoints
from arena_core.observability import logger, tracer


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    result = entrypoints.open_cohort(bootstrap.container())
    logger.info("cohort", extra={"result": result.model_dump(mode="json")})
    return result.model_dump(mode="json")

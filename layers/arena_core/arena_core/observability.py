"""Powertools Logger and Tracer shared by every handler (one instance per process).

No Powertools Metrics: the handlers emit no custom CloudWatch metric (see ``constants``); each
logs its result as one JSON line, which Logs Insights queries.

The Powertools Tracer imports the X-Ray SDK (and botocore's documentation modules) when it is
built: about 250 ms measured in bench/bench_cold_start.py. It is therefore built on the first
invocation instead of at import, and does not auto-patch libraries; every invocation is still
traced end to end by ``capture_lambda_handler`` and by Lambda's active tracing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools import Logger

from arena_core.constants import SERVICE_NAME

logger = Logger(service=SERVICE_NAME)

Handler = TypeVar("Handler", bound=Callable[..., Any])


class LazyTracer:
    """``capture_lambda_handler`` with the Powertools Tracer created at first use."""

    @functools.cached_property
    def tracer(self) -> Any:
        from aws_lambda_powertools import Tracer  # noqa: PLC0415 - deferred on purpose

        return Tracer(service=SERVICE_NAME, auto_patch=False)

    def capture_lambda_handler(self, handler: Handler) -> Handler:
        @functools.wraps(handler)
        def traced(event: Any, context: Any) -> Any:
            return self.tracer.capture_lambda_handler(handler)(event, context)

        return traced  # type: ignore[return-value]


tracer = LazyTracer()

"""What the meter listens to besides boto3: each a context manager that patches one seam for
as long as the meter is attached, and counts under the function running (``Meter.current``).

- custom CloudWatch metrics the handlers emit (Powertools ``Metrics.add_metric``);
- the leaderboards' statistics (``site.boards.build``), timed (their time grows with the
  history's forecasts);
- requests to the upstream APIs (Polymarket, the model's server) over httpx: a deployed
  function waits for each over the internet, which an in-process run does not.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import httpx
from aws_lambda_powertools import Metrics

from arena_core.publication import collect

if TYPE_CHECKING:
    from arena_local.cost.meter import Meter


@contextmanager
def counting_metrics(meter: Meter) -> Iterator[None]:
    original = Metrics.add_metric

    def add_metric(metrics: Metrics, name: str, *args: Any, **kwargs: Any) -> None:
        meter.current().metrics[name] += 1
        original(metrics, name, *args, **kwargs)

    setattr(Metrics, "add_metric", add_metric)  # noqa: B010
    try:
        yield
    finally:
        setattr(Metrics, "add_metric", original)  # noqa: B010


@contextmanager
def timing_statistics(meter: Meter) -> Iterator[None]:
    original = getattr(collect, "build")  # noqa: B009 - patched while metering

    def build(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            meter.current().statistics_seconds += time.thread_time() - started

    setattr(collect, "build", build)  # noqa: B010
    try:
        yield
    finally:
        setattr(collect, "build", original)  # noqa: B010


@contextmanager
def counting_http(meter: Meter) -> Iterator[None]:
    original = httpx.Client.send

    def send(client: httpx.Client, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        meter.current().requests[f"http:{request.url.host}"] += 1
        return original(client, request, **kwargs)

    setattr(httpx.Client, "send", send)  # noqa: B010
    try:
        yield
    finally:
        setattr(httpx.Client, "send", original)  # noqa: B010

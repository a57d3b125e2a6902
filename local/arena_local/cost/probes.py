"""What the meter listens to besides boto3: each a context manager that patches one seam for
as long as the meter is attached, and counts under the function running (``Meter.current``).

- custom CloudWatch metrics the handlers emit (Powertools ``Metrics.add_metric``);
- requests to the upstream APIs (Polymarket, the model's server) over httpx: a deployed
  function waits for each over the internet, which an in-process run does not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import httpx
from aws_lambda_powertools import Metrics


class Counts(Protocol):
    metrics: Counter[str]
    requests: Counter[str]


class Meter(Protocol):
    """What a probe counts under: the usage of the function running now."""

    def current(self) -> Counts: ...


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

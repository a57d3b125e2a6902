"""The deployment's cost lines per month: occurrences (``model.counts``) times what the metered
sample says each costs (``steady.py``), plus what the sample cannot see, each named as such in
``prices-us-east-1.json``'s assumptions. The lines by service: ``compute_lines``,
``storage_lines``, ``service_lines``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena_local.cost.compute_lines import lambda_lines
from arena_local.cost.model import Line, counts
from arena_local.cost.service_lines import monitoring_lines, other_lines
from arena_local.cost.steady import Measured
from arena_local.cost.storage_lines import dynamodb_lines, s3_lines


def all_lines(
    template: dict[str, Any],
    measured: Measured,
    prices: dict[str, Any],
    *,
    occurrences: dict[str, float] | None = None,
) -> list[Line]:
    """Every line; ``occurrences`` (per month, by function and publication) instead of the
    template's and the cadence's (a metered span's own counts, to compare with)."""
    n = occurrences if occurrences is not None else counts(template, measured.usage)
    return [
        *lambda_lines(template, measured, prices, n),
        *dynamodb_lines(measured, prices, n),
        *s3_lines(measured, prices, n),
        *monitoring_lines(template, measured, prices, n),
        *other_lines(template, measured, prices, n),
    ]


def line_map(lines: Iterable[Line]) -> dict[str, Line]:
    return {f"{line.service} {line.what}": line for line in lines}

"""Server-side SVG charts: equity curves per time range (the reliability diagram is in
``reliability``).

Series are downsampled per range before drawing, so page weight does not grow with history.
The SVGs use presentation attributes only (no inline style), so pages pass a strict CSP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

RANGES: tuple[tuple[str, timedelta | None], ...] = (
    ("10M", timedelta(minutes=10)),
    ("1H", timedelta(hours=1)),
    ("1D", timedelta(days=1)),
    ("1W", timedelta(weeks=1)),
    ("1M", timedelta(days=30)),
    ("ALL", None),
)
MAX_POINTS = 120  # a 640-pixel chart gains nothing from more; keeps pages flat with history
WIDTH, HEIGHT, PAD = 640, 220, 36


@dataclass(frozen=True)
class Point:
    at: datetime
    value: Decimal


@dataclass(frozen=True)
class RangeChart:
    """One range of a chart: its label, the points drawn and the SVG polyline."""

    label: str
    points: tuple[Point, ...]
    polyline: str
    y_min: Decimal
    y_max: Decimal
    start: datetime | None
    end: datetime | None


def downsample(points: Sequence[Point], limit: int = MAX_POINTS) -> list[Point]:
    """At most ``limit`` points, evenly strided, always keeping the first and the last."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def window(points: Sequence[Point], now: datetime, span: timedelta | None) -> list[Point]:
    if span is None:
        return list(points)
    start = now - span
    return [p for p in points if start <= p.at <= now]


def polyline(points: Sequence[Point]) -> tuple[str, Decimal, Decimal]:
    """SVG coordinates for the points, scaled to the chart box, and the value range shown."""
    if not points:
        return "", Decimal(0), Decimal(0)
    low = min(p.value for p in points)
    high = max(p.value for p in points)
    span_v = (high - low) or Decimal(1)
    t0, t1 = points[0].at.timestamp(), points[-1].at.timestamp()
    span_t = (t1 - t0) or 1.0
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    coords = []
    for point in points:
        x = PAD + inner_w * (point.at.timestamp() - t0) / span_t
        y = PAD + inner_h * float((high - point.value) / span_v)
        coords.append(f"{x:.1f},{y:.1f}")
    return " ".join(coords), low, high


def range_charts(series: dict[str, Sequence[Point]], now: datetime) -> list[RangeChart]:
    """One chart per range; ``series`` maps a range label to the points to cut it from."""
    charts = []
    for label, span in RANGES:
        points = downsample(window(series[label], now, span))
        line, low, high = polyline(points)
        charts.append(
            RangeChart(
                label=label,
                points=tuple(points),
                polyline=line,
                y_min=low,
                y_max=high,
                start=points[0].at if points else None,
                end=points[-1].at if points else None,
            )
        )
    return charts

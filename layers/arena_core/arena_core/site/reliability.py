"""The reliability diagram's geometry: a family's bins and the market's on the same forecasts.

Each non-empty bin is a point at (mean forecast, observed frequency of YES) with its Wilson 95%
interval as a vertical bar, and its count is written above the plot over the bin's middle (so
counts of neighbouring bins never overlap); the market's bins are drawn as open
squares. Axes run 0 to 1 with labelled ticks every 0.2. Presentation attributes only (no inline
style), so the page passes a strict CSP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena_core.scoring.reliability import ReliabilityBin

SIZE = 240  # the plot square, in SVG units
LEFT, TOP = 56, 30  # room for the value axis' ticks and label, and above for the counts row
WIDTH, HEIGHT = LEFT + SIZE + 24, TOP + SIZE + 48  # room below for ticks and the axis label
TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
MIN_RADIUS, MAX_RADIUS = 3.0, 9.0


@dataclass(frozen=True)
class Tick:
    value: float
    x: float  # position on the horizontal axis
    y: float  # position on the vertical axis


@dataclass(frozen=True)
class DiagramPoint:
    bin: ReliabilityBin
    cx: float
    cy: float
    bar_top: float  # the Wilson interval's upper end
    bar_bottom: float
    r: float
    count_x: float  # where its count is written, in the row above the plot: the bin's middle


@dataclass(frozen=True)
class ReliabilityDiagram:
    model: tuple[DiagramPoint, ...]
    market: tuple[DiagramPoint, ...]
    ticks: tuple[Tick, ...]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    top: int = TOP
    size: int = SIZE

    @property
    def forecasts(self) -> int:
        return sum(p.bin.count for p in self.model)


def x_of(value: float) -> float:
    return round(LEFT + value * SIZE, 1)


def y_of(value: float) -> float:
    return round(TOP + (1.0 - value) * SIZE, 1)


def _points(bins: Sequence[ReliabilityBin], total: int) -> tuple[DiagramPoint, ...]:
    return tuple(
        DiagramPoint(
            bin=b,
            cx=x_of(b.mean_forecast),
            cy=y_of(b.observed),
            bar_top=y_of(b.wilson_high),
            bar_bottom=y_of(b.wilson_low),
            r=round(MIN_RADIUS + (MAX_RADIUS - MIN_RADIUS) * (b.count / total) ** 0.5, 1),
            count_x=x_of((b.low + b.high) / 2),
        )
        for b in bins
    )


def reliability_diagram(
    bins: Sequence[ReliabilityBin], market_bins: Sequence[ReliabilityBin]
) -> ReliabilityDiagram:
    """The diagram of a family's bins beside the market's (points sized by count)."""
    total = max(1, sum(b.count for b in bins))
    return ReliabilityDiagram(
        model=_points(bins, total),
        market=_points(market_bins, total),
        ticks=tuple(Tick(t, x_of(t), y_of(t)) for t in TICKS),
    )

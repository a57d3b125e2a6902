"""Server-side SVG charts that can be read: dated time ticks, value ticks with units, one or
several labelled series, and every point's value on hover (an SVG ``<title>``).

A chart has ranges (10M ... ALL). Each range draws the finest points available for it: when
the resolution a range normally reads has fewer than two points in its window (the ALL chart
of a young deployment has a single weekly point), it falls back to the next finer resolution
that has them, and says so. Series are downsampled per range, so page weight does not grow
with history. Presentation attributes only (no inline style), so pages pass a strict CSP.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from operator import attrgetter
from typing import NamedTuple, TypeVar

from arena_core.site.axes import Tick, anchored, time_ticks, value_ticks

T = TypeVar("T")

RANGES: tuple[tuple[str, timedelta | None], ...] = (
    ("10M", timedelta(minutes=10)),
    ("1H", timedelta(hours=1)),
    ("1D", timedelta(days=1)),
    ("1W", timedelta(weeks=1)),
    ("1M", timedelta(days=30)),
    ("ALL", None),
)
RESOLUTIONS = ("raw", "hour", "6h", "day", "week")  # finest first
RESOLUTION_NAMES = {
    "raw": "10-minute",
    "hour": "hourly",
    "6h": "6-hourly",
    "day": "daily",
    "week": "weekly",
}
MAX_POINTS = 120  # per series: a chart this wide gains nothing from more
HOVER_MARKS = 40  # points per series that say their value on hover (page weight stays low)
# Drawn as wide as the page's column (1,192 px at most) so that a tick's 18 units are about
# 22 px there; a phone scrolls the figure sideways from 600 px rather than shrink its text.
WIDTH, HEIGHT = 960, 320
FONT = 18  # the tick labels' size in the chart's units (events: EVENT_FONT)
EVENT_FONT = 14
LEFT, RIGHT, TOP, BOTTOM = 112, 24, 20, 56  # the plot area's margins (axis labels outside)
PALETTE = (
    "#1f5fbf",
    "#c2410c",
    "#15803d",
    "#7e22ce",
    "#b91c1c",
    "#0e7490",
    "#a16207",
    "#be185d",
    "#4d7c0f",
    "#475569",
    "#9333ea",
    "#0f766e",
)


class Point(NamedTuple):
    """One value at one time (a tuple: a month of a family's hourly points is made every
    publication)."""

    at: datetime
    value: Decimal


@dataclass(frozen=True)
class Mark:
    """One drawn point: where, and what hovering it says."""

    x: float
    y: float
    title: str


@dataclass(frozen=True)
class DrawnSeries:
    name: str
    color: str
    polyline: str
    marks: tuple[Mark, ...]


@dataclass(frozen=True)
class RangeChart:
    """One range of a chart as drawn: its series, axes and the note on its resolution."""

    label: str
    series: tuple[DrawnSeries, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    start: datetime | None
    end: datetime | None
    points: int  # over every series
    note: str = ""  # e.g. "hourly points: fewer than two weekly ones yet"
    events: tuple[Tick, ...] = ()  # marked instants (a lineup release), placed on the time axis
    width: int = WIDTH
    height: int = HEIGHT
    font: int = FONT
    event_font: int = EVENT_FONT

    @property
    def plot(self) -> tuple[int, int, int, int]:
        """The plot area: left, top, right, bottom."""
        return LEFT, TOP, self.width - RIGHT, self.height - BOTTOM


def downsample(points: Sequence[T], limit: int = MAX_POINTS) -> list[T]:
    """At most ``limit`` points, evenly strided, always keeping the first and the last."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


class InTimeOrder(list[Point]):
    """Points known to be in time order (a family's series): a range's window of them is
    found by bisection, not by reading every point of a month for each range."""


def window(points: Sequence[Point], end: datetime, span: timedelta | None) -> list[Point]:
    """The points from ``end - span`` to ``end`` (both included), in their order."""
    start = None if span is None else end - span
    if isinstance(points, InTimeOrder):
        low = 0 if start is None else bisect_left(points, start, key=attrgetter("at"))
        return list(points[low : bisect_right(points, end, key=attrgetter("at"))])
    return [p for p in points if (start is None or start <= p.at) and p.at <= end]


def _fmt(value: Decimal, unit: str) -> str:
    if unit == "$":
        return f"${value:,.2f}"
    if unit == "%":
        return f"{value:,.2f}%"
    return f"{value:.3f}"


def draw(
    label: str,
    named: Sequence[tuple[str, Sequence[Point]]],
    unit: str,
    *,
    note: str = "",
    events: Sequence[tuple[datetime, str]] = (),
) -> RangeChart:
    """Draw series (each already cut to the range) on shared axes."""
    shown = [(name, downsample(points)) for name, points in named if points]
    every = [p for _, points in shown for p in points]
    if not every:
        return RangeChart(label, (), (), (), None, None, 0, note)
    t0, t1 = min(p.at for p in every), max(p.at for p in every)
    y_ticks, low, high = value_ticks([p.value for p in every], unit)
    left, top, right, bottom = LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM
    span_t = (t1 - t0).total_seconds() or 1.0
    span_v = float(high - low) or 1.0

    def x_of(at: datetime) -> float:
        return left + (right - left) * (at - t0).total_seconds() / span_t

    def y_of(value: Decimal) -> float:
        return bottom - (bottom - top) * float(value - low) / span_v

    drawn = []
    for index, (name, points) in enumerate(shown):
        placed = [(round(x_of(p.at), 1), round(y_of(p.value), 1), p) for p in points]
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in placed)
        # Only the points that say their value on hover are given their text.
        hover = tuple(
            Mark(x, y, f"{name}: {_fmt(p.value, unit)} at {p.at:%Y-%m-%d %H:%M} UTC")
            for x, y, p in downsample(placed, HOVER_MARKS)
        )
        drawn.append(DrawnSeries(name, PALETTE[index % len(PALETTE)], line, hover))
    x_ticks = tuple(
        Tick(round(x_of(at), 1), text, anchored(x_of(at), left, right))
        for at, text in time_ticks(t0, t1)
        if t0 <= at <= t1
    )
    y_placed = tuple(Tick(round(y_of(Decimal(str(t.position))), 1), t.label) for t in y_ticks)
    # An event's label runs away from the nearer edge, so one at the end ("resolved: Yes")
    # is not cut off by the frame.
    marked = tuple(
        Tick(round(x_of(at), 1), text, "end" if x_of(at) > (left + right) / 2 else "start")
        for at, text in events
        if t0 <= at <= t1
    )
    return RangeChart(label, tuple(drawn), x_ticks, y_placed, t0, t1, len(every), note, marked)


Fetch = Mapping[str, Sequence[Point]]  # resolution -> points (a series' several resolutions)


ALL_LIGHT = 240  # points per series the ALL range may read before a coarser resolution


def _covers(points: Sequence[Point], start: datetime, step: timedelta) -> bool:
    return bool(points) and points[0].at <= start + step


def all_resolution(series: Sequence[tuple[str, Fetch]], coarsest: str) -> str:
    """The finest resolution whose points cover every series' whole history and stay light
    (at most ``ALL_LIGHT`` a series): hourly for a fortnight, daily for months, weekly after.
    A long history (many weekly points) is read weekly without looking at the finer ones, so
    what a publication reads stays flat with history."""
    weekly = max((len(f.get("week", ())) for _, f in series), default=0)
    if coarsest not in ("week",) or weekly * 7 > ALL_LIGHT:
        return coarsest
    steps = {
        "raw": timedelta(minutes=10),
        "hour": timedelta(hours=1),
        "6h": timedelta(hours=6),  # two weeks hourly is 336 points, six-hourly 56
        "day": timedelta(days=1),
    }
    starts = [p.at for _, f in series for r in ("day", "week") for p in f.get(r, ())[:1]]
    if not starts:
        return coarsest
    first = min(starts)
    for resolution, step in steps.items():
        found = [f.get(resolution, ()) for _, f in series]
        light = all(len(points) <= ALL_LIGHT for points in found)
        if light and all(_covers(p, first, step) for p in found if p) and any(found):
            return resolution
    return coarsest


def range_charts(
    series: Sequence[tuple[str, Fetch]],
    end: datetime,
    unit: str,
    uses: Mapping[str, str],
    events: Sequence[tuple[datetime, str]] = (),
    *,
    origins: Mapping[str, Point] | None = None,
) -> list[RangeChart]:
    """One chart per range. ``uses`` maps a range label to the resolution it normally reads
    (ALL: the finest that covers the whole history and stays light, ``all_resolution``); a
    range whose series have fewer than two points there falls back to finer resolutions
    (``RESOLUTIONS`` order) until one has them. ``origins``: where a series begins (a family's
    $0 at its first cohort's open), the ALL range's first point when its points start later
    (a bucket's point is its last: the first daily one is a day after the start)."""
    charts = []
    for label, span in RANGES:
        wanted = uses[label] if label != "ALL" else all_resolution(series, uses[label])
        finer = list(reversed(RESOLUTIONS[: RESOLUTIONS.index(wanted) + 1]))
        chosen, cut = wanted, [(n, window(f.get(wanted, ()), end, span)) for n, f in series]
        for resolution in finer:
            cut = [(n, window(f.get(resolution, ()), end, span)) for n, f in series]
            chosen = resolution
            if max((len(points) for _, points in cut), default=0) >= 2:
                break
        if label == "ALL" and origins:
            cut = [(n, _from_origin(points, origins.get(n))) for n, points in cut]
        note = ""
        if chosen != wanted:
            note = (
                f"{RESOLUTION_NAMES[chosen]} points: fewer than two "
                f"{RESOLUTION_NAMES[wanted]} ones in this range so far"
            )
        charts.append(draw(label, cut, unit, note=note, events=events))
    return charts


def _from_origin(points: list[Point], origin: Point | None) -> list[Point]:
    if origin is None or (points and points[0].at <= origin.at):
        return points
    return [origin, *points]

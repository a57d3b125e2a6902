"""Axis ticks a reader can use: dated time ticks at round intervals, and value ticks at round
numbers (1, 2 or 5 times a power of ten) with their unit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

MAX_TIME_TICKS = 5  # a narrow screen has room for about five dates
MIN_TIME_TICKS = 3  # fewer, and a reader cannot tell the spacing
VALUE_TICKS = 5
STEPS = (
    timedelta(minutes=10),
    timedelta(minutes=30),
    timedelta(hours=1),
    timedelta(hours=3),
    timedelta(hours=6),
    timedelta(hours=12),
    timedelta(days=1),
    timedelta(days=2),
    timedelta(days=3),
    timedelta(days=4),
    timedelta(weeks=1),
    timedelta(weeks=2),
    timedelta(weeks=4),
    timedelta(weeks=13),
    timedelta(weeks=26),
    timedelta(weeks=52),
)
EPOCH = datetime(2000, 1, 2, tzinfo=UTC)  # a Sunday: weekly ticks fall on Sundays


@dataclass(frozen=True)
class Tick:
    position: float  # the value (or time) before placement, then the pixel once drawn
    label: str
    anchor: str = "middle"  # text-anchor: "start" or "end" keep a label by an edge inside


def _time_label(at: datetime, step: timedelta, span: timedelta) -> str:
    if step < timedelta(days=1):
        return at.strftime("%H:%M") if span <= timedelta(days=1) else at.strftime("%b %d %H:%M")
    return at.strftime("%b %d") if span < timedelta(days=300) else at.strftime("%b %d, %Y")


def _instants(start: datetime, end: datetime, step: timedelta) -> list[datetime]:
    first = EPOCH + math.ceil((start - EPOCH) / step) * step
    found = []
    at = first
    while at <= end:
        found.append(at)
        at += step
    return found


def time_ticks(start: datetime, end: datetime) -> list[tuple[datetime, str]]:
    """Round instants between start and end, labelled: the coarsest step that gives at most
    ``MAX_TIME_TICKS`` of them, or a finer one when that leaves fewer than ``MIN_TIME_TICKS``;
    a single instant (or no round one) gives the two ends."""
    span = end - start
    if span <= timedelta(0):
        return [(start, start.strftime("%b %d %H:%M"))]
    index = next((i for i, s in enumerate(STEPS) if span / s <= MAX_TIME_TICKS), len(STEPS) - 1)
    found = _instants(start, end, STEPS[index])
    while len(found) < MIN_TIME_TICKS and index > 0:
        index -= 1
        finer = _instants(start, end, STEPS[index])
        if len(finer) > MAX_TIME_TICKS + 2:
            break
        found = finer
    step = STEPS[index]
    if len(found) < 2:
        fmt = "%b %d %H:%M"
        return [(start, start.strftime(fmt)), (end, end.strftime(fmt))]
    return [(at, _time_label(at, step, span)) for at in found]


def _nice_step(raw: float) -> float:
    exponent = math.floor(math.log10(raw))
    base = 10.0**exponent
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * base:
            return factor * base
    return 10 * base


def _places(step: float) -> int:
    """The decimals a step needs to be written exactly (0.025: 3; 0.5: 1; 20: 0)."""
    exponent = Decimal(repr(step)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _label(value: float, unit: str, step: float) -> str:
    places = _places(step)
    if unit == "$":
        text = f"{abs(value):,.{places}f}"
        return f"-${text}" if value < 0 else f"${text}"
    if unit == "%":
        return f"{value:,.{places}f}%"
    return f"{value:.{max(places, 1)}f}"


EDGE = 36  # chart units: a tick label centred closer than this to an edge would be clipped


def anchored(position: float, left: float, right: float) -> str:
    """How to anchor a time label at ``position`` so it stays inside [left, right]."""
    if position > right - EDGE:
        return "end"
    return "start" if position < left + EDGE else "middle"


def value_ticks(values: Sequence[Decimal], unit: str) -> tuple[list[Tick], Decimal, Decimal]:
    """Round ticks spanning the values, and the axis' low and high ends (round too)."""
    low, high = float(min(values)), float(max(values))
    if high == low:
        pad = abs(low) * 0.05 or 1.0
        low, high = low - pad, high + pad
    step = _nice_step((high - low) / (VALUE_TICKS - 1))
    bottom = math.floor(low / step) * step
    top = math.ceil(high / step) * step
    count = round((top - bottom) / step)
    ticks = [
        Tick(bottom + i * step, _label(bottom + i * step, unit, step)) for i in range(count + 1)
    ]
    return ticks, Decimal(str(bottom)), Decimal(str(top))

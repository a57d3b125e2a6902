"""A market page's price chart names the outcome it plots, draws every hourly mark the arena
took with the weekly captures, and ends at the resolution: a point at what a share of that
outcome paid and a mark on the time axis (issue 28 §2)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from arena_core.domain.market import ResolutionKind
from arena_core.domain.market_record import Capture, MarketRecord
from arena_core.site.charts import ALL_LIGHT, Point
from arena_core.site.markets import MarketView, price_charts
from tests.support.builders import WEEK0, binary, resolved


def view(kind: ResolutionKind | None, winner: str | None = None) -> MarketView:
    market = binary("m1", "0.30")
    captures = [
        Capture.of(binary("m1", price), WEEK0 + timedelta(weeks=week))
        for week, price in enumerate(("0.30", "0.45"))
    ]
    if kind is None:
        return MarketView(MarketRecord(market=market), captures)
    record = MarketRecord(
        market=resolved(market, kind, winner), resolved_at=WEEK0 + timedelta(days=10)
    )
    return MarketView(record, captures)


@pytest.mark.parametrize(
    ("kind", "winner", "paid", "mark"),
    [
        (ResolutionKind.WINNER, "Yes", Decimal(1), "resolved: Yes won"),
        (ResolutionKind.WINNER, "No", Decimal(0), "resolved: No won"),
        (ResolutionKind.SPLIT, None, Decimal("0.5"), "resolved: 50/50 split"),
    ],
)
def test_the_chart_ends_at_what_a_share_paid_with_a_mark(
    kind: ResolutionKind, winner: str | None, paid: Decimal, mark: str
) -> None:
    (chart,) = price_charts(view(kind, winner))
    (series,) = chart.series
    assert series.name == "Yes"  # the outcome plotted
    assert chart.points == 3
    assert chart.end == WEEK0 + timedelta(days=10)
    assert [event.label for event in chart.events] == [mark]
    assert series.marks[-1].title.startswith(f"Yes: {paid:.2f}")
    assert chart.events[0].position == series.marks[-1].x  # the mark sits on the last point


def test_a_refund_is_marked_without_a_price_and_an_open_market_ends_at_its_last_capture() -> None:
    (refunded,) = price_charts(view(ResolutionKind.INDETERMINATE))
    assert refunded.points == 2 and refunded.events == ()  # beyond the captures: no axis there
    (open_market,) = price_charts(view(None))
    assert open_market.points == 2 and open_market.end == WEEK0 + timedelta(weeks=1)


def test_hourly_marks_are_drawn_between_the_captures_once_each() -> None:
    plain = view(ResolutionKind.WINNER, "Yes")
    hours = [WEEK0 + timedelta(hours=h) for h in range(0, 24 * 9, 5)]  # the first is a capture's
    plain.marks = [Point(at, Decimal("0.35")) for at in hours]
    (chart,) = price_charts(plain)
    assert chart.points == len(hours) + 1 + 1  # the marks, the second capture, the resolution
    (series,) = chart.series
    assert series.marks[0].title.startswith("Yes: 0.300")  # the capture, not the mark at once
    assert chart.note == ""
    assert [event.label for event in chart.events] == ["resolved: Yes won"]


def test_a_long_hourly_history_is_drawn_daily_so_the_chart_stays_light() -> None:
    long = view(None)
    long.marks = [Point(WEEK0 + timedelta(hours=h), Decimal(h % 50) / 100) for h in range(24 * 30)]
    (chart,) = price_charts(long)
    assert chart.points <= ALL_LIGHT
    assert chart.points == 30 + 1  # the first point, then the last of each of 30 days
    assert chart.start == WEEK0 and chart.end == WEEK0 + timedelta(hours=24 * 30 - 1)

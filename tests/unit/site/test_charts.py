"""Charts without artefacts: a family's line does not drop when a new cohort joins, ALL draws
the whole history finely, time ticks come in threes at least with labels inside the plot, and
value labels carry the decimals their step needs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from arena_core.domain.portfolio import SeriesPoint
from arena_core.site.axes import time_ticks, value_ticks
from arena_core.site.charts import FONT, LEFT, RIGHT, WIDTH, Point, draw, range_charts
from arena_core.site.series import FAMILY_USES, LazySeries, return_charts

START = datetime(2026, 11, 22, 0, 5, tzinfo=UTC)
JOIN = START + timedelta(weeks=1)


def _values(chart_marks: tuple[str, ...]) -> list[float]:
    return [
        float(t.split(": ", 1)[1].split(" at ")[0].replace("$", "").replace(",", ""))
        for t in chart_marks
    ]


def two_cohorts(resolution: str, step: timedelta) -> list[SeriesPoint]:
    """A family whose first cohort stands at +$300 throughout; a second joins at $0 a week in.
    Its mean return halves at the join (3% then 1.5%); its summed P/L does not move."""
    points = []
    at = START
    while at <= START + timedelta(days=13):
        joined = at >= JOIN
        points.append(
            SeriesPoint(
                family_id="f",
                resolution=resolution,
                bucket=at,
                taken_at=at,
                pnl=Decimal(300),
                return_pct=Decimal("1.5") if joined else Decimal(3),
                agents=2 if joined else 1,
            )
        )
        at += step
    return points


def lazy() -> LazySeries:
    found = {
        "raw": two_cohorts("raw", timedelta(minutes=10))[-144:],
        "hour": two_cohorts("hour", timedelta(hours=1)),
        "6h": two_cohorts("6h", timedelta(hours=6)),
        "day": two_cohorts("day", timedelta(days=1)),
        "week": two_cohorts("week", timedelta(weeks=1)),
    }
    return LazySeries(found.__getitem__)


def test_no_line_drops_when_a_cohort_joins() -> None:
    end = START + timedelta(days=13)
    for chart in return_charts([("Family", lazy(), None)], end):
        for series in chart.series:
            values = _values(tuple(m.title for m in series.marks))
            assert values and all(v == 300.0 for v in values), chart.label
    # What a mean over cohorts would have drawn: the drop the home chart used to show.
    mean = range_charts(
        [
            (
                "Family",
                {
                    "hour": [
                        Point(p.taken_at, p.return_pct)
                        for p in two_cohorts("hour", timedelta(hours=1))
                    ]
                },
            )
        ],
        end,
        "%",
        dict.fromkeys(FAMILY_USES, "hour"),
    )
    drawn = _values(tuple(m.title.replace("%", "") for m in mean[-1].series[0].marks))
    assert max(drawn) == 2 * min(drawn)


def test_all_draws_a_two_week_history_finely() -> None:
    end = START + timedelta(days=13)
    (all_range,) = [c for c in return_charts([("Family", lazy(), None)], end) if c.label == "ALL"]
    assert all_range.points > 2  # hourly points, not the two weekly ones
    assert not all_range.note


def test_all_is_as_fine_as_the_budget_allows_and_starts_at_the_first_open() -> None:
    """Issue 36: at two weeks ALL drew 14 daily points (hourly ones are 313, over the 240
    budget) starting a day late, while 1M drew 56."""
    end = START + timedelta(days=13)
    opened = START - timedelta(minutes=5)  # the first cohort's open, before its first point
    charts = {c.label: c for c in return_charts([("Family", lazy(), opened)], end)}
    every = charts["ALL"]
    assert every.points >= charts["1M"].points - 1 >= 50
    assert every.start == opened and every.series[0].polyline.startswith(f"{LEFT:.1f},")
    first = every.series[0].marks[0]
    assert first.title.startswith("Family: $0.00 at ")


def test_an_event_label_near_the_right_edge_runs_leftwards() -> None:
    points = [Point(START + timedelta(hours=h), Decimal(h)) for h in range(48)]
    chart = draw("ALL", [("s", points)], "p", events=[(points[-1].at, "resolved: Yes")])
    (event,) = chart.events
    assert event.anchor == "end" and event.position > WIDTH / 2
    early = draw("ALL", [("s", points)], "p", events=[(points[1].at, "released")])
    assert early.events[0].anchor == "start"


@pytest.mark.parametrize("days", [3, 7, 10, 14, 30, 120, 400])
def test_at_least_three_time_ticks_for_every_span(days: int) -> None:
    ticks = time_ticks(START, START + timedelta(days=days))
    assert 3 <= len(ticks) <= 7, [t for _, t in ticks]


@pytest.mark.parametrize("days", [3, 10, 14])
def test_time_labels_are_anchored_inside_the_plot(days: int) -> None:
    points = [Point(START + timedelta(hours=h), Decimal(h)) for h in range(days * 24 + 1)]
    chart = draw("ALL", [("s", points)], "$")
    assert len(chart.x_ticks) >= 3
    right = WIDTH - RIGHT
    for tick in chart.x_ticks:
        half = 0.32 * FONT * len(tick.label)  # a character is about 0.64 of the font size
        if tick.anchor == "middle":
            assert tick.position - half >= LEFT and tick.position + half <= right + RIGHT
        elif tick.anchor == "end":
            assert tick.position <= right and tick.position - 2 * half >= LEFT
        else:
            assert tick.position + 2 * half <= WIDTH


def test_value_labels_carry_the_decimals_their_step_needs() -> None:
    ticks, _, _ = value_ticks([Decimal("0.53"), Decimal("0.62")], "p")
    labels = [t.label for t in ticks]
    assert labels == ["0.525", "0.550", "0.575", "0.600", "0.625"]
    dollars, _, _ = value_ticks([Decimal(-120), Decimal(480)], "$")
    assert [t.label for t in dollars][:2] == ["-$200", "$0"]

"""When the scheduled jobs republish the site: once per refresh window from Sunday 00:00 UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arena_core.bootstrap import Container
from arena_core.entrypoints import site_refresh_due, window_crossed
from arena_core.ports.clock import FixedClock
from arena_core.settings import ArenaSettings

SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)


def due(minutes: int, moment: datetime) -> bool:
    settings = ArenaSettings(table_name="t", audit_bucket="b", site_refresh_minutes=minutes)
    return site_refresh_due(Container(settings, clock=FixedClock(moment)))


@pytest.mark.parametrize(
    ("minutes", "offset", "expected"),
    [
        (10, timedelta(hours=3, minutes=40), True),  # every snapshot publishes
        (60, timedelta(hours=13), True),
        (60, timedelta(hours=13, minutes=10), False),
        (1440, timedelta(days=2, minutes=5), True),
        (1440, timedelta(days=2, hours=1), False),
        (10080, timedelta(0), True),
        (10080, timedelta(days=1), False),
        (10080, timedelta(days=7, minutes=9), True),
    ],
)
def test_one_snapshot_tick_per_window_publishes(
    minutes: int, offset: timedelta, expected: bool
) -> None:
    assert due(minutes, SUNDAY + offset) is expected


def test_over_a_week_each_window_publishes_exactly_once() -> None:
    ticks = [SUNDAY + timedelta(minutes=10 * i) for i in range(1008)]
    assert sum(due(360, t) for t in ticks) == 28
    assert sum(due(10, t) for t in ticks) == 1008


@pytest.mark.parametrize(("minutes", "expected"), [(10, 168), (30, 168), (60, 168), (360, 28)])
def test_the_hourly_pass_publishes_once_per_window_whatever_minute_it_fires_at(
    minutes: int, expected: int
) -> None:
    """An hourly job firing at minute 37 still publishes in every window (none is skipped
    because its first minutes hold no run)."""
    settings = ArenaSettings(table_name="t", audit_bucket="b", site_refresh_minutes=minutes)
    runs = [SUNDAY + timedelta(hours=h, minutes=37) for h in range(168)]
    crossed = [
        window_crossed(Container(settings, clock=FixedClock(run)), timedelta(hours=1))
        for run in runs
    ]
    assert sum(crossed) == expected

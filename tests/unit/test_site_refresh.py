"""What each snapshot tick publishes: the leaderboard every tick, the live figures once per
refresh window, everything site-wide once an hour, the live cohorts' pages once a day (windows
from Sunday 00:00 UTC); the resolution pass publishes nothing."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from arena_core.bootstrap import Container
from arena_core.entrypoints import site_refresh_due, tick_scope
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


def scopes(minutes: int, offset: timedelta = timedelta(0), leaderboard: int = 10) -> Counter[str]:
    """What a week of ticks (every 10 minutes from ``offset``) publishes, by scope."""
    settings = ArenaSettings(
        table_name="t",
        audit_bucket="b",
        site_refresh_minutes=minutes,
        leaderboard_refresh_minutes=leaderboard,
    )
    found: Counter[str] = Counter()
    for i in range(1008):
        scope = tick_scope(Container(settings, clock=FixedClock(SUNDAY + offset + i * TICK)))
        found[scope.name if scope else "nothing"] += 1
    return found


TICK = timedelta(minutes=10)


def test_as_deployed_every_tick_publishes_the_leaderboard_and_nothing_twice() -> None:
    # 30-minute windows: the first tick of each day is daily, of each hour full, of each
    # half hour live; the rest only the leaderboard
    assert scopes(30) == {"daily": 7, "full": 161, "live": 168, "board": 672}


@pytest.mark.parametrize("offset", [timedelta(minutes=3), timedelta(minutes=7, seconds=30)])
def test_a_schedule_offset_changes_no_count(offset: timedelta) -> None:
    assert scopes(30, offset) == scopes(30)


def test_wide_windows_keep_a_demo_week_quick() -> None:
    """The demo's weekly window: one daily publication, and no leaderboard in between when
    its own window is as wide."""
    assert scopes(10080, leaderboard=10080) == {"daily": 1, "nothing": 1007}
    assert scopes(1440, leaderboard=1440) == {"daily": 7, "nothing": 1001}
    assert scopes(60)["full"] == 168 - 7 and scopes(60)["live"] == 0

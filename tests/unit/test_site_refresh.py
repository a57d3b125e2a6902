"""What each snapshot tick publishes (``publication/plan.py``): the leaderboard every tick, the
live figures once per refresh window, everything site-wide once an hour, the live cohorts' pages
once a day (windows from Sunday 00:00 UTC); a scope whose publication did not complete is made
up by the next tick, which says why."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from arena_core.publication.plan import (
    BOARD,
    DAILY,
    FULL,
    LIVE,
    Cadence,
    completed,
    plan_tick,
    window_start,
)

SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)
TICK = timedelta(minutes=10)


def week(
    minutes: int,
    offset: timedelta = timedelta(0),
    leaderboard: int = 10,
    fails: frozenset[int] = frozenset(),
) -> list[str]:
    """What a week of ticks (every 10 minutes from ``offset``) publishes, in order; the ticks
    ``fails`` publish nothing to completion."""
    cadence = Cadence(board=leaderboard, live=minutes)
    done: dict[str, datetime] = {}
    found = []
    for i in range(1008):
        now = SUNDAY + offset + i * TICK
        plan = plan_tick(now, cadence, done)
        found.append(plan.scope.name if plan else "nothing")
        if plan is not None and i not in fails:
            done |= completed(plan.scope, now)
    return found


def scopes(minutes: int, offset: timedelta = timedelta(0), leaderboard: int = 10) -> Counter[str]:
    return Counter(week(minutes, offset, leaderboard))


@pytest.mark.parametrize(
    ("minutes", "offset", "expected"),
    [
        (10, timedelta(hours=3, minutes=40), True),  # every snapshot publishes
        (60, timedelta(hours=13), True),
        (60, timedelta(hours=13, minutes=10), False),
        (1440, timedelta(days=2), True),
        (1440, timedelta(days=2, hours=1), False),
        (10080, timedelta(0), True),
        (10080, timedelta(days=1), False),
    ],
)
def test_one_snapshot_tick_per_window_publishes_the_live_figures(
    minutes: int, offset: timedelta, expected: bool
) -> None:
    shown = {LIVE.name, FULL.name, DAILY.name}
    assert (week(minutes)[offset // TICK] in shown) is expected


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


def test_a_publication_that_did_not_complete_is_made_up_by_the_next_tick() -> None:
    """The daily tick at Monday 00:00 fails (or lost the lease): the next tick is daily, and
    says why; then the hour goes on as before."""
    monday = timedelta(days=1) // TICK
    found = week(30, fails=frozenset({monday}))
    assert found[monday : monday + 4] == ["daily", "daily", "board", "live"]
    plan = plan_tick(
        SUNDAY + (monday + 1) * TICK,
        Cadence(10, 30),
        {"daily": SUNDAY, "full": SUNDAY + timedelta(hours=23), "live": SUNDAY, "board": SUNDAY},
    )
    assert plan is not None and plan.scope is DAILY
    assert plan.why.startswith("missed: last completed 2026-03-01 00:00")


def test_a_site_never_published_gets_everything_at_once() -> None:
    plan = plan_tick(SUNDAY + timedelta(days=3, hours=5, minutes=20), Cadence(10, 30), {})
    assert plan is not None and (plan.scope, plan.why) == (DAILY, "never published")


def test_windows_start_on_sunday_utc() -> None:
    wednesday = SUNDAY + timedelta(days=3, hours=5, minutes=47, seconds=3)
    assert window_start(wednesday, 60) == SUNDAY + timedelta(days=3, hours=5)
    assert window_start(wednesday, 10080) == SUNDAY
    assert window_start(wednesday, 30) == SUNDAY + timedelta(days=3, hours=5, minutes=30)
    assert completed(FULL, wednesday) == dict.fromkeys(("board", "live", "full"), wednesday)
    assert BOARD.name in completed(BOARD, wednesday)

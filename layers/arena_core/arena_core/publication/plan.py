"""What a publication does and why: its scope, chosen from the time, what the last publications
completed, and what asked for it.

- ``board`` (every ``leaderboard_refresh_minutes``, every ten-minute tick as deployed): the
  leaderboards, the home page and the data files they are read from;
- ``live`` (the first tick of each refresh window, every 30 minutes by default): also one small
  JSON of the live figures per live cohort, which its pages read (``site/live.py``);
- ``full`` (hourly): also the model, pairwise, methodology and data pages, every site-wide table,
  the markets table and list, the universes of weeks not yet published, and the pages of a
  cohort completed since (sealed then, ``publication/sealed.py``);
- ``daily``: also the live cohorts' pages, data tables and decision pages, and the market pages;
- ``weekly`` (after a decision run): everything, ``datapackage.json`` and ``dataset.zip``, and
  the site checked against the bucket (repair).

A scope is due when its window starts, or when its last completion is older than the start of
the current window: a publication that failed, or lost the lease to another, is made up by the
next tick, which says so. Every scope includes the narrower ones, and completing it completes
them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from arena_core.constants import SNAPSHOT_PERIOD


@dataclass(frozen=True)
class Scope:
    """What a publication renders beyond the leaderboards every one renders."""

    name: str
    live: bool  # the live cohorts' figures (one small JSON each)
    site_wide: bool  # model, pairwise, methodology, data and market pages, site-wide tables
    cohort_pages: bool  # the live cohorts' pages, data tables and decision pages
    bundle: bool  # datapackage.json and dataset.zip, and the bucket checked (repair)


BOARD = Scope("board", live=False, site_wide=False, cohort_pages=False, bundle=False)
LIVE = Scope("live", live=True, site_wide=False, cohort_pages=False, bundle=False)
FULL = Scope("full", live=True, site_wide=True, cohort_pages=False, bundle=False)
DAILY = Scope("daily", live=True, site_wide=True, cohort_pages=True, bundle=False)
WEEKLY = Scope("weekly", live=True, site_wide=True, cohort_pages=True, bundle=True)
SCOPES = (BOARD, LIVE, FULL, DAILY, WEEKLY)  # narrowest first
BY_NAME = {scope.name: scope for scope in SCOPES}


@dataclass(frozen=True)
class Cadence:
    """How often each scope is due, in minutes (the deployed: 10, 30, 60, 1440)."""

    board: int = 10
    live: int = 30

    def windows(self) -> tuple[tuple[Scope, int], ...]:
        """Each tick scope with its window, widest first (a daily window is at least a day,
        an hourly one at least an hour, and neither narrower than the live figures')."""
        return (
            (DAILY, max(self.live, 1440)),
            (FULL, max(self.live, 60)),
            (LIVE, self.live),
            (BOARD, self.board),
        )


@dataclass(frozen=True)
class Plan:
    scope: Scope
    why: str


def window_start(now: datetime, minutes: int) -> datetime:
    """The start of the window of ``minutes`` holding ``now`` (windows start Sunday 00:00 UTC)."""
    since_sunday = timedelta(
        days=(now.weekday() + 1) % 7, hours=now.hour, minutes=now.minute, seconds=now.second
    )
    sunday = now - since_sunday - timedelta(microseconds=now.microsecond)
    elapsed = int(since_sunday.total_seconds() // 60)
    return sunday + timedelta(minutes=elapsed - elapsed % minutes)


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def plan_tick(now: datetime, cadence: Cadence, done: Mapping[str, datetime]) -> Plan | None:
    """The widest scope due at a snapshot tick, and why; None when nothing is (a demo's wide
    windows). ``done``: when each scope last completed."""
    for scope, minutes in cadence.windows():
        start = window_start(now, minutes)
        last = done.get(scope.name)
        if now - start < SNAPSHOT_PERIOD:
            return Plan(scope, f"the {minutes}-minute window of {_when(start)} started")
        if last is None:
            return Plan(scope, "never published")
        if last < start:
            return Plan(
                scope, f"missed: last completed {_when(last)}, the window opened {_when(start)}"
            )
    return None


def plan_weekly() -> Plan:
    return Plan(WEEKLY, "after the weekly decision run")


def completed(scope: Scope, now: datetime) -> dict[str, datetime]:
    """What completing ``scope`` at ``now`` completes: it and every narrower scope."""
    widths = [s.name for s in SCOPES]
    return dict.fromkeys(widths[: widths.index(scope.name) + 1], now)

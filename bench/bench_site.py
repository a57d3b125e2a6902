"""Site regeneration cost against history: 52 weeks of history versus 1 week.

Each history is built with the real services (decisions by baseline agents, snapshots,
settlement, cohort completion) on the in-memory repository; the site is published once, then the
steady-state regeneration that follows every snapshot (the leaderboard: the home page and its
data files) is timed, the histories' ticks taken in turn (the median of each history's), with
the hourly publication (every site-wide page and market page) and the weekly one (with
dataset.zip, which carries every file of the history).

Passes are taken at the deployed cadence where the site reads them: every 10 minutes over the
last day (the charts' raw points) and hourly over the five weeks before (their hourly points),
every 12 hours before that (only weekly points are read from then). A pass every 12 hours
throughout, this benchmark's cadence before, left a one-week site with near-empty charts, so
its ratio measured how full the charts were rather than history; it is printed too.

What a tick reads and formats does not grow with history: every score is carried from the last
publication (``publication/carried.py``), a completed cohort is sealed once
(``publication/sealed.py``), and the forecasts' table and statistics, the returns' statistics,
the sealed cohorts' rows of the returns tables and the families' costs go through the memo, each
kept with what it was computed from (``publication/memo.py``); tables are written only when they
changed, and the manifest's part a tick changes is in the root it reads and writes anyway
(``adapters/manifest.py``). Run with `make bench`.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.agents.baselines import AlwaysHold, MarketFollower, RandomAgent
from arena_core.constants import universe_key
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import default_lineup
from arena_core.domain.market import Market, MarketStatus, OutcomeQuote, Resolution, ResolutionKind
from arena_core.ports.agent import ForecastAgent
from arena_core.ports.clock import FixedClock
from arena_core.ports.market_source import MarketFetch, MarketSource
from arena_core.services.decide import DecideRequest, DecideService
from arena_core.services.publish_site import BOARD, FULL, WEEKLY, PublishSiteService
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from arena_local.memory import InMemoryBlobStore, memory_stores

START = datetime(2025, 1, 5, tzinfo=UTC)
MARKETS_PER_WEEK, SNAPSHOTS_PER_WEEK, RUNS = 12, 12, 11
HOURLY_WEEKS = 5  # the last weeks passed hourly (the charts read a month of hourly points)


class WeeklyMarkets(MarketSource):
    """Each week's markets trade during the week and resolve at its end."""

    def __init__(self) -> None:
        self.markets: dict[str, Market] = {}

    def add_week(self, week: int) -> list[Market]:
        fresh = []
        for i in range(MARKETS_PER_WEEK):
            yes = Decimal("0.2") + Decimal(i % 7) / 10
            quotes = (OutcomeQuote(name="Yes", price=yes), OutcomeQuote(name="No", price=1 - yes))
            market = Market(
                market_id=f"w{week}m{i}", question=f"Week {week} question {i}?", outcomes=quotes
            )
            self.markets[market.market_id] = market
            fresh.append(market)
        return fresh

    def resolve_week(self, week: int) -> None:
        for i in range(MARKETS_PER_WEEK):
            market = self.markets[f"w{week}m{i}"]
            winner = "YES" if i % 2 else "NO"
            self.markets[market.market_id] = market.model_copy(
                update={
                    "status": MarketStatus.RESOLVED,
                    "resolution": Resolution(kind=ResolutionKind.WINNER, winner=winner),
                }
            )

    def top_markets(self, limit: int = 500) -> MarketFetch:
        return MarketFetch(markets=dict(list(self.markets.items())[:limit]))

    def markets_by_id(self, market_ids: list[str]) -> MarketFetch:  # type: ignore[override]
        return MarketFetch(markets={i: self.markets[i] for i in market_ids if i in self.markets})


def responder(model_id: str, index: int) -> ForecastAgent:
    if model_id == "always-hold":
        return AlwaysHold()
    if model_id == "market-follower":
        return MarketFollower()
    return RandomAgent(seed=index)


def pass_times(opened: datetime, *, last: bool, dense: bool) -> list[datetime]:
    """When a week's snapshot passes run: every 12 hours; or, ``dense``, hourly until the
    week's last day, which the last week passes every 10 minutes (a week that completes
    resolves at 6 days 23 hours: its passes stop before)."""
    if not dense:
        return [opened + timedelta(hours=12 * step + 1) for step in range(SNAPSHOTS_PER_WEEK)]
    hourly = [opened + timedelta(hours=h) for h in range(1, 6 * 24 if last else 7 * 24 - 1)]
    tail = [opened + timedelta(days=6, minutes=10 * m) for m in range(1, 24 * 6)] if last else []
    return hourly + tail


def history(
    weeks: int, folder: Path, *, dense: bool = True
) -> tuple[PublishSiteService, FixedClock, SnapshotService]:
    stores, blobs, clock, source = (
        memory_stores(),
        InMemoryBlobStore(),
        FixedClock(START),
        WeeklyMarkets(),
    )
    decide = DecideService(stores, blobs, clock)
    snapshot = SnapshotService(stores, source, clock)
    for week in range(weeks):
        opened = START + timedelta(weeks=week)
        clock.set(opened)
        cohort = Cohort.open(opened, default_lineup())
        stores.cohorts.create_cohort(cohort, cohort.agents())
        markets = source.add_week(week)
        ref = blobs.put(  # the week's universe where the decide path looks for it
            universe_key(opened.date()),
            json.dumps([m.model_dump(mode="json") for m in markets]).encode(),
        )
        clock.set(opened + timedelta(minutes=5))
        for index, agent in enumerate(stores.cohorts.agents(cohort.cohort_id)):
            request = DecideRequest(agent.agent_id, clock.now(), ref, f"run-{week}")
            decide.decide(request, responder(agent.model_id, index + week))
        for moment in pass_times(
            opened, last=week == weeks - 1, dense=dense and weeks - week <= HOURLY_WEEKS
        ):
            clock.set(moment)
            snapshot.run()
        if week < weeks - 1:  # every week but the last resolves and completes
            source.resolve_week(week)
            clock.set(opened + timedelta(days=6, hours=23))
            ResolutionService(stores, source, clock).run()
    publisher = LocalFolderPublisher(folder)
    return PublishSiteService(stores, publisher, blobs, clock), clock, snapshot


@dataclass
class Measured:
    """One history's figures: its ticks' times, files rendered, one hourly and one weekly
    publication's time."""

    ticks: list[float] = field(default_factory=list)
    files: int = 0
    full: float = 0.0
    weekly: float = 0.0

    @property
    def tick(self) -> float:
        return statistics.median(self.ticks)


def measured(weeks: Sequence[int], *, dense: bool = True) -> dict[int, Measured]:
    """Each history's leaderboard tick, the histories' ticks taken in turn (the machine is
    shared: what slows one tick down slows its neighbours too, so ratios hold within a run),
    then one hourly and one weekly publication each."""
    with tempfile.TemporaryDirectory() as tmp:
        built = {w: history(w, Path(tmp) / str(w), dense=dense) for w in weeks}
        found = {w: Measured() for w in weeks}
        for site, _, _ in built.values():
            site.run(WEEKLY)  # the first publication renders every cohort once
        for _ in range(RUNS):
            for w, (site, clock, snapshot) in built.items():
                clock.set(clock.now() + timedelta(minutes=10))
                snapshot.run()
                started = time.perf_counter()
                found[w].files = site.run(BOARD).files
                found[w].ticks.append(time.perf_counter() - started)
        for w, (site, _, _) in built.items():
            started = time.perf_counter()
            site.run(FULL)
            found[w].full = time.perf_counter() - started
            started = time.perf_counter()
            site.run(WEEKLY)
            found[w].weekly = time.perf_counter() - started
        return found


def main() -> None:
    print(f"passes at the deployed cadence where the site reads them (median of {RUNS} ticks):")
    dense = measured([1, 13, 52])
    one, quarter, year = dense[1], dense[13], dense[52]
    print(f"regeneration_seconds weeks=1: {one.tick:.3f} ({one.files} files rendered)")
    print(f"regeneration_seconds weeks=13: {quarter.tick:.3f}")
    print(f"regeneration_seconds weeks=52: {year.tick:.3f} ({year.files} files rendered)")
    print(f"ratio_52_over_1={year.tick / one.tick:.2f} (issue 28 asks at most 1.5)")
    print(f"ratio_52_over_13={year.tick / quarter.tick:.2f}")
    print(f"hourly_publication_seconds weeks=1: {one.full:.3f} weeks=52: {year.full:.3f}")
    print(f"weekly_publication_seconds weeks=1: {one.weekly:.3f} weeks=52: {year.weekly:.3f}")
    sparse = measured([1, 52], dense=False)
    print("a pass every 12 hours throughout (near-empty charts at 1 week):")
    print(f"regeneration_seconds weeks=1: {sparse[1].tick:.3f} weeks=52: {sparse[52].tick:.3f}")
    print(f"ratio_52_over_1={sparse[52].tick / sparse[1].tick:.2f}")


if __name__ == "__main__":
    main()

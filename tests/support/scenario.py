"""A small but complete history for site tests: decisions (one hostile), snapshots, settlements."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.agents.baselines import AlwaysHold, MarketFollower, RandomAgent
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import default_lineup
from arena_core.domain.market import Market, MarketStatus, ResolutionKind
from arena_core.ports.agent import ForecastAgent
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.services.decide import DecideRequest, DecideService
from arena_core.services.publish_site import PublishSiteService, SiteReport
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from arena_local.memory import InMemoryBlobStore, memory_stores
from tests.support.agents import ScriptedAgent
from tests.support.builders import WEEK0, binary, resolved
from tests.support.markets import StaticMarketSource

HOSTILE_QUESTION = 'Will <script>alert("q")</script> "><img src=x onerror=alert(1)> win?'
HOSTILE_FAMILY = "gpt-5.1"
FALLBACK_FAMILY = "gemini-2.5-flash"
HOSTILE_REASONING = '<script>window.__pwned = 1</script> "><img src=x onerror="window.__pwned=2">'


def universe() -> list[Market]:
    evil = binary("m9", "0.55").model_copy(update={"question": HOSTILE_QUESTION})
    return [binary("m1", "0.40"), binary("m2", "0.25"), binary("m3", "0.70"), evil]


def model_reply(market: str, side: str, amount: int, reasoning: str) -> str:
    bet = {"market_id": market, "side": side, "amount": amount}
    return json.dumps({"action": "BET", "bets": [bet], "reasoning": reasoning})


@dataclass
class Scenario:
    stores: Stores
    blobs: InMemoryBlobStore
    clock: FixedClock
    source: StaticMarketSource
    site_dir: Path

    def publish(self) -> SiteReport:
        publisher = LocalFolderPublisher(self.site_dir)
        return PublishSiteService(self.stores, publisher, self.blobs, self.clock).run()


def run_week(scenario: Scenario, week_start: datetime, markets: list[Market]) -> Cohort:
    stores, blobs, clock = scenario.stores, scenario.blobs, scenario.clock
    clock.set(week_start)
    cohort = Cohort.open(week_start, default_lineup())
    stores.cohorts.create_cohort(cohort, cohort.agents())
    run_at = week_start + timedelta(minutes=5)
    clock.set(run_at)
    ref = blobs.put(
        f"universes/{cohort.cohort_id}.json",
        json.dumps([m.model_dump(mode="json") for m in markets]).encode(),
    )
    service = DecideService(stores, blobs, clock)
    for index, agent in enumerate(stores.cohorts.agents(cohort.cohort_id)):
        responder: ForecastAgent
        if agent.model_id == "market-follower":
            responder = MarketFollower()
        elif agent.model_id == "always-hold":
            responder = AlwaysHold()
        elif agent.model_id == "random":
            responder = RandomAgent(seed=3)
        elif agent.family_id == HOSTILE_FAMILY:
            responder = ScriptedAgent(model_reply("m9", "YES", 600, HOSTILE_REASONING))
        elif agent.family_id == FALLBACK_FAMILY:
            responder = ScriptedAgent("not json at all")  # becomes a fallback HOLD
        else:
            side = "YES" if index % 2 else "NO"
            responder = ScriptedAgent(
                model_reply("m1", side, 250 * index, f"Agent {index} likes m1 {side}.")
            )
        service.decide(
            DecideRequest(agent.agent_id, run_at, ref, f"run-{cohort.cohort_id}"), responder
        )
    return cohort


def build(site_dir: Path, *, weeks: int = 1, snapshots_per_week: int = 24) -> Scenario:
    markets = universe()
    scenario = Scenario(
        memory_stores(),
        InMemoryBlobStore(),
        FixedClock(WEEK0),
        StaticMarketSource(markets),
        site_dir,
    )
    for week in range(weeks):
        start = WEEK0 + timedelta(weeks=week)
        run_week(scenario, start, markets)
        for step in range(snapshots_per_week):
            moment = start + timedelta(minutes=10 * (step + 1))
            price = Decimal("0.40") + Decimal(step % 7) / 100
            scenario.source.set(binary("m1", str(price)))
            scenario.clock.set(moment)
            SnapshotService(scenario.stores, scenario.source, scenario.clock).run()
        settle_week(scenario, start + timedelta(days=6))
    return scenario


def settle_week(scenario: Scenario, moment: datetime) -> None:
    scenario.clock.set(moment)
    for market in scenario.source.markets.values():
        if market.status is MarketStatus.OPEN and market.market_id in ("m1", "m2"):
            kind = ResolutionKind.WINNER if market.market_id == "m1" else ResolutionKind.SPLIT
            scenario.source.set(
                resolved(market, kind, "YES" if kind is ResolutionKind.WINNER else None)
            )
    ResolutionService(scenario.stores, scenario.source, scenario.clock).run()
    SnapshotService(scenario.stores, scenario.source, scenario.clock).run()
    for market_id in ("m1", "m2"):  # the next week trades fresh markets again
        scenario.source.set(universe()[["m1", "m2"].index(market_id)])

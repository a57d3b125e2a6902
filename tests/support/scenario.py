"""A small but complete history for site tests: decisions (one hostile), snapshots, settlements."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.agents.baselines import AlwaysHold, MarketFollower, RandomAgent
from arena_core.analysis.figures import Rules
from arena_core.constants import universe_key
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
EVENT_SLUG = "fed/../decision in december?"
FALLBACK_FAMILY = "gemini-2.5-flash"
PROVISIONAL_FAMILY = "qwen-3-next"  # bets m1 alone, so it stays below the minimum sample
HOSTILE_REASONING = '<script>window.__pwned = 1</script> "><img src=x onerror="window.__pwned=2">'


def universe() -> list[Market]:
    evil = binary("m9", "0.55").model_copy(update={"question": HOSTILE_QUESTION})
    # A slug Polymarket would never send: the market page's link must keep it one path segment.
    on_polymarket = binary("m2", "0.25").model_copy(update={"event_slug": EVENT_SLUG})
    return [binary("m1", "0.40"), on_polymarket, binary("m3", "0.70"), evil]


def model_reply(market: str, side: str, amount: int, reasoning: str) -> str:
    return bets_reply([(market, side, amount)], reasoning)


def bets_reply(bets: list[tuple[str, str, int]], reasoning: str) -> str:
    instructions = [{"market_id": m, "side": side, "amount": amount} for m, side, amount in bets]
    return json.dumps({"action": "BET", "bets": instructions, "reasoning": reasoning})


CATEGORIES = ("Politics", "Sports", "Crypto")
HORIZONS = (timedelta(days=3), timedelta(days=5), timedelta(days=40))  # two mature by the end


def extra_markets(week_start: datetime, count: int) -> list[Market]:
    """``count`` markets of their own for one week, each resolving YES or NO at the week's end:
    categories and closing dates vary, so the statistics have groups to break down."""
    week = week_start.date().isoformat()
    found = []
    for i in range(count):
        price = Decimal(20 + (37 * i + 11 * week_start.day) % 60) / 100
        found.append(
            binary(f"x{week}-{i}", str(price)).model_copy(
                update={
                    "category": CATEGORIES[i % len(CATEGORIES)],
                    "end_date": week_start + HORIZONS[i % len(HORIZONS)],
                }
            )
        )
    return found


def extra_winner(market_id: str) -> str:
    """The side an extra market resolves to, fixed by its id."""
    return "YES" if random.Random(market_id).random() < 0.5 else "NO"


def extra_bets(family_index: int, markets: list[Market]) -> list[tuple[str, str, int]]:
    """A scripted family's bets on the week's extra markets: family ``k`` picks the winning
    side with probability rising in ``k``, sized by whether it is right, so the families differ in
    skill and in Brier (seeded: the same scenario every time)."""
    rng = random.Random(f"family-{family_index}")
    skill = 0.35 + 0.08 * family_index
    bets = []
    for market in markets:
        winner = extra_winner(market.market_id)
        loser = "NO" if winner == "YES" else "YES"
        right = rng.random() < skill
        # v1 reads the size as the confidence: sure bets big, unsure ones small.
        amount = 300 + 30 * rng.randrange(9) if right else 60 + 10 * rng.randrange(9)
        bets.append((market.market_id, winner if right else loser, amount))
    return bets


@dataclass
class Scenario:
    stores: Stores
    blobs: InMemoryBlobStore
    clock: FixedClock
    source: StaticMarketSource
    site_dir: Path
    rules: Rules | None = None  # the service's defaults unless a test lowers them

    def publish(self) -> SiteReport:
        publisher = LocalFolderPublisher(self.site_dir)
        service = PublishSiteService(self.stores, publisher, self.blobs, self.clock, self.rules)
        return service.run()


def run_week(
    scenario: Scenario, week_start: datetime, markets: list[Market], extra: list[Market]
) -> Cohort:
    stores, blobs, clock = scenario.stores, scenario.blobs, scenario.clock
    clock.set(week_start)
    cohort = Cohort.open(week_start, default_lineup())
    stores.cohorts.create_cohort(cohort, cohort.agents())
    run_at = week_start + timedelta(minutes=5)
    clock.set(run_at)
    ref = blobs.put(
        universe_key(week_start.date()),
        json.dumps([m.model_dump(mode="json") for m in markets + extra]).encode(),
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
            # One family keeps to m1 alone: with extra markets it stays provisional.
            more = extra_bets(index, extra) if agent.family_id != PROVISIONAL_FAMILY else []
            responder = ScriptedAgent(
                bets_reply([("m1", side, 250 * index), *more], f"Agent {index} likes m1 {side}.")
            )
        service.decide(
            DecideRequest(agent.agent_id, run_at, ref, f"run-{cohort.cohort_id}"), responder
        )
    return cohort


def build(
    site_dir: Path,
    *,
    weeks: int = 1,
    snapshots_per_week: int = 24,
    rules: Rules | None = None,
    extra: int = 0,
) -> Scenario:
    """``weeks`` of history; with ``extra`` > 0 each week also has that many markets of its own
    that most scripted families bet on and that resolve at the week's end (for statistics)."""
    markets = universe()
    scenario = Scenario(
        memory_stores(),
        InMemoryBlobStore(),
        FixedClock(WEEK0),
        StaticMarketSource(markets),
        site_dir,
        rules,
    )
    for week in range(weeks):
        start = WEEK0 + timedelta(weeks=week)
        week_markets = extra_markets(start, extra)
        for market in week_markets:
            scenario.source.set(market)
        run_week(scenario, start, markets, week_markets)
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
    for market in list(scenario.source.markets.values()):
        if market.status is MarketStatus.OPEN and market.market_id.startswith("x"):
            winner = extra_winner(market.market_id)
            scenario.source.set(resolved(market, ResolutionKind.WINNER, winner.capitalize()))
        if market.status is MarketStatus.OPEN and market.market_id in ("m1", "m2"):
            kind = ResolutionKind.WINNER if market.market_id == "m1" else ResolutionKind.SPLIT
            scenario.source.set(
                resolved(market, kind, "YES" if kind is ResolutionKind.WINNER else None)
            )
    ResolutionService(scenario.stores, scenario.source, scenario.clock).run()
    SnapshotService(scenario.stores, scenario.source, scenario.clock).run()
    for market_id in ("m1", "m2"):  # the next week trades fresh markets again
        scenario.source.set(universe()[["m1", "m2"].index(market_id)])

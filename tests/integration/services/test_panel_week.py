"""A v1+panel week through the services: prepare draws and registers the panel, every agent
(baselines too) forecasts it, resolution scores each resolved question once, with the ensemble."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from decimal import Decimal

import pytest

from arena_core.agents.baselines import BASELINE_AGENTS
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.lineup import AgentKind, default_lineup
from arena_core.domain.market import Market, ResolutionKind
from arena_core.domain.panel import Methodology, QuestionStatus, ScoredBy
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.clock import FixedClock
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.ports.market_source import MarketFetch
from arena_core.ports.stores import Stores
from arena_core.services.decide import DecideRequest, DecideService, DecideSettings
from arena_core.services.panel import PanelSettings, panel_key
from arena_core.services.resolution import ResolutionService
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import InMemoryBlobStore, memory_stores
from tests.support.aws import create_stores, embedded_aws
from tests.support.builders import RUN_AT, WEEK0, binary, resolved
from tests.support.markets import StaticMarketSource

PRICES = {"p1": "0.40", "p2": "0.55", "p3": "0.20", "p4": "0.70"}


LIQUID = Decimal("5000")


def universe() -> list[Market]:
    ends = RUN_AT + timedelta(days=3)
    markets = [
        binary(m, price).model_copy(
            update={"end_date": ends, "category": f"cat-{m}", "liquidity": LIQUID}
        )
        for m, price in PRICES.items()
    ]
    late = binary("late", "0.5").model_copy(
        update={"end_date": RUN_AT + timedelta(days=90), "liquidity": LIQUID}
    )
    return [*markets, late]


class ListingSource(StaticMarketSource):
    """A trading universe, and a panel listing of other markets besides (as Gamma's)."""

    def __init__(self, universe: Sequence[Market], listing: Sequence[Market]) -> None:
        super().__init__(universe)
        self.listing = list(listing)
        self.windows: list[tuple[datetime, datetime, Decimal]] = []

    def panel_listing(
        self, closes_after: datetime, closes_by: datetime, min_liquidity: Decimal
    ) -> MarketFetch:
        self.windows.append((closes_after, closes_by, min_liquidity))
        return MarketFetch(markets={m.market_id: m for m in self.listing})


class StatingModel(ForecastAgent):
    """A model that states its own P(YES) for every panel market and bets YES on p1."""

    def __init__(self, p_yes: Decimal) -> None:
        self.p_yes = p_yes

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        assert context.panel is not None
        assert "FORECAST PANEL" in messages[1].content
        forecasts = [
            {"market_id": m.market_id, "p_yes": str(self.p_yes)} for m in context.panel.markets
        ]
        bet = [{"market_id": "p1", "side": "YES", "amount": 500}]
        text = json.dumps({"action": "BET", "bets": bet, "reasoning": "r", "forecasts": forecasts})
        return LLMResponse(content=text, model="test/m", provider="t", raw_body=text)


def responder(member: Agent) -> ForecastAgent:
    if member.kind is AgentKind.BASELINE:
        return BASELINE_AGENTS[member.model_id]()
    families = [s.family_id for s in default_lineup() if s.kind is AgentKind.LLM]
    return StatingModel(Decimal("0.2") + Decimal("0.1") * families.index(member.family_id))


@pytest.fixture(params=["memory", "dynamodb"])
def stores(request: pytest.FixtureRequest) -> Iterator[Stores]:
    if request.param == "memory":
        yield memory_stores()
        return
    with embedded_aws():
        yield create_stores()


def test_a_panel_week_is_forecast_by_every_agent_and_scored_once(stores: Stores) -> None:
    blobs, clock = InMemoryBlobStore(), FixedClock(RUN_AT)
    cohort = Cohort.open(WEEK0, default_lineup(), Methodology.V1_PANEL)
    stores.cohorts.create_cohort(cohort, cohort.agents())
    source = StaticMarketSource(universe())
    prepare = PrepareRunService(stores, source, blobs, clock, panel=PanelSettings(size=4))
    run = prepare.prepare(RunRequest())
    assert blobs.find(panel_key(RUN_AT)) is not None
    pending = stores.panel.pending_questions()
    assert sorted(q.market.market_id for q in pending) == sorted(PRICES)  # "late" is too late
    assert {(q.stratum, q.stratum_quota, q.stratum_eligible) for q in pending} == {
        ("1 to 3 days", 2, 4)
    }
    assert {(q.requested, q.eligible) for q in pending} == {(4, 4)}
    assert all(len(q.agent_ids) == len(cohort.lineup) for q in pending)
    assert prepare.prepare(RunRequest()).universe_ref == run.universe_ref
    assert stores.panel.register_questions(pending) == 0  # a rerun registers nothing new

    decide = DecideService(stores, blobs, clock, DecideSettings(panel=PanelSettings(size=4)))
    for item in run.items:
        request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, "o")
        decide.decide(request, responder)
    first = DecisionRecord.id_for(Agent.id_for(cohort.cohort_id, cohort.lineup[0].family_id), 1)
    outcome = stores.decisions.get_decision(first).outcome  # type: ignore[union-attr]
    assert outcome is not None and len(outcome.forecasts) == 4
    # The first family states 0.2 on p1 yet buys YES at 0.40: incoherent, Kelly says no.
    assert [(c.market_id, c.coherent, c.size_to_kelly) for c in outcome.coherence] == [
        ("p1", False, None)
    ]
    (stored,) = stores.panel.family_coherence(cohort.lineup[0].family_id)
    assert (stored.decision_id, stored.trades) == (first, outcome.coherence)

    source.set(resolved(source.markets["p1"], ResolutionKind.WINNER, "Yes"))
    source.set(resolved(source.markets["p2"], ResolutionKind.SPLIT))
    at = RUN_AT + timedelta(days=4)
    report = ResolutionService(stores, source, FixedClock(at)).run(at)
    assert [q.split(".")[-1] for q in report.panel.scored] == ["p1"]
    assert [q.split(".")[-1] for q in report.panel.void] == ["p2"]
    scores = stores.panel.scores(cohort.cohort_id)
    assert len(scores) == len(cohort.lineup) + 1  # every agent and the ensemble
    models = [s for s in scores if s.scored_by is ScoredBy.LLM]
    assert math.isclose(math.fsum(s.peer_score for s in models), 0.0, abs_tol=1e-9)
    follower = next(s for s in scores if s.family_id.endswith("market-follower"))
    assert follower.p_yes == Decimal("0.40") and follower.brier == follower.market_brier
    hold = next(s for s in scores if s.family_id.endswith("always-hold"))
    assert hold.p_yes == Decimal("0.5") and hold.baseline_score == 0.0
    ensemble = next(s for s in scores if s.scored_by is ScoredBy.ENSEMBLE)
    stated = [s.p_yes for s in models]
    mean = sum(stated, Decimal(0)) / len(stated)
    assert ensemble.p_yes == mean.quantize(Decimal("0.000001"))

    again = ResolutionService(stores, source, FixedClock(at)).run(at)
    assert again.panel.scored == () and again.panel.void == ()
    assert stores.panel.scores(cohort.cohort_id) == scores
    statuses = {q.market.market_id: q.status for q in stores.panel.questions(cohort.cohort_id)}
    assert statuses == {
        "p1": QuestionStatus.SCORED,
        "p2": QuestionStatus.VOID,
        "p3": QuestionStatus.PENDING,
        "p4": QuestionStatus.PENDING,
    }


def test_the_panel_is_drawn_from_the_listing_not_the_trading_universe(stores: Stores) -> None:
    """The top-500 universe holds none of the panel's markets here: the panel comes from the
    listing of every active market closing within the strata above the liquidity floor."""
    blobs, clock = InMemoryBlobStore(), FixedClock(RUN_AT)
    cohort = Cohort.open(WEEK0, default_lineup(), Methodology.V1_PANEL)
    stores.cohorts.create_cohort(cohort, cohort.agents())
    listed = [m.model_copy(update={"market_id": f"listed-{m.market_id}"}) for m in universe()]
    source = ListingSource(universe()[-1:], listed)
    settings = PanelSettings(size=4)
    run = PrepareRunService(stores, source, blobs, clock, panel=settings).prepare(RunRequest())
    assert run.markets == 1  # trading still sees its own universe
    pending = stores.panel.pending_questions()
    assert sorted(q.market.market_id for q in pending) == sorted(f"listed-{m}" for m in PRICES)
    design = settings.design
    assert source.windows == [
        (RUN_AT, RUN_AT + timedelta(days=design.horizon_days), design.min_liquidity)
    ]


def test_a_v1_cohort_gets_no_panel(stores: Stores) -> None:
    blobs, clock = InMemoryBlobStore(), FixedClock(RUN_AT)
    cohort = Cohort.open(WEEK0, default_lineup())
    stores.cohorts.create_cohort(cohort, cohort.agents())
    run = PrepareRunService(stores, StaticMarketSource(universe()), blobs, clock).prepare(
        RunRequest()
    )
    assert blobs.find(panel_key(RUN_AT)) is None and stores.panel.pending_questions() == []
    decide = DecideService(stores, blobs, clock)
    # A baseline: it states forecasts whenever it is shown a panel.
    item = next(
        i for i in run.items if stores.ledger.get_agent(i.agent_id).kind is AgentKind.BASELINE
    )
    decide.decide(DecideRequest(item.agent_id, item.run_at, item.universe_ref, "o"), responder)
    record = stores.decisions.get_decision(DecisionRecord.id_for(item.agent_id, 1))
    assert record is not None and record.outcome is not None
    assert record.outcome.forecasts == () and record.outcome.coherence == ()

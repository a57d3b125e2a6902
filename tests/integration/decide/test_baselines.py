"""Baseline agents answer in the protocol, trade within the rules, and are reproducible."""

from decimal import Decimal

from arena_core.agents.baselines import AlwaysHold, MarketFollower, RandomAgent
from arena_core.domain.answer import Action
from arena_core.domain.decisions import DecisionStatus
from arena_core.ports.agent import AgentContext
from arena_core.protocol import parse_answer
from tests.integration.decide.conftest import UNIVERSE, World
from tests.support.builders import RUN_AT


def context(week: int = 1, agent_id: str = "a") -> AgentContext:
    return AgentContext(agent_id, week, RUN_AT, Decimal("10000"), [], UNIVERSE)


def test_market_follower_backs_favourites_sized_by_price() -> None:
    decision = parse_answer(MarketFollower().respond([], context()).text)
    assert decision.action is Action.BET
    picks = {(b.market_id, b.side): b.amount for b in decision.bets}
    assert ("m1", "NO") in picks
    assert ("m3", "Celtics") in picks
    assert picks[("m1", "NO")] == 1500  # price 0.60 x max bet 2500


def test_always_hold() -> None:
    assert parse_answer(AlwaysHold().respond([], context()).text).action is Action.HOLD


def test_random_is_reproducible_per_seed_agent_and_week() -> None:
    first = RandomAgent(seed=7).respond([], context(week=1)).content
    assert RandomAgent(seed=7).respond([], context(week=1)).content == first
    answers = {
        RandomAgent(seed=7).respond([], context(week=w, agent_id=f"a{w}")).content
        for w in range(1, 12)
    }
    assert len(answers) > 1
    for text in answers:
        parse_answer(text)


def test_baselines_run_through_the_decide_service(world: World) -> None:
    for index, agent in enumerate((MarketFollower(), AlwaysHold(), RandomAgent(seed=1))):
        result = world.service().decide(world.request(agent=index), agent)
        assert result.status in (DecisionStatus.SUCCEEDED, DecisionStatus.RETRYABLE_FAILURE)
        assert not result.fallback
    follower = world.stores.ledger.trades(world.agents[0].agent_id)
    assert len(follower) >= 2

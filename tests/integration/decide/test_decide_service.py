"""The decide service end to end with scripted agents, on the fake and on DynamoDB (moto)."""

import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from arena_core.agents.budget import BudgetedAgent
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.valuation import reconcile
from arena_core.errors import (
    LLMBudgetExceededError,
    RetryableUpstreamError,
    UpstreamAuthError,
    UpstreamCreditsError,
)
from arena_core.workflow import retryable_errors
from arena_local.memory.spend import MemorySpendStore
from tests.integration.decide.conftest import World, make_world
from tests.support.agents import ScriptedAgent
from tests.support.builders import RUN_AT
from tests.support.crash import SimulatedCrash, crashing

BET = json.dumps(
    {
        "action": "BET",
        "bets": [
            {"market_id": "m1", "side": "YES", "amount": 1000},
            {"market_id": "m3", "side": "celtics", "amount": 700},
            {"market_id": "nope", "side": "YES", "amount": 100},
        ],
        "reasoning": "m1 is underpriced",
    }
)
ZERO_TRADES = '{"action": "BET", "bets": [{"market_id": "nope", "side": "YES", "amount": 100}]}'


def ledger(world: World, agent: int = 0) -> tuple[Any, ...]:
    agent_id = world.agents[agent].agent_id
    return (
        world.stores.ledger.get_agent(agent_id).cash,
        tuple(world.stores.ledger.trades(agent_id)),
        tuple(world.stores.ledger.positions(agent_id)),
    )


def test_a_valid_bet_is_executed_and_audited(world: World) -> None:
    agent = ScriptedAgent(BET)
    result = world.service().decide(world.request(), agent)
    assert result.status is DecisionStatus.SUCCEEDED
    assert (result.action, result.executed, result.rejected, result.fallback) == (
        "BET",
        2,
        1,
        False,
    )
    agent_id = world.agents[0].agent_id
    assert world.stores.ledger.get_agent(agent_id).cash == Decimal("8300")
    record = world.stores.decisions.get_decision(result.decision_id)
    assert record is not None
    assert record.status is DecisionStatus.SUCCEEDED
    outcome = record.outcome
    assert outcome is not None
    assert outcome.model == "test/model"
    assert outcome.provider == "TestProvider"
    assert outcome.reasoning == "m1 is underpriced"
    assert [t.executed for t in outcome.trades] == [True, True, False]
    assert outcome.trades[2].rule == "unknown_market"
    prompt = world.blobs.get(outcome.prompt_ref).decode()
    assert "m1|Will m1 happen?|-|YES 0.4|?|?" in prompt
    assert world.blobs.get(outcome.responses[0].response_ref).decode() == BET
    cohort = world.stores.cohorts.get_cohort(world.cohort.cohort_id)
    assert cohort is not None
    assert cohort.first_decision_at is not None
    reconcile(
        world.stores.ledger.get_agent(agent_id).cash, world.stores.ledger.trades(agent_id), []
    )


def test_malformed_then_valid_feeds_the_error_back(world: World) -> None:
    agent = ScriptedAgent("Sure! I'd bet on m1. {oops", BET)
    result = world.service().decide(world.request(), agent)
    assert result.status is DecisionStatus.SUCCEEDED
    assert agent.calls == 2
    feedback = agent.conversations[1][-1].content
    assert "cut off" in feedback
    assert "Sure! I'd bet on m1." in feedback
    assert agent.conversations[1][-2].role == "assistant"
    assert result.outcome is not None
    responses = result.outcome.responses
    assert [r.attempt for r in responses] == [1, 2]
    assert "cut off" in (responses[0].error or "")
    assert responses[1].error is None


def test_still_invalid_becomes_a_marked_hold_fallback(world: World) -> None:
    agent = ScriptedAgent("no idea", "still prose", '{"action": "MAYBE"}')
    result = world.service(format_retries=2).decide(world.request(), agent)
    assert agent.calls == 3
    assert result.status is DecisionStatus.SUCCEEDED
    assert result.action == "HOLD"
    assert result.fallback
    assert result.outcome is not None
    assert "MAYBE" in (result.outcome.fallback_reason or "")
    assert result.outcome.reasoning.startswith("[fallback HOLD]")
    assert world.stores.ledger.trades(world.agents[0].agent_id) == []


def test_zero_executed_trades_is_a_retryable_failure_then_a_new_attempt(world: World) -> None:
    first = world.service().decide(world.request(), ScriptedAgent(ZERO_TRADES))
    assert first.status is DecisionStatus.RETRYABLE_FAILURE
    record = world.stores.decisions.get_decision(first.decision_id)
    assert record is not None
    assert (record.status, record.attempts, record.checkpoint) == (
        DecisionStatus.RETRYABLE_FAILURE,
        1,
        None,
    )
    agent = ScriptedAgent(BET)
    second = world.service().decide(world.request(owner="run-2"), agent)
    assert agent.calls == 1  # the model is asked again, not the stored bad decision reused
    assert second.status is DecisionStatus.SUCCEEDED
    assert second.executed == 2


def test_attempts_run_out(world: World) -> None:
    for n in range(2):
        world.service(max_attempts=2).decide(
            world.request(owner=f"run-{n}"), ScriptedAgent(ZERO_TRADES)
        )
    result = world.service(max_attempts=2).decide(world.request(owner="run-9"), ScriptedAgent(BET))
    assert result.status is DecisionStatus.EXHAUSTED


@pytest.mark.parametrize(
    "error",
    [
        UpstreamAuthError("HTTP 401: User not found.", status=401),
        UpstreamCreditsError("HTTP 402: can only afford 10", status=402),
    ],
)
def test_401_and_402_fail_loudly_never_a_quiet_hold(world: World, error: Exception) -> None:
    with pytest.raises(type(error)):
        world.service().decide(world.request(), ScriptedAgent(error))
    record = world.stores.decisions.decisions(world.agents[0].agent_id)[0]
    assert record.status is DecisionStatus.RETRYABLE_FAILURE
    assert type(error).__name__ in (record.error or "")
    assert record.outcome is None
    assert world.stores.ledger.trades(world.agents[0].agent_id) == []


def test_transport_failure_is_retryable_and_retried_by_the_next_run(world: World) -> None:
    with pytest.raises(RetryableUpstreamError):
        world.service().decide(
            world.request(), ScriptedAgent(RetryableUpstreamError("gave up after 4 attempts"))
        )
    result = world.service().decide(world.request(owner="run-2"), ScriptedAgent(BET))
    assert result.status is DecisionStatus.SUCCEEDED


def test_a_rerun_after_success_does_nothing(world: World) -> None:
    world.service().decide(world.request(), ScriptedAgent(BET))
    before = ledger(world)
    agent = ScriptedAgent(BET)
    result = world.service().decide(world.request(owner="run-2"), agent)
    assert result.status is DecisionStatus.SUCCEEDED
    assert result.already_decided
    assert agent.calls == 0
    assert ledger(world) == before


def clean_ledger() -> tuple[Any, ...]:
    from arena_local.memory import memory_stores  # noqa: PLC0415

    reference = make_world(memory_stores())
    reference.service().decide(reference.request(), ScriptedAgent(BET))
    return ledger(reference)


CRASHES = {
    "after the claim (during the model call)": ("agent", 0),
    "after the model call (before the checkpoint)": ("save_checkpoint", 0),
    "between trades": ("apply_trade", 1),
    "before completing the claim": ("finish_decision", 0),
}


@pytest.mark.parametrize("where", list(CRASHES))
def test_rerun_after_a_crash_gives_the_same_ledger_and_one_decision(
    world: World, where: str
) -> None:
    method, after = CRASHES[where]
    crashing_repo: Any
    if method == "agent":
        first_agent, crashing_repo = ScriptedAgent(SimulatedCrash("died")), world.stores
    else:
        first_agent, crashing_repo = (
            ScriptedAgent(BET),
            crashing(world.stores, method, after),
        )
    with pytest.raises(SimulatedCrash):
        world.service(crashing_repo).decide(world.request(owner="run-1"), first_agent)
    world.clock.set(world.clock.now() + timedelta(minutes=16))  # the crashed run's lease expires
    result = world.service().decide(world.request(owner="run-2"), ScriptedAgent(BET))
    assert result.status is DecisionStatus.SUCCEEDED
    assert result.executed == 2
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.status is DecisionStatus.SUCCEEDED
    assert record.owner == "run-2"
    cash, trades, positions = ledger(world)
    clean_cash, clean_trades, clean_positions = clean_ledger()
    assert cash == clean_cash
    assert [(t.trade_id, t.amount, t.shares, t.price) for t in trades] == [
        (t.trade_id, t.amount, t.shares, t.price) for t in clean_trades
    ]
    assert [(p.position_id, p.shares, p.cost_basis) for p in positions] == [
        (p.position_id, p.shares, p.cost_basis) for p in clean_positions
    ]


def test_a_crash_after_the_checkpoint_reuses_the_stored_decision(world: World) -> None:
    with pytest.raises(SimulatedCrash):
        world.service(crashing(world.stores, "apply_trade", 1)).decide(
            world.request(), ScriptedAgent(BET)
        )
    world.clock.set(world.clock.now() + timedelta(minutes=16))
    takeover = ScriptedAgent('{"action": "HOLD", "reasoning": "changed my mind"}')
    result = world.service().decide(world.request(owner="run-2"), takeover)
    assert takeover.calls == 0
    assert result.action == "BET"
    assert result.executed == 2


def test_a_live_claim_makes_a_concurrent_run_wait(world: World) -> None:
    from arena_core.errors import ClaimHeldError  # noqa: PLC0415

    with pytest.raises(SimulatedCrash):
        world.service().decide(world.request(owner="run-1"), ScriptedAgent(SimulatedCrash("slow")))
    with pytest.raises(ClaimHeldError):
        world.service().decide(world.request(owner="run-2"), ScriptedAgent(BET))


class SettlingAgent(ScriptedAgent):
    """While the model 'thinks', a settlement lands on the agent's portfolio (version moves)."""

    def __init__(self, world: World, reply: str) -> None:
        super().__init__(reply)
        self.world = world

    def respond(self, messages: Any, context: Any) -> Any:
        from arena_core.domain.market import ResolutionKind  # noqa: PLC0415
        from arena_core.services.settlement import settle_market  # noqa: PLC0415
        from tests.support.builders import binary, resolved  # noqa: PLC0415

        settle_market(
            self.world.stores, resolved(binary("m2"), ResolutionKind.WINNER, "NO"), RUN_AT
        )
        return super().respond(messages, context)


def test_a_settlement_during_the_model_call_is_absorbed_not_lost(world: World) -> None:
    from datetime import timedelta as td  # noqa: PLC0415

    first = json.dumps(
        {"action": "BET", "bets": [{"market_id": "m2", "side": "NO", "amount": 750}]}
    )
    world.service().decide(world.request(), ScriptedAgent(first))
    agent_id = world.agents[0].agent_id
    week2 = world.request(owner="run-2")
    week2 = type(week2)(
        week2.agent_id, RUN_AT + td(days=7), world.universe_for(RUN_AT + td(days=7)), "run-2"
    )
    world.clock.set(RUN_AT + td(days=7))
    result = world.service().decide(week2, SettlingAgent(world, BET))
    assert result.status is DecisionStatus.SUCCEEDED
    assert result.executed == 2
    agent = world.stores.ledger.get_agent(agent_id)
    reconcile(
        agent.cash, world.stores.ledger.trades(agent_id), world.stores.ledger.settlements(agent_id)
    )
    assert agent.cash == Decimal("10000") - 750 + 1000 - 1000 - 700  # NO won: 1000 shares at $1


def test_an_agent_over_the_weekly_llm_budget_is_recorded_as_such_and_trades_nothing(
    world: World,
) -> None:
    """The week's spend has reached the budget: the model is not asked; the decision records
    the attempt as over budget (a fatal error: the run's Retry does not take it again)."""
    spend = MemorySpendStore()
    spend.add(RUN_AT.date(), Decimal("25.00"))
    model = ScriptedAgent(BET)
    with pytest.raises(LLMBudgetExceededError):
        world.service().decide(world.request(), BudgetedAgent(model, spend, Decimal("25")))
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert "LLMBudgetExceededError" in (record.error or "")
    assert "weekly LLM budget of $25 is spent" in (record.error or "")
    assert world.stores.ledger.trades(world.agents[0].agent_id) == []
    assert "LLMBudgetExceededError" not in retryable_errors()

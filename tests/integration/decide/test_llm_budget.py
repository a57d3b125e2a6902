"""The weekly LLM budget: the decision run asks no model once the week's spend reached it; the
agent over budget is recorded as such (a failed attempt with its reason), not retried by the
run, and named in the run's alert. On embedded AWS (the spend on the table), through Decide's
own agent factory (the container wraps each LLM agent when a budget is set)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from decimal import Decimal

import boto3
import pytest

from arena_core.adapters.dynamodb.spend import DynamoSpendStore
from arena_core.adapters.dynamodb.table import Table
from arena_core.agents.budget import BudgetedAgent
from arena_core.agents.llm import LLMAgent
from arena_core.bootstrap import Container, Injected
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import AgentKind, default_lineup
from arena_core.errors import RETRYABLE, LLMBudgetExceededError
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.llm import ChatMessage, LLMClient, LLMRequest, LLMResponse
from arena_core.settings import ArenaSettings
from arena_local.memory.spend import MemorySpendStore
from tests.support.aws import TABLE, create_stores, embedded_aws
from tests.support.builders import RUN_AT

WEEK = RUN_AT.date()
HOLD = json.dumps({"action": "HOLD", "reasoning": "r"})


class PricedModel(ForecastAgent):
    """A model whose every reply costs ``cost`` dollars; counts the times it was asked."""

    def __init__(self, cost: str) -> None:
        self.cost, self.asked = Decimal(cost), 0

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        self.asked += 1
        return LLMResponse(content=HOLD, model="m", cost=self.cost, raw_body=HOLD)


class NoClient(LLMClient):
    def complete(self, request: LLMRequest) -> LLMResponse:
        raise AssertionError("not called")


def _context(agent_id: str) -> AgentContext:
    return AgentContext(agent_id, 1, RUN_AT, Decimal(10_000), [], [])


def test_the_week_stops_asking_once_its_spend_reached_the_budget() -> None:
    with embedded_aws():
        create_stores()
        spend = DynamoSpendStore(Table(boto3.client("dynamodb"), TABLE))
        model = PricedModel("0.40")
        agent = BudgetedAgent(model, spend, Decimal("1.00"))
        message = [ChatMessage(role="user", content="q")]
        for name in ("a", "b", "c"):  # 0.40, 0.80, 1.20: the third crossed it
            agent.respond(message, _context(f"c2026-03-01.{name}"))
        assert spend.spent(WEEK) == Decimal("1.20")
        with pytest.raises(LLMBudgetExceededError, match=r"budget of \$1.00 is spent"):
            agent.respond(message, _context("c2026-03-01.d"))
        assert model.asked == 3  # the fourth agent's model was never asked
        assert spend.spent(date(2026, 3, 8)) == Decimal(0)  # next week starts afresh


def test_over_budget_is_not_a_retryable_error() -> None:
    assert LLMBudgetExceededError not in RETRYABLE


def test_the_container_wraps_llm_agents_only_when_a_budget_is_set() -> None:
    spend = MemorySpendStore()
    cohort = Cohort.open(RUN_AT.replace(minute=0), default_lineup())
    member = next(a for a in cohort.agents() if a.kind is AgentKind.LLM)
    plain = Container(
        ArenaSettings(table_name="t", audit_bucket="a"),
        injected=Injected(spend=spend, llm_client=NoClient()),
    )
    assert isinstance(plain.agent_for(member), LLMAgent)
    budgeted = Container(
        ArenaSettings(table_name="t", audit_bucket="a", llm_weekly_budget=Decimal("5")),
        injected=Injected(spend=spend, llm_client=NoClient()),
    )
    assert isinstance(budgeted.agent_for(member), BudgetedAgent)

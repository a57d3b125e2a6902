"""Issue 34 §2: the forecast panel at the largest K allowed, on DynamoDB Local (AWS's own engine).

K questions are registered for the cohort; a reply stating all K forecasts, padded to the reply
limit, is parsed and stored within one item; a reply that leaves half out is told which are
missing and completes on its retry; one that never completes ends with the rest filled in at
the market's price, flagged; and every question scores once its market resolves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.limits import MAX_ITEM_BYTES, item_size
from arena_core.domain.cohort import Cohort
from arena_core.domain.decisions import DecisionRecord, DecisionStatus
from arena_core.domain.lineup import AgentKind, default_lineup
from arena_core.domain.market import Market, ResolutionKind
from arena_core.domain.panel import Methodology, QuestionStatus, ScoredBy
from arena_core.domain.panel_design import MAX_PANEL_SIZE
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.protocol.reply import MAX_REPLY_CHARS
from arena_core.services.decide import DecideRequest, DecideService, DecideSettings
from arena_core.services.panel import PanelSettings
from arena_core.services.resolution import ResolutionService
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import InMemoryBlobStore
from tests.support.agents import ScriptedAgent
from tests.support.builders import RUN_AT, WEEK0, binary, resolved
from tests.support.dynamodb_local import DynamoDBLocal
from tests.support.dynamodb_local_fixture import create_local_table, unique_table_name
from tests.support.markets import StaticMarketSource

K = MAX_PANEL_SIZE
FORMAT_RETRIES = 2
WIDE = "\U0001d54f"  # four bytes in UTF-8


def listing() -> list[Market]:
    """K + 20 liquid markets closing within the strata, each its own event."""
    return [
        binary(f"{1_300_000 + i}", f"{0.10 + 0.8 * (i % 97) / 97:.4f}").model_copy(
            update={
                "end_date": RUN_AT + timedelta(days=0.5 + (i % 13) / 2),
                "liquidity": Decimal("5000"),
                "category": f"cat-{i % 6}",
                "event_id": f"event-{i}",
            }
        )
        for i in range(K + 20)
    ]


@dataclass
class World:
    stores: Stores
    client: Any
    table: str
    blobs: InMemoryBlobStore
    source: StaticMarketSource
    cohort: Cohort
    items: list[tuple[str, str]]

    def decide(self, agent: ScriptedAgent, index: int = 0) -> DecisionRecord:
        settings = DecideSettings(format_retries=FORMAT_RETRIES, panel=PanelSettings(size=K))
        service = DecideService(self.stores, self.blobs, FixedClock(RUN_AT), settings)
        agent_id, ref = self.items[index]
        service.decide(DecideRequest(agent_id, RUN_AT, ref, "owner"), agent)
        record = self.stores.decisions.get_decision(DecisionRecord.id_for(agent_id, 1))
        assert record is not None
        return record

    def item_bytes(self, record: DecisionRecord) -> int:
        key = k.decision_key(record.agent_id, record.decision_id)
        raw = self.client.get_item(TableName=self.table, Key={a: {"S": v} for a, v in key.items()})[
            "Item"
        ]
        return item_size(raw)

    def panel_ids(self) -> list[str]:
        return [q.market.market_id for q in self.stores.panel.questions(self.cohort.cohort_id)]


@pytest.fixture
def world(dynamodb_local: DynamoDBLocal, request: pytest.FixtureRequest) -> Iterator[World]:
    client = dynamodb_local.client()
    name = create_local_table(client, unique_table_name(request.node.name))
    try:
        stores = dynamo_stores(client, name)
        blobs, clock = InMemoryBlobStore(), FixedClock(RUN_AT)
        cohort = Cohort.open(WEEK0, default_lineup(), Methodology.V1_PANEL)
        stores.cohorts.create_cohort(cohort, cohort.agents())
        source = StaticMarketSource(listing())
        prepare = PrepareRunService(stores, source, blobs, clock, panel=PanelSettings(size=K))
        run = prepare.prepare(RunRequest())
        items = [(i.agent_id, i.universe_ref) for i in run.items]
        yield World(stores, client, name, blobs, source, cohort, items)
    finally:
        client.delete_table(TableName=name)


def answer(ids: list[str], reasoning: str = "r") -> str:
    forecasts = [{"market_id": m, "p_yes": 0.62} for m in ids]
    return json.dumps(
        {"action": "HOLD", "forecasts": forecasts, "reasoning": reasoning}, ensure_ascii=False
    )


def test_k_questions_are_registered_and_a_full_padded_reply_fits_one_item(world: World) -> None:
    ids = world.panel_ids()
    assert len(ids) == K == len(set(ids))
    empty = answer(ids, "")
    agent = ScriptedAgent(answer(ids, WIDE * ((MAX_REPLY_CHARS - len(empty)) // 2)))
    record = world.decide(agent)
    assert record.status is DecisionStatus.SUCCEEDED and agent.calls == 1
    outcome = record.outcome
    assert outcome is not None and len(outcome.forecasts) == K
    assert not any(f.missing for f in outcome.forecasts)
    assert world.item_bytes(record) <= MAX_ITEM_BYTES


def test_a_reply_leaving_half_out_is_told_and_completes_on_its_retry(world: World) -> None:
    ids = world.panel_ids()
    agent = ScriptedAgent(answer(ids[: K // 2]), answer(ids))
    record = world.decide(agent)
    assert agent.calls == 2
    retry = agent.conversations[1][-1].content
    assert f"and {K // 2 - 5} more" in retry  # the missing ones, named five at a time
    assert record.outcome is not None and not any(f.missing for f in record.outcome.forecasts)


def test_a_reply_that_never_completes_is_filled_in_at_the_price(world: World) -> None:
    ids = world.panel_ids()
    agent = ScriptedAgent(answer(ids[:100]))
    record = world.decide(agent)
    assert record.status is DecisionStatus.SUCCEEDED and agent.calls == FORMAT_RETRIES + 1
    outcome = record.outcome
    assert outcome is not None and len(outcome.forecasts) == K
    filled = [f for f in outcome.forecasts if f.missing]
    assert len(filled) == K - 100
    prices = {m.market_id: m.outcomes[0].price for m in world.source.markets.values()}
    assert all(f.p_yes == prices[f.market_id] and f.stated is None for f in filled)
    assert world.item_bytes(record) <= MAX_ITEM_BYTES


def test_every_question_at_k_scores_once_its_market_resolves(world: World) -> None:
    ids = world.panel_ids()
    llms = [
        i
        for i, (agent_id, _) in enumerate(world.items)
        if world.stores.ledger.get_agent(agent_id).kind is AgentKind.LLM
    ]
    for index in llms[:2]:  # two models state; the rest never finish (a week's patience)
        world.decide(ScriptedAgent(answer(ids)), index)
    for market_id in ids:
        world.source.set(resolved(world.source.markets[market_id], ResolutionKind.WINNER, "Yes"))
    at = RUN_AT + timedelta(days=15)
    report = ResolutionService(world.stores, world.source, FixedClock(at)).run(at)
    assert len(report.panel.scored) == K
    questions = world.stores.panel.questions(world.cohort.cohort_id)
    assert {q.status for q in questions} == {QuestionStatus.SCORED}
    scores = world.stores.panel.scores(world.cohort.cohort_id)
    agents = len(world.cohort.lineup) + 1  # every agent asked, and the ensemble
    assert len(scores) == K * agents
    ensemble = [s for s in scores if s.scored_by is ScoredBy.ENSEMBLE]
    assert len(ensemble) == K and all(s.p_yes == Decimal("0.62") for s in ensemble)

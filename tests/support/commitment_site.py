"""A published site with its commitments, built through the services on in-memory stores: a
decision run (prepare, decide per agent, seal) and a publication into one folder, as the demo
lays it out. Agents bet, hold, fall back to HOLD, and fail (zero trades: nothing committed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.agents.baselines import BASELINE_AGENTS
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.lineup import AgentKind, default_lineup
from arena_core.domain.market import Market
from arena_core.domain.panel import Methodology
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.clock import FixedClock
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.ports.stores import Stores
from arena_core.services.commitments import seal_run
from arena_core.services.decide import DecideRequest, DecideService
from arena_core.services.publish_site import PublishSiteService
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import FolderCommitmentStore, InMemoryBlobStore, memory_stores
from tests.support.builders import RUN_AT, WEEK0, binary
from tests.support.markets import StaticMarketSource

BETTOR, FALLBACK, FAILING = "gpt-5.1", "gemini-2.5-flash", "grok-4"


def universe() -> list[Market]:
    ends = RUN_AT + timedelta(days=3)  # inside the panel's horizon
    return [
        binary(m, price).model_copy(update={"end_date": ends, "category": "Politics"})
        for m, price in (("m1", "0.40"), ("m2", "0.25"), ("m3", "0.70"))
    ]


class Model(ForecastAgent):
    """Replies by family: the bettor bets on m1 and m2, the failing family on an unknown
    market only, the fallback family never in JSON, the rest hold; each states its forecasts
    for the panel when there is one."""

    def __init__(self, family_id: str) -> None:
        self.family_id = family_id

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        reply: dict[str, object] = {"action": "HOLD", "reasoning": "Nothing is mispriced. Ünïcode"}
        if self.family_id == BETTOR:
            bets = [
                {"market_id": "m1", "side": "YES", "amount": 600},
                {"market_id": "m2", "side": "NO", "amount": "AMOUNT"},
            ]
            reply = {"action": "BET", "bets": bets, "reasoning": "m1 is cheap"}
        elif self.family_id == FAILING:
            reply = {"action": "BET", "bets": [{"market_id": "nope", "side": "YES", "amount": 90}]}
        if context.panel is not None:
            reply["forecasts"] = [
                {"market_id": m.market_id, "p_yes": "0.6"} for m in context.panel.markets
            ]
        # 300.50 as the model wrote it: the record holds 300.5, whatever the scale
        text = json.dumps(reply).replace('"AMOUNT"', "300.50")
        text = "no JSON here" if self.family_id == FALLBACK else text
        return LLMResponse(
            content=text, model=f"test/{self.family_id}", provider="t", raw_body=text
        )


def responder(member: Agent) -> ForecastAgent:
    if member.kind is AgentKind.BASELINE:
        return BASELINE_AGENTS[member.model_id]()
    return Model(member.family_id)


@dataclass
class CommittedSite:
    root: Path
    stores: Stores
    cohort: Cohort

    def decision_id(self, family_id: str) -> str:
        return f"{self.cohort.cohort_id}.{family_id}.w001"


def build_site(root: Path, methodology: Methodology = Methodology.V1) -> CommittedSite:
    stores, blobs, clock = memory_stores(), InMemoryBlobStore(), FixedClock(WEEK0)
    cohort = Cohort.open(WEEK0, default_lineup(), methodology.value)
    stores.cohorts.create_cohort(cohort, cohort.agents())
    clock.set(RUN_AT)
    prepared = PrepareRunService(stores, StaticMarketSource(universe()), blobs, clock).prepare(
        RunRequest()
    )
    commitments = FolderCommitmentStore(root)
    service = DecideService(stores, blobs, clock, commitments=commitments)
    decided = []
    for second, item in enumerate(prepared.items):
        clock.set(RUN_AT + timedelta(seconds=second, microseconds=250))  # distinct times
        request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, "run-1")
        decided.append(service.decide(request, responder).decision_id)
    seal_run(
        stores.decisions,
        commitments,
        run_id="run-1",
        run_at=prepared.run_at,
        decision_ids=decided,
        now=clock.now(),
    )
    PublishSiteService(stores, LocalFolderPublisher(root), blobs, clock).run()
    return CommittedSite(root, stores, cohort)

"""Defect 6: two overlapping invocations with the same owner token (a Step Functions retry after
``Lambda.Unknown``, two manual invokes) both called the model and both wrote, so the decision
published one answer while the ledger held the other's trades. Each invocation now claims under
its own owner; a later invocation of the same run takes the claim over and the earlier one can
no longer write: what is published always matches the trades applied."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import Any

from arena_core.domain.decisions import DecisionStatus
from arena_core.errors import ClaimLostError
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.llm import LLMResponse
from arena_core.services.decide import DecideRequest
from tests.integration.decide.conftest import World

RUN = "execution-1:agent"
WAIT = 10.0


def bet(market: str) -> str:
    bets = [{"market_id": market, "side": "YES", "amount": 500}]
    return json.dumps({"action": "BET", "bets": bets, "reasoning": f"I like {market}"})


class GatedAgent(ForecastAgent):
    """Signals when it is asked, waits for a gate, then answers."""

    def __init__(self, text: str, asked: threading.Event, gate: threading.Event) -> None:
        self.text, self.asked, self.gate = text, asked, gate

    def respond(self, messages: Any, context: AgentContext) -> LLMResponse:
        del messages, context
        self.asked.set()
        assert self.gate.wait(WAIT)
        return LLMResponse(content=self.text, model="m", raw_body=self.text)


class Signalling:
    """A store role that sets ``event`` after ``method`` returns or raises."""

    def __init__(self, inner: object, method: str, event: threading.Event) -> None:
        self._inner, self._method, self._event = inner, method, event

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if name != self._method:
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attribute(*args, **kwargs)
            finally:
                self._event.set()

        return call


def test_a_replaced_invocation_cannot_write_and_the_published_answer_is_the_one_traded(
    world: World,
) -> None:
    a_asked, b_asked, a_written = threading.Event(), threading.Event(), threading.Event()
    a_agent = GatedAgent(bet("m1"), a_asked, b_asked)  # answers once B has claimed and asked
    b_agent = GatedAgent(bet("m2"), b_asked, a_written)  # answers once A tried to write
    # A's checkpoint (refused now) would have been followed by its trades: either way, A's
    # attempt to write signals B to answer.
    signalling: Any = Signalling(world.stores.decisions, "save_checkpoint", a_written)
    a_stores = replace(world.stores, decisions=signalling)
    request = world.request()
    outcomes: dict[str, Any] = {}

    def invoke(name: str, stores: Any, agent: ForecastAgent) -> None:
        mine = DecideRequest(request.agent_id, request.run_at, request.universe_ref, name, RUN)
        try:
            outcomes[name] = world.service(stores).decide(mine, agent)
        except ClaimLostError as exc:
            outcomes[name] = exc

    a = threading.Thread(target=invoke, args=(f"{RUN}:A", a_stores, a_agent))
    a.start()
    assert a_asked.wait(WAIT)
    b = threading.Thread(target=invoke, args=(f"{RUN}:B", world.stores, b_agent))
    b.start()
    a.join(WAIT * 2)
    b.join(WAIT * 2)
    assert isinstance(outcomes[f"{RUN}:A"], ClaimLostError)  # fenced out after the takeover
    (record,) = world.stores.decisions.decisions(request.agent_id)
    assert (record.status, record.owner, record.run) == (DecisionStatus.SUCCEEDED, f"{RUN}:B", RUN)
    assert record.outcome is not None
    ledger = world.stores.ledger.trades(request.agent_id)
    published = [t for t in record.outcome.trades if t.executed]
    assert [(t.market_id, t.amount) for t in ledger] == [("m2", 500)]
    assert [(t.instruction.model_dump()["market_id"], t.amount) for t in published] == [("m2", 500)]
    assert record.outcome.reasoning == "I like m2"


def test_each_invocation_of_a_run_claims_under_its_own_owner(world: World) -> None:
    """Through the entry point: a live claim of the same execution is taken over by the next
    invocation, under an owner of its own."""
    from datetime import timedelta  # noqa: PLC0415

    from arena_core import bootstrap, entrypoints  # noqa: PLC0415
    from arena_core.settings import ArenaSettings  # noqa: PLC0415
    from arena_core.workflow import DecideInput  # noqa: PLC0415
    from tests.support.agents import ScriptedAgent  # noqa: PLC0415

    agent_id = world.agents[0].agent_id
    run = f"execution-9:{agent_id}"
    stale = world.stores.decisions.claim_decision(
        world.agents[0],
        1,
        owner=f"{run}:an-earlier-invocation",
        run=run,
        now=world.clock.now(),
        lease=timedelta(minutes=15),
        max_attempts=3,
    )
    settings = ArenaSettings(table_name="t", audit_bucket="b")
    agent = ScriptedAgent(bet("m1"))
    injected = bootstrap.Injected(stores=world.stores, blobs=world.blobs, agent_for=lambda m: agent)
    container = bootstrap.Container(settings, clock=world.clock, injected=injected)
    request = world.request()
    item = DecideInput(
        agent_id=agent_id,
        run_at=request.run_at,
        universe_ref=request.universe_ref,
        execution_id="execution-9",
    )
    result = entrypoints.decide(container, item)
    (record,) = world.stores.decisions.decisions(agent_id)
    assert result.status is DecisionStatus.SUCCEEDED
    assert record.run == run
    assert record.owner is not None
    assert record.owner != stale.owner
    assert record.owner.startswith(f"{run}:")

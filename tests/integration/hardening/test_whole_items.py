"""Issue 26 §2: every stored item bounded as a whole, on DynamoDB Local (AWS's own engine) and
on moto.

Before: the adapter checked the size of the values an update set, not of the item they landed
in. A bet on a market id of 190,000 characters beside a valid bet executed the valid trade, then
``finish_decision`` was refused (DynamoDB Local: the decision ended exhausted with its trade
applied and its outcome lost). Under v1+panel a reply with 66,000 junk forecasts or one
150,000-character unknown id overflowed the checkpoint on every attempt: nine model calls, and
a record left ``retryable_failure`` (never final) kept every panel question of the cohort
waiting. Now every model-supplied string and list is bounded before it is stored, the item
stays within the limit by construction, and a decision always ends in a final state."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.limits import MAX_ITEM_BYTES, item_size
from arena_core.domain.cohort import Cohort
from arena_core.domain.decisions import DecisionRecord, DecisionStatus
from arena_core.domain.lineup import default_lineup
from arena_core.domain.panel import Methodology
from arena_core.domain.valuation import reconcile
from arena_core.errors import ArenaError
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.protocol.reply import MAX_REPLY_CHARS
from arena_core.services.decide import DecideRequest, DecideService, DecideSettings
from arena_core.services.panel import PanelSettings
from arena_core.services.panel_scoring import FINAL
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import InMemoryBlobStore
from tests.support.agents import ScriptedAgent
from tests.support.aws import create_stores, embedded_aws
from tests.support.builders import RUN_AT, WEEK0, binary
from tests.support.dynamodb_local import DynamoDBLocal
from tests.support.dynamodb_local_fixture import create_local_table, unique_table_name
from tests.support.markets import StaticMarketSource

WIDE = "\U0001d54f"  # 𝕏: four bytes in UTF-8, the worst case for an item's size
MAX_ATTEMPTS = 3
FORMAT_RETRIES = 2


@dataclass
class Table:
    """Where a world's table lives, to read its items raw (None: in memory)."""

    client: Any
    name: str


@dataclass
class World:
    stores: Stores
    table: Table
    blobs: InMemoryBlobStore
    clock: FixedClock
    cohort: Cohort
    items: list[tuple[str, str]]  # (agent id, universe ref) of the run

    def decide(self, agent: ScriptedAgent, owner: str, index: int = 0) -> DecisionRecord | None:
        service = DecideService(
            self.stores,
            self.blobs,
            self.clock,
            DecideSettings(
                format_retries=FORMAT_RETRIES,
                max_attempts=MAX_ATTEMPTS,
                panel=PanelSettings(size=4),
            ),
        )
        agent_id, ref = self.items[index]
        try:
            result = service.decide(DecideRequest(agent_id, RUN_AT, ref, owner), agent)
        except ArenaError:
            pass  # a failed attempt: recorded on the decision, as the workflow would see it
        else:
            assert result.status in {*FINAL, DecisionStatus.RETRYABLE_FAILURE}
        return self.stores.decisions.get_decision(DecisionRecord.id_for(agent_id, 1))

    def until_final(self, agent: ScriptedAgent) -> DecisionRecord:
        """The workflow's attempts (its Retry), until the decision is final."""
        record = None
        for attempt in range(MAX_ATTEMPTS + 1):
            record = self.decide(agent, f"invocation-{attempt}")
            if record is not None and record.status in FINAL:
                return record
        raise AssertionError(f"never final: {record.status if record else None}")

    def item_bytes(self, decision_id: str) -> int:
        agent_id = DecisionRecord.agent_of(decision_id)
        raw = self.table.client.get_item(
            TableName=self.table.name,
            Key={a: {"S": v} for a, v in k.decision_key(agent_id, decision_id).items()},
        )["Item"]
        return item_size(raw)


def universe() -> list[Any]:
    ends = RUN_AT + timedelta(days=3)  # inside the panel's horizon
    return [
        binary(m, p).model_copy(
            update={"end_date": ends, "category": f"cat-{m}", "liquidity": Decimal("5000")}
        )
        for m, p in (("m1", "0.40"), ("m2", "0.25"), ("m3", "0.70"), ("m4", "0.55"))
    ]


def make_world(stores: Stores, table: Table, methodology: Methodology) -> World:
    blobs, clock = InMemoryBlobStore(), FixedClock(RUN_AT)
    cohort = Cohort.open(WEEK0, default_lineup(), methodology.value)
    stores.cohorts.create_cohort(cohort, cohort.agents())
    prepare = PrepareRunService(
        stores, StaticMarketSource(universe()), blobs, clock, panel=PanelSettings(size=4)
    )
    run = prepare.prepare(RunRequest())
    items = [(i.agent_id, i.universe_ref) for i in run.items]
    return World(stores, table, blobs, clock, cohort, items)


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> Iterator[tuple[Stores, Table]]:
    """DynamoDB Local (AWS's own engine); moto too for the tests that ask (``@moto_too``)."""
    if getattr(request, "param", "dynamodb-local") == "moto":
        with embedded_aws():
            stores = create_stores()
            table = stores.decisions.table  # type: ignore[attr-defined]
            yield stores, Table(table.client, table.name)
        return
    server: DynamoDBLocal = request.getfixturevalue("dynamodb_local")
    client = server.client()
    name = create_local_table(client, unique_table_name(request.node.name))
    try:
        yield dynamo_stores(client, name), Table(client, name)
    finally:
        client.delete_table(TableName=name)


def padded(build: Callable[[str], str], pad: str = WIDE) -> str:
    """The reply ``build`` makes around a reasoning that fills it to the parser's limit."""
    empty = build("")
    return build(pad * (MAX_REPLY_CHARS - len(empty)))


def bet(market_id: str, amount: int = 500, side: str = "YES") -> dict[str, Any]:
    return {"market_id": market_id, "side": side, "amount": amount}


def reply(action: str, reasoning: str, **fields: Any) -> str:
    return json.dumps({"action": action, **fields, "reasoning": reasoning}, ensure_ascii=False)


# The worst shapes the parser accepts, each filled to its 200,000 characters.
SHAPES: dict[str, Callable[[], str]] = {
    "a 190,000-character market id beside a valid bet": lambda: reply(
        "BET", "r", bets=[bet("m1"), bet("x" * 190_000)]
    ),
    "50 bets on 3,900-character ids in a 4-byte script": lambda: reply(
        "BET", "", bets=[bet("m1"), *(bet(f"{i}{WIDE * 3_900}") for i in range(49))]
    ),
    "50 bets on long 4-byte sides": lambda: reply(
        "BET", "", bets=[bet("m1"), *(bet("m2", side=WIDE * 3_900) for _ in range(49))]
    ),
    "50 sells of 3,900-character position ids": lambda: reply(
        "SELL", "", sells=[{"position_id": WIDE * 3_900, "percentage": 50} for _ in range(50)]
    ),
    "51 bets, one more than an answer may hold": lambda: reply(
        "BET", "", bets=[bet("m1", 50) for _ in range(51)]
    ),
    "a reasoning of 200,000 4-byte characters": lambda: padded(
        lambda r: reply("BET", r, bets=[bet("m1")])
    ),
}
PANEL_SHAPES: dict[str, Callable[[], str]] = {
    "66,000 junk forecasts": lambda: reply("HOLD", "r", forecasts=[1] * 66_000),
    "one 150,000-character unknown forecast id": lambda: reply(
        "HOLD",
        "r",
        forecasts=[
            {"market_id": "u" * 150_000, "p_yes": 0.5},
            *({"market_id": m, "p_yes": 0.5} for m in ("m1", "m2", "m3", "m4")),
        ],
    ),
    "200 forecasts on 4-byte ids, a bet on each market": lambda: padded(
        lambda r: reply(
            "BET",
            r,
            bets=[bet(m) for m in ("m1", "m2", "m3")],
            forecasts=[{"market_id": WIDE * 150, "p_yes": "62%"} for _ in range(200)],
        )
    ),
}


def check_bounded(world: World, record: DecisionRecord) -> None:
    assert world.item_bytes(record.decision_id) <= MAX_ITEM_BYTES
    agent = world.stores.ledger.get_agent(record.agent_id)
    reconcile(
        agent.cash,
        world.stores.ledger.trades(agent.agent_id),
        world.stores.ledger.settlements(agent.agent_id),
    )
    trades = world.stores.ledger.trades(agent.agent_id)
    if trades:  # trades applied: their decision succeeded and its outcome says so
        assert record.status is DecisionStatus.SUCCEEDED
        assert record.outcome is not None and record.outcome.executed == len(trades)


moto_too = pytest.mark.parametrize("engine", ["dynamodb-local", "moto"], indirect=True)


@pytest.mark.parametrize("shape", SHAPES)
def test_the_largest_replies_fit_in_one_item_and_end_final(
    engine: tuple[Stores, Table], shape: str
) -> None:
    world = make_world(*engine, Methodology.V1)
    text = SHAPES[shape]()
    assert len(text) <= MAX_REPLY_CHARS
    agent = ScriptedAgent(text)
    record = world.until_final(agent)
    check_bounded(world, record)
    assert agent.calls <= MAX_ATTEMPTS * (FORMAT_RETRIES + 1)
    if shape.startswith("a 190,000"):
        check_the_giant_id(record)


@moto_too
def test_a_giant_id_beside_a_valid_bet_on_both_engines(engine: tuple[Stores, Table]) -> None:
    """The issue's case, on the engine that refused the item (DynamoDB Local: exhausted, its
    trade applied, its outcome lost) and on the one that took part of it (moto: succeeded
    with no outcome)."""
    world = make_world(*engine, Methodology.V1)
    record = world.until_final(
        ScriptedAgent(SHAPES["a 190,000-character market id beside a valid bet"]())
    )
    check_bounded(world, record)
    check_the_giant_id(record)


def check_the_giant_id(record: DecisionRecord) -> None:
    """The valid bet executed and is in the outcome; the giant id, cut, was rejected."""
    assert record.status is DecisionStatus.SUCCEEDED
    assert record.outcome is not None
    assert [t.executed for t in record.outcome.trades] == [True, False]
    rejected = record.outcome.trades[1]
    assert rejected.rule == "unknown_market"
    assert len(rejected.instruction.market_id) <= 129  # type: ignore[union-attr]
    assert rejected.reason is not None and len(rejected.reason) <= 201


@pytest.mark.parametrize("shape", PANEL_SHAPES)
def test_the_largest_panel_replies_fit_and_complete_at_once(
    engine: tuple[Stores, Table], shape: str
) -> None:
    world = make_world(*engine, Methodology.V1_PANEL)
    agent = ScriptedAgent(PANEL_SHAPES[shape]())
    record = world.until_final(agent)
    check_bounded(world, record)
    assert record.status is DecisionStatus.SUCCEEDED
    assert agent.calls == FORMAT_RETRIES + 1  # one attempt: its format retries, no more
    outcome = record.outcome
    assert outcome is not None and len(outcome.forecasts) == 4
    assert outcome.forecast_problems is not None and len(outcome.forecast_problems) <= 501


def test_a_decision_that_cannot_be_stored_ends_failed_for_good(
    engine: tuple[Stores, Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever bound is hit (here a smaller one, to hit it), the decision is closed as
    failed, final: no retry, and no panel question waits for it."""
    import arena_core.adapters.dynamodb.decisions as adapter  # noqa: PLC0415

    monkeypatch.setattr(adapter, "PAYLOAD_BYTES", 2_000)
    world = make_world(*engine, Methodology.V1)
    agent = ScriptedAgent(reply("BET", "x" * 3_000, bets=[bet("m1")]))
    record = world.decide(agent, "invocation-0")
    assert record is not None and record.status is DecisionStatus.FAILED
    assert record.error is not None and "StoreLimitError" in record.error
    assert world.stores.ledger.trades(record.agent_id) == []  # refused before any trade
    again = world.decide(agent, "invocation-1")
    assert again is not None and again.status is DecisionStatus.FAILED and agent.calls == 1


def test_a_decision_that_cannot_be_decoded_ends_failed_for_good(
    engine: tuple[Stores, Table],
) -> None:
    world = make_world(*engine, Methodology.V1)
    agent_id = world.items[0][0]
    decision_id = DecisionRecord.id_for(agent_id, 1)
    world.table.client.put_item(
        TableName=world.table.name,
        Item={
            **{a: {"S": v} for a, v in k.decision_key(agent_id, decision_id).items()},
            "decision_id": {"S": decision_id},
            "agent_id": {"S": agent_id},
            "cohort_id": {"S": world.cohort.cohort_id},
            "week": {"N": "1"},
            "status": {"S": "retryable_failure"},
            "attempts": {"N": "1"},
            "claims": {"N": "1"},
            "trades_applied": {"N": "0"},
            "created_at": {"S": k.stamp(RUN_AT)},
            "updated_at": {"S": k.stamp(RUN_AT)},
            "checkpoint_json": {"S": '{"answer": "garbled'},
        },
    )
    agent = ScriptedAgent(reply("HOLD", "r"))
    record = world.decide(agent, "invocation-0")
    assert record is not None and record.status is DecisionStatus.FAILED
    assert record.checkpoint is None and agent.calls == 0


def test_the_last_failed_attempt_is_final(engine: tuple[Stores, Table]) -> None:
    """Zero executed trades on every attempt: the third is recorded exhausted, not a
    retryable failure a panel question would wait a week for."""
    world = make_world(*engine, Methodology.V1)
    agent = ScriptedAgent(reply("BET", "r", bets=[bet("nowhere")]))
    record = world.until_final(agent)
    assert (record.status, record.attempts) == (DecisionStatus.EXHAUSTED, MAX_ATTEMPTS)


reasoning = st.text(st.sampled_from(["a", "é", WIDE, "\n", '"', "\\"]), max_size=50).map(
    lambda t: t * 2_000
)
ids = st.integers(0, 2_000).map(lambda n: "m1" if n == 0 else WIDE * n)
bets = st.lists(
    st.builds(lambda m, s: bet(m, side=s), ids, st.sampled_from(["YES", "NO", WIDE * 300])),
    min_size=1,
    max_size=51,
)
forecasts = st.lists(
    st.one_of(st.integers(), st.builds(lambda m: {"market_id": m, "p_yes": 0.3}, ids)),
    max_size=300,
)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(bets=bets, forecasts=forecasts, reasoning=reasoning)
def test_any_large_reply_keeps_the_item_bounded_on_dynamodb_local(
    dynamodb_local: DynamoDBLocal, bets: list[Any], forecasts: list[Any], reasoning: str
) -> None:
    """Property: whatever mix of bets, forecasts and reasoning a reply within the parser's
    limit holds, the decision's item on DynamoDB Local stays within 400 KB and the decision
    ends final within the attempt limit, its trades recorded in its outcome."""
    text = reply("BET", reasoning, bets=bets, forecasts=forecasts)
    text = text if len(text) <= MAX_REPLY_CHARS else reply("BET", "r", bets=bets)
    client = dynamodb_local.client()
    name = create_local_table(client, unique_table_name("whole-item"))
    try:
        world = make_world(dynamo_stores(client, name), Table(client, name), Methodology.V1_PANEL)
        record = world.until_final(ScriptedAgent(text))
        check_bounded(world, record)
    finally:
        client.delete_table(TableName=name)

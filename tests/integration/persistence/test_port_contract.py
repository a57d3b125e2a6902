"""One contract for every store role, read side: a week of history (a cohort, trades, a sell, a
settlement, marks, captures, a series, final totals, decisions) written the same way into the
in-memory fake, the DynamoDB adapter on moto and the same adapter on DynamoDB Local; then every
read method of every port answers the same in all three. (The fake answered what the ports
document while the adapter did not: ``positions_on`` listed only closed positions on DynamoDB,
the index written for closed positions alone.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.domain.answer import BetInstruction, SellInstruction
from arena_core.domain.cohort import Agent
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.market import ResolutionKind
from arena_core.domain.market_record import Capture, HourlyMarks
from arena_core.domain.portfolio import FamilyTotals, PortfolioSnapshot, SeriesPoint
from arena_core.ports.stores import Stores
from arena_core.services.settlement import settle_market
from arena_core.services.trading import TradeRun, execute_all
from arena_local.memory import memory_stores
from tests.support.aws import create_stores, embedded_aws
from tests.support.builders import RUN_AT, WEEK0, binary, open_cohort, resolved
from tests.support.dynamodb_local import DynamoDBLocal
from tests.support.dynamodb_local_fixture import create_local_table, unique_table_name

LEASE = timedelta(minutes=15)
MARKETS = {m.market_id: m for m in (binary("m1", "0.40"), binary("m2", "0.25"))}
END = RUN_AT + timedelta(days=6)


@pytest.fixture
def three(dynamodb_local: DynamoDBLocal) -> Iterator[dict[str, Stores]]:
    client = dynamodb_local.client()
    table = create_local_table(client, unique_table_name("contract"))
    with embedded_aws():
        yield {
            "memory": memory_stores(),
            "moto": create_stores(),
            "dynamodb-local": dynamo_stores(client, table),
        }
    client.delete_table(TableName=table)


def _week(stores: Stores) -> list[Agent]:
    """The same week of history, written through the ports."""
    cohort, agents = open_cohort(stores)
    stores.markets.save_markets(list(MARKETS.values()))
    stores.markets.record_captures([Capture.of(m, RUN_AT) for m in MARKETS.values()])
    stores.markets.record_marks(
        HourlyMarks(hour=RUN_AT + timedelta(hours=1), prices={"m1": Decimal("0.41")})
    )
    for index, agent in enumerate(agents[:2]):
        record = stores.decisions.claim_decision(
            agent, 1, owner="run", now=RUN_AT, lease=LEASE, max_attempts=3
        )
        bets = [
            BetInstruction(market_id="m1", side="YES" if index else "NO", amount=Decimal(500)),
            BetInstruction(market_id="m2", side="NO", amount=Decimal(300)),
        ]
        run = TradeRun(agent.agent_id, record.decision_id, "run", MARKETS, RUN_AT)
        execute_all(stores.ledger, run, bets)
        held = stores.ledger.positions(agent.agent_id)
        sold = next(p for p in held if p.market_id == "m2")
        execute_all(
            stores.ledger,
            run,
            [SellInstruction(position_id=sold.position_id, percentage=Decimal(100))],
        )
        stores.decisions.finish_decision(
            record.decision_id, owner="run", status=DecisionStatus.SUCCEEDED, now=RUN_AT
        )
    settle_market(stores, resolved(MARKETS["m2"], ResolutionKind.WINNER, "NO"), END)
    snapshots = [
        PortfolioSnapshot(
            agent_id=a.agent_id, cohort_id=cohort.cohort_id, family_id=a.family_id,
            taken_at=END, cash=Decimal(9000), positions_value=Decimal(500),
            total_value=Decimal(9500), total_pnl=Decimal(-500), total_pnl_pct=Decimal(-5),
            brier=None, resolved_bets=0, open_positions=1, trades=3,
        )
        for a in agents[:2]
    ]  # fmt: skip
    stores.views.put_snapshots(snapshots)
    stores.views.put_final_totals(
        [FamilyTotals(cohort_id=cohort.cohort_id, family_id=a.family_id, pnl=Decimal(-500),
                      return_pct_sum=Decimal(-5), agents=1) for a in agents[:2]]
    )  # fmt: skip
    stores.views.put_series(
        [SeriesPoint(family_id=agents[0].family_id, resolution="hour", bucket=RUN_AT,
                     taken_at=RUN_AT, pnl=Decimal(1), return_pct=Decimal("0.01"), agents=1)]
    )  # fmt: skip
    return list(agents)


READS: dict[str, Callable[[Stores, list[Agent]], Any]] = {
    "cohorts.cohorts": lambda s, _: s.cohorts.cohorts(),
    "cohorts.agents": lambda s, a: s.cohorts.agents(a[0].cohort_id),
    "ledger.positions_on": lambda s, _: [s.ledger.positions_on(m) for m in ("m1", "m2", "m9")],
    "ledger.positions": lambda s, a: [s.ledger.positions(x.agent_id) for x in a[:3]],
    "ledger.holdings_of": lambda s, a: s.ledger.holdings_of([x.agent_id for x in a[:3]]),
    "ledger.get_trade": lambda s, a: [
        s.ledger.get_trade(a[0].agent_id, t.trade_id) for t in s.ledger.trades(a[0].agent_id)
    ],
    "markets.markets_to_resolve": lambda s, _: s.markets.markets_to_resolve(),
    "markets.get_markets": lambda s, _: s.markets.get_markets(["m1", "m2", "m9"]),
    "markets.market_records": lambda s, _: s.markets.market_records(["m1", "m2"]),
    "markets.captures": lambda s, _: [s.markets.captures(m) for m in ("m1", "m2", "m9")],
    "markets.marks": lambda s, _: s.markets.marks(RUN_AT, END),
    "views.agent_records": lambda s, a: [s.views.agent_records(x.agent_id) for x in a[:3]],
    "views.family_scores": lambda s, a: [s.views.family_scores(x.family_id) for x in a[:3]],
    "views.family_aggregates": lambda s, _: s.views.family_aggregates(),
    "views.final_totals": lambda s, _: s.views.final_totals(),
    "views.series": lambda s, a: s.views.series(a[0].family_id, "hour", WEEK0, END),
    "decisions.decisions": lambda s, a: [s.decisions.decisions(x.agent_id) for x in a[:3]],
    "decisions.get_decision": lambda s, a: [
        s.decisions.get_decision(d.decision_id) for d in s.decisions.decisions(a[0].agent_id)
    ],
}


def test_every_read_answers_the_same_in_every_store(three: dict[str, Stores]) -> None:
    agents = {name: _week(stores) for name, stores in three.items()}
    for read, call in READS.items():
        found = {name: call(stores, agents[name]) for name, stores in three.items()}
        assert found["moto"] == found["memory"], read
        assert found["dynamodb-local"] == found["memory"], read


def test_every_position_on_a_market_is_found_by_it_open_sold_or_settled(
    three: dict[str, Stores],
) -> None:
    for stores in three.values():
        _week(stores)
        open_ones = stores.ledger.positions_on("m1")
        assert [p.status.value for p in open_ones] == ["open", "open"]  # both agents hold m1
        ended = stores.ledger.positions_on("m2")
        assert len(ended) == 2 and not any(p.is_open for p in ended)

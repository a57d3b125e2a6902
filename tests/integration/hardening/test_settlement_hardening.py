"""Defect 9: a winning bet of exactly 25% of cash wrote its zero Brier as ``0E-12``, which
moto's ``ADD`` cannot read: every later settlement of the family failed. Numbers are written in
fixed point and the aggregate's decimal sums as whole trillionths.

Defect 13: a bet whose position was sold out before its market resolved was never scored, so
selling first dropped a losing forecast from a Brier score. Every buy is scored at resolution.

Defect 11: completing a cohort took no final snapshot, so its pages and exports kept the state
before its last settlements. Completion writes each agent's final snapshot first."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.answer import BetInstruction, SellInstruction
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.market import ResolutionKind
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.services.publish_site import PublishSiteService
from arena_core.services.resolution import ResolutionService
from arena_core.services.settlement import settle_market
from arena_core.services.snapshot import SnapshotService
from arena_core.services.trading import TradeRun, execute_all
from arena_local.memory import InMemoryBlobStore, memory_stores
from tests.support.aws import create_stores, embedded_aws
from tests.support.builders import RUN_AT, binary, open_cohort, resolved
from tests.support.markets import StaticMarketSource

LATER = RUN_AT + timedelta(days=2)


@pytest.fixture(params=["memory", "dynamodb"])
def stores(request: pytest.FixtureRequest) -> Iterator[Stores]:
    if request.param == "memory":
        yield memory_stores()
        return
    with embedded_aws():
        yield create_stores()


def trade(
    stores: Stores, instructions: Sequence[BetInstruction | SellInstruction], prices: dict[str, str]
) -> str:
    _, agents = open_cohort(stores)
    agent = agents[0]
    week = 1 + sum(1 for _ in stores.decisions.decisions(agent.agent_id))
    record = stores.decisions.claim_decision(
        agent, week, owner="o", now=RUN_AT, lease=timedelta(minutes=5), max_attempts=3
    )
    markets = {m: binary(m, p) for m, p in prices.items()}
    run = TradeRun(agent.agent_id, record.decision_id, "o", markets, RUN_AT)
    outcomes = execute_all(stores.ledger, run, instructions)
    assert all(o.executed for o in outcomes), [o.reason for o in outcomes]
    stores.decisions.finish_decision(
        record.decision_id, owner="o", status=DecisionStatus.SUCCEEDED, now=RUN_AT
    )
    stores.cohorts.mark_first_decision(agent.cohort_id, RUN_AT)
    return agent.agent_id


def test_bets_of_exactly_a_quarter_of_cash_settle_again_and_again(stores: Stores) -> None:
    quarter = [
        BetInstruction(market_id="m1", side="YES", amount=Decimal("2500")),
        BetInstruction(market_id="m2", side="YES", amount=Decimal("1875")),  # 25% of what is left
        BetInstruction(market_id="m3", side="NO", amount=Decimal("1406.25")),
    ]
    agent_id = trade(stores, quarter, {"m1": "0.4", "m2": "0.4", "m3": "0.4"})
    for market_id, winner in (("m1", "YES"), ("m2", "YES"), ("m3", "NO")):
        market = resolved(binary(market_id), ResolutionKind.WINNER, winner)
        report = settle_market(stores, market, LATER)
        assert report.marked_resolved
    scores = stores.ledger.bet_scores(agent_id)
    assert [s.brier for s in scores] == [0, 0, 0]
    aggregate = stores.views.family_aggregates()[scores[0].family_id]
    assert (aggregate.scored_bets, aggregate.brier_sum, aggregate.wins) == (3, 0, 3)
    assert aggregate.log_score_sum == sum(s.log_score for s in scores)


def test_a_sold_out_bet_is_still_scored_when_its_market_resolves(stores: Stores) -> None:
    agent_id = trade(
        stores, [BetInstruction(market_id="m1", side="YES", amount=Decimal(1000))], {"m1": "0.4"}
    )
    (position,) = stores.ledger.positions(agent_id)
    sell = SellInstruction(position_id=position.position_id, percentage=Decimal(100))
    trade(stores, [sell], {"m1": "0.5"})
    cash = stores.ledger.get_agent(agent_id).cash
    source = StaticMarketSource([resolved(binary("m1"), ResolutionKind.WINNER, "YES")])
    ResolutionService(stores, source, FixedClock(LATER)).run()
    (score,) = stores.ledger.bet_scores(agent_id)
    assert score.brier == Decimal("0.36")  # confidence 1000 / 2500 = 0.4, YES won
    assert stores.ledger.get_agent(agent_id).cash == cash  # scoring moves no money
    assert stores.markets.markets_to_resolve() == []
    ResolutionService(stores, source, FixedClock(LATER + timedelta(hours=1))).run()
    assert len(stores.ledger.bet_scores(agent_id)) == 1
    aggregate = stores.views.family_aggregates()[score.family_id]
    assert (aggregate.scored_bets, aggregate.brier_sum) == (1, Decimal("0.36"))


def rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def test_a_completed_cohort_shows_its_final_state_everywhere(
    stores: Stores, tmp_path: Path
) -> None:
    agent_id = trade(
        stores, [BetInstruction(market_id="m1", side="YES", amount=Decimal(1000))], {"m1": "0.4"}
    )
    open_market = StaticMarketSource([binary("m1", "0.4")])
    SnapshotService(stores, open_market, FixedClock(RUN_AT + timedelta(minutes=10))).run()
    won = StaticMarketSource([resolved(binary("m1"), ResolutionKind.WINNER, "YES")])
    report = ResolutionService(stores, won, FixedClock(LATER)).run()
    assert report.completed_cohorts
    publisher = LocalFolderPublisher(tmp_path)
    PublishSiteService(stores, publisher, InMemoryBlobStore(), FixedClock(LATER)).run()
    cohort_id = report.completed_cohorts[0]
    (agent,) = [
        r
        for r in rows(tmp_path / f"data/cohorts/{cohort_id}/agents.csv")
        if r["agent_id"] == agent_id
    ]
    board = {r["family_id"]: r for r in rows(tmp_path / "data/leaderboard.csv")}
    family = board[agent_id.split(".", 1)[1]]
    cash = stores.ledger.get_agent(agent_id).cash
    assert Decimal(agent["cash"]) == cash == Decimal("11500.00")  # 2500 shares paid $1
    assert Decimal(agent["positions_value"]) == 0
    assert Decimal(agent["total_value"]) == Decimal(agent["cash"]) + Decimal(
        agent["positions_value"]
    )
    assert agent["resolved_bets"] == family["resolved_bets"]
    assert round(float(agent["brier"]), 6) == float(family["brier"])  # exported to six places
    assert agent["resolved_bets"] == "1"
    assert Decimal(family["return_pct_mean"]) == Decimal(agent["total_pnl_pct"]) == 15
    page = (tmp_path / f"cohorts/{cohort_id}/index.html").read_text()
    assert "11,500.00" in page

"""Atomic trades applied exactly once; settlement exactly once; the ledger always reconciles."""

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, cast

import pytest

from arena_core.domain.answer import BetInstruction, SellInstruction
from arena_core.domain.cohort import Agent, CohortStatus
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.market import ResolutionKind
from arena_core.domain.portfolio import PortfolioSnapshot, PositionStatus, SettlementKind
from arena_core.domain.valuation import reconcile
from arena_core.errors import ClaimLostError
from arena_core.ports.stores import Stores
from arena_core.services.settlement import settle_market
from arena_core.services.trading import TradeRun, execute_all
from tests.support.builders import RUN_AT, binary, open_cohort, resolved
from tests.support.crash import SimulatedCrash, crashing

LEASE = timedelta(minutes=15)
MARKETS = {
    m.market_id: m for m in (binary("m1", "0.40"), binary("m2", "0.25"), binary("m3", "0.70"))
}
BETS = [
    BetInstruction(market_id="m1", side="YES", amount=Decimal("1000")),
    BetInstruction(market_id="m2", side="no", amount=Decimal("500")),
    BetInstruction(market_id="m1", side="YES", amount=Decimal("800")),  # adds to the m1 position
    BetInstruction(market_id="zz", side="YES", amount=Decimal("100")),  # unknown market: rejected
    BetInstruction(market_id="m3", side="YES", amount=Decimal("4000")),  # above 25%: rejected
]


def claimed(stores: Stores, owner: str = "run-a") -> tuple[str, DecisionRecord]:
    _, agents = open_cohort(stores)
    record = stores.decisions.claim_decision(
        agents[0], 1, owner=owner, now=RUN_AT, lease=LEASE, max_attempts=3
    )
    return agents[0].agent_id, record


def run(
    stores: Any,
    agent_id: str,
    record: DecisionRecord,
    instructions: list[Any],
    owner: str = "run-a",
) -> Any:
    target = cast(Stores, stores)
    trade_run = TradeRun(agent_id, record.decision_id, owner, MARKETS, RUN_AT)
    return execute_all(target.ledger, trade_run, instructions)


def ledger(stores: Stores, agent_id: str) -> tuple[Any, ...]:
    return (
        stores.ledger.get_agent(agent_id).cash,
        tuple(stores.ledger.trades(agent_id)),
        tuple(stores.ledger.positions(agent_id)),
        tuple(stores.ledger.settlements(agent_id)),
        tuple(stores.ledger.bet_scores(agent_id)),
    )


def assert_reconciles(stores: Stores, agent_id: str) -> None:
    reconcile(
        stores.ledger.get_agent(agent_id).cash,
        stores.ledger.trades(agent_id),
        stores.ledger.settlements(agent_id),
    )


def test_trades_apply_with_rejections_recorded(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    outcomes = run(stores, agent_id, record, BETS)
    assert [o.executed for o in outcomes] == [True, True, True, False, False]
    assert outcomes[3].rejected_rule == "unknown_market"
    assert outcomes[4].rejected_rule == "max_bet"
    agent = stores.ledger.get_agent(agent_id)
    assert agent.cash == Decimal("7700")
    assert (agent.version, agent.trades) == (3, 3)
    positions = stores.ledger.positions(agent_id)
    assert len(positions) == 2  # the second m1 bet added to the first position
    assert stores.markets.markets_to_resolve() == ["m1", "m2"]
    stored = stores.decisions.get_decision(record.decision_id)
    assert stored is not None
    assert stored.trades_applied == 3
    assert_reconciles(stores, agent_id)


def test_applying_the_same_decision_twice_changes_nothing(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    run(stores, agent_id, record, BETS)
    before = ledger(stores, agent_id)
    again = run(stores, agent_id, record, BETS)
    assert [o.executed for o in again] == [True, True, True, False, False]
    assert ledger(stores, agent_id) == before
    again_agent = stores.ledger.get_agent(agent_id)
    assert (again_agent.version, again_agent.trades) == (3, 3)  # a replay counts nothing


@pytest.mark.parametrize("k", [0, 1, 2])
def test_interrupted_after_k_trades_then_replayed_ends_with_all_trades(
    stores: Stores, k: int
) -> None:
    agent_id, record = claimed(stores)
    with pytest.raises(SimulatedCrash):
        run(crashing(stores, "apply_trade", after=k), agent_id, record, BETS)
    assert len(stores.ledger.trades(agent_id)) == k
    run(stores, agent_id, record, BETS)
    assert len(stores.ledger.trades(agent_id)) == 3
    assert stores.ledger.get_agent(agent_id).cash == Decimal("7700")
    assert_reconciles(stores, agent_id)


def test_a_run_that_lost_its_claim_cannot_trade(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    stores.decisions.claim_decision(
        stores.ledger.get_agent(agent_id),
        1,
        owner="run-b",
        now=RUN_AT + LEASE * 2,
        lease=LEASE,
        max_attempts=3,
    )
    with pytest.raises(ClaimLostError):
        run(stores, agent_id, record, BETS[:1], owner="run-a")
    assert stores.ledger.trades(agent_id) == []
    assert stores.ledger.get_agent(agent_id).cash == Decimal("10000")


def test_sell_closes_the_position_and_the_market_stays_to_be_scored(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    run(stores, agent_id, record, BETS[:1])
    (position,) = stores.ledger.positions(agent_id)
    sell = SellInstruction(position_id=position.position_id, percentage=Decimal("100"))
    outcomes = run(stores, agent_id, record, [*BETS[:1], sell])
    assert outcomes[1].executed
    (closed,) = stores.ledger.positions(agent_id)
    assert closed.status is PositionStatus.CLOSED
    assert stores.ledger.open_positions_on("m1") == []
    # Its buy is scored when the market resolves: the market stays among those to resolve.
    assert stores.markets.markets_to_resolve() == ["m1"]
    assert_reconciles(stores, agent_id)


def test_settlement_pays_scores_and_marks_resolved_once(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    run(stores, agent_id, record, BETS)
    m1 = resolved(MARKETS["m1"], ResolutionKind.WINNER, "YES")
    report = settle_market(stores, m1, RUN_AT + timedelta(days=2))
    assert report.marked_resolved
    (settlement,) = report.settled
    assert settlement.kind is SettlementKind.WON
    assert settlement.payout == Decimal("4500")  # 2500 + 2000 shares at $1
    assert len(stores.ledger.bet_scores(agent_id)) == 2
    aggregate = stores.views.family_aggregates()[stores.ledger.get_agent(agent_id).family_id]
    assert aggregate.scored_bets == 2
    assert aggregate.wins == 2
    assert aggregate.trades == 3
    assert aggregate.brier_sum == sum(
        (s.brier for s in stores.ledger.bet_scores(agent_id)), Decimal(0)
    )
    before = ledger(stores, agent_id)
    rerun = settle_market(stores, m1, RUN_AT + timedelta(days=3))
    assert rerun.settled == ()
    assert not rerun.marked_resolved
    assert ledger(stores, agent_id) == before
    assert (
        stores.views.family_aggregates()[stores.ledger.get_agent(agent_id).family_id] == aggregate
    )
    assert stores.markets.markets_to_resolve() == ["m2"]
    assert_reconciles(stores, agent_id)


def test_crash_between_settlements_then_rerun(stores: Stores) -> None:
    _, agents = open_cohort(stores)
    for agent in agents[:3]:
        record = stores.decisions.claim_decision(
            agent, 1, owner="run", now=RUN_AT, lease=LEASE, max_attempts=3
        )
        run(stores, agent.agent_id, record, BETS[:2], owner="run")
    m2 = resolved(MARKETS["m2"], ResolutionKind.SPLIT)
    with pytest.raises(SimulatedCrash):
        settle_market(crashing(stores, "apply_settlement", after=1), m2, RUN_AT)
    assert stores.markets.markets_to_resolve() == ["m1", "m2"]
    assert stores.markets.get_markets(["m2"]) == {}
    report = settle_market(stores, m2, RUN_AT)
    assert len(report.settled) == 2
    assert report.marked_resolved
    assert stores.markets.markets_to_resolve() == ["m1"]
    for agent in agents[:3]:
        (split,) = stores.ledger.settlements(agent.agent_id)
        assert split.kind is SettlementKind.SPLIT
        assert split.payout == Decimal("333.33")  # 666.666666 NO shares at $0.50
        assert stores.ledger.bet_scores(agent.agent_id) == []
        assert_reconciles(stores, agent.agent_id)


def test_indeterminate_market_refunds_at_cost(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    run(stores, agent_id, record, BETS[:1])
    settle_market(stores, resolved(MARKETS["m1"], ResolutionKind.INDETERMINATE), RUN_AT)
    (refund,) = stores.ledger.settlements(agent_id)
    assert refund.kind is SettlementKind.CANCELLED
    assert refund.payout == Decimal("1000")
    assert stores.ledger.get_agent(agent_id).cash == Decimal("10000")
    assert_reconciles(stores, agent_id)


def test_market_is_not_marked_resolved_while_positions_remain(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    run(stores, agent_id, record, BETS[:1])
    assert not stores.markets.mark_market_resolved(
        resolved(MARKETS["m1"], ResolutionKind.WINNER, "NO"), RUN_AT
    )
    assert stores.markets.markets_to_resolve() == ["m1"]


def snapshot_of(agent: Agent, taken_at: datetime, index: int) -> PortfolioSnapshot:
    return PortfolioSnapshot(
        agent_id=agent.agent_id,
        cohort_id=agent.cohort_id,
        family_id=agent.family_id,
        taken_at=taken_at,
        cash=Decimal("10000"),
        positions_value=Decimal(index),
        total_value=Decimal(10000 + index),
        total_pnl=Decimal(index),
        total_pnl_pct=Decimal(index) / 100,
        brier=None,
        resolved_bets=0,
        open_positions=0,
    )


def test_snapshots_by_time_range_and_latest(stores: Stores) -> None:
    cohort, agents = open_cohort(stores)
    agent = agents[0]
    shots = [snapshot_of(agent, RUN_AT + timedelta(minutes=10 * i), i) for i in range(30)]
    stores.views.put_snapshots(shots)
    stores.views.put_snapshots(shots[:5])  # idempotent rewrite
    window = stores.views.snapshots(
        agent.agent_id, RUN_AT + timedelta(minutes=50), RUN_AT + timedelta(minutes=100)
    )
    assert [s.taken_at for s in window] == [s.taken_at for s in shots[5:11]]
    assert window == shots[5:11]
    # An active cohort's latest is each agent's newest pass (no item rewritten to hold it)
    assert stores.views.latest_snapshots(cohort) == {agent.agent_id: shots[-1]}


def test_a_completed_cohorts_latest_are_its_final_snapshots(stores: Stores) -> None:
    cohort, agents = open_cohort(stores)
    passes = [snapshot_of(a, RUN_AT + timedelta(minutes=10), i) for i, a in enumerate(agents)]
    stores.views.put_snapshots(passes)
    finals = [snapshot_of(a, RUN_AT + timedelta(days=30), 100 + i) for i, a in enumerate(agents)]
    stores.views.put_snapshots(finals)
    stores.views.put_finals(finals)
    stores.views.put_finals(passes)  # an older one never replaces a final
    completed = cohort.model_copy(update={"status": CohortStatus.COMPLETED})
    assert stores.views.latest_snapshots(completed) == {s.agent_id: s for s in finals}


def test_hourly_snapshots_keep_the_newest_of_each_hour(stores: Stores) -> None:
    _, agents = open_cohort(stores)
    agent = agents[0]
    start = RUN_AT.replace(minute=0)
    shots = [snapshot_of(agent, start + timedelta(minutes=10 * i), i) for i in range(30)]
    stores.views.put_hourly(list(reversed(shots[:20])))  # a batch's order does not matter
    stores.views.put_hourly(shots[20:])
    assert stores.views.hourly_snapshots(agents[2].agent_id, start, start + timedelta(days=1)) == []
    stores.views.put_snapshots(shots)  # the passes themselves write no hourly snapshot

    hourly = stores.views.hourly_snapshots(
        agent.agent_id, start, start + timedelta(hours=4, minutes=59)
    )

    assert hourly == [shots[i] for i in (5, 11, 17, 23, 29)]  # :50 of each of the five hours
    later = stores.views.hourly_snapshots(
        agent.agent_id, start + timedelta(hours=2, minutes=30), start + timedelta(hours=3)
    )
    assert later == [shots[17], shots[23]]  # whole hours: the one holding start, to end's
    assert stores.views.hourly_snapshots(agents[1].agent_id, start, start + timedelta(days=1)) == []


def test_a_later_pass_replaces_the_hours_snapshot(stores: Stores) -> None:
    _, agents = open_cohort(stores)
    agent = agents[0]
    start = RUN_AT.replace(minute=0)
    first = snapshot_of(agent, start + timedelta(minutes=10), 1)
    last = snapshot_of(agent, start + timedelta(minutes=20), 2)
    stores.views.put_snapshots([first, last])
    stores.views.put_hourly([first])
    stores.views.put_hourly([last])

    assert stores.views.hourly_snapshots(agent.agent_id, start, start) == [last]
    assert len(stores.views.snapshots(agent.agent_id, start, start + timedelta(hours=1))) == 2


def test_holdings_follow_every_trade_and_settlement(stores: Stores) -> None:
    agent_id, record = claimed(stores)
    before = stores.ledger.holdings_of([agent_id])[agent_id]
    assert (before.positions, before.scores) == ([], [])
    run(stores, agent_id, record, BETS[:2])
    traded = stores.ledger.holdings(agent_id)
    assert traded.agent == stores.ledger.get_agent(agent_id)
    assert sorted(traded.positions, key=lambda p: p.position_id) == sorted(
        stores.ledger.positions(agent_id), key=lambda p: p.position_id
    )
    settle_market(stores, resolved(MARKETS["m1"], ResolutionKind.WINNER, "YES"), RUN_AT)
    settled = stores.ledger.holdings_of([agent_id])[agent_id]
    assert settled.scores == stores.ledger.bet_scores(agent_id)
    assert len(settled.scores) == 1
    assert [p.status for p in settled.positions if p.market_id == "m1"] == [PositionStatus.SETTLED]

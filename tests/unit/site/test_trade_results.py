"""What a trade earned (``site/results.py``): each trade its own P/L, a buy its part of what its
position made at settlement by its shares, a sell its realized P/L; so the trades of every
decision add up to what that decision earned, and all of them to what the positions made (a
buy used to show its whole position's P/L: a position built over two weeks counted twice)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from arena_core.dataset.records import AgentView, PositionView
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import default_lineup
from arena_core.domain.portfolio import (
    Position,
    PositionStatus,
    Settlement,
    SettlementKind,
    Trade,
    TradeKind,
)
from arena_core.site.results import trade_results

AT = datetime(2026, 3, 1, tzinfo=UTC)
COHORT = Cohort.open(AT, default_lineup())
AGENT = COHORT.agents()[0]


def _trade(
    trade_id: str, position: str, kind: TradeKind, shares: str, amount: str, pnl: str = "0"
) -> Trade:
    return Trade(
        trade_id=trade_id, decision_id=trade_id.partition(".t")[0], agent_id=AGENT.agent_id,
        cohort_id=COHORT.cohort_id, position_id=position, market_id=f"m-{position}", side="YES",
        kind=kind, amount=Decimal(amount), shares=Decimal(shares), price=Decimal("0.5"),
        cash_before=Decimal(10000), cash_after=Decimal(9000), executed_at=AT,
        realized_pnl=Decimal(pnl),
    )  # fmt: skip


def _position(position: str, status: PositionStatus, realized: str) -> PositionView:
    held = Position(
        position_id=position, agent_id=AGENT.agent_id, cohort_id=COHORT.cohort_id,
        market_id=f"m-{position}", side="YES", shares=Decimal(0), cost_basis=Decimal(0),
        status=status, opened_at=AT, opened_by="x", realized_pnl=Decimal(realized),
    )  # fmt: skip
    return PositionView(held, "question?", None, None)


def _settlement(position: str, pnl: str) -> Settlement:
    return Settlement(
        settlement_id=f"s-{position}", position_id=position, agent_id=AGENT.agent_id,
        cohort_id=COHORT.cohort_id, market_id=f"m-{position}", side="YES",
        kind=SettlementKind.WON, shares=Decimal(1), cost_basis=Decimal(1), payout=Decimal(1),
        realized_pnl=Decimal(pnl), settled_at=AT,
    )  # fmt: skip


def test_a_position_built_over_two_weeks_shares_its_settlement_by_shares() -> None:
    view = AgentView(AGENT, None)
    view.trades = [
        _trade("d1.t0", "p1", TradeKind.BUY, "100", "271.51"),  # week 1
        _trade("d2.t0", "p1", TradeKind.BUY, "300", "1771.49"),  # week 2, the same position
        _trade("d2.t1", "p2", TradeKind.BUY, "200", "100"),
        _trade("d3.t0", "p2", TradeKind.SELL, "100", "80", pnl="30.00"),  # half sold, then settled
        _trade("d1.t1", "p3", TradeKind.BUY, "50", "20"),
        _trade("d3.t1", "p3", TradeKind.SELL, "50", "35", pnl="15.00"),  # all sold
        _trade("d3.t2", "p4", TradeKind.BUY, "10", "5"),  # still open
    ]
    view.positions = [
        _position("p1", PositionStatus.SETTLED, "2249.68"),
        _position("p2", PositionStatus.SETTLED, "130.00"),
        _position("p3", PositionStatus.CLOSED, "15.00"),
        _position("p4", PositionStatus.OPEN, "0"),
    ]
    view.settlements = [_settlement("p1", "2249.68"), _settlement("p2", "100.00")]
    found = trade_results(view)
    assert found["d1.t0"].pnl == Decimal("562.42") and found["d2.t0"].pnl == Decimal("1687.26")
    assert found["d1.t0"].buys == found["d2.t0"].buys == 2  # the page says it spans decisions
    assert found["d1.t0"].pnl + found["d2.t0"].pnl == Decimal("2249.68")  # once, not twice
    assert (found["d2.t1"].pnl, found["d3.t0"].pnl) == (Decimal("100.00"), Decimal("30.00"))
    assert (found["d1.t1"].pnl, found["d3.t1"].pnl) == (Decimal(0), Decimal("15.00"))
    assert found["d3.t2"].pnl is None and found["d3.t2"].state == "open"
    # Every decision's trades add up to what it earned; all of them to what the positions made
    by_decision: dict[str, Decimal] = {}
    for trade_id, result in found.items():
        if result.pnl is not None:
            decision = trade_id.partition(".t")[0]
            by_decision[decision] = by_decision.get(decision, Decimal(0)) + result.pnl
    assert sum(by_decision.values()) == sum(
        Decimal(p.position.realized_pnl) for p in view.positions
    )

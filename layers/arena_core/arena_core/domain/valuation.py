"""Portfolio totals (methodology v1 §11.3) and the exact ledger reconciliation."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from arena_core.domain.money import HUNDRED, ZERO, cents_even
from arena_core.domain.portfolio import Settlement, Trade, TradeKind
from arena_core.domain.rules import STARTING_BALANCE
from arena_core.errors import LedgerMismatchError


@dataclass(frozen=True, slots=True)
class Totals:
    cash: Decimal
    positions_value: Decimal
    total_value: Decimal
    pnl: Decimal
    pnl_pct: Decimal


def totals(
    cash: Decimal, position_values: Iterable[Decimal], *, starting: Decimal = STARTING_BALANCE
) -> Totals:
    """Cash plus marked positions; P/L against the starting balance; return in percent.

    Position values are summed exactly and rounded to the nearest cent (half-even) once, here:
    what selling them at these prices would return (sell proceeds round so), so a buy at an
    unchanged price leaves the portfolio worth what it was ($100 at 0.30 is 333.333333
    shares, worth $99.9999999: $100.00, not $99.99).
    """
    positions_value = cents_even(sum(position_values, ZERO))
    total = cash + positions_value
    pnl = total - starting
    return Totals(
        cash=cash,
        positions_value=positions_value,
        total_value=total,
        pnl=pnl,
        pnl_pct=pnl / starting * HUNDRED,
    )


@dataclass(frozen=True, slots=True)
class LedgerSums:
    buys: Decimal
    sell_proceeds: Decimal
    payouts: Decimal
    refunds: Decimal

    def expected_cash(self, starting: Decimal = STARTING_BALANCE) -> Decimal:
        return starting - self.buys + self.sell_proceeds + self.payouts + self.refunds


def ledger_sums(trades: Iterable[Trade], settlements: Iterable[Settlement]) -> LedgerSums:
    buys = proceeds = payouts = refunds = ZERO
    for trade in trades:
        if trade.kind is TradeKind.BUY:
            buys += trade.amount
        else:
            proceeds += trade.amount
    for settlement in settlements:
        if settlement.is_refund:
            refunds += settlement.payout
        else:
            payouts += settlement.payout
    return LedgerSums(buys=buys, sell_proceeds=proceeds, payouts=payouts, refunds=refunds)


def reconcile(
    cash: Decimal,
    trades: Iterable[Trade],
    settlements: Iterable[Settlement],
    *,
    starting: Decimal = STARTING_BALANCE,
    agent_id: str = "",
) -> LedgerSums:
    """Check ``starting − Σ buys + Σ proceeds + Σ payouts + Σ refunds == cash`` exactly."""
    sums = ledger_sums(trades, settlements)
    expected = sums.expected_cash(starting)
    if expected != cash:
        who = f"agent {agent_id}: " if agent_id else ""
        raise LedgerMismatchError(
            f"{who}ledger gives ${expected} but cash is ${cash} "
            f"(buys {sums.buys}, proceeds {sums.sell_proceeds}, payouts {sums.payouts}, "
            f"refunds {sums.refunds})"
        )
    return sums

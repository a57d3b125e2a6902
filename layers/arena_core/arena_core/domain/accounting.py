"""Trade accounting (methodology v1 §10): buys, sells, marks and settlement, all pure.

Scoring the settled buys is ``arena_core.scoring.bets``.

Each function takes the current state and returns the new state plus the record of what
happened; persistence applies both atomically. Rounding is delegated to ``money``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from arena_core.domain.market import Market, MarketStatus, ResolutionKind
from arena_core.domain.money import HUNDRED, ONE, ZERO, cents_down, cents_even, shares_down
from arena_core.domain.portfolio import (
    Position,
    PositionStatus,
    Settlement,
    SettlementKind,
    Trade,
    TradeKind,
)
from arena_core.domain.rules import (
    MAX_BET_FRACTION,
    check_bet_amount,
    check_sell_percentage,
    check_trade_price,
)
from arena_core.errors import (
    EmptyTradeError,
    MarketNotTradableError,
    NotSettleableError,
    PositionMismatchError,
    PositionNotOpenError,
)

SPLIT_PAYOUT = Decimal("0.5")


@dataclass(frozen=True, slots=True)
class Execution:
    """A trade's effect: the agent's cash afterwards, the position afterwards, the record."""

    cash_after: Decimal
    position: Position
    trade: Trade


@dataclass(frozen=True, slots=True)
class TradeContext:
    """Who trades and under which deterministic ids."""

    agent_id: str
    cohort_id: str
    decision_id: str
    trade_id: str
    at: datetime


def position_id_for(agent_id: str, market_id: str, side: str, opened_by: str) -> str:
    """Deterministic, short position id (a replay recreates the same id)."""
    digest = hashlib.sha256(f"{agent_id}|{market_id}|{side}|{opened_by}".encode()).hexdigest()
    return f"p{digest[:11]}"


def implied_confidence(amount: Decimal, cash_before: Decimal) -> Decimal:
    """amount / (25% of cash at bet time): 1 means the maximum bet (methodology v1 §11.2)."""
    return amount / (cash_before * MAX_BET_FRACTION)


def _require_tradable(market: Market) -> None:
    if market.status is not MarketStatus.OPEN:
        raise MarketNotTradableError(f"market {market.market_id} is {market.status}, not open")


def _check_position(position: Position, ctx: TradeContext, market: Market) -> None:
    if position.agent_id != ctx.agent_id:
        raise PositionMismatchError(f"position {position.position_id} belongs to another agent")
    if position.market_id != market.market_id:
        raise PositionMismatchError(f"position {position.position_id} is not on this market")
    if not position.is_open:
        raise PositionNotOpenError(f"position {position.position_id} is {position.status}")


def buy(
    ctx: TradeContext,
    *,
    cash: Decimal,
    market: Market,
    side: str,
    amount: Decimal,
    existing: Position | None,
) -> Execution:
    """Spend ``amount`` on ``side`` at its current price; add to the open position if any."""
    _require_tradable(market)
    canonical = market.canonical_side(side)
    price = check_trade_price(market.side_price(canonical))
    spend = check_bet_amount(amount, cash)
    shares = shares_down(spend / price)
    if shares <= ZERO:
        raise EmptyTradeError(f"${spend} buys no shares at {price}")
    if existing is None:
        position = Position(
            position_id=position_id_for(ctx.agent_id, market.market_id, canonical, ctx.trade_id),
            agent_id=ctx.agent_id,
            cohort_id=ctx.cohort_id,
            market_id=market.market_id,
            side=canonical,
            shares=shares,
            cost_basis=spend,
            opened_at=ctx.at,
            opened_by=ctx.trade_id,
            last_mark_price=price,
        )
    else:
        _check_position(existing, ctx, market)
        if existing.side != canonical:
            raise PositionMismatchError(f"position {existing.position_id} is on another side")
        position = existing.model_copy(
            update={
                "shares": existing.shares + shares,
                "cost_basis": existing.cost_basis + spend,
                "last_mark_price": price,
            }
        )
    trade = Trade(
        trade_id=ctx.trade_id,
        decision_id=ctx.decision_id,
        agent_id=ctx.agent_id,
        cohort_id=ctx.cohort_id,
        position_id=position.position_id,
        market_id=market.market_id,
        side=canonical,
        kind=TradeKind.BUY,
        amount=spend,
        shares=shares,
        price=price,
        cash_before=cash,
        cash_after=cash - spend,
        executed_at=ctx.at,
        implied_confidence=implied_confidence(spend, cash),
    )
    return Execution(cash_after=cash - spend, position=position, trade=trade)


def sell(
    ctx: TradeContext,
    *,
    cash: Decimal,
    market: Market,
    position: Position,
    percentage: Decimal,
) -> Execution:
    """Sell ``percentage`` of a position at its side-correct price.

    The cost basis leaves proportionally; selling 100% carries out exactly what remains, so the
    position closes with zero shares and zero basis.
    """
    _require_tradable(market)
    _check_position(position, ctx, market)
    check_sell_percentage(percentage)
    price = check_trade_price(market.side_price(position.side))
    if percentage == HUNDRED:
        shares_sold, basis_sold = position.shares, position.cost_basis
    else:
        fraction = percentage / HUNDRED
        shares_sold = shares_down(position.shares * fraction)
        basis_sold = cents_even(position.cost_basis * fraction)
    if shares_sold <= ZERO:
        raise EmptyTradeError(f"selling {percentage}% of {position.shares} shares sells nothing")
    # To the nearest cent: the micro-shares a buy rounded down are worth less than half a cent,
    # so selling them all at an unchanged price returns exactly what was spent.
    proceeds = cents_even(shares_sold * price)
    if proceeds <= ZERO:  # a $0.00 sale moves no money: no trade, not a succeeded SELL
        raise EmptyTradeError(
            f"selling {percentage}% of {position.shares} shares returns less than a cent"
        )
    pnl = proceeds - basis_sold
    remaining = position.shares - shares_sold
    position_after = position.model_copy(
        update={
            "shares": remaining,
            "cost_basis": position.cost_basis - basis_sold,
            "realized_pnl": position.realized_pnl + pnl,
            "status": PositionStatus.OPEN if remaining > ZERO else PositionStatus.CLOSED,
            "last_mark_price": price,
        }
    )
    trade = Trade(
        trade_id=ctx.trade_id,
        decision_id=ctx.decision_id,
        agent_id=ctx.agent_id,
        cohort_id=ctx.cohort_id,
        position_id=position.position_id,
        market_id=market.market_id,
        side=position.side,
        kind=TradeKind.SELL,
        amount=proceeds,
        shares=shares_sold,
        price=price,
        cash_before=cash,
        cash_after=cash + proceeds,
        executed_at=ctx.at,
        cost_basis_sold=basis_sold,
        realized_pnl=pnl,
    )
    return Execution(cash_after=cash + proceeds, position=position_after, trade=trade)


@dataclass(frozen=True, slots=True)
class Mark:
    """A position's value per share and in total; ``stale`` when a fallback price was used."""

    price: Decimal
    value: Decimal
    stale: bool


def _usable(price: Decimal | None) -> bool:
    return price is not None and ZERO <= price <= ONE


def settlement_price(position: Position, market: Market) -> Decimal:
    """What one share is worth once ``market`` has resolved."""
    resolution = market.resolution
    if resolution is None:
        raise NotSettleableError(f"market {market.market_id} has not resolved")
    if resolution.kind is ResolutionKind.SPLIT:
        return SPLIT_PAYOUT
    if resolution.kind is ResolutionKind.INDETERMINATE:
        return position.avg_entry_price
    return ONE if market.side_won(position.side) else ZERO


def mark(position: Position, market: Market | None) -> Mark:
    """Mark an open position to market with its side-correct price.

    A resolved market is worth its settlement value. When no usable fresh price exists (market
    missing from the refresh, a closed market without a quote) the prior per-share mark is kept,
    falling back to the average entry price: a position never collapses to zero for lack of data.
    """
    if not position.is_open:
        return Mark(price=ZERO, value=ZERO, stale=False)
    if market is not None and market.resolution is not None:
        price = settlement_price(position, market)
        return Mark(price=price, value=position.shares * price, stale=False)
    fresh = market.side_price(position.side) if market is not None else None
    if fresh is not None and _usable(fresh):
        return Mark(price=fresh, value=position.shares * fresh, stale=False)
    prior = position.last_mark_price
    price = prior if prior is not None else position.avg_entry_price
    return Mark(price=price, value=position.shares * price, stale=True)


def settle(position: Position, market: Market, *, at: datetime) -> tuple[Position, Settlement]:
    """Close an open position on a resolved market and compute its payout or refund."""
    if not position.is_open:
        raise PositionNotOpenError(f"position {position.position_id} is {position.status}")
    if position.market_id != market.market_id:
        raise PositionMismatchError(f"position {position.position_id} is not on this market")
    resolution = market.resolution
    if resolution is None:
        raise NotSettleableError(f"market {market.market_id} has not resolved")
    if resolution.kind is ResolutionKind.INDETERMINATE:
        kind, payout = SettlementKind.CANCELLED, position.cost_basis
    elif resolution.kind is ResolutionKind.SPLIT:
        kind, payout = SettlementKind.SPLIT, cents_down(position.shares * SPLIT_PAYOUT)
    elif market.side_won(position.side):
        kind, payout = SettlementKind.WON, cents_down(position.shares)
    else:
        kind, payout = SettlementKind.LOST, ZERO
    pnl = payout - position.cost_basis
    status = (
        PositionStatus.CANCELLED if kind is SettlementKind.CANCELLED else PositionStatus.SETTLED
    )
    settled = position.model_copy(
        update={"status": status, "realized_pnl": position.realized_pnl + pnl}
    )
    record = Settlement(
        settlement_id=f"s-{position.position_id}",
        position_id=position.position_id,
        agent_id=position.agent_id,
        cohort_id=position.cohort_id,
        market_id=market.market_id,
        side=position.side,
        kind=kind,
        shares=position.shares,
        cost_basis=position.cost_basis,
        payout=payout,
        realized_pnl=pnl,
        settled_at=at,
    )
    return settled, record

"""An agent's holdings as the services read them, and as the prompt shows them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from arena_core.domain import accounting
from arena_core.domain.cohort import Agent
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.portfolio import BetScore, Position, Settlement, Trade


@dataclass(frozen=True)
class AgentHoldings:
    """What marking an agent to market needs: its cash, positions and bet scores."""

    agent: Agent
    positions: list[Position]
    scores: list[BetScore]


@dataclass(frozen=True)
class AgentRecords:
    """Everything recorded under one agent, read together."""

    positions: list[Position]
    trades: list[Trade]
    settlements: list[Settlement]
    scores: list[BetScore]
    decisions: list[DecisionRecord]


@dataclass(frozen=True)
class PositionLine:
    """One open position as the prompt shows it (prices side-correct, values marked)."""

    position_id: str
    market_id: str
    side: str
    shares: Decimal
    avg_price: Decimal
    price: Decimal
    value: Decimal
    unrealized_pnl: Decimal
    market_status: MarketStatus


def position_lines(
    positions: Sequence[Position], markets: Mapping[str, Market]
) -> list[PositionLine]:
    """Open positions, valued with the run's prices, or the last known ones when the market has
    left the universe (closed but unresolved markets keep their prior valuation)."""
    lines = []
    for position in sorted(positions, key=lambda p: (p.market_id, p.side)):
        if not position.is_open:
            continue
        market = markets.get(position.market_id)
        mark = accounting.mark(position, market)
        lines.append(
            PositionLine(
                position_id=position.position_id,
                market_id=position.market_id,
                side=position.side,
                shares=position.shares,
                avg_price=position.avg_entry_price,
                price=mark.price,
                value=mark.value,
                unrealized_pnl=mark.value - position.cost_basis,
                market_status=market.status if market else MarketStatus.CLOSED,
            )
        )
    return lines

"""An agent's open positions as the prompt shows them: side-correct prices, marked values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena_core.decision.prompt import PositionLine
from arena_core.domain import accounting
from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.portfolio import Position


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

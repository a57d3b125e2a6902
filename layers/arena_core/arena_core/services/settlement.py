"""Settle a resolved market: every open position on it, one transaction each, then the market.

A rerun finds settled positions already closed (or their settlement already written) and does
nothing twice; the market is marked resolved only once no open position remains on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from arena_core.domain import accounting
from arena_core.domain.market import Market
from arena_core.domain.portfolio import Settlement, TradeKind
from arena_core.errors import NotSettleableError, VersionConflictError
from arena_core.ports.repository import Repository

MAX_CONFLICT_RETRIES = 20


@dataclass(frozen=True)
class MarketSettlement:
    market_id: str
    settled: tuple[Settlement, ...]
    marked_resolved: bool


def settle_position(
    repo: Repository, agent_id: str, position_id: str, market: Market, at: datetime
) -> Settlement | None:
    """Settle one position; None when it is no longer open (already settled or sold)."""
    for _ in range(MAX_CONFLICT_RETRIES):
        agent = repo.get_agent(agent_id)
        position = next((p for p in repo.positions(agent_id) if p.position_id == position_id), None)
        if position is None or not position.is_open:
            return None
        settled, record = accounting.settle(position, market, at=at)
        buys = [
            t
            for t in repo.trades(agent_id)
            if t.position_id == position_id and t.kind is TradeKind.BUY
        ]
        scores = accounting.score_buys(buys, market, family_id=agent.family_id, at=at)
        try:
            applied = repo.apply_settlement(
                settled, record, scores, family_id=agent.family_id, expected_version=agent.version
            )
        except VersionConflictError:
            continue
        return record if applied else None
    raise VersionConflictError(f"agent {agent_id}: settling {position_id} kept conflicting")


def settle_market(repo: Repository, market: Market, at: datetime) -> MarketSettlement:
    if market.resolution is None:
        raise NotSettleableError(f"market {market.market_id} has not resolved")
    settled = []
    for position in repo.open_positions_on(market.market_id):
        record = settle_position(repo, position.agent_id, position.position_id, market, at)
        if record is not None:
            settled.append(record)
    marked = repo.mark_market_resolved(market, at)
    return MarketSettlement(market.market_id, tuple(settled), marked)

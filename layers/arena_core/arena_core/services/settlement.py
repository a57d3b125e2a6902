"""Settle a resolved market: every open position on it, one transaction each, then the market.

A rerun finds settled positions already closed (or their settlement already written) and does
nothing twice; the market is marked resolved only once no open position remains on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from arena_core.domain import accounting
from arena_core.domain.market import Market
from arena_core.domain.portfolio import Settlement, TradeKind
from arena_core.errors import NotSettleableError
from arena_core.ports.ledger_store import LedgerStore
from arena_core.ports.stores import WithLedger, WithMarkets
from arena_core.scoring.bets import score_buys
from arena_core.services.conflicts import until_no_conflict


@dataclass(frozen=True)
class MarketSettlement:
    market_id: str
    settled: tuple[Settlement, ...]
    marked_resolved: bool


def settle_position(
    ledger: LedgerStore, agent_id: str, position_id: str, market: Market, at: datetime
) -> Settlement | None:
    """Settle one position; None when it is no longer open (already settled or sold)."""

    def attempt() -> Settlement | None:
        agent = ledger.get_agent(agent_id)
        position = next(
            (p for p in ledger.positions(agent_id) if p.position_id == position_id), None
        )
        if position is None or not position.is_open:
            return None
        settled, record = accounting.settle(position, market, at=at)
        buys = [
            t
            for t in ledger.trades(agent_id)
            if t.position_id == position_id and t.kind is TradeKind.BUY
        ]
        scores = score_buys(buys, market, family_id=agent.family_id, at=at)
        applied = ledger.apply_settlement(
            settled, record, scores, family_id=agent.family_id, expected_version=agent.version
        )
        return record if applied else None

    return until_no_conflict(attempt, what=f"agent {agent_id}: settling {position_id}")


class SettlementStores(WithLedger, WithMarkets, Protocol):
    """The roles settling a market uses: the ledger, and the market's resolved mark."""


def settle_market(stores: SettlementStores, market: Market, at: datetime) -> MarketSettlement:
    if market.resolution is None:
        raise NotSettleableError(f"market {market.market_id} has not resolved")
    settled = []
    for position in stores.ledger.open_positions_on(market.market_id):
        record = settle_position(stores.ledger, position.agent_id, position.position_id, market, at)
        if record is not None:
            settled.append(record)
    marked = stores.markets.mark_market_resolved(market, at)
    return MarketSettlement(market.market_id, tuple(settled), marked)

"""Settle a resolved market: every open position on it, one transaction each; then score every
buy on the market, whatever became of its position; then mark the market resolved.

Methodology v1 scores every resolved bet: a position sold out before resolution still has its
buys scored, so selling first cannot drop a losing forecast from a Brier score. A rerun finds
settled positions closed (or their settlement written) and scores already recorded, and does
nothing twice; the market is marked resolved last, only once no open position remains on it, so
a crash part-way leaves it in the list of markets to resolve and the next run finishes the work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from arena_core.domain import accounting
from arena_core.domain.market import Market
from arena_core.domain.portfolio import Position, Settlement, TradeKind
from arena_core.errors import NotSettleableError
from arena_core.ports.ledger_store import LedgerStore
from arena_core.ports.stores import WithLedger, WithMarkets
from arena_core.scoring.bets import score_buys
from arena_core.services.conflicts import until_no_conflict


@dataclass(frozen=True)
class MarketSettlement:
    market_id: str
    settled: tuple[Settlement, ...]
    scored: int
    marked_resolved: bool


def settle_position(
    ledger: LedgerStore, agent_id: str, position_id: str, market: Market, at: datetime
) -> Settlement | None:
    """Settle one position; None when it is no longer open (already settled or sold)."""

    def attempt() -> Settlement | None:
        agent = ledger.get_agent(agent_id)
        held = ledger.positions(agent_id)
        position = next((p for p in held if p.position_id == position_id), None)
        if position is None or not position.is_open:
            return None
        settled, record = accounting.settle(position, market, at=at)
        applied = ledger.apply_settlement(
            settled, record, family_id=agent.family_id, expected_version=agent.version
        )
        return record if applied else None

    return until_no_conflict(attempt, what=f"agent {agent_id}: settling {position_id}")


def score_market(ledger: LedgerStore, market: Market, at: datetime) -> int:
    """Record the score of every buy on the market not scored yet; how many were new."""
    by_agent: dict[str, list[Position]] = {}
    for position in ledger.positions_on(market.market_id):
        by_agent.setdefault(position.agent_id, []).append(position)
    recorded = 0
    for agent_id, positions in by_agent.items():
        recorded += _score_agent(ledger, agent_id, positions, market, at)
    return recorded


def _score_agent(
    ledger: LedgerStore, agent_id: str, positions: Sequence[Position], market: Market, at: datetime
) -> int:
    ids = {p.position_id for p in positions}
    buys = [t for t in ledger.trades(agent_id) if t.position_id in ids and t.kind is TradeKind.BUY]
    family_id = ledger.get_agent(agent_id).family_id
    scores = score_buys(buys, market, family_id=family_id, at=at)
    return ledger.apply_scores(agent_id, scores, family_id=family_id) if scores else 0


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
    scored = score_market(stores.ledger, market, at)
    marked = stores.markets.mark_market_resolved(market, at)
    return MarketSettlement(market.market_id, tuple(settled), scored, marked)

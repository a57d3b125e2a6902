"""Market state in memory: the latest market and its count of open positions."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from arena_core.domain.market import Market
from arena_core.ports.market_store import MarketStore
from arena_local.memory.state import MemoryState


class MemoryMarketStore(MarketStore):
    def __init__(self, state: MemoryState) -> None:
        self._s = state

    def save_markets(self, markets: Sequence[Market]) -> None:
        with self._s.lock:
            for market in markets:
                self._s.markets[market.market_id] = market

    def get_markets(self, market_ids: Sequence[str]) -> dict[str, Market]:
        with self._s.lock:
            return {i: self._s.markets[i] for i in market_ids if i in self._s.markets}

    def markets_to_resolve(self) -> list[str]:
        with self._s.lock:
            return sorted(m for m in self._s.open_counts if m not in self._s.resolved_markets)

    def mark_market_resolved(self, market: Market, at: datetime) -> bool:
        del at  # the fake keeps no resolution times
        with self._s.lock:
            if market.market_id in self._s.resolved_markets:
                return False
            if self._s.open_counts.get(market.market_id, 0) > 0:
                return False
            self._s.resolved_markets.add(market.market_id)
            self._s.markets[market.market_id] = market
            return True

"""Market state in memory: the latest market and its count of open positions, observed
states, captured prices and each hour's sheet of prices."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from arena_core.domain.market import Market
from arena_core.domain.market_record import (
    Capture,
    HourlyMarks,
    MarketObservation,
    MarketRecord,
)
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
        with self._s.lock:
            if market.market_id in self._s.resolved_markets:
                return False
            if self._s.open_counts.get(market.market_id, 0) > 0:
                return False
            self._s.resolved_markets.add(market.market_id)
            self._s.resolved_at[market.market_id] = at
            self._s.markets[market.market_id] = market
            return True

    def record_observations(self, observations: Sequence[MarketObservation]) -> None:
        with self._s.lock:
            for seen in observations:
                self._s.observations.setdefault(seen.market_id, []).append(seen)

    def market_records(self, market_ids: Sequence[str]) -> dict[str, MarketRecord]:
        with self._s.lock:
            return {
                i: MarketRecord(
                    market=self._s.markets[i],
                    resolved_at=self._s.resolved_at.get(i),
                    observations=tuple(self._s.observations.get(i, ())),
                )
                for i in market_ids
                if i in self._s.markets
            }

    def record_captures(self, captures: Sequence[Capture]) -> None:
        with self._s.lock:
            for capture in captures:
                self._s.captures.setdefault(capture.market_id, {})[capture.at] = capture

    def captures(self, market_id: str) -> list[Capture]:
        with self._s.lock:
            found = self._s.captures.get(market_id, {})
            return [found[at] for at in sorted(found)]

    def record_marks(self, marks: HourlyMarks) -> None:
        if not marks.prices:
            return
        with self._s.lock:
            self._s.marks.put(marks.hour, marks)

    def marks(self, start: datetime, end: datetime) -> list[HourlyMarks]:
        with self._s.lock:
            return self._s.marks.between(start, end)

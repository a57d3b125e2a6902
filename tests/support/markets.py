"""An in-memory market source whose markets tests can move, close, resolve or make fail."""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena_core.domain.market import Market
from arena_core.ports.market_source import MarketFetch, MarketSource


class StaticMarketSource(MarketSource):
    def __init__(self, markets: Sequence[Market], *, batch_size: int = 50) -> None:
        self.markets = {m.market_id: m for m in markets}
        self.failing: set[str] = set()
        self.batch_size = batch_size
        self.requests = 0

    def set(self, market: Market) -> None:
        self.markets[market.market_id] = market

    def top_markets(self, limit: int = 500) -> MarketFetch:
        self.requests += 1
        return MarketFetch(markets=dict(list(self.markets.items())[:limit]), requests=1)

    def markets_by_id(self, market_ids: Sequence[str]) -> MarketFetch:
        requests = math.ceil(len(market_ids) / self.batch_size)
        self.requests += requests
        failed = tuple(i for i in market_ids if i in self.failing)
        found = {
            i: self.markets[i] for i in market_ids if i in self.markets and i not in self.failing
        }
        missing = tuple(i for i in market_ids if i not in self.markets)
        return MarketFetch(markets=found, failed_ids=failed, missing_ids=missing, requests=requests)

"""Where markets come from (Polymarket in production, recorded payloads in tests and the demo)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal

from arena_core.domain.market import Market

LISTING_LIMIT = 10_000  # markets read for the panel listing at most (Gamma pages 100 at a time)


@dataclass(frozen=True)
class SkippedMarket:
    """A market payload the parser refused, with the reason (reported, never silently lost)."""

    market_id: str
    reason: str


@dataclass(frozen=True)
class MarketFetch:
    """The result of a market fetch and what it cost upstream.

    ``failed_ids`` were requested but their batch failed after retries: callers keep the prior
    state for them. ``missing_ids`` were answered but not returned by the upstream.
    """

    markets: dict[str, Market]
    skipped: tuple[SkippedMarket, ...] = ()
    failed_ids: tuple[str, ...] = ()
    missing_ids: tuple[str, ...] = ()
    requests: int = 0
    retries: int = 0
    errors: tuple[str, ...] = field(default=())

    def ordered(self) -> list[Market]:
        return list(self.markets.values())


class MarketSource(ABC):
    @abstractmethod
    def top_markets(self, limit: int = 500) -> MarketFetch:
        """The ``limit`` open markets with the highest volume, highest first."""

    @abstractmethod
    def markets_by_id(self, market_ids: Sequence[str]) -> MarketFetch:
        """Current state of the given markets (open, closed or resolved), in batches."""

    def panel_listing(
        self, closes_after: datetime, closes_by: datetime, min_liquidity: Decimal
    ) -> MarketFetch:
        """Every open market closing in (``closes_after``, ``closes_by``] with at least
        ``min_liquidity`` dollars of liquidity: what the forecast panel is drawn from. A source
        with no such listing (a fixed universe) answers from its top markets."""
        found = self.top_markets(LISTING_LIMIT)
        kept = {
            market_id: market
            for market_id, market in found.markets.items()
            if market.end_date is not None
            and closes_after < market.end_date <= closes_by
            and (market.liquidity or Decimal(0)) >= min_liquidity
        }
        return replace(found, markets=kept)

    def midpoints(self, token_ids: Sequence[str]) -> dict[str, Decimal]:
        """Order-book midpoints by token id; sources without an order book return none."""
        del token_ids
        return {}

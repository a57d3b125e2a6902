"""What the arena observed of a market over time: each change of its status, its UMA
resolution status or its resolution, when the arena saw it, and when it marked it resolved.
The dataset publishes it as the resolution's provenance (disputes, 50/50, indeterminate).
Its prices: at each weekly capture, and every hour at the mark the arena took (the market
pages' price charts)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal

from arena_core.domain.base import DomainModel
from arena_core.domain.market import Market, MarketStatus, ResolutionKind
from arena_core.domain.money import ONE, ZERO

DISPUTED = "disputed"


class MarketObservation(DomainModel):
    """A state of a market the arena saw for the first time at ``at``."""

    market_id: str
    at: datetime
    status: MarketStatus
    uma_status: str | None = None
    resolution: ResolutionKind | None = None
    winner: str | None = None

    @classmethod
    def of(cls, market: Market, at: datetime) -> MarketObservation:
        resolution = market.resolution
        return cls(
            market_id=market.market_id,
            at=at,
            status=market.status,
            uma_status=market.uma_status,
            resolution=resolution.kind if resolution else None,
            winner=resolution.winner if resolution else None,
        )

    def same_state(self, other: MarketObservation) -> bool:
        return self.model_dump(exclude={"at"}) == other.model_dump(exclude={"at"})


class Capture(DomainModel):
    """A market's prices in one decision run's captured universe (the snapshot of the top
    markets every agent of the run saw)."""

    market_id: str
    at: datetime
    prices: dict[str, Decimal | None]  # outcome name -> price, in the market's outcome order

    @classmethod
    def of(cls, market: Market, at: datetime) -> Capture:
        return cls(
            market_id=market.market_id, at=at, prices={o.name: o.price for o in market.outcomes}
        )

    @property
    def first_price(self) -> Decimal | None:
        """The first outcome's price: P(YES) for a binary market."""
        return next(iter(self.prices.values()), None)


class HourlyMarks(DomainModel):
    """One hour's sheet of prices: the first outcome's price (P(YES) for a binary market) of
    every held market the first snapshot pass of the hour marked its positions at. One sheet
    an hour for every market, not one item per market: the market pages' hourly points."""

    hour: datetime
    prices: dict[str, Decimal]  # market id -> the first outcome's price

    @classmethod
    def of(cls, hour: datetime, markets: Iterable[Market]) -> HourlyMarks:
        """The sheet of the markets with a usable price (in [0, 1]) that have not resolved
        (a resolved market is marked at what it pays, which its page draws at resolution)."""
        prices = {}
        for market in markets:
            price = market.outcomes[0].price if market.outcomes else None
            if market.resolution is None and price is not None and _usable(price):
                prices[market.market_id] = price
        return cls(hour=hour, prices=dict(sorted(prices.items())))


def _usable(price: Decimal) -> bool:
    return price.is_finite() and ZERO <= price <= ONE


class MarketRecord(DomainModel):
    """A market as last known, when it was marked resolved, and every state observed."""

    market: Market
    resolved_at: datetime | None = None
    observations: tuple[MarketObservation, ...] = ()

    @property
    def uma_history(self) -> list[str]:
        """The UMA statuses in the order observed (repeats collapsed)."""
        found: list[str] = []
        for o in self.observations:
            if o.uma_status and (not found or found[-1] != o.uma_status):
                found.append(o.uma_status)
        return found

    @property
    def disputes(self) -> int:
        """How many times the arena saw the market enter the disputed UMA status."""
        return sum(1 for status in self.uma_history if status == DISPUTED)


def new_observations(
    fresh: Iterable[Market], stored: Mapping[str, Market], at: datetime
) -> list[MarketObservation]:
    """The fetched markets whose status, UMA status or resolution differ from the stored
    state (or that were never stored): the observations worth recording."""
    found = []
    for market in fresh:
        seen = MarketObservation.of(market, at)
        before = stored.get(market.market_id)
        if before is None or not seen.same_state(MarketObservation.of(before, at)):
            found.append(seen)
    return found

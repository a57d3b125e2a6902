"""The latest known state of markets, and which of them hold open positions."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from arena_core.domain.market import Market
from arena_core.domain.market_record import (
    Capture,
    HourlyMarks,
    MarketObservation,
    MarketRecord,
)


class MarketStore(ABC):
    @abstractmethod
    def save_markets(self, markets: Sequence[Market]) -> None:
        """Remember the latest known state of these markets."""

    @abstractmethod
    def get_markets(self, market_ids: Sequence[str]) -> dict[str, Market]: ...

    @abstractmethod
    def markets_to_resolve(self) -> list[str]:
        """Markets that hold or held a position and are not marked resolved yet, in id order:
        a sold-out position's buys are still scored when its market resolves."""

    @abstractmethod
    def mark_market_resolved(self, market: Market, at: datetime) -> bool:
        """Record the resolution once no open position remains; False if positions remain or it
        was already marked."""

    @abstractmethod
    def record_observations(self, observations: Sequence[MarketObservation]) -> None:
        """Append each observation to its market's history (changes of state only: the
        services pass the markets whose state differs from the stored one)."""

    @abstractmethod
    def market_records(self, market_ids: Sequence[str]) -> dict[str, MarketRecord]:
        """The stored markets with when they were marked resolved and what was observed."""

    @abstractmethod
    def record_captures(self, captures: Sequence[Capture]) -> None:
        """Keep each market's prices in a run's captured universe (idempotent per market and
        time: a rerun that reuses the universe writes the same)."""

    @abstractmethod
    def captures(self, market_id: str) -> list[Capture]:
        """A market's prices at every capture that held it, oldest first."""

    @abstractmethod
    def record_marks(self, marks: HourlyMarks) -> None:
        """Keep an hour's sheet of prices (one per hour: a rerun of the hour replaces it); a
        sheet without a market is not written."""

    @abstractmethod
    def marks(self, start: datetime, end: datetime) -> list[HourlyMarks]:
        """The sheets of the hours from ``start`` to ``end`` (both included), oldest first."""

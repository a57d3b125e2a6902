"""Markets as the benchmark sees them: binary Yes/No or named outcomes, with status and resolution.

Prices are the stored per-outcome prices. For a binary market the executable NO price is
``1 − YES`` (methodology v1 §10.3), not the NO outcome's own quote; a named outcome trades at
its own price (§10.4).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from pydantic import field_validator, model_validator

from arena_core.domain.base import DomainModel
from arena_core.domain.ids import MarketId
from arena_core.domain.money import ONE
from arena_core.domain.text import CleanText
from arena_core.errors import UnknownSideError

YES = "YES"
NO = "NO"
# The precision pages, live figures and exports show a price at (four decimals): a move below
# it changes nothing a reader sees.
SHOWN_PRICE = Decimal("0.0001")


class MarketStatus(StrEnum):
    OPEN = "open"
    CLOSED = "closed"  # trading stopped, outcome not (yet) final
    RESOLVED = "resolved"


class ResolutionKind(StrEnum):
    WINNER = "winner"  # one outcome pays $1 a share
    SPLIT = "split"  # 50/50: every outcome pays $0.50 a share
    INDETERMINATE = "indeterminate"  # resolved upstream, winner unknowable: refund at cost


class Resolution(DomainModel):
    kind: ResolutionKind
    winner: str | None = None

    @model_validator(mode="after")
    def _winner_iff_winner_kind(self) -> Resolution:
        if (self.kind is ResolutionKind.WINNER) != (self.winner is not None):
            raise ValueError("a winner is named exactly when the resolution kind is 'winner'")
        return self


class OutcomeQuote(DomainModel):
    name: CleanText
    price: Decimal | None = None
    token_id: CleanText | None = None


class Market(DomainModel):
    market_id: MarketId
    question: CleanText
    outcomes: tuple[OutcomeQuote, ...]
    status: MarketStatus = MarketStatus.OPEN
    resolution: Resolution | None = None
    category: CleanText | None = None
    volume: Decimal | None = None
    liquidity: Decimal | None = None  # dollars on the order book (Gamma's liquidityNum)
    end_date: datetime | None = None
    slug: CleanText | None = None
    neg_risk: bool = False
    neg_risk_market_id: CleanText | None = None
    group_item_title: CleanText | None = None
    uma_status: CleanText | None = None
    # The Polymarket event it belongs to (Gamma's ``events[0]``): markets of one event share
    # their outcome (one candidate wins), so the statistics keep them together.
    event_id: CleanText | None = None
    event_slug: CleanText | None = None

    @field_validator("outcomes")
    @classmethod
    def _at_least_two_distinct(cls, value: tuple[OutcomeQuote, ...]) -> tuple[OutcomeQuote, ...]:
        names = [o.name.casefold() for o in value]
        if len(names) < 2:
            raise ValueError("a market needs at least two outcomes")
        if len(set(names)) != len(names):
            raise ValueError("outcome names must be distinct (case-insensitively)")
        return value

    @model_validator(mode="after")
    def _resolution_matches_status(self) -> Market:
        if (self.status is MarketStatus.RESOLVED) != (self.resolution is not None):
            raise ValueError("a resolution is present exactly when the status is 'resolved'")
        winner = self.resolution.winner if self.resolution else None
        if winner is not None and winner.casefold() not in {s.casefold() for s in self.sides}:
            raise ValueError(f"winner {winner!r} is not one of the market's sides")
        return self

    @property
    def is_binary(self) -> bool:
        return [o.name.casefold() for o in self.outcomes] == ["yes", "no"]

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides an agent may take: YES/NO, or the outcome names."""
        if self.is_binary:
            return (YES, NO)
        return tuple(o.name for o in self.outcomes)

    def canonical_side(self, side: str) -> str:
        """The side's canonical spelling; matching is case-insensitive and ignores padding."""
        wanted = side.strip().casefold()
        for candidate in self.sides:
            if candidate.casefold() == wanted:
                return candidate
        raise UnknownSideError(
            f"side {side!r} is not valid for market {self.market_id}; "
            f"choose one of {', '.join(self.sides)}"
        )

    def _quote(self, name: str) -> OutcomeQuote:
        wanted = name.casefold()
        return next(o for o in self.outcomes if o.name.casefold() == wanted)

    @property
    def yes_price(self) -> Decimal | None:
        """The YES price of a binary market (None for named-outcome markets)."""
        return self.outcomes[0].price if self.is_binary else None

    def side_price(self, side: str) -> Decimal | None:
        """The side-correct price per share, or None when unknown."""
        canonical = self.canonical_side(side)
        if not self.is_binary:
            return self._quote(canonical).price
        yes = self.outcomes[0].price
        if yes is None:
            return None
        return yes if canonical == YES else ONE - yes

    def side_won(self, side: str) -> bool:
        """Whether ``side`` is the winner of a market resolved with a winner."""
        if self.resolution is None or self.resolution.winner is None:
            raise ValueError(f"market {self.market_id} has no winner")
        return self.canonical_side(side) == self.canonical_side(self.resolution.winner)


def _shown(price: Decimal | None) -> Decimal | None:
    if price is None:
        return None
    try:
        return price.quantize(SHOWN_PRICE)
    except InvalidOperation:  # beyond the context's precision: compared as it is
        return price


def shown_state(market: Market) -> dict[str, Any]:
    """What a market's stored state shows: everything but its volume (which moves with every
    trade and is shown nowhere but in the weekly universes, captured apart), its prices at
    the precision they are shown (``SHOWN_PRICE``)."""
    state = market.model_dump(exclude={"volume"})
    state["outcomes"] = [(o.name, _shown(o.price), o.token_id) for o in market.outcomes]
    return state

"""Small builders for domain objects used across unit tests."""

from datetime import UTC, datetime
from decimal import Decimal

from arena_core.domain.market import Market, MarketStatus, OutcomeQuote, Resolution, ResolutionKind

T0 = datetime(2026, 3, 1, 0, 5, tzinfo=UTC)  # a Sunday, 00:05 UTC


def binary(market_id: str = "m1", yes: str | None = "0.40", **extra: object) -> Market:
    no = None if yes is None else str(Decimal(1) - Decimal(yes))
    return Market(
        market_id=market_id,
        question=f"Will {market_id} happen?",
        outcomes=(
            OutcomeQuote(name="Yes", price=None if yes is None else Decimal(yes)),
            OutcomeQuote(name="No", price=None if no is None else Decimal(no)),
        ),
        **extra,  # type: ignore[arg-type]
    )


def named(market_id: str = "m2", prices: dict[str, str] | None = None) -> Market:
    prices = prices or {"Lakers": "0.30", "Celtics": "0.50", "Knicks": "0.20"}
    return Market(
        market_id=market_id,
        question="Who wins?",
        outcomes=tuple(OutcomeQuote(name=n, price=Decimal(p)) for n, p in prices.items()),
    )


def resolved(market: Market, kind: ResolutionKind, winner: str | None = None) -> Market:
    return market.model_copy(
        update={
            "status": MarketStatus.RESOLVED,
            "resolution": Resolution(kind=kind, winner=winner),
        }
    )


def closed(market: Market, yes: str | None = None) -> Market:
    outcomes = tuple(o.model_copy(update={"price": None}) for o in market.outcomes)
    if yes is not None:
        return binary(market.market_id, yes).model_copy(update={"status": MarketStatus.CLOSED})
    return market.model_copy(update={"status": MarketStatus.CLOSED, "outcomes": outcomes})

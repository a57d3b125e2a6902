"""What the stand-ins know that the prompt does not say: the simulation's own future.

The demo's prices follow ``PriceSimulation``, whose per-market ``Plan`` fixes in advance whether
and how each market ends within the simulated span. A stand-in's skill is how much of that it
lets into its forecast; here is only what there is to know: whether a market resolves in the
span, and for one resolved with a winner, which outcome wins. Everything else (markets that stay
open, 50/50 splits, disputes) carries no knowledge beyond the price.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from arena_core.adapters.polymarket.parse import WINNER_TOLERANCE
from arena_local.simulation import Plan, PriceSimulation

ONE = Decimal(1)


@dataclass(frozen=True)
class Foresight:
    resolves: bool  # the simulation resolves the market within the simulated span
    winner: int | None = None  # the index of the winning outcome, for a resolution with a winner


def _price(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def winner_of(final_prices: tuple[str, ...]) -> int | None:
    """The one outcome priced 1 while every other is priced 0 (within the tolerance the
    Polymarket client applies, as legacy markets settle at 0.99999992…), else none."""
    prices = [_price(p) for p in final_prices]
    if any(p is None for p in prices):
        return None
    winners = [i for i, p in enumerate(prices) if p is not None and p >= ONE - WINNER_TOLERANCE]
    losers_clean = all(
        p is not None and p <= WINNER_TOLERANCE for i, p in enumerate(prices) if i not in winners
    )
    return winners[0] if len(winners) == 1 and losers_clean else None


def foresight_of(plan: Plan) -> Foresight:
    if plan.resolves_at is None or plan.final_status != "resolved" or not plan.final_prices:
        return Foresight(resolves=False)
    return Foresight(resolves=True, winner=winner_of(plan.final_prices))


def foresight_from(simulation: PriceSimulation) -> Mapping[str, Foresight]:
    """Per market id, what the simulation will do to it."""
    return {market_id: foresight_of(plan) for market_id, plan in simulation.plans.items()}

"""Do an agent's trades follow its own forecasts? (methodology ``v1+panel``)

Where an agent states P(YES) for a panel market and buys that market in the same decision, the
buy is *coherent* when its direction agrees with the stated edge over the price: YES only when
p_yes > the YES price, NO only when p_yes < it. Its size is compared with the Kelly fraction of
that edge, capped at the 25% rule: buying YES at price q with belief p, Kelly stakes
(p − q) / (1 − q) of the bankroll; buying NO, (q − p) / q. The size is the bet's share of the
cash the agent had when the decision began.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from decimal import Decimal

from arena_core.domain.base import DomainModel
from arena_core.domain.money import ONE, ZERO
from arena_core.domain.rules import MAX_BET_FRACTION

RATIO_PLACES = Decimal("0.000001")


class TradeCoherence(DomainModel):
    """One executed buy on a panel market, against the agent's own forecast for it."""

    market_id: str
    side: str
    yes_side: bool  # the bet backs the first outcome (YES)
    p_yes: Decimal  # the agent's stated forecast (as scored: clipped)
    yes_price: Decimal  # the YES price the bet was made at
    coherent: bool
    fraction: Decimal  # amount / cash at the decision's start
    kelly: Decimal  # the Kelly fraction of the stated edge for this side, capped at 25%
    size_to_kelly: Decimal | None  # fraction / kelly; None when Kelly says not to bet


class DecisionCoherence(DomainModel):
    """The coherence of one decision's buys on panel markets: what a family's share of coherent
    trades and its median size / Kelly are computed from. Stored once per decision (before it is
    closed: a takeover finishes the same answer with the same trades, so it stores the same)."""

    decision_id: str
    agent_id: str
    cohort_id: str
    family_id: str
    week: int
    trades: tuple[TradeCoherence, ...]


def kelly_fraction(p_yes: Decimal, yes_price: Decimal, *, yes_side: bool) -> Decimal:
    """The Kelly stake for buying one side at these prices, capped at the 25% rule; ≤ 0 when
    the stated edge is against that side."""
    edge = p_yes - yes_price if yes_side else yes_price - p_yes
    stake = edge / (ONE - yes_price if yes_side else yes_price)
    return min(stake, MAX_BET_FRACTION)


def coherence_of(
    market_id: str,
    side: str,
    *,
    yes_side: bool,
    p_yes: Decimal,
    yes_price: Decimal,
    amount: Decimal,
    cash: Decimal,
) -> TradeCoherence:
    """One buy against the buyer's forecast (``yes_price`` strictly inside (0, 1), cash > 0)."""
    kelly = kelly_fraction(p_yes, yes_price, yes_side=yes_side)
    fraction = amount / cash
    ratio = (fraction / kelly).quantize(RATIO_PLACES) if kelly > ZERO else None
    return TradeCoherence(
        market_id=market_id,
        side=side,
        yes_side=yes_side,
        p_yes=p_yes,
        yes_price=yes_price,
        coherent=p_yes > yes_price if yes_side else p_yes < yes_price,
        fraction=fraction.quantize(RATIO_PLACES),
        kelly=kelly.quantize(RATIO_PLACES),
        size_to_kelly=ratio,
    )


class CoherenceSummary(DomainModel):
    """A family's buys on panel markets against its own forecasts: how many agreed with the
    stated edge, and the median of size / Kelly over the buys Kelly would make at all."""

    trades: int
    coherent: int
    share: Decimal | None  # coherent / trades
    median_size_to_kelly: Decimal | None


def coherence_summary(trades: Iterable[TradeCoherence]) -> CoherenceSummary:
    found = list(trades)
    coherent = sum(t.coherent for t in found)
    ratios = [t.size_to_kelly for t in found if t.size_to_kelly is not None]
    return CoherenceSummary(
        trades=len(found),
        coherent=coherent,
        share=(Decimal(coherent) / len(found)).quantize(RATIO_PLACES) if found else None,
        median_size_to_kelly=statistics.median(ratios) if ratios else None,
    )

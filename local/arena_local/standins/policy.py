"""A stand-in's decision: probabilities from price, foresight, skill and noise; then a reply.

Its probability for an outcome is the price moved toward the truth by its skill (toward the
price itself when it knows nothing more), plus seeded noise, clipped to [0.02, 0.98]. It studies
a seeded shortlist of the markets, those it knows will resolve within the span first (so that its
bets get scored within the demo), buys the sides with the largest edge over their price, and
sizes each bet so that the v1 implied confidence, amount over 25% of cash at bet time, is its
probability for that side. Bets execute in order, each lowering the cash, so the sizing follows
the cash down. Now and then it holds, or sells a position whose price has fallen well below
what it paid.

Everything is drawn from ``random.Random`` seeded with strings naming the decision (``Seeds``),
so the same decision always gets the same reply.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from arena_core.domain.money import cents_down
from arena_core.domain.rules import MAX_BET_FRACTION
from arena_local.standins.foresight import Foresight
from arena_local.standins.profiles import Profile
from arena_local.standins.reading import MarketRow, PositionRow, PromptView, Quote

P_LOW, P_HIGH = 0.02, 0.98
MIN_EDGE = 0.02  # below this a bet is noise about noise
MAX_BETS = 20  # about what 25%-of-cash sizing leaves room for before the minimum bet binds
HOLD_RATE = 0.04
SELL_RATE = 0.3  # when a position has fallen enough to be worth cutting
FALL_TO_SELL = 0.1  # how far below its average price a position's price must be
MAX_SELLS = 3
# Markets studied per decision. Out of all 500, the largest edges are mostly the luckiest
# noise, and the scored bets would then reward noise over skill; out of a sample, the Brier of
# the seven stand-ins follows their skill.
SHORTLIST = 25
UNKNOWN = Foresight(resolves=False)
Reply = dict[str, Any]
PANEL_OMISSION_RATE = 0.004  # per panel market: about one decision in nine leaves one out


@dataclass(frozen=True)
class Pick:
    market_id: str
    quote: Quote
    belief: float

    @property
    def edge(self) -> float:
        return self.belief - self.quote.price


def _clip(probability: float) -> float:
    return round(min(max(probability, P_LOW), P_HIGH), 4)


def _belief(price: float, truth: float | None, profile: Profile, rng: random.Random) -> float:
    target = price if truth is None else truth
    return _clip(price + profile.skill * (target - price) + rng.gauss(0.0, profile.noise))


def _truth(foresight: Foresight, outcome: int, outcomes: int) -> float | None:
    """1 or 0 for an outcome of a market with a known winner (that the prompt lists in full)."""
    if foresight.winner is None or foresight.winner >= outcomes:
        return None
    return 1.0 if outcome == foresight.winner else 0.0


def beliefs(
    market: MarketRow, foresight: Foresight, profile: Profile, rng: random.Random
) -> list[float]:
    """The stand-in's probability for each side of the market, in the order of its quotes."""
    quotes = market.quotes
    if [q.side for q in quotes] == ["YES", "NO"]:  # one forecast; NO is its complement
        yes = _belief(quotes[0].price, _truth(foresight, 0, 2), profile, rng)
        return [yes, round(1.0 - yes, 4)]
    return [
        _belief(q.price, _truth(foresight, q.outcome, len(quotes)), profile, rng) for q in quotes
    ]


@dataclass(frozen=True)
class Seeds:
    """What one decision's draws are seeded by: the decision itself (seed, family, and the
    prompt's date, cohort and week), and the shortlist of markets to study, shared by every
    family and cohort deciding at the same moment."""

    decision: str
    shortlist: str


def seeds_for(seed: int, family_id: str, view: PromptView) -> Seeds:
    return Seeds(f"{seed}:{family_id}:{view.header}", f"{seed}:shortlist:{view.moment}")


def shortlist(
    view: PromptView, foresight: Mapping[str, Foresight], seeds: Seeds
) -> list[MarketRow]:
    """The markets studied this time: a seeded sample, those resolving in the span first.

    Shared by all the stand-ins of a run: they then hold positions on the same few markets,
    which pairs of families can be compared on, and which every snapshot prices in one go (a
    sample per family would multiply the markets each of the 1,008 weekly snapshots reads).
    """
    rng = random.Random(seeds.shortlist)
    resolving = [m for m in view.markets if foresight.get(m.market_id, UNKNOWN).resolves]
    others = [m for m in view.markets if not foresight.get(m.market_id, UNKNOWN).resolves]
    rng.shuffle(resolving)
    rng.shuffle(others)
    return (resolving + others)[:SHORTLIST]


def picks(
    view: PromptView, foresight: Mapping[str, Foresight], profile: Profile, seeds: Seeds
) -> list[Pick]:
    """Per market studied the side with the largest edge, if large enough; largest first."""
    found = []
    for market in shortlist(view, foresight, seeds):
        known = foresight.get(market.market_id, UNKNOWN)
        rng = random.Random(f"{seeds.decision}:belief:{market.market_id}")
        quote, belief = max(
            zip(market.quotes, beliefs(market, known, profile, rng), strict=True),
            key=lambda pair: pair[1] - pair[0].price,
        )
        if belief - quote.price >= MIN_EDGE:
            found.append(Pick(market.market_id, quote, belief))
    return sorted(found, key=lambda p: (-p.edge, p.market_id))


def sized(
    candidates: Sequence[Pick], cash: Decimal, min_bet: Decimal
) -> list[tuple[Pick, Decimal]]:
    """Bets whose amount / (25% of cash before it) is the belief, cash falling as they go."""
    bets: list[tuple[Pick, Decimal]] = []
    for pick in candidates:
        if len(bets) == MAX_BETS or cash * MAX_BET_FRACTION * Decimal(str(P_HIGH)) < min_bet:
            break
        amount = cents_down(Decimal(repr(pick.belief)) * cash * MAX_BET_FRACTION)
        if amount >= min_bet:  # a smaller belief elsewhere may still fit: keep looking
            bets.append((pick, amount))
            cash -= amount
    return bets


def _losing(view: PromptView) -> list[PositionRow]:
    """Open positions, on markets still listed, whose price fell well below what was paid."""
    listed = {m.market_id for m in view.markets}
    return [
        p
        for p in view.positions
        if p.market_id in listed
        and p.price_now is not None
        and p.price_now <= p.avg_price - FALL_TO_SELL
    ][:MAX_SELLS]


def hold(reasoning: str) -> Reply:
    return {"action": "HOLD", "reasoning": reasoning}


def _sell(positions: Sequence[PositionRow]) -> Reply:
    """Sell half of a loser, or all of one that has fallen twice as far."""
    sells, moves = [], []
    for p in positions:
        now = p.price_now if p.price_now is not None else p.avg_price
        whole = now <= p.avg_price - 2 * FALL_TO_SELL
        sells.append({"position_id": p.position_id, "percentage": 100 if whole else 50})
        moves.append(f"{p.side} on {p.market_id} fell from {p.avg_price:.2f} to {now:.2f}")
    return {"action": "SELL", "sells": sells, "reasoning": f"Cutting losses: {'; '.join(moves)}."}


def _bet(bets: Sequence[tuple[Pick, Decimal]]) -> Reply:
    shown = "; ".join(
        f"P({p.quote.side})={p.belief:.2f} vs {p.quote.price:.2f} on {p.market_id}"
        for p, _ in bets[:4]
    )
    more = f"; and {len(bets) - 4} more" if len(bets) > 4 else ""
    return {
        "action": "BET",
        "bets": [
            {"market_id": p.market_id, "side": p.quote.side, "amount": float(amount)}
            for p, amount in bets
        ],
        "reasoning": f"Underpriced by my estimates: {shown}{more}.",
    }


def panel_forecasts(
    view: PromptView, foresight: Mapping[str, Foresight], profile: Profile, seeds: Seeds
) -> list[dict[str, Any]]:
    """P(YES) for every panel market, with the same skill and noise as the stand-in's trading
    beliefs; a seeded few are left out (the retries then ask again, in vain: the stand-in is
    deterministic, so they end as flagged fill-ins)."""
    found = []
    for row in view.panel:
        rng = random.Random(f"{seeds.decision}:panel:{row.market_id}")
        if rng.random() < PANEL_OMISSION_RATE:
            continue
        known = foresight.get(row.market_id, UNKNOWN)
        p_yes = _belief(row.yes_price, _truth(known, 0, 2), profile, rng)
        found.append({"market_id": row.market_id, "p_yes": round(p_yes, 3)})
    return found


def decide(
    view: PromptView, foresight: Mapping[str, Foresight], profile: Profile, seeds: Seeds
) -> Reply:
    """The reply (as a JSON-ready dict) of the stand-in ``profile`` to one decision."""
    rng = random.Random(f"{seeds.decision}:action")
    if rng.random() < HOLD_RATE:
        return hold("Nothing looks clearly mispriced this week; holding.")
    losing = _losing(view)
    if losing and rng.random() < SELL_RATE:
        return _sell(losing)
    bets = sized(picks(view, foresight, profile, seeds), view.cash, view.min_bet)
    if not bets:
        return hold("No bet with enough edge fits the cash left; holding.")
    return _bet(bets)

"""A seeded price simulation that replays recorded markets over simulated weeks.

Each recorded market gets a simulated life: it opens at its recorded price (or, for one that was
already settled when recorded, at a seeded price between 0.2 and 0.8), wanders with seeded noise,
and converges to the outcome the recording holds, reaching it at a seeded resolution time:

- recorded as resolved with a winner: the winner's price drifts to 1, then the market is closed
  with UMA status ``resolved`` and the recorded prices;
- recorded as a 50/50 resolution: prices drift to 0.5, then the same;
- recorded as closed but unresolved (proposed, disputed, no status): the market closes at that
  time and stays unresolved;
- recorded as open: it stays open, wandering around its recorded price; unless the payloads are
  today's live markets (``settle_open_by_end_date``) and its ``endDate`` falls inside the
  simulated span: then it resolves at that date to an outcome drawn (seeded) with the
  probabilities its current prices give, so a demo on live data settles bets too.

Prices and volume move on every snapshot pass, as live markets do (the cost model meters what
that churn costs). Volume grows on every pass (every market by the same factor, so the markets'
order by volume never changes). A price moves on a pass with chance ``PRICE_MOVE_CHANCE`` and
otherwise holds: the recorded history of an open market (``../shared/fixtures/polymarket/
prices_history``, one token) moved on 10% of ten-minute steps over a month and 15% over its
last day: the busier of the two. When it moves, its
noise is drawn afresh and its drift toward the recorded outcome catches up; the resolution
itself happens at its exact seeded time.

Everything is a pure function of (seed, market id, moment), so two runs with the same seed see
identical prices at identical moments, whatever else happens (faults, retries, reruns). The
output is a set of Gamma fields (``outcomePrices``, ``closed``, ``umaResolutionStatus``, the
volume) that a ``GammaReplay`` serves to the real Polymarket client.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

STEP = timedelta(minutes=10)  # a snapshot pass: prices may move, volume moves, every step
PRICE_MOVE_CHANCE = 0.15  # a price moves on 15% of passes, as recorded (its last day; 10% a month)
VOLUME_GROWTH = 1e-4  # volume grows by this share of the recorded volume every pass
LOOKBACK = 144  # steps searched back for the last move (a day: 0.85**144 ≈ 1e-10 of none)
NOISE = 0.04
FLOOR, CEILING = Decimal("0.01"), Decimal("0.99")


@dataclass(frozen=True)
class Plan:
    """One market's simulated life."""

    market_id: str
    start_prices: tuple[float, ...]
    volume: float  # recorded (0 when the payload has none)
    final_prices: tuple[str, ...] | None  # recorded prices at resolution; None when it stays open
    resolves_at: datetime | None
    final_status: str | None  # "resolved", or the recorded unresolved UMA status ("" for none)


def _recorded_prices(raw: Mapping[str, Any]) -> list[str] | None:
    value = raw.get("outcomePrices")
    try:
        prices = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return None
    return [str(p) for p in prices] if isinstance(prices, list) and prices else None


def _end_date(raw: Mapping[str, Any]) -> datetime | None:
    value = raw.get("endDate")
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


def _drawn_outcome(rng: random.Random, prices: Sequence[float]) -> tuple[str, ...]:
    """Winner-takes-all prices for an outcome drawn with the market's own probabilities."""
    weights = [max(p, 0.0) for p in prices]
    winner = rng.choices(range(len(prices)), weights=weights)[0] if sum(weights) else 0
    return tuple("1" if i == winner else "0" for i in range(len(prices)))


def plan_market(
    raw: Mapping[str, Any],
    *,
    seed: int,
    start: datetime,
    horizon: timedelta,
    settle_open_by_end_date: bool = False,
) -> Plan | None:
    """The simulated life of one recorded market (None when the payload has no usable prices);
    ``settle_open_by_end_date``: an open one ending inside the span settles then."""
    market_id = str(raw.get("id", ""))
    prices = _recorded_prices(raw)
    if not market_id or prices is None:
        return None
    rng = random.Random(f"{seed}:plan:{market_id}")
    volume = _recorded_volume(raw)
    closed = bool(raw.get("closed"))
    status = raw.get("umaResolutionStatus") or ""
    if not closed:
        start_prices = tuple(float(p) for p in prices)
        ends = _end_date(raw) if settle_open_by_end_date else None
        if ends is not None and start + timedelta(hours=1) <= ends < start + horizon:
            drawn = _drawn_outcome(rng, start_prices)
            return Plan(market_id, start_prices, volume, drawn, ends, "resolved")
        return Plan(market_id, start_prices, volume, None, None, None)
    start_prices = tuple(_split(rng.uniform(0.2, 0.8), len(prices)))
    resolves_at = start + timedelta(hours=24) + (horizon - timedelta(hours=24)) * rng.random()
    return Plan(market_id, start_prices, volume, tuple(prices), resolves_at, str(status))


def _recorded_volume(raw: Mapping[str, Any]) -> float:
    try:
        volume = float(raw.get("volumeNum", raw.get("volume")) or 0.0)
    except (TypeError, ValueError):
        return 0.0
    return volume if 0.0 <= volume < 1e15 else 0.0


def _split(first: float, count: int) -> list[float]:
    """Prices summing to 1: ``first`` for the first outcome, the rest shared equally."""
    rest = (1.0 - first) / (count - 1) if count > 1 else 0.0
    return [first, *([rest] * (count - 1))]


def _step(moment: datetime) -> int:
    return int(moment.timestamp() // STEP.total_seconds())


# Drawn again at every pass for every step looked back over (a seeded generator per draw, the
# simulation's largest cost): kept, as both are functions of their arguments alone.
@lru_cache(maxsize=1 << 16)
def _moves(seed: int, market_id: str, step: int) -> bool:
    return random.Random(f"{seed}:move:{market_id}:{step}").random() < PRICE_MOVE_CHANCE


def last_move(seed: int, market_id: str, moment: datetime) -> datetime:
    """The start of the latest step at or before ``moment`` at which the market's price
    moved: its price holds from there to ``moment``."""
    step = _step(moment)
    moved = next(
        (s for s in range(step, step - LOOKBACK, -1) if _moves(seed, market_id, s)),
        step - LOOKBACK,
    )
    return datetime.fromtimestamp(moved * STEP.total_seconds(), tz=moment.tzinfo)


@lru_cache(maxsize=1 << 14)
def _noise(seed: int, market_id: str, moment: datetime) -> float:
    return random.Random(f"{seed}:noise:{market_id}:{_step(moment)}").gauss(0.0, NOISE)


def volume_at(recorded: float, start: datetime, moment: datetime) -> str:
    """The recorded volume grown by ``VOLUME_GROWTH`` a pass since ``start``, as Gamma
    writes it (text, six decimals)."""
    passes = max(_step(moment) - _step(start), 0)
    return f"{recorded * (1 + VOLUME_GROWTH * passes):.6f}"


def _clip(value: float) -> str:
    return str(min(max(Decimal(repr(round(value, 4))), FLOOR), CEILING))


def fields_at(plan: Plan, *, seed: int, start: datetime, moment: datetime) -> dict[str, Any]:
    """The Gamma fields of a planned market at ``moment``; one that ends within the span shows
    its simulated end as its ``endDate`` (a recorded end date lies in the recording's past)."""
    ends = {} if plan.resolves_at is None else {"endDate": _gamma_time(plan.resolves_at)}
    if plan.resolves_at is not None and moment >= plan.resolves_at:
        resolved = plan.final_status == "resolved"
        fields: dict[str, Any] = {
            "closed": True,
            "outcomePrices": json.dumps(list(plan.final_prices or ())),
            **ends,
        }
        fields["umaResolutionStatus"] = "resolved" if resolved else (plan.final_status or None)
        return fields
    growing = {}
    if plan.volume:
        volume = volume_at(plan.volume, start, moment)
        growing = {"volume": volume, "volumeNum": float(volume)}
    return {
        "closed": False,
        "umaResolutionStatus": None,
        "outcomePrices": _prices_text(plan, seed, start, last_move(seed, plan.market_id, moment)),
        **ends,
        **growing,
    }


# A price holds from one move to the next (85% of passes see the same one): computed once.
@lru_cache(maxsize=1 << 14)
def _prices_text(plan: Plan, seed: int, start: datetime, moved: datetime) -> str:
    """The market's ``outcomePrices`` (Gamma's JSON text) from its move at ``moved``."""
    noise = _noise(seed, plan.market_id, moved)
    first = plan.start_prices[0]
    if plan.resolves_at is not None and plan.final_prices is not None:
        target = float(Decimal(plan.final_prices[0]))
        span = (plan.resolves_at - start).total_seconds() or 1.0
        progress = min(max((moved - start).total_seconds() / span, 0.0), 1.0)
        first = first + (target - first) * progress**2
        noise *= 1.0 - progress
    prices = _split(first + noise, len(plan.start_prices))
    if len(prices) == 2:
        prices[1] = 1.0 - prices[0]
    return json.dumps([_clip(p) for p in prices])


def _gamma_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class PriceSimulation:
    """Plans for a whole recorded universe; ``state_at`` gives every market's fields at a moment."""

    def __init__(
        self,
        markets: Sequence[Mapping[str, Any]],
        *,
        seed: int,
        start: datetime,
        horizon: timedelta,
        settle_open_by_end_date: bool = False,
        settle: frozenset[str] = frozenset(),
    ) -> None:
        """``settle_open_by_end_date``: every open market settles at its end date inside the
        span (today's live markets); ``settle``: these markets do (a seeded panel listing)."""
        self.seed, self.start = seed, start
        plans = (
            plan_market(
                m,
                seed=seed,
                start=start,
                horizon=horizon,
                settle_open_by_end_date=settle_open_by_end_date or str(m.get("id")) in settle,
            )
            for m in markets
        )
        self.plans = {p.market_id: p for p in plans if p is not None}

    def fields_for(self, market_id: str, moment: datetime) -> dict[str, Any]:
        """One market's fields at ``moment`` (none for a market without a plan)."""
        plan = self.plans.get(market_id)
        if plan is None:
            return {}
        return fields_at(plan, seed=self.seed, start=self.start, moment=moment)

    def state_at(self, moment: datetime) -> dict[str, dict[str, Any]]:
        return {
            market_id: fields_at(plan, seed=self.seed, start=self.start, moment=moment)
            for market_id, plan in self.plans.items()
        }

"""What the realistic validity world takes from the recorded Gamma dump, and nothing else.

The dump (``../shared/fixtures``, 600 markets of February 2026: 300 closed, 300 open) is sorted by
Gamma's ``volume`` *string*, so it is less a top-volume list than a sample across volumes. From
it the world takes, as empirical distributions it resamples:

- the YES price of open binary markets at capture (the mass at extreme prices: about half of
  them lie below 0.05 or above 0.95);
- the time from listing to scheduled end of the open markets (long-dated markets: the median
  runs about two months, a quarter more than seven; the world weighs each by one over its
  duration, since a snapshot holds a market for as long as it runs);
- the order-book liquidity of open markets (for the liquidity floor);
- how markets group into events, and which events are ladders (thresholds on one quantity,
  "above $X") or mutually exclusive candidates (``negRisk``).

What the dump cannot say (how many markets are active, how good the forecasters are, how large
shocks are) is an assumption of ``realistic.WorldAssumptions``, stated there.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from arena_local.demo.markets import FIXTURES, RECORDED_DUMP

P_FLOOR = 0.001  # prices clipped as the panel clips forecasts


@dataclass(frozen=True)
class Fitted:
    price_logits: tuple[float, ...]  # open binary markets' YES prices at capture, as logits
    durations: tuple[float, ...]  # days from listing to scheduled end, of open markets
    liquidity: tuple[float, ...]  # dollars, open markets
    single_share: float  # of events: one market
    ladder_share: float  # of multi-market events: thresholds on one quantity (not negRisk)
    source: str

    def share_priced_within(self, low: float, high: float) -> float:
        inside = [x for x in self.price_logits if low <= _sigmoid(x) <= high]
        return len(inside) / len(self.price_logits)

    def median_duration(self) -> float:
        ordered = sorted(self.durations)
        return ordered[len(ordered) // 2]

    def share_longer(self, days: float) -> float:
        return sum(d > days for d in self.durations) / len(self.durations)

    def share_liquid(self, floor: float) -> float:
        return sum(v >= floor for v in self.liquidity) / len(self.liquidity)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _logit(p: float) -> float:
    p = min(max(p, P_FLOOR), 1.0 - P_FLOOR)
    return math.log(p / (1.0 - p))


def _moment(text: Any) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _yes_price(market: dict[str, Any]) -> float | None:
    try:
        outcomes = json.loads(market.get("outcomes") or "[]")
        prices = json.loads(market.get("outcomePrices") or "[]")
        return float(prices[0]) if len(outcomes) == 2 and len(prices) == 2 else None
    except (ValueError, TypeError, IndexError):
        return None


def fit(payloads: list[dict[str, Any]], source: str) -> Fitted:
    """The distributions of one Gamma dump."""
    open_markets = [m for m in payloads if not m.get("closed")]
    prices = [p for p in map(_yes_price, open_markets) if p is not None]
    durations = []
    for market in open_markets:  # a snapshot: long markets over-represented (weighed back)
        start = _moment(market.get("startDate") or market.get("createdAt"))
        end = _moment(market.get("endDate"))
        if start is not None and end is not None and end > start:
            durations.append((end - start).total_seconds() / 86400)
    liquidity = [
        float(m["liquidityNum"]) for m in open_markets if m.get("liquidityNum") is not None
    ]
    events: dict[str, list[dict[str, Any]]] = {}
    for market in payloads:
        found = market.get("events")
        key = str(found[0].get("id")) if isinstance(found, list) and found else str(market["id"])
        events.setdefault(key, []).append(market)
    multi = [group for group in events.values() if len(group) > 1]
    ladders = [g for g in multi if not any(m.get("negRisk") for m in g)]
    return Fitted(
        price_logits=tuple(sorted(_logit(p) for p in prices)),
        durations=tuple(sorted(durations)),
        liquidity=tuple(sorted(liquidity)),
        single_share=1.0 - len(multi) / len(events),
        ladder_share=len(ladders) / len(multi) if multi else 0.5,
        source=source,
    )


@functools.cache
def recorded(path: Path = FIXTURES / RECORDED_DUMP) -> Fitted:
    """The recorded dump's distributions (the benchmark needs ``../shared`` beside the
    repository, as the tests do)."""
    if not path.is_file():
        raise FileNotFoundError(f"the realistic world is fitted to {path}: put ../shared beside")
    return fit(json.loads(path.read_text()), path.name)

"""The forecast panel's design: which markets may be asked, and how K of them are drawn.

The panel is what ranks the models under v1+panel, so its design decides how soon a verdict can
come. Each rule below was chosen on the validity benchmark's realistic world (false verdicts and
power, ``bench/bench_power.py``), not by argument:

- **K** questions a run (``size``), drawn from every active binary market above a liquidity
  floor, not only the top-500 trading universe.
- **Fresh questions.** A market asked in the last ``fresh_weeks`` weeks is not asked again: a
  re-asked market repeats its outcome, so it adds little the first ask did not.
- **Events.** At most ``per_event`` questions per Polymarket event (the markets of one event share
  their outcome: a ladder's thresholds, an election's candidates).
- **Price band.** Near-certain questions (priced outside ``band``) are left out: every forecaster
  scores almost the same on them, so they dilute every difference.
- **Horizon strata.** Fixed shares of K close within fixed numbers of days of the run, so that
  questions mature every week; within a stratum, categories take turns.

``draw`` is the one sampling procedure: the decision run applies it to Gamma's listing, the
validity benchmark to its simulated one. It is deterministic for a seeded ``random.Random``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, Protocol, TypeVar

# The deployed design (chosen on the realistic world: see the methodology page's tables).
PANEL_SIZE = 300  # K by default (the setting ARENA_PANEL_SIZE)
MAX_PANEL_SIZE = 300  # the largest K allowed: a decision's item holds K forecasts
PRICE_BAND = (Decimal("0.05"), Decimal("0.95"))
PER_EVENT = 1
# A panel market closes within 7 days of the run that asks it, so the week before holds every
# earlier ask of a market that can still be asked: none is asked twice.
FRESH_WEEKS = 1
MIN_LIQUIDITY = Decimal("1000")


@dataclass(frozen=True, slots=True)
class Stratum:
    """Questions closing more than ``min_days`` and at most ``max_days`` days after the run,
    ``share`` of K of them."""

    name: str
    min_days: float
    max_days: float
    share: float


@dataclass(frozen=True)
class PanelDesign:
    size: int  # K
    strata: tuple[Stratum, ...]
    band: tuple[Decimal, Decimal]  # the YES price at capture lies in [low, high]
    per_event: int  # questions per Polymarket event at most
    fresh_weeks: int  # a market asked in this many previous weeks is not asked again
    min_liquidity: Decimal  # dollars of order-book liquidity at least

    def __post_init__(self) -> None:
        if self.size < 1 or self.per_event < 1 or self.fresh_weeks < 0 or not self.strata:
            raise ValueError("a panel design needs K >= 1, per_event >= 1 and a stratum")
        if abs(sum(s.share for s in self.strata) - 1.0) > 1e-9:
            raise ValueError("the strata's shares of K must add up to 1")
        low, high = self.band
        if not Decimal(0) <= low < high <= Decimal(1):
            raise ValueError(f"the price band must lie in [0, 1], got {self.band}")

    @property
    def horizon_days(self) -> float:
        """The longest time to close any stratum asks."""
        return max(s.max_days for s in self.strata)

    def stratum_of(self, days: float) -> Stratum | None:
        """The stratum of a market closing ``days`` after the run (None: outside them all)."""
        return next((s for s in self.strata if s.min_days < days <= s.max_days), None)

    def in_band(self, price: Decimal | float) -> bool:
        low, high = self.band
        return low <= price <= high

    def quotas(self) -> list[int]:
        """Each stratum's number of questions: its share of K, rounded by largest remainder so
        that they add up to K exactly."""
        exact = [s.share * self.size for s in self.strata]
        floors = [int(x) for x in exact]
        order = sorted(range(len(exact)), key=lambda i: (floors[i] - exact[i], i))
        for i in order[: self.size - sum(floors)]:
            floors[i] += 1
        return floors


# Every question closes within the week of its run, so it matures before the next run: a
# verdict waits no week for maturity, and no outcome shock crosses run weeks. Half close in
# the first three days, half in the rest of the week (neither only daily markets nor only
# the week's last ones).
STRATA = (
    Stratum("1 to 3 days", 0.0, 3.0, 0.5),
    Stratum("4 to 7 days", 3.0, 7.0, 0.5),
)


def panel_design(size: int = PANEL_SIZE) -> PanelDesign:
    """The deployed design at K = ``size``."""
    return PanelDesign(
        size=size,
        strata=STRATA,
        band=PRICE_BAND,
        per_event=PER_EVENT,
        fresh_weeks=FRESH_WEEKS,
        min_liquidity=MIN_LIQUIDITY,
    )


class Drawable(Protocol):
    """What drawing needs of an eligible market."""

    @property
    def market_id(self) -> str: ...

    @property
    def event(self) -> str: ...  # its Polymarket event (its own id when it has none)

    @property
    def category(self) -> str: ...

    @property
    def days(self) -> float: ...  # days from the run to its scheduled close


C = TypeVar("C", bound=Drawable)


@dataclass(frozen=True)
class StratumCount:
    """One stratum of one week's panel: its quota, the markets that qualified, those chosen."""

    name: str
    quota: int
    eligible: int
    chosen: int


@dataclass(frozen=True)
class Draw(Generic[C]):
    chosen: tuple[C, ...]  # in panel order
    strata: tuple[StratumCount, ...]
    stratum_of: dict[str, str]  # market id -> the stratum it was drawn for


def _rounds(markets: Sequence[C], rng: random.Random) -> list[C]:
    """``markets`` in turns over their categories (a seeded order of categories, each one's
    markets shuffled): every category has one before any has a second, and so on."""
    by_category: dict[str, list[C]] = {}
    for market in markets:
        by_category.setdefault(market.category, []).append(market)
    names = sorted(by_category)
    rng.shuffle(names)
    for name in names:
        rng.shuffle(by_category[name])
    longest = max((len(v) for v in by_category.values()), default=0)
    return [
        by_category[n][depth]
        for depth in range(longest)
        for n in names
        if depth < len(by_category[n])
    ]


def draw(candidates: Sequence[C], design: PanelDesign, rng: random.Random) -> Draw[C]:
    """K of ``candidates`` (markets already eligible: open, binary, priced in the band, liquid
    enough, not asked recently): each stratum's quota in turns over categories, never more
    than ``per_event`` per event; a stratum short of its quota leaves the rest to the
    strata after it, then before it (shortest horizon first), so the panel is short of K
    only when every eligible market is taken or capped."""
    ordered = sorted(candidates, key=lambda c: c.market_id)  # the input's order never matters
    groups: dict[str, list[C]] = {s.name: [] for s in design.strata}
    for market in ordered:
        stratum = design.stratum_of(market.days)
        if stratum is not None:
            groups[stratum.name].append(market)
    queues = {name: _rounds(found, rng) for name, found in groups.items()}
    per_event: Counter[str] = Counter()
    chosen: list[C] = []
    taken: dict[str, str] = {}

    def take(name: str, wanted: int, accept: Callable[[C], bool]) -> int:
        count = 0
        for market in queues[name]:
            if count == wanted:
                break
            if market.market_id in taken or not accept(market):
                continue
            if per_event[market.event] >= design.per_event:
                continue
            per_event[market.event] += 1
            taken[market.market_id] = name
            chosen.append(market)
            count += 1
        return count

    quotas = design.quotas()
    got = [take(s.name, q, lambda _: True) for s, q in zip(design.strata, quotas, strict=True)]
    for stratum in design.strata:  # the shortfall, from whatever stratum still has markets
        missing = design.size - len(chosen)
        if missing <= 0:
            break
        got[design.strata.index(stratum)] += take(stratum.name, missing, lambda _: True)
    counts = tuple(
        StratumCount(s.name, q, len(groups[s.name]), n)
        for s, q, n in zip(design.strata, quotas, got, strict=True)
    )
    return Draw(tuple(chosen), counts, taken)

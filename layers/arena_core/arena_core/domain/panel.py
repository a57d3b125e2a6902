"""The forecast panel of methodology ``v1+panel``: the same sampled questions for every agent.

At each decision run a deterministic sample of binary markets is drawn from the captured
universe (seeded by the week, stratified across categories, within a horizon and a price band),
stored beside the universe with the prices at capture, and shown to every agent of the run. Each
agent states P(YES) for every panel market in its reply; what it leaves out, after the format
retries, is filled in with the market's price at capture (zero skill against the market) and
flagged. Stated probabilities are clipped to [0.001, 0.999], as Metaculus does, and the clip
is recorded. None of this changes a v1 rule: trading, limits and v1 scoring are untouched.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from arena_core.domain.base import DomainModel
from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.text import CleanText

PANEL_SIZE = 30  # K: panel markets per run (the default setting)
PANEL_HORIZON = timedelta(days=60)  # panel markets close within this after the run (default)
P_MIN = Decimal("0.001")
P_MAX = Decimal("0.999")
PRICE_BAND = (Decimal("0.03"), Decimal("0.97"))
UNCATEGORIZED = "uncategorized"


class Methodology(StrEnum):
    """A cohort's protocol, frozen when it opens; results are never aggregated across them."""

    V1 = "v1"  # the seeds' protocol: trade, confidence from bet size
    V1_PANEL = "v1+panel"  # v1, plus stated probabilities on the forecast panel


class PanelMarket(DomainModel):
    """One panel question as it stood at capture."""

    market_id: CleanText
    question: CleanText
    category: CleanText
    end_date: datetime
    p_yes: Decimal  # the market's P(YES) at capture: the first outcome's price
    event_id: CleanText | None = None  # its Polymarket event (None: recorded before it was kept)


class Panel(DomainModel):
    """The week's panel: identical for every agent of the run, reused by its reruns."""

    week_start: datetime
    run_at: datetime
    requested: int  # K, the panel size asked for
    eligible: int  # how many markets of the universe qualified
    markets: tuple[PanelMarket, ...]

    @property
    def short(self) -> bool:
        """Fewer eligible markets than K: the panel is smaller, and says so."""
        return len(self.markets) < self.requested

    def by_id(self) -> dict[str, PanelMarket]:
        return {m.market_id: m for m in self.markets}


class StatedForecast(DomainModel):
    """A probability as the reply stated it (range-checked against the panel later)."""

    market_id: CleanText
    p_yes: Decimal


class PanelForecast(DomainModel):
    """An agent's forecast for one panel question, as it is scored."""

    market_id: str
    stated: Decimal | None  # what the reply said; None when it said nothing usable
    p_yes: Decimal  # what is scored: the stated value clipped, or the fill-in
    clipped: bool = False
    missing: bool = False  # filled in with the market's price at capture


def panel_seed(week_start: datetime) -> str:
    return f"panel:{week_start.date().isoformat()}"


def eligible_market(market: Market, run_at: datetime, horizon: timedelta) -> bool:
    """Binary (two named outcomes count), open, closing within the horizon after the run, and
    priced inside the band at capture."""
    if market.status is not MarketStatus.OPEN or len(market.outcomes) != 2:
        return False
    price, end = market.outcomes[0].price, market.end_date
    if price is None or end is None or not run_at < end <= run_at + horizon:
        return False
    low, high = PRICE_BAND
    return low <= price <= high


def _stratified(markets: Sequence[Market], size: int, rng: random.Random) -> list[Market]:
    """Round-robin over categories in a seeded order, each category's markets shuffled: every
    category is represented before any has a second market, and so on."""
    strata: dict[str, list[Market]] = {}
    for market in markets:
        strata.setdefault(market.category or UNCATEGORIZED, []).append(market)
    order = sorted(strata)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(strata[name])
    chosen: list[Market] = []
    depth = 0
    while len(chosen) < size and any(depth < len(strata[n]) for n in order):
        chosen += [strata[n][depth] for n in order if depth < len(strata[n])]
        depth += 1
    return chosen[:size]


def select_panel(
    universe: Sequence[Market],
    *,
    week_start: datetime,
    run_at: datetime,
    size: int,
    horizon: timedelta,
) -> Panel:
    """The week's panel, deterministic for the week: same universe, same panel."""
    eligible = [m for m in universe if eligible_market(m, run_at, horizon)]
    # Sorted before sampling: the panel depends on which markets qualify, not on their order.
    eligible.sort(key=lambda m: m.market_id)
    chosen = _stratified(eligible, size, random.Random(panel_seed(week_start)))
    return Panel(
        week_start=week_start,
        run_at=run_at,
        requested=size,
        eligible=len(eligible),
        markets=tuple(
            PanelMarket(
                market_id=m.market_id,
                question=m.question,
                category=m.category or UNCATEGORIZED,
                end_date=m.end_date,  # eligible: has one
                p_yes=m.outcomes[0].price,  # eligible: priced
                event_id=m.event_id,
            )
            for m in chosen
        ),
    )


def forecast_problems(stated: Sequence[StatedForecast], panel: Panel) -> list[str]:
    """What is wrong with a reply's forecasts, in words fed back to the model (empty: none)."""
    known = panel.by_id()
    problems: list[str] = []
    seen: set[str] = set()
    for forecast in stated:
        if forecast.market_id not in known:
            problems.append(f"{forecast.market_id!r} is not a panel market")
        elif forecast.market_id in seen:
            problems.append(f"{forecast.market_id!r} is forecast more than once")
        elif not Decimal(0) <= forecast.p_yes <= Decimal(1):
            problems.append(f"p_yes for {forecast.market_id!r} must be between 0 and 1")
        seen.add(forecast.market_id)
    missing = [m.market_id for m in panel.markets if m.market_id not in seen]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        problems.append(f"no forecast for {shown}{more}")
    return problems


def _clip(p: Decimal) -> tuple[Decimal, bool]:
    clipped = min(max(p, P_MIN), P_MAX)
    return clipped, clipped != p


def complete_forecasts(stated: Sequence[StatedForecast], panel: Panel) -> tuple[PanelForecast, ...]:
    """One forecast per panel market, in panel order: the first in-range statement for it,
    clipped; otherwise the market's price at capture, flagged as missing."""
    first: dict[str, Decimal] = {}
    for forecast in stated:
        if Decimal(0) <= forecast.p_yes <= Decimal(1):
            first.setdefault(forecast.market_id, forecast.p_yes)
    completed = []
    for market in panel.markets:
        mid, value = market.market_id, first.get(market.market_id)
        if value is None:
            filled = PanelForecast(market_id=mid, stated=None, p_yes=market.p_yes, missing=True)
            completed.append(filled)
        else:
            p_yes, clip = _clip(value)
            completed.append(PanelForecast(market_id=mid, stated=value, p_yes=p_yes, clipped=clip))
    return tuple(completed)


class QuestionStatus(StrEnum):
    PENDING = "pending"  # waiting for the market to resolve, or for the run's decisions
    SCORED = "scored"
    VOID = "void"  # 50/50 or indeterminate: left out, as in v1


class PanelQuestion(DomainModel):
    """One panel market for one cohort's run: the unit scored at resolution. ``agent_ids`` are
    the agents the run asked (their forecasts are scored together: peer scores need them all)."""

    cohort_id: str
    week: int
    run_at: datetime
    market: PanelMarket
    agent_ids: tuple[str, ...]
    status: QuestionStatus = QuestionStatus.PENDING
    requested: int | None = None  # the panel's K (None: registered before it was kept)
    eligible: int | None = None  # markets of the universe that qualified

    @property
    def question_id(self) -> str:
        return f"{self.cohort_id}.w{self.week:03d}.{self.market.market_id}"


class ScoredBy(StrEnum):
    LLM = "llm"
    BASELINE = "baseline"
    ENSEMBLE = "ensemble"  # the models' log-loss-weighted average, a reference row
    MARKET = "market"  # the market's price at capture, as a forecaster (computed, never stored)


class PanelScore(DomainModel):
    """One agent's forecast for one question, scored at resolution, with its inputs."""

    cohort_id: str
    week: int
    run_at: datetime
    market_id: str
    category: str
    end_date: datetime
    agent_id: str
    family_id: str
    scored_by: ScoredBy
    stated: Decimal | None
    p_yes: Decimal  # as scored: the clipped statement, or the fill-in
    clipped: bool
    missing: bool
    market_p_yes: Decimal  # the market's P(YES) at capture
    outcome: int  # 1 if YES (the first outcome) won
    brier: float
    log_score: float  # natural log of the probability given to what happened
    market_brier: float
    baseline_score: float  # Metaculus baseline score (x100, log base 2 against 50%)
    peer_score: float  # Metaculus peer score among the cohort's models (x100, natural log)
    resolved_at: datetime  # when resolution scored it (no earlier than the market resolved)
    event_id: str | None = None  # the market's Polymarket event (None: scored before it was kept)

"""The forecast panel of methodology ``v1+panel``: the same sampled questions for every agent.

At each decision run the week's panel is drawn once, deterministically for the week, from every
active binary market above a liquidity floor (the panel listing, not only the top-500 trading
universe), by the rules of ``panel_design`` (K questions, fresh, one per event, inside a price
band, in fixed horizon strata, categories taking turns); it is stored with the prices at capture,
its stratum and eligibility counts, and shown to every agent of the run. Each agent states P(YES)
for every panel market in its reply; what it leaves out, after the format retries, is filled in
with the market's price at capture (zero skill against the market) and flagged. Stated
probabilities are clipped to [0.001, 0.999], as Metaculus does, and the clip is recorded. None of
this changes a v1 rule: trading, limits and v1 scoring are untouched.
"""

from __future__ import annotations

import random
from collections.abc import Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from arena_core.domain.base import DomainModel
from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.panel_design import PanelDesign, draw
from arena_core.domain.text import CleanText

P_MIN = Decimal("0.001")
P_MAX = Decimal("0.999")
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
    stratum: CleanText | None = None  # the horizon stratum it was drawn for (None: before them)


class PanelStratum(DomainModel):
    """One horizon stratum of a week's panel: its share of K, what qualified, what was drawn."""

    name: CleanText
    quota: int
    eligible: int
    chosen: int


class Eligibility(DomainModel):
    """How the week's listing narrowed to the eligible markets, each count after the rule on
    its line and every rule above it."""

    listed: int  # markets in the panel listing
    binary: int  # open, with two outcomes, priced and dated
    in_strata: int  # closing within one of the horizon strata
    in_band: int  # priced inside the band at capture
    liquid: int  # with at least the liquidity floor
    fresh: int  # not asked in the design's previous weeks: the eligible markets


class Panel(DomainModel):
    """The week's panel: identical for every agent of the run, reused by its reruns."""

    week_start: datetime
    run_at: datetime
    requested: int  # K, the panel size asked for
    eligible: int  # how many markets of the listing qualified
    markets: tuple[PanelMarket, ...]
    strata: tuple[PanelStratum, ...] = ()  # () : drawn before the strata existed
    counts: Eligibility | None = None

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


@dataclass(frozen=True, slots=True)
class Listed:
    """A market of the listing as the draw sees it (``panel_design.Drawable``)."""

    market: Market
    days: float

    @property
    def market_id(self) -> str:
        return self.market.market_id

    @property
    def event(self) -> str:
        return self.market.event_id or f"market:{self.market.market_id}"

    @property
    def category(self) -> str:
        return self.market.category or UNCATEGORIZED


def eligible_markets(
    listing: Sequence[Market], run_at: datetime, design: PanelDesign, recent: Set[str]
) -> tuple[list[Listed], Eligibility]:
    """The listing's markets the design may ask at ``run_at``, and how each rule narrowed them:
    open with two outcomes, priced and dated; closing within a stratum; priced in the band;
    liquid enough (unknown liquidity is none); not in ``recent`` (asked in the design's
    previous weeks)."""
    binary = [
        m
        for m in listing
        if m.status is MarketStatus.OPEN
        and len(m.outcomes) == 2
        and m.outcomes[0].price is not None
        and m.end_date is not None
    ]
    timed = [Listed(m, _days(m, run_at)) for m in binary]
    in_strata = [c for c in timed if design.stratum_of(c.days) is not None]
    in_band = [c for c in in_strata if design.in_band(_price(c.market))]
    liquid = [c for c in in_band if (c.market.liquidity or 0) >= design.min_liquidity]
    fresh = [c for c in liquid if c.market_id not in recent]
    counts = Eligibility(
        listed=len(listing),
        binary=len(binary),
        in_strata=len(in_strata),
        in_band=len(in_band),
        liquid=len(liquid),
        fresh=len(fresh),
    )
    return fresh, counts


def _days(market: Market, run_at: datetime) -> float:
    assert market.end_date is not None  # eligible markets are dated
    return (market.end_date - run_at).total_seconds() / 86400


def _price(market: Market) -> Decimal:
    price = market.outcomes[0].price
    assert price is not None  # eligible markets are priced
    return price


def select_panel(
    listing: Sequence[Market],
    *,
    week_start: datetime,
    run_at: datetime,
    design: PanelDesign,
    recent: Set[str] = frozenset(),
) -> Panel:
    """The week's panel, deterministic for the week: same listing, same panel."""
    eligible, counts = eligible_markets(listing, run_at, design, recent)
    drawn = draw(eligible, design, random.Random(panel_seed(week_start)))
    return Panel(
        week_start=week_start,
        run_at=run_at,
        requested=design.size,
        eligible=len(eligible),
        markets=tuple(
            PanelMarket(
                market_id=c.market_id,
                question=c.market.question,
                category=c.category,
                end_date=c.market.end_date,  # eligible: dated
                p_yes=_price(c.market),
                event_id=c.market.event_id,
                stratum=drawn.stratum_of[c.market_id],
            )
            for c in drawn.chosen
        ),
        strata=tuple(
            PanelStratum(name=s.name, quota=s.quota, eligible=s.eligible, chosen=s.chosen)
            for s in drawn.strata
        ),
        counts=counts,
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
    eligible: int | None = None  # markets of the listing that qualified
    # Its horizon stratum, the stratum's quota of K and the markets that qualified for it
    # (None: registered before the strata existed).
    stratum: str | None = None
    stratum_quota: int | None = None
    stratum_eligible: int | None = None

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

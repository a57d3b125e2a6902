"""Measures, the rules that say when a number may carry an interval, and the figures shown.

A ``Figure`` is a headline number as the site prints it: the estimate always, the 95% interval
only once the sample reaches the minimum at which the validity benchmark shows such intervals
covering the truth (``Rules``), and otherwise what is missing ("3 of 8 weeks needed"). Bounds
never leave the measure's range: a Brier score is never negative, a return never below -100%.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from arena_core.analysis.clustered import Clustering, Estimate
from arena_core.analysis.rows import Forecast

INF = math.inf
# The smallest familywise level analysed: a comparison's own level is alpha over a few hundred
# comparisons at most, and must stay a normal float for its critical value to exist.
MIN_ALPHA = 1e-300
LOG_FLOOR = math.log(1e-12)  # the clipped log score's lowest value


@dataclass(frozen=True)
class Measure:
    """What is averaged over forecasts, which way is better, and the range it lives in."""

    name: str
    value: Callable[[Forecast], float]
    lower_is_better: bool
    bounds: tuple[float, float]


def _peer(row: Forecast) -> float:
    if row.peer is None:
        raise ValueError(f"forecast of {row.family_id} on {row.market_id} has no peer score")
    return row.peer


def _baseline(row: Forecast) -> float:
    if row.baseline is None:
        raise ValueError(f"forecast of {row.family_id} on {row.market_id} has no baseline score")
    return row.baseline


BRIER = Measure("brier", lambda r: r.brier, True, (0.0, 1.0))
MARKET_BRIER = Measure("market_brier", lambda r: r.market_brier, True, (0.0, 1.0))
LOG_SCORE = Measure("log_score", lambda r: r.log_score, False, (LOG_FLOOR, 0.0))
RELATIVE_LOG = Measure(
    "relative_log_score", lambda r: r.relative_log_score, False, (100 * LOG_FLOOR, -100 * LOG_FLOOR)
)
PEER = Measure("peer_score", _peer, False, (-INF, INF))
BASELINE = Measure("baseline_score", _baseline, False, (-INF, 100.0))
SKILL_BOUNDS = (-INF, 1.0)
RETURN_BOUNDS = (-100.0, INF)


@dataclass(frozen=True)
class Rules:
    """When a figure may be ranked and carry an interval, and how its clusters are formed.

    ``min_forecasts`` over ``min_cohorts`` is the methodology's minimum sample to be ranked.
    ``min_weeks`` and ``min_events`` (of matured forecasts) and ``min_return_cohorts`` (of
    completed cohorts) are the validity minimums: below them the benchmark shows intervals
    and verdicts failing their error rates, so none is shown."""

    min_forecasts: int = 30
    min_cohorts: int = 2
    clustering: Clustering = Clustering.EVENT_WEEK
    # From the validity benchmark's results (analysis/validity.json; a test keeps them equal):
    # two-way clustered t intervals cover from the first two clusters on, where a t with one
    # degree of freedom makes them wide but honest.
    min_weeks: int = 2
    min_events: int = 2
    min_return_cohorts: int = 2
    alpha: float = 0.05  # intervals are 1 - alpha; verdicts hold the familywise rate at alpha

    def shortfall(self, weeks: int, events: int) -> str | None:
        """What a sample of forecasts still lacks for an interval, or None when it has it."""
        if weeks < self.min_weeks:
            return f"{weeks} of {self.min_weeks} weeks needed"
        if events < self.min_events:
            return f"{events} of {self.min_events} events needed"
        return None

    def return_shortfall(self, cohorts: int) -> str | None:
        if cohorts < self.min_return_cohorts:
            return f"{cohorts} of {self.min_return_cohorts} completed cohorts needed"
        return None


def alpha_problem(alpha: float) -> str | None:
    """Why ``alpha`` cannot be a familywise level, or None when it can."""
    if not MIN_ALPHA <= alpha < 1.0:  # NaN fails too
        return f"alpha must lie in [{MIN_ALPHA:g}, 1), got {alpha!r}"
    return None


@dataclass(frozen=True, slots=True)
class Figure:
    """A headline number, its interval when the sample supports one, and its sample."""

    estimate: float
    low: float | None
    high: float | None
    se: float
    df: float
    n: int
    weeks: int
    events: int
    missing: str | None  # what the interval still needs; None once it is shown

    @property
    def clusters(self) -> int:
        return self.weeks

    @property
    def shown(self) -> bool:
        return self.low is not None and self.high is not None


def figure(
    estimate: Estimate | None,
    bounds: tuple[float, float],
    alpha: float,
    missing: str | None,
) -> Figure | None:
    """The figure of an estimate: with its interval, clipped to ``bounds``, unless ``missing``
    says why not (or a single cluster leaves no degrees of freedom)."""
    if estimate is None:
        return None
    if missing is None and estimate.df < 1:
        missing = "a second cluster needed"
    low = high = None
    if missing is None:
        half = estimate.half_width(alpha)
        low = max(bounds[0], estimate.estimate - half)
        high = min(bounds[1], estimate.estimate + half)
    return Figure(
        estimate=estimate.estimate,
        low=low,
        high=high,
        se=estimate.se,
        df=estimate.df,
        n=estimate.n,
        weeks=estimate.weeks,
        events=estimate.events,
        missing=missing,
    )

"""The rows the analysis reads: one per scored forecast, one per family and cohort return.

They are exactly what the published tables hold (``forecasts``, ``panel_scores``,
``family_returns``), so the site, ``arena analyze`` and the validity benchmark all feed the same
functions. A forecast knows its Polymarket event and its run week (the units the clustered
statistics keep together) and whether its question has *matured*: its scheduled end, as
captured when it was forecast, had passed when the dataset was published, and it resolved.
Ranks, intervals and verdicts use matured forecasts only: "will X happen by D?" resolves YES as
soon as X happens but NO only at D, so what has resolved early leans YES.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from arena_core.analysis.clustered import Unit
from arena_core.scoring._checks import DEFAULT_EPS, outcome, probability

_LOW, _HIGH = DEFAULT_EPS, 1.0 - DEFAULT_EPS
UNGROUPED = "market:"  # the event of a market recorded without one: the market alone


def _log_score(p_yes: float, happened: int) -> float:
    given = p_yes if happened == 1 else 1.0 - p_yes
    return math.log(min(max(given, _LOW), _HIGH))


@dataclass(frozen=True, slots=True)
class Forecast:
    """One resolved forecast of one forecaster (a family, a baseline, the ensemble, the market).

    ``peer`` and ``baseline`` are the Metaculus scores the forecast panel stores (None for a v1
    bet); ``category`` and ``horizon`` name its breakdown groups."""

    family_id: str
    agent_id: str
    cohort_id: str
    market_id: str
    event_id: str  # "" when unknown: the market is then its own event
    week: str  # the run week: ISO date of the Sunday the forecast was made in
    p_yes: float
    market_p_yes: float
    outcome: int
    matured: bool = True
    peer: float | None = None
    baseline: float | None = None
    category: str = ""
    horizon: str = ""
    closes: str = ""  # the week its market's scheduled end falls in ("": unknown)
    unit: Unit = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "p_yes", probability(self.p_yes, "p_yes"))
        object.__setattr__(self, "market_p_yes", probability(self.market_p_yes, "market_p_yes"))
        object.__setattr__(self, "outcome", outcome(self.outcome))
        event = self.event_id or UNGROUPED + self.market_id
        object.__setattr__(self, "unit", Unit(event, self.week, self.closes))

    @property
    def question(self) -> tuple[str, str]:
        """What two forecasters are compared on: the same market in the same run week."""
        return self.week, self.market_id

    @property
    def brier(self) -> float:
        return (self.p_yes - self.outcome) ** 2

    @property
    def log_score(self) -> float:
        """ln of the probability given to what happened, clipped to [1e-12, 1 - 1e-12]."""
        return _log_score(self.p_yes, self.outcome)

    @property
    def market_brier(self) -> float:
        return (self.market_p_yes - self.outcome) ** 2

    @property
    def market_log_score(self) -> float:
        return _log_score(self.market_p_yes, self.outcome)

    @property
    def relative_log_score(self) -> float:
        """100 x (log score - the market's): Metaculus peer-style against the market."""
        return 100.0 * (self.log_score - self.market_log_score)


@dataclass(frozen=True, slots=True)
class CohortReturn:
    """A family's return % in one cohort; ``matured``: it completed (every position closed)
    and the scheduled end of every market it held has passed."""

    family_id: str
    cohort_id: str
    week: str  # the cohort's week start (ISO date)
    return_pct: float
    matured: bool


@dataclass(frozen=True, slots=True)
class PositionPnl:
    """One position of a completed cohort: its realized P/L as a % of the starting balance.

    A completed cohort's return is the sum of its positions' P/L, so its positions are what the
    return's interval clusters: positions on markets of one event, or opened in one run week,
    share an outcome or a shock whichever cohort holds them."""

    family_id: str
    cohort_id: str
    market_id: str
    event_id: str  # "" when unknown: the market is then its own event
    week: str  # the run week it was opened in
    pnl_pct: float
    unit: Unit = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        event = self.event_id or UNGROUPED + self.market_id
        object.__setattr__(self, "unit", Unit(event, self.week))

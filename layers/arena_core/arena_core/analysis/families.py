"""One forecaster's figures: every measure over its matured forecasts, with intervals once the
validity minimum is met, and the same over everything resolved so far (provisional).

Also the market as a forecaster of its own (one forecast per question at its price), the
calibration table beside the market's on the same forecasts, and breakdowns by category and by
time to close.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from arena_core.analysis import clustered
from arena_core.analysis.figures import (
    BASELINE,
    BRIER,
    LOG_SCORE,
    MARKET_BRIER,
    PEER,
    RELATIVE_LOG,
    SKILL_BOUNDS,
    Figure,
    Measure,
    Rules,
    figure,
)
from arena_core.analysis.pairs import return_figure
from arena_core.analysis.rows import CohortReturn, Forecast, PositionPnl
from arena_core.scoring.calibration import murphy_decomposition
from arena_core.scoring.metaculus import baseline_score_binary, peer_score
from arena_core.scoring.reliability import ReliabilityBin, reliability_table

MARKET = "market"


@dataclass(frozen=True)
class Calibration:
    bins: tuple[ReliabilityBin, ...]
    market_bins: tuple[ReliabilityBin, ...]  # the market's prices on the same forecasts
    murphy: Mapping[str, float] | None
    market_murphy: Mapping[str, float] | None

    @property
    def ece(self) -> float | None:
        """Expected calibration error: the count-weighted mean |mean forecast - observed
        frequency| over the bins (0 is perfectly calibrated); None with no forecast."""
        return expected_calibration_error(self.bins)

    @property
    def market_ece(self) -> float | None:
        return expected_calibration_error(self.market_bins)


def expected_calibration_error(bins: Sequence[ReliabilityBin]) -> float | None:
    total = sum(b.count for b in bins)
    if total == 0:
        return None
    return math.fsum(b.count * abs(b.mean_forecast - b.observed) for b in bins) / total


@dataclass(frozen=True)
class Breakdown:
    family_id: str
    dimension: str  # "category" or "time_to_close"
    group: str
    forecasts: int
    brier: Figure | None
    skill: Figure | None


@dataclass(frozen=True)
class FamilyResult:
    """A forecaster's figures. Figures are over matured forecasts; ``provisional`` holds the
    means over every resolved one (early "by date" YES resolutions included)."""

    family_id: str
    forecasts: int  # matured forecasts
    resolved: int  # every resolved forecast
    cohorts: int  # cohorts holding matured forecasts
    weeks: int  # run weeks of its matured forecasts
    events: int
    brier: Figure | None
    log_score: Figure | None
    skill: Figure | None  # Brier skill against the market's price on the same forecasts
    relative_log: Figure | None
    market_brier: Figure | None  # the market's Brier on the same forecasts
    peer: Figure | None  # v1+panel: Metaculus peer score among the models
    baseline: Figure | None
    provisional: Mapping[str, float]  # measure name -> mean over everything resolved so far
    returns: Figure | None  # mean return % over completed cohorts
    provisional_return: float | None  # mean return % over every cohort (live ones marked)
    return_cohorts: int  # cohorts with a return
    calibration: Calibration
    eligible: bool  # a model family with the methodology's and the validity's minimum sample
    missing: str | None  # what it lacks to be ranked
    rank: int | None = None
    rank_range: tuple[int, int] | None = None
    tied_with_leader: bool = False
    first_share: float | None = None  # share of draws in which it ranks first

    def ranked(self, measure: Measure) -> Figure | None:
        return self.peer if measure is PEER else self.brier


def _mean_figure(
    rows: Sequence[Forecast],
    measure: Measure,
    rules: Rules,
    clusters: clustered.Clusters | None = None,
) -> Figure | None:
    """``measure``'s mean over ``rows`` (``clusters``: theirs, when already worked out)."""
    units = clusters or [r.unit for r in rows]
    estimate = clustered.mean([measure.value(r) for r in rows], units, rules.clustering)
    missing = rules.shortfall(estimate.weeks, estimate.events) if estimate else None
    return figure(estimate, measure.bounds, rules.alpha, missing)


def skill_figure(
    rows: Sequence[Forecast], rules: Rules, clusters: clustered.Clusters | None = None
) -> Figure | None:
    """Brier skill vs the market on the same forecasts. With the market's mean Brier B_m on
    them, the family's lies in [0, 1], so its skill in [1 - 1 / B_m, 1]: the interval stays in."""
    briers, market = [r.brier for r in rows], [r.market_brier for r in rows]
    units = clusters or [r.unit for r in rows]
    estimate = clustered.skill(briers, market, units, rules.clustering)
    missing = rules.shortfall(estimate.weeks, estimate.events) if estimate else None
    bounds = SKILL_BOUNDS
    if market and math.fsum(market) > 0.0:
        bounds = (1.0 - len(market) / math.fsum(market), SKILL_BOUNDS[1])
    return figure(estimate, bounds, rules.alpha, missing)


def calibration(rows: Sequence[Forecast]) -> Calibration:
    if not rows:
        return Calibration((), (), None, None)
    outcomes = [r.outcome for r in rows]
    forecasts = [r.p_yes for r in rows]
    market = [r.market_p_yes for r in rows]
    return Calibration(
        bins=tuple(reliability_table(list(zip(forecasts, outcomes, strict=True)))),
        market_bins=tuple(reliability_table(list(zip(market, outcomes, strict=True)))),
        murphy=murphy_decomposition(forecasts, outcomes),
        market_murphy=murphy_decomposition(market, outcomes),
    )


def _means(rows: Sequence[Forecast], measures: Sequence[Measure]) -> dict[str, float]:
    if not rows:
        return {}
    return {m.name: math.fsum(m.value(r) for r in rows) / len(rows) for m in measures}


def _eligibility(
    matured: Sequence[Forecast], ranked: Figure | None, rules: Rules, rankable: bool
) -> tuple[bool, str | None]:
    """Whether a family is ranked, and if not what it lacks: the validity minimum (weeks and
    events, as its interval says) and the methodology's (matured forecasts over cohorts)."""
    if not rankable:
        return False, None
    lacking = []
    if ranked is None:
        lacking.append("a matured forecast")
    elif not ranked.shown and ranked.missing:
        lacking.append(ranked.missing.removesuffix(" needed"))
    if len(matured) < rules.min_forecasts:
        lacking.append(f"{len(matured)} of {rules.min_forecasts} matured forecasts")
    cohorts = len({r.cohort_id for r in matured})
    if cohorts < rules.min_cohorts:
        lacking.append(f"{cohorts} of {rules.min_cohorts} cohorts")
    if lacking:
        return False, ", ".join(lacking) + " needed"
    return True, None


def family_result(
    family_id: str,
    rows: Sequence[Forecast],
    returns: Sequence[CohortReturn],
    positions: Sequence[PositionPnl],
    *,
    rules: Rules,
    measure: Measure,
    rankable: bool,
    calibrate: bool = True,
) -> FamilyResult:
    matured = [r for r in rows if r.matured]
    has_peer = bool(rows) and all(r.peer is not None for r in rows)
    scores = [BRIER, LOG_SCORE, RELATIVE_LOG, MARKET_BRIER] + ([PEER, BASELINE] if has_peer else [])
    clusters = clustered.Clusters.of([r.unit for r in matured], rules.clustering)
    peer = _mean_figure(matured, PEER, rules, clusters) if has_peer and matured else None
    brier = _mean_figure(matured, BRIER, rules, clusters)
    eligible, missing = _eligibility(matured, peer if measure is PEER else brier, rules, rankable)
    every_return = [r.return_pct for r in returns]
    return FamilyResult(
        family_id=family_id,
        forecasts=len(matured),
        resolved=len(rows),
        cohorts=len({r.cohort_id for r in matured}),
        weeks=len({r.week for r in matured}),
        events=len({r.unit.event for r in matured}),
        brier=brier,
        log_score=_mean_figure(matured, LOG_SCORE, rules, clusters),
        skill=skill_figure(matured, rules, clusters),
        relative_log=_mean_figure(matured, RELATIVE_LOG, rules, clusters),
        market_brier=_mean_figure(matured, MARKET_BRIER, rules, clusters),
        peer=peer,
        baseline=(
            _mean_figure(matured, BASELINE, rules, clusters) if has_peer and matured else None
        ),
        provisional=_means(rows, scores),
        returns=return_figure(returns, positions, rules),
        provisional_return=math.fsum(every_return) / len(every_return) if every_return else None,
        return_cohorts=len(every_return),
        calibration=calibration(matured if calibrate else []),
        eligible=eligible,
        missing=missing,
    )


def market_forecasts(
    rows: Sequence[Forecast], models: set[str], *, with_peer: bool
) -> list[Forecast]:
    """The market's price as one more forecaster: one forecast per question (per cohort's
    question under v1+panel, where it is peer-scored against that cohort's models)."""
    questions: dict[tuple[str, str, str], list[Forecast]] = {}
    for row in rows:
        cohort = row.cohort_id if with_peer else ""
        questions.setdefault((row.week, row.market_id, cohort), []).append(row)
    found = []
    for (week, market_id, cohort), group in sorted(questions.items()):
        first = min(group, key=lambda r: (r.cohort_id, r.agent_id))
        peer = baseline = None
        if with_peer:
            given = [
                r.p_yes if r.outcome else 1.0 - r.p_yes for r in group if r.family_id in models
            ]
            price = first.market_p_yes if first.outcome else 1.0 - first.market_p_yes
            peer = round(peer_score(price, given), 12) + 0.0
            baseline = round(baseline_score_binary(first.market_p_yes, first.outcome), 12) + 0.0
        found.append(
            Forecast(
                family_id=MARKET,
                agent_id=f"{cohort or first.cohort_id}.{MARKET}",
                cohort_id=cohort or first.cohort_id,
                market_id=market_id,
                event_id=first.event_id,
                week=week,
                p_yes=first.market_p_yes,
                market_p_yes=first.market_p_yes,
                outcome=first.outcome,
                matured=first.matured,
                peer=peer,
                baseline=baseline,
                category=first.category,
                horizon=first.horizon,
                closes=first.closes,
            )
        )
    return found


def breakdowns(
    family_id: str,
    rows: Sequence[Forecast],
    groups: Mapping[str, Callable[[Forecast], str]],
    rules: Rules,
) -> list[Breakdown]:
    """Per dimension and group: matured forecasts, mean Brier and skill against the market."""
    found = []
    for dimension, group_of in groups.items():
        members: dict[str, list[Forecast]] = {}
        for row in rows:
            if row.matured:
                members.setdefault(group_of(row), []).append(row)
        for group, subset in sorted(members.items()):
            found.append(
                Breakdown(
                    family_id,
                    dimension,
                    group,
                    len(subset),
                    _mean_figure(subset, BRIER, rules),
                    skill_figure(subset, rules),
                )
            )
    return found

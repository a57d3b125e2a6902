"""Every two forecasters compared on what both did, with a verdict whose error rate is held.

On a forecast measure the unit is a question: the same market in the same run week, where each
forecaster's value is the mean over its forecasts of it (several cohorts ask a family the same
panel question; a v1 family may bet twice). The mean difference A - B over shared questions
gets its clustered standard error (questions of one event, and of one week, stay together);
the test is Student's t on it, and the verdicts of all pairs tested together are Holm-adjusted,
so the chance of any false "A better than B" stays at most ``alpha``. Each pair's interval is
at the level of its own Holm step (``alpha / (m - j + 1)`` for the j-th smallest p-value, or
the step where Holm stopped for a pair it did not call): it excludes 0 exactly when the pair is
called, and covers the true difference at least ``1 - alpha`` of the time on its own.

On returns the unit is a completed cohort both ran; its error comes from the cohorts'
positions, clustered like forecasts (cohorts that run at the same time hold the same markets).

A pair below the validity minimum gets no interval and no verdict, and says what it lacks;
an undecided pair says how many more weeks would call it if the difference held.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import combinations
from statistics import NormalDist

from arena_core.analysis import clustered
from arena_core.analysis.clustered import Clusters, Estimate, Unit
from arena_core.analysis.figures import RETURN_BOUNDS, Figure, Measure, Rules, figure
from arena_core.analysis.rows import CohortReturn, Forecast, PositionPnl
from arena_core.analysis.tdist import critical_value, two_sided_p

RETURN = "return_pct"
POWER = 0.80
NO_SPREAD = "the same difference on every shared question: no error to estimate"
FAR_WEEKS = 4096  # past these (80 years), the normal quantile stands in for t's
# A promise of weeks plans on the lower bound of |A - B| at this one-sided level (the promise
# is kept in at least half the seasons on the validity benchmark), once |A - B| is established
# at the verdicts' own level (``established``).
PROMISE = 0.01


class Verdict(StrEnum):
    A_BETTER = "a_better"
    B_BETTER = "b_better"
    UNDECIDED = "undecided"
    TOO_FEW = "too_few"  # shares too little for an interval or a verdict
    NOTHING_SHARED = "nothing_shared"


@dataclass(frozen=True)
class PairResult:
    """A against B on one measure: differences are A - B over what both did."""

    family_a: str
    family_b: str
    measure: str
    lower_is_better: bool
    difference: Figure | None  # None when they share nothing
    p_value: float | None  # None below the minimum sample
    p_holm: float | None
    detectable: float | None  # the smallest |A - B| this sample would call with 80% power
    # Weeks more until called if the difference held at its lower bound (``weeks_to_call``);
    # None once decided, or while no difference is established.
    more_weeks: int | None
    verdict: Verdict
    level: float | None = None  # the alpha of the interval shown (its Holm step's), once tested

    @property
    def decided(self) -> bool:
        return self.verdict in (Verdict.A_BETTER, Verdict.B_BETTER)

    def better(self) -> str | None:
        """The family the verdict calls better, if any."""
        if self.verdict is Verdict.A_BETTER:
            return self.family_a
        return self.family_b if self.verdict is Verdict.B_BETTER else None


def question_values(
    rows: Sequence[Forecast], measure: Measure
) -> dict[tuple[str, str], tuple[float, Unit]]:
    """Per question (run week, market): the mean of the measure over the rows, and its unit."""
    sums: dict[tuple[str, str], list[float]] = {}
    units: dict[tuple[str, str], Unit] = {}
    value = measure.value
    for row in rows:
        key = row.question
        found = sums.get(key)
        if found is None:
            sums[key] = [value(row)]
        else:
            found.append(value(row))
        units[key] = row.unit
    return {
        key: (v[0] if len(v) == 1 else math.fsum(v) / len(v), units[key]) for key, v in sums.items()
    }


def difference_bounds(bounds: tuple[float, float]) -> tuple[float, float]:
    """The range of A - B when A and B both lie in ``bounds`` (Brier: [-1, 1])."""
    low, high = bounds
    return low - high, high - low


def _tested(  # noqa: PLR0917 (one pair's fields, as PairResult takes them)
    a: str,
    b: str,
    measure: str,
    lower_is_better: bool,
    estimate: Estimate | None,
    missing: str | None,
    rules: Rules,
    bounds: tuple[float, float] = (-math.inf, math.inf),
) -> PairResult:
    if estimate is None:
        return PairResult(
            a, b, measure, lower_is_better, None, None, None, None, None, Verdict.NOTHING_SHARED
        )
    shown = figure(estimate, bounds, rules.alpha, missing)
    if shown is None or not shown.shown:
        return PairResult(
            a, b, measure, lower_is_better, shown, None, None, None, None, Verdict.TOO_FEW
        )
    if estimate.se == 0.0:  # every shared unit differs alike: no error, so no interval
        flat = replace(shown, low=None, high=None, missing=NO_SPREAD)
        return PairResult(
            a, b, measure, lower_is_better, flat, None, None, None, None, Verdict.TOO_FEW
        )
    p = two_sided_p(estimate.t(), estimate.df)
    return PairResult(a, b, measure, lower_is_better, shown, p, None, None, None, Verdict.UNDECIDED)


def finish(
    results: list[PairResult], rules: Rules, bounds: tuple[float, float] = (-math.inf, math.inf)
) -> list[PairResult]:
    """Holm over the tested pairs: each pair's interval at its step's level, its verdict (the
    interval excludes 0), its detectable difference and the weeks it still needs (both at
    Holm's strictest level, alpha / m)."""
    tested = [i for i, r in enumerate(results) if r.p_value is not None]
    m = len(tested)
    adjusted = holm_adjust([results[i].p_value or 0.0 for i in tested])
    levels = holm_levels([results[i] for i in tested], rules.alpha, bounds)
    done = list(results)
    for index, p_holm, level in zip(tested, adjusted, levels, strict=True):
        result = results[index]
        difference = result.difference
        assert difference is not None  # tested pairs have one
        difference = at_level(difference, level, bounds)
        verdict = Verdict.UNDECIDED
        if excludes_zero(difference):
            lower = difference.estimate < 0
            verdict = Verdict.A_BETTER if lower == result.lower_is_better else Verdict.B_BETTER
        strict = rules.alpha / m
        power = critical_value(difference.df, 2 * (1 - POWER))
        detectable = (critical_value(difference.df, strict) + power) * difference.se
        more = None if verdict is not Verdict.UNDECIDED else weeks_to_call(difference, strict)
        done[index] = replace(
            result,
            difference=difference,
            p_holm=p_holm,
            verdict=verdict,
            detectable=detectable,
            more_weeks=more,
            level=level,
        )
    return done


def at_level(shown: Figure, level: float, bounds: tuple[float, float]) -> Figure:
    """``shown`` with its interval at ``level`` (an alpha), clipped to ``bounds``."""
    half = critical_value(shown.df, level) * shown.se
    return replace(
        shown,
        low=max(bounds[0], shown.estimate - half),
        high=min(bounds[1], shown.estimate + half),
    )


def excludes_zero(shown: Figure) -> bool:
    return shown.low is not None and shown.high is not None and (shown.low > 0 or shown.high < 0)


def holm_levels(
    tested: Sequence[PairResult], alpha: float, bounds: tuple[float, float]
) -> list[float]:
    """The level of each tested pair's interval, in input order: Holm's step-down walks the
    p-values from the smallest, the j-th (from 0) at ``alpha / (m - j)``, calling a pair while
    its interval at that level excludes 0; the pair where it stops and every pair after it
    take that step's level, at which none of their intervals excludes 0 either."""
    m = len(tested)
    order = sorted(range(m), key=lambda i: (tested[i].p_value or 0.0, i))
    levels = [0.0] * m
    stopped: float | None = None
    for step, index in enumerate(order):
        level = alpha / (m - step)
        difference = tested[index].difference
        assert difference is not None
        if stopped is None and not excludes_zero(at_level(difference, level, bounds)):
            stopped = level
        levels[index] = stopped if stopped is not None else level
    return levels


def planned_difference(difference: Figure) -> float:
    """What a promise of weeks plans on: the lower one-sided ``PROMISE`` bound on |A - B|
    (0 or less: no difference established, so no week is promised). The observed |A - B| of
    an undecided pair is inflated by chance, and an equal pair has one too: planning on it
    promised verdicts that came late or never."""
    if difference.se == 0.0 or difference.df < 1:
        return 0.0
    return abs(difference.estimate) - critical_value(difference.df, 2 * PROMISE) * difference.se


def established(difference: Figure, strict: float) -> bool:
    """Whether |A - B| is established well enough to promise a verdict: its lower one-sided
    bound at ``strict`` (the verdicts' first Holm level, alpha over the pairs) is above 0. An
    equal pair passes with chance ``strict``, so the chance that any of the pairs is promised a
    verdict while truly equal is at most alpha, as for a false verdict. Planning on a lower
    bound at 1% alone promised equal pairs a verdict in 2 of 88 readings on the validity
    benchmark: over 28 pairs a 1% event happens to some pair most weeks."""
    if difference.se == 0.0 or difference.df < 1:
        return False
    return abs(difference.estimate) > critical_value(difference.df, 2 * strict) * difference.se


def weeks_to_call(difference: Figure, strict: float) -> int | None:
    """Weeks more until the planned difference (``planned_difference``) would be called at
    level ``strict``, if it held, the standard error shrank like one over the square root of
    the weeks and the degrees of freedom grew with them (Student's t: with few weeks the
    normal would promise too soon); None when no difference is ``established``."""
    observed = planned_difference(difference)
    if observed <= 0.0 or not established(difference, strict):
        return None
    weeks = max(difference.weeks, 1)

    def called(extra: int) -> bool:
        scale = math.sqrt(weeks / (weeks + extra))
        return critical_value(difference.df + extra, strict) * difference.se * scale < observed

    high = 1
    while not called(high):
        high *= 2
        if high > FAR_WEEKS:  # t is the normal by then: its closed form
            z = -NormalDist().inv_cdf(strict / 2.0)
            return max(1, math.ceil(weeks * (z * difference.se / observed) ** 2 - weeks))
    low = high // 2  # not called at low (or low is 0), called at high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if called(middle) else (middle, high)
    return high


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni step-down adjusted p-values, in input order (capped at 1)."""
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def compare_forecasts(
    rows: Mapping[str, Sequence[Forecast]], measure: Measure, rules: Rules
) -> list[PairResult]:
    """Every two forecasters in ``rows`` (in its order) on ``measure`` over shared questions."""
    values = {family: question_values(found, measure) for family, found in rows.items()}
    whole: dict[str, Clusters] = {}  # per family: the clusters of all its questions
    results = []
    for a, b in combinations(rows, 2):
        mine, theirs = values[a], values[b]
        units: Sequence[Unit] | Clusters
        if mine.keys() <= theirs.keys():  # b answered all a did (the panel: every family)
            shared = list(mine)
            if a not in whole:
                whole[a] = Clusters.of([mine[q][1] for q in shared], rules.clustering)
            units = whole[a]
        else:
            shared = [q for q in mine if q in theirs]  # in row order: no set order
            units = [mine[q][1] for q in shared]
        diffs = [mine[q][0] - theirs[q][0] for q in shared]
        estimate = clustered.mean(diffs, units, rules.clustering)
        missing = rules.shortfall(estimate.weeks, estimate.events) if estimate else None
        results.append(
            _tested(
                a,
                b,
                measure.name,
                measure.lower_is_better,
                estimate,
                missing,
                rules,
                difference_bounds(measure.bounds),
            )
        )
    return finish(results, rules, difference_bounds(measure.bounds))


def _return_estimate(
    signed: Sequence[tuple[float, Sequence[PositionPnl]]], cohorts: int, rules: Rules
) -> Estimate | None:
    """Mean return % over ``cohorts`` completed cohorts from their positions' P/L (each group of
    positions added with its sign), with the clustered error of that sum of positions."""
    if cohorts == 0:
        return None
    psi = [sign * p.pnl_pct / cohorts for sign, group in signed for p in group]
    units = [p.unit for _, group in signed for p in group]
    if not psi:  # no position at all (always hold): exactly zero, with no uncertainty
        return clustered.Estimate(0.0, 0.0, float(cohorts - 1), 0, cohorts, 0)
    found = clustered.estimate_of(math.fsum(psi), psi, units, rules.clustering)
    return replace(found, n=cohorts)


def matured(returns: Sequence[CohortReturn]) -> set[str]:
    return {r.cohort_id for r in returns if r.matured}


def return_figure(
    returns: Sequence[CohortReturn], positions: Sequence[PositionPnl], rules: Rules
) -> Figure | None:
    """Mean return % over completed cohorts, its interval once there are enough of them."""
    done = matured(returns)
    mine = [p for p in positions if p.cohort_id in done]
    estimate = _return_estimate([(1.0, mine)], len(done), rules)
    missing = rules.return_shortfall(len(done)) if estimate else None
    return figure(estimate, RETURN_BOUNDS, rules.alpha, missing)


def compare_returns(
    returns: Mapping[str, Sequence[CohortReturn]],
    positions: Mapping[str, Sequence[PositionPnl]],
    rules: Rules,
) -> list[PairResult]:
    """Every two families on return %, over the completed cohorts both ran."""
    done = {family: matured(found) for family, found in returns.items()}
    results = []
    for a, b in combinations(returns, 2):
        shared = done[a] & done[b]
        mine = [p for p in positions.get(a, ()) if p.cohort_id in shared]
        theirs = [p for p in positions.get(b, ()) if p.cohort_id in shared]
        estimate = _return_estimate([(1.0, mine), (-1.0, theirs)], len(shared), rules)
        missing = rules.return_shortfall(len(shared)) if estimate else None
        results.append(_tested(a, b, RETURN, False, estimate, missing, rules))
    return finish(results, rules)

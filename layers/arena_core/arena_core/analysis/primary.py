"""The primary comparisons: a small set of claims fixed in advance, with their error held.

Every pair of forecasters is compared in the secondary table (``pairs``, Holm over all of
them): with ten forecasters that is 45 tests, and the first Holm step needs |t| above 3.3 with
many weeks, far more with few. A benchmark's questions are fewer: is a model better than the
market's price, and which models could be the best? These are the primary comparisons, on the
ranked measure, each family of them holding its error at half of ``alpha`` (so both together
at ``alpha``):

- **Against the market.** Each ranked model minus the market, on the questions both answered:
  Student's t on the clustered difference, Holm over the models, intervals at their Holm step.
- **Could it be the best?** Hsu's multiple comparisons with the best (MCB, constrained): for
  each ranked model i, an interval for theta_i = i minus the best of the others (positive:
  better than all of them), from the one-sided bounds of its differences with each other
  model, ``min_j (d_ij +- q_ij s_ij)``, with q_ij the one-sided t quantile at
  ``alpha / 2 / (k - 1)`` on the pair's degrees of freedom (Bonferroni over the k - 1
  comparisons with the true best, which is all MCB's coverage rests on). A model whose upper
  bound is not above 0 is *not the best*; one whose lower bound is above 0 *is*; the others
  *could be*.

Which comparisons are primary, and the split of ``alpha``, were chosen on the validity
benchmark's realistic world (``bench/bench_power.py``), by false verdicts and power.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from arena_core.analysis.figures import Measure, Rules
from arena_core.analysis.pairs import PairResult, Verdict, difference_bounds, finish
from arena_core.analysis.tdist import critical_value

MARKET = "market"
MARKET_SHARE = 0.5  # of alpha, for the comparisons against the market; MCB has the rest


class BestVerdict(StrEnum):
    BEST = "best"  # better than every other ranked model
    NOT_BEST = "not_best"  # some other ranked model is at least as good
    CANDIDATE = "could_be_best"
    TOO_FEW = "too_few"  # a comparison it needs has no interval yet


@dataclass(frozen=True)
class BestComparison:
    """theta = this model minus the best of the other ranked models, oriented so that positive
    is better (a Brier difference is negated), with its MCB interval."""

    family_id: str
    low: float | None
    high: float | None
    verdict: BestVerdict


@dataclass(frozen=True)
class Primary:
    measure: str
    alpha: float
    families: tuple[str, ...]  # the ranked models compared
    versus_market: tuple[PairResult, ...]  # model minus market, Holm at alpha * MARKET_SHARE
    best: tuple[BestComparison, ...]

    @property
    def market_alpha(self) -> float:
        return self.alpha * MARKET_SHARE

    @property
    def best_alpha(self) -> float:
        return self.alpha - self.market_alpha


def _oriented(pair: PairResult, first: str) -> PairResult:
    """``pair`` as ``first`` minus the other (its difference negated when it is the other way)."""
    if pair.family_a == first:
        return pair
    difference = pair.difference
    if difference is not None:
        low = None if difference.high is None else -difference.high
        high = None if difference.low is None else -difference.low
        difference = replace(difference, estimate=-difference.estimate, low=low, high=high)
    verdict = {Verdict.A_BETTER: Verdict.B_BETTER, Verdict.B_BETTER: Verdict.A_BETTER}
    return replace(
        pair,
        family_a=pair.family_b,
        family_b=pair.family_a,
        difference=difference,
        verdict=verdict.get(pair.verdict, pair.verdict),
    )


def _untested(pair: PairResult) -> PairResult:
    """A pair as it was before the secondary table's Holm step (its p-value kept)."""
    verdict = Verdict.UNDECIDED if pair.p_value is not None else pair.verdict
    return replace(pair, p_holm=None, detectable=None, more_weeks=None, level=None, verdict=verdict)


def _versus_market(
    pairs: dict[frozenset[str], PairResult],
    families: Sequence[str],
    measure: Measure,
    rules: Rules,
) -> tuple[PairResult, ...]:
    found = [
        _untested(_oriented(pairs[key], family))
        for family in families
        if (key := frozenset((family, MARKET))) in pairs
    ]
    level = replace(rules, alpha=rules.alpha * MARKET_SHARE)
    return tuple(finish(found, level, difference_bounds(measure.bounds)))


def _best(
    pairs: dict[frozenset[str], PairResult], families: Sequence[str], measure: Measure, alpha: float
) -> tuple[BestComparison, ...]:
    sign = -1.0 if measure.lower_is_better else 1.0
    others = len(families) - 1
    found = []
    for family in families:
        uppers, lowers, complete = [], [], others > 0
        for other in families:
            if other == family:
                continue
            pair = pairs.get(frozenset((family, other)))
            difference = None if pair is None else _oriented(pair, family).difference
            if pair is None or pair.p_value is None or difference is None:
                complete = False
                break
            d = sign * difference.estimate
            q = critical_value(difference.df, 2.0 * alpha / others) * difference.se
            uppers.append(d + q)
            lowers.append(d - q)
        if not complete:
            found.append(BestComparison(family, None, None, BestVerdict.TOO_FEW))
            continue
        upper, lower = min(uppers), min(lowers)
        verdict = BestVerdict.CANDIDATE
        if upper <= 0.0:
            verdict = BestVerdict.NOT_BEST
        elif lower > 0.0:
            verdict = BestVerdict.BEST
        found.append(BestComparison(family, min(0.0, lower), max(0.0, upper), verdict))
    return tuple(found)


def primary_comparisons(
    pairs: Sequence[PairResult], families: Sequence[str], measure: Measure, rules: Rules
) -> Primary:
    """The primary comparisons of the ranked models ``families`` (in leaderboard order), from
    the pairs tested on the ranked measure."""
    by_key = {frozenset((p.family_a, p.family_b)): p for p in pairs if p.measure == measure.name}
    market_alpha = rules.alpha * MARKET_SHARE
    best = _best(by_key, families, measure, rules.alpha - market_alpha)
    return Primary(
        measure=measure.name,
        alpha=rules.alpha,
        families=tuple(families),
        versus_market=_versus_market(by_key, families, measure, rules),
        best=best,
    )

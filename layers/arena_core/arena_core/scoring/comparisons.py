"""Paired comparisons of two families: difference, cluster sign-flip test, Holm, power.

A pair of families is compared on the units both have (markets both forecast in a week, or
weeks for returns). Units of one week are not independent, so both the interval (cohort
bootstrap) and the test (signs flipped per cohort, not per unit) work at the cohort level.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from operator import add
from statistics import NormalDist

from arena_core.scoring._resample import cohort_indices
from arena_core.scoring.bootstrap import Interval, check_settings, mean_replicates

# Conventional planning figures: two-sided alpha 0.05, power 0.80.
Z_975 = NormalDist().inv_cdf(0.975)
Z_80 = NormalDist().inv_cdf(0.80)
EXACT_MAX_CLUSTERS = 12
_CHUNK = 8  # cohorts per random byte in the Monte-Carlo sign-flip test


@dataclass(frozen=True, slots=True)
class PairedResult:
    """A versus B on their shared units; every difference is A - B."""

    difference: Interval  # mean of A - B over the shared units, with a cohort-bootstrap interval
    p_value: float  # two-sided, sign-flip permutation at the cohort (cluster) level
    p_holm: float | None  # filled by holm_adjust over the family of pairs (None until then)
    units: int  # shared units
    clusters: int
    se: float  # bootstrap standard error of the difference
    detectable: float | None  # minimum detectable difference, 80% power, alpha 0.05
    more_needed: float | None  # additional units to separate the pair if the difference held


def paired_comparison(
    diffs: Mapping[str, Sequence[float]],
    *,
    seed: int,
    resamples: int = 2000,
    permutations: int = 4000,
) -> PairedResult | None:
    """Compare A and B from their per-cohort paired differences A - B.

    ``diffs`` maps a cohort to the differences on the units both share in it (one per week for
    returns, one per market both forecast in that week for scores). ``None`` when nothing is
    shared.

    The interval is the two-stage cohort bootstrap of the mean difference (95%). The p-value is
    a sign-flip test on cohort totals: under H0 each cohort's summed difference is symmetric
    about 0, so its sign is flipped at random. All 2^K sign patterns are enumerated when
    K <= 12; otherwise ``permutations`` seeded random patterns are drawn and p = (1 + hits) /
    (1 + permutations), which keeps it a valid p-value.

    ``detectable`` is (z_0.975 + z_0.8) * se. ``more_needed`` assumes se shrinks like
    1 / sqrt(units): it is 0 when the interval already excludes 0, else the extra units that
    would bring z_0.975 * se down to the observed |difference| (the point where an interval
    around that difference would just touch 0); ``None`` when the difference is exactly 0.
    """
    check_settings(resamples, 0.95)
    _check_permutations(permutations)
    replicates = mean_replicates(diffs, seed=seed, resamples=resamples)
    if replicates is None:
        return None
    difference = replicates.interval(0.95)
    se = replicates.se
    p_value = sign_flip_p_value(
        replicates.cohort_sums, rng=random.Random(f"{seed}:sign-flip"), permutations=permutations
    )
    return PairedResult(
        difference=difference,
        p_value=p_value,
        p_holm=None,
        units=difference.n,
        clusters=difference.clusters,
        se=se,
        detectable=(Z_975 + Z_80) * se,
        more_needed=_more_needed(difference, se),
    )


def _more_needed(difference: Interval, se: float) -> float | None:
    observed = abs(difference.estimate)
    if observed == 0.0:
        return None
    if difference.low > 0.0 or difference.high < 0.0 or se == 0.0:
        return 0.0
    # se(n) = se * sqrt(units / n): solve z * se(n) = |d| for n.
    needed = difference.n * (Z_975 * se / observed) ** 2
    # Not yet separated, so at least one more unit, even where the normal rule says otherwise.
    return float(max(1, math.ceil(needed - difference.n)))


def sign_flip_p_value(
    totals: Sequence[float], *, rng: random.Random, permutations: int = 4000
) -> float:
    """Two-sided p-value of sum(totals) under random signs of each cluster total.

    Exact (all 2^K patterns) for K <= 12, else Monte Carlo with the +1 correction. A pattern
    counts as extreme when |sum| >= |observed| up to a relative 1e-9, so float noise between
    equal sums cannot decide the count.
    """
    _check_permutations(permutations)
    observed = abs(math.fsum(totals))
    threshold = observed - 1e-9 * math.fsum(map(abs, totals))
    if len(totals) <= EXACT_MAX_CLUSTERS:
        signed = _signed_sums(totals)
        return sum(map(threshold.__le__, map(abs, signed))) / len(signed)
    # Eight cohorts per random byte: a 256-entry table holds every signed sum of the eight, so
    # a permutation costs one look-up per eight cohorts.
    flipped = [0.0] * permutations
    for start in range(0, len(totals), _CHUNK):
        chunk = list(totals[start : start + _CHUNK])
        table = _signed_sums(chunk + [0.0] * (_CHUNK - len(chunk)))
        signs = cohort_indices(rng, len(table), permutations)
        flipped = list(map(add, flipped, map(table.__getitem__, signs)))
    hits = sum(map(threshold.__le__, map(abs, flipped)))
    return (1 + hits) / (1 + permutations)


def _check_permutations(permutations: int) -> None:
    if isinstance(permutations, bool) or not isinstance(permutations, int) or permutations < 1:
        raise ValueError(f"permutations must be a positive integer, got {permutations!r}")


def _signed_sums(values: Sequence[float]) -> list[float]:
    """sum(s_i * v_i) for every sign pattern s in {-1, +1}^len(values)."""
    sums = [0.0]
    for value in values:
        sums = [s + value for s in sums] + [s - value for s in sums]
    return sums


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni step-down adjusted p-values, in input order.

    The i-th smallest p (0-based) is multiplied by (m - i); a running maximum keeps the adjusted
    values in the order of the raw ones, and they are capped at 1.
    """
    for p in p_values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-value {p!r} is outside [0, 1]")
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def with_holm(results: Sequence[PairedResult]) -> list[PairedResult]:
    """The results with ``p_holm`` filled by Holm over this family of comparisons."""
    adjusted = holm_adjust([r.p_value for r in results])
    return [replace(r, p_holm=p) for r, p in zip(results, adjusted, strict=True)]

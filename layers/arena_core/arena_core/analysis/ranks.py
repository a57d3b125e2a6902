"""Ranks that say what the data supports: ranges from the pairwise verdicts, and how often each
family comes first.

A ranked family's range runs from 1 + the number of families a verdict calls better than it to
N - the number it calls worse. The order itself follows the verdicts first and the families'
own figures second (``order_by_verdicts``): each family's figure is over all it forecast, a
verdict over what two families share, and on different questions the two can disagree; a
rank outside its own range would be a contradiction on one row.

Verdicts hold the familywise error rate (Holm), so with probability at least 1 - alpha no
verdict is false and every range contains the true rank: the validity benchmark measures it.
Ranges from overlapping marginal intervals, used before, were always right and said nothing
(all seven ranks for half a year).

The share of draws in which a family ranks first comes from the normal approximation of the
families' joint sampling distribution (their clustered covariance: families are scored on the
same questions), seeded from the data.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from arena_core.analysis.pairs import PairResult

DRAWS = 4000


def _decided(order: Sequence[str], pairs: Sequence[PairResult]) -> list[tuple[str, str]]:
    """(winner, loser) of every decided pair between two families of ``order``."""
    members = set(order)
    found = []
    for pair in pairs:
        winner = pair.better()
        if winner is None or pair.family_a not in members or pair.family_b not in members:
            continue
        found.append((winner, pair.family_b if winner == pair.family_a else pair.family_a))
    return found


def order_by_verdicts(preferred: Sequence[str], pairs: Sequence[PairResult]) -> list[str]:
    """``preferred`` reordered so that every family a verdict calls better comes first: at
    each place the first family of ``preferred`` that no remaining family is called better
    than. Verdicts that contradict each other (a cycle, which needs a false one) leave the
    remaining families in ``preferred`` order."""
    beaten_by: dict[str, set[str]] = {family: set() for family in preferred}
    for winner, loser in _decided(preferred, pairs):
        beaten_by[loser].add(winner)
    remaining = list(preferred)
    placed: list[str] = []
    while remaining:
        free = [f for f in remaining if not beaten_by[f] & set(remaining)]
        chosen = free[0] if free else remaining[0]
        placed.append(chosen)
        remaining.remove(chosen)
    return placed


def rank_ranges(order: Sequence[str], pairs: Sequence[PairResult]) -> dict[str, tuple[int, int]]:
    """Best and worst rank of each family of ``order`` that the decided pairs among them allow
    (widened to its place in ``order`` should contradictory verdicts put it outside)."""
    above = dict.fromkeys(order, 0)  # families called better than it
    below = dict.fromkeys(order, 0)  # families called worse than it
    for winner, loser in _decided(order, pairs):
        above[loser] += 1
        below[winner] += 1
    total = len(order)
    return {
        family: (min(1 + above[family], place), max(total - below[family], place))
        for place, family in enumerate(order, 1)
    }


def _cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """Lower-triangular L with L L^T = matrix, for a positive semi-definite matrix (a pivot
    that rounding leaves at or below zero gives a zero column)."""
    size = len(matrix)
    lower = [[0.0] * size for _ in range(size)]
    for j in range(size):
        pivot = matrix[j][j] - math.fsum(lower[j][k] ** 2 for k in range(j))
        if pivot <= 1e-18 * max(1.0, abs(matrix[j][j])):
            continue
        lower[j][j] = math.sqrt(pivot)
        for i in range(j + 1, size):
            dot = math.fsum(lower[i][k] * lower[j][k] for k in range(j))
            lower[i][j] = (matrix[i][j] - dot) / lower[j][j]
    return lower


def first_shares(
    estimates: Mapping[str, float],
    covariance: Sequence[Sequence[float]],
    *,
    lower_is_better: bool,
    seed: int,
    draws: int = DRAWS,
    df: float = math.inf,
) -> dict[str, float]:
    """Share of ``draws`` in which each family is best, drawn from the distribution its
    intervals use: a multivariate t with ``df`` degrees of freedom (the normal when infinite),
    centred on ``estimates`` with scale ``covariance``. With two weeks a family's interval is
    t with 1 degree of freedom (12.7 standard errors wide, not 1.96): drawn from a normal, the
    share said "first in 86% of draws" beside an interval spanning every rank. No degrees of
    freedom (one cluster: no interval either): no share."""
    names = list(estimates)
    if not names or df <= 0:
        return {}
    centre = [estimates[n] for n in names]
    lower = _cholesky(covariance)
    rng = random.Random(seed)
    sign = -1.0 if lower_is_better else 1.0
    wins = [0] * len(names)
    for _ in range(draws):
        z = [rng.gauss(0.0, 1.0) for _ in names]
        if math.isfinite(df):  # one chi-square scale for every family: a multivariate t
            scale = math.sqrt(df / max(rng.gammavariate(df / 2.0, 2.0), 1e-300))
            z = [scale * value for value in z]
        drawn = [
            sign * (c + math.fsum(row[k] * z[k] for k in range(i + 1)))
            for i, (c, row) in enumerate(zip(centre, lower, strict=True))
        ]
        wins[max(range(len(names)), key=drawn.__getitem__)] += 1
    return {name: count / draws for name, count in zip(names, wins, strict=True)}

"""Ranks that say what the data supports: ranges from the pairwise verdicts, and how often each
family comes first.

A ranked family's range runs from 1 + the number of families a verdict calls better than it to
N - the number it calls worse. Verdicts hold the familywise error rate (Holm), so with
probability at least 1 - alpha no verdict is false and every range contains the true rank: the
validity benchmark measures it. Ranges from overlapping marginal intervals, used before, were
always right and said nothing (all seven ranks for half a year).

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


def rank_ranges(order: Sequence[str], pairs: Sequence[PairResult]) -> dict[str, tuple[int, int]]:
    """Best and worst rank of each family of ``order`` that the decided pairs among them allow."""
    members = set(order)
    above = dict.fromkeys(order, 0)  # families called better than it
    below = dict.fromkeys(order, 0)  # families called worse than it
    for pair in pairs:
        winner = pair.better()
        if winner is None or pair.family_a not in members or pair.family_b not in members:
            continue
        loser = pair.family_b if winner == pair.family_a else pair.family_a
        above[loser] += 1
        below[winner] += 1
    total = len(order)
    return {family: (1 + above[family], total - below[family]) for family in order}


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
) -> dict[str, float]:
    """Share of ``draws`` from N(estimates, covariance) in which each family is best."""
    names = list(estimates)
    if not names:
        return {}
    centre = [estimates[n] for n in names]
    lower = _cholesky(covariance)
    rng = random.Random(seed)
    sign = -1.0 if lower_is_better else 1.0
    wins = [0] * len(names)
    for _ in range(draws):
        z = [rng.gauss(0.0, 1.0) for _ in names]
        drawn = [
            sign * (c + math.fsum(row[k] * z[k] for k in range(i + 1)))
            for i, (c, row) in enumerate(zip(centre, lower, strict=True))
        ]
        wins[max(range(len(names)), key=drawn.__getitem__)] += 1
    return {name: count / draws for name, count in zip(names, wins, strict=True)}

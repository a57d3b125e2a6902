"""Two-stage cohort bootstrap intervals computed from per-cohort sufficient statistics.

Forecasts of one week (cohort) share news and markets, so they are not independent: the
bootstrap first resamples cohorts, then forecasts within each drawn cohort.

Stage 1 is exact: K cohorts are drawn with replacement from the K observed ones.

Stage 2 is approximated rather than simulated. Resampling the n_c values of cohort c with
replacement gives a sum with mean S_c (the observed sum) and variance n_c * s_c^2, where s_c^2
is the population variance of the cohort's values. Summed over the drawn cohorts, the within
noise is taken as normal with variance sum(n_c * s_c^2) (central limit theorem), so one gaussian
per resample replaces sum(n_c) draws. The approximation is good once cohorts hold a handful of
values; a cohort of one value has no within variance, so with one value per cohort (e.g. a weekly
return) the bootstrap is the exact cluster bootstrap.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import add, mul, sub, truediv

from arena_core.scoring._resample import (
    gaussians,
    percentile,
    resampled_sums,
    standard_deviation,
)


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    n: int  # forecasts (or units) behind it
    clusters: int  # cohorts behind it


@dataclass(frozen=True, slots=True)
class Replicates:
    """The estimate, the sorted bootstrap replicates and the sample behind them."""

    estimate: float
    ordered: list[float]
    n: int
    clusters: int
    cohort_sums: list[float]  # per non-empty cohort, in sorted cohort order

    def interval(self, level: float) -> Interval:
        tail = (1.0 - level) / 2.0
        return Interval(
            estimate=self.estimate,
            low=percentile(self.ordered, tail),
            high=percentile(self.ordered, 1.0 - tail),
            n=self.n,
            clusters=self.clusters,
        )

    @property
    def se(self) -> float:
        return standard_deviation(self.ordered)


def check_settings(resamples: int, level: float) -> None:
    """Refuse resample counts below 2 (no spread) and levels outside (0, 1)."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 2:
        raise ValueError(f"resamples must be an integer >= 2, got {resamples!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"cannot bootstrap a non-finite value ({value!r})")
    return value


def mean_replicates(
    groups: Mapping[str, Sequence[float]], *, seed: int, resamples: int
) -> Replicates | None:
    """Bootstrap replicates of the pooled mean (sum of all values / number of values)."""
    counts: list[int] = []
    sums: list[float] = []
    spreads: list[float] = []  # n_c * s_c^2, i.e. the sum of squared deviations
    for key in sorted(groups):  # sorted: the mapping's order must not change the result
        values = groups[key]
        if not values:
            continue
        total = _finite(math.fsum(values))
        mean = total / len(values)
        counts.append(len(values))
        sums.append(total)
        spreads.append(math.fsum((v - mean) ** 2 for v in values))
    if not counts:
        return None
    rng = random.Random(seed)
    drawn_n, drawn_sum, drawn_spread = resampled_sums(
        [[float(c) for c in counts], sums, spreads], resamples=resamples, rng=rng
    )
    if max(spreads) == 0.0:  # no within-cohort noise: the cluster bootstrap is exact
        stats = list(map(truediv, drawn_sum, drawn_n))
    else:
        # (S + z * sqrt(V)) / n per resample; V >= 0 by construction (see resampled_sums).
        noise = map(mul, gaussians(rng, resamples), map(math.sqrt, drawn_spread))
        stats = list(map(truediv, map(add, drawn_sum, noise), drawn_n))
    total_n = sum(counts)
    return Replicates(math.fsum(sums) / total_n, sorted(stats), total_n, len(counts), sums)


def cohort_bootstrap_mean(
    groups: Mapping[str, Sequence[float]],
    *,
    seed: int,
    resamples: int = 2000,
    level: float = 0.95,
) -> Interval | None:
    """Mean of all values with a two-stage cohort bootstrap percentile interval.

    ``groups`` maps a cohort to its values. The estimate is the pooled mean (every value counts
    once). Stage 1 resamples cohorts exactly; stage 2 (values within a cohort) uses the normal
    approximation described in the module docstring. Same inputs and seed give the same
    interval, whatever the order of the mapping or of the values in a cohort. ``None`` when
    there is no value.
    """
    check_settings(resamples, level)
    replicates = mean_replicates(groups, seed=seed, resamples=resamples)
    return None if replicates is None else replicates.interval(level)


def cohort_bootstrap_skill(
    groups: Mapping[str, Sequence[tuple[float, float]]],
    *,
    seed: int,
    resamples: int = 2000,
    level: float = 0.95,
) -> Interval | None:
    """Skill 1 - mean(x) / mean(y) over (x, y) pairs, with a two-stage cohort bootstrap interval.

    With x a family's Brier score and y the market's Brier score on the same forecast this is
    the Brier skill score against the market (1 is perfect, 0 is no better than the market).
    Stage 2 draws the within-cohort noise of the x and y sums as two correlated gaussians with
    covariance sum(n_c * cov_c), from per-cohort sums of x, y and of their squared and cross
    deviations. ``None`` when there is no pair or mean(y) is not positive (skill undefined);
    the rare resamples whose y sum is not positive are left out of the interval.
    """
    check_settings(resamples, level)
    columns: list[list[float]] = [[], [], [], [], []]  # sum x, sum y, Sxx, Syy, Sxy
    n = 0
    for key in sorted(groups):
        pairs = groups[key]
        if not pairs:
            continue
        n += len(pairs)
        sx = _finite(math.fsum(x for x, _ in pairs))
        sy = _finite(math.fsum(y for _, y in pairs))
        mx, my = sx / len(pairs), sy / len(pairs)
        for column, value in zip(
            columns,
            (
                sx,
                sy,
                math.fsum((x - mx) ** 2 for x, _ in pairs),
                math.fsum((y - my) ** 2 for _, y in pairs),
                math.fsum((x - mx) * (y - my) for x, y in pairs),
            ),
            strict=True,
        ):
            column.append(value)
    if n == 0 or math.fsum(columns[1]) <= 0.0:
        return None
    rng = random.Random(seed)
    sum_x, sum_y, sxx, syy, sxy = resampled_sums(columns, resamples=resamples, rng=rng)
    z1, z2 = gaussians(rng, resamples), gaussians(rng, resamples)
    # The Cholesky factor of [[vxx, vxy], [vxy, vyy]] turns two independent gaussians into the
    # correlated noise of the two sums: x gets sd_x * z1, y gets along * z1 + rest * z2 with
    # along = vxy / sd_x and rest = sqrt(vyy - along^2). Written as maps so it runs in C.
    sd_x = list(map(math.sqrt, sxx))
    safe = [s or math.inf for s in sd_x]  # sd_x = 0 means x has no noise: along is 0
    along = list(map(truediv, sxy, safe))
    rest = map(math.sqrt, map(max, map(sub, syy, map(mul, along, along)), repeat(0.0)))
    numerators = map(add, sum_x, map(mul, sd_x, z1))
    noise_y = map(add, map(mul, along, z1), map(mul, rest, z2))
    denominators = map(add, sum_y, noise_y)
    stats = [1.0 - x / y for x, y in zip(numerators, denominators, strict=True) if y > 0.0]
    if not stats:
        return None
    estimate = 1.0 - math.fsum(columns[0]) / math.fsum(columns[1])
    return Replicates(estimate, sorted(stats), n, len(columns[0]), columns[0]).interval(level)

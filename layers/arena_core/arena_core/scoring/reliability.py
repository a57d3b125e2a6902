"""Calibration with uncertainty: a reliability table whose observed frequencies carry Wilson
intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena_core.scoring._checks import outcome, probability
from arena_core.scoring.calibration import bin_index


def wilson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (0, 1) when n is 0.

    Unlike the Wald interval it stays inside [0, 1] and does not collapse to a point at 0 of n
    or n of n, which matters for the sparse extreme bins of a reliability diagram.
    """
    for name, value in (("successes", successes), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if successes > n:
        raise ValueError(f"successes ({successes}) cannot exceed n ({n})")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf((1.0 + level) / 2.0)
    share = successes / n
    shrink = 1.0 + z * z / n
    centre = (share + z * z / (2 * n)) / shrink
    half = z * math.sqrt(share * (1.0 - share) / n + z * z / (4 * n * n)) / shrink
    # At 0 of n (n of n) the bound is 0 (1) exactly; rounding must not leave it a hair off.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """One non-empty bin of a reliability diagram."""

    index: int
    low: float  # left edge (exclusive, except for bin 0)
    high: float  # right edge (inclusive)
    count: int
    mean_forecast: float
    observed: float  # share of YES outcomes
    wilson_low: float  # 95% Wilson interval of ``observed``
    wilson_high: float


def reliability_table(
    forecasts: Sequence[tuple[float, int]], n_bins: int = 10
) -> list[ReliabilityBin]:
    """Per non-empty bin, in bin order: edges, count, mean forecast, observed frequency and its
    Wilson 95% interval. Bins are those of ``calibration.bin_index`` (right-closed)."""
    members: dict[int, list[tuple[float, int]]] = {}
    for p, o in forecasts:
        members.setdefault(bin_index(p, n_bins), []).append((probability(p), outcome(o)))
    table = []
    for index in sorted(members):
        group = members[index]
        yes = sum(o for _, o in group)
        low, high = wilson_interval(yes, len(group))
        table.append(
            ReliabilityBin(
                index=index,
                low=index / n_bins,
                high=(index + 1) / n_bins,
                count=len(group),
                mean_forecast=math.fsum(p for p, _ in group) / len(group),
                observed=yes / len(group),
                wilson_low=low,
                wilson_high=high,
            )
        )
    return table

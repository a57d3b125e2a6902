"""Equal-width binning, calibration curves and the Murphy decomposition of the Brier score.

Bins are right-closed like scikit-learn's ``calibration_curve``: bin 0 is [0, 1/K] and bin k is
(k/K, (k+1)/K]. Edges are compared in decimal, not binary floating point, so 0.3 with K = 10
lands in bin 2 as written, however ``0.3 * 10`` rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_CEILING, Decimal

from arena_core.scoring._checks import Number, paired, probability

_NEAR_EDGE = 1e-9  # closer than this to an edge, the edge is compared in decimal


def bin_index(p: Number, n_bins: int) -> int:
    """The right-closed equal-width bin of ``p`` among ``n_bins`` (0-based)."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    scaled = probability(p) * n_bins
    if abs(scaled - round(scaled)) > _NEAR_EDGE:  # clear of every edge: binary is exact enough
        upper_edge = math.ceil(scaled)
    else:
        exact = p if isinstance(p, Decimal) else Decimal(repr(p) if isinstance(p, float) else p)
        upper_edge = int((exact * n_bins).to_integral_value(rounding=ROUND_CEILING))
    return min(max(upper_edge - 1, 0), n_bins - 1)


def _bins(
    forecasts: Sequence[Number], outcomes: Sequence[object], n_bins: int
) -> tuple[list[tuple[int, int, float, float]], float, list[tuple[float, int]]]:
    """Per non-empty bin, in order: (index, count, mean forecast, observed frequency)."""
    pairs = paired(forecasts, outcomes)
    members: dict[int, list[tuple[float, int]]] = {}
    for (f, o), raw in zip(pairs, forecasts, strict=True):
        members.setdefault(bin_index(raw, n_bins), []).append((f, o))
    rows = []
    for index in sorted(members):
        group = members[index]
        count = len(group)
        rows.append(
            (
                index,
                count,
                math.fsum(f for f, _ in group) / count,
                math.fsum(o for _, o in group) / count,
            )
        )
    base_rate = math.fsum(o for _, o in pairs) / len(pairs)
    return rows, base_rate, pairs


def calibration_curve(
    forecasts: Sequence[Number], outcomes: Sequence[object], n_bins: int = 10
) -> dict[str, list[float] | list[int]]:
    """Reliability-diagram points for the non-empty bins, in bin order.

    ``prob_true`` is the observed frequency, ``prob_pred`` the mean forecast, ``bin_counts`` the
    number of forecasts and ``bin_ids`` the bin index of each point.
    """
    rows, _, _ = _bins(forecasts, outcomes, n_bins)
    return {
        "prob_true": [freq for _, _, _, freq in rows],
        "prob_pred": [mean for _, _, mean, _ in rows],
        "bin_counts": [count for _, count, _, _ in rows],
        "bin_ids": [index for index, _, _, _ in rows],
    }


def murphy_decomposition(
    forecasts: Sequence[Number], outcomes: Sequence[object], n_bins: int = 10
) -> dict[str, float]:
    """Reliability − resolution + uncertainty, using the in-bin mean forecast.

    With the in-bin mean the identity with the Brier score is approximate (it omits the
    within-bin variance of the forecasts); ``brier`` gives the exact score for comparison.
    """
    rows, base_rate, pairs = _bins(forecasts, outcomes, n_bins)
    n = len(pairs)
    reliability = math.fsum(count * (mean - freq) ** 2 for _, count, mean, freq in rows) / n
    resolution = math.fsum(count * (freq - base_rate) ** 2 for _, count, _, freq in rows) / n
    uncertainty = base_rate * (1.0 - base_rate)
    return {
        "reliability": reliability,
        "resolution": resolution,
        "uncertainty": uncertainty,
        "brier": math.fsum((f - o) ** 2 for f, o in pairs) / n,
    }

"""Wilson intervals and the reliability table with intervals."""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats  # type: ignore[import-untyped]  # scipy ships no type hints

from arena_core.scoring import bin_index, calibration_curve
from arena_core.scoring.reliability import ReliabilityBin, reliability_table, wilson_interval


def _wilson_reference(successes: int, n: int, level: float) -> tuple[float, float]:
    """The closed form, written out independently with scipy's normal quantile."""
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    p = successes / n
    denominator = 1 + z**2 / n
    centre = p + z**2 / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return (centre - margin) / denominator, (centre + margin) / denominator


@pytest.mark.parametrize(
    ("successes", "n", "level"),
    [(0, 10, 0.95), (5, 10, 0.95), (10, 10, 0.95), (3, 7, 0.9), (1, 200, 0.99), (37, 50, 0.8)],
)
def test_wilson_matches_the_closed_form(successes: int, n: int, level: float) -> None:
    low, high = wilson_interval(successes, n, level)
    ref_low, ref_high = _wilson_reference(successes, n, level)
    assert low == pytest.approx(max(ref_low, 0.0), abs=1e-12)
    assert high == pytest.approx(min(ref_high, 1.0), abs=1e-12)


@pytest.mark.parametrize(
    ("successes", "n", "published"),
    [
        # The usual textbook values at 95%.
        (0, 10, (0.0, 0.2775)),
        (5, 10, (0.2366, 0.7634)),
        (10, 10, (0.7225, 1.0)),
        # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (score).
        (81, 263, (0.2553, 0.3662)),
        (15, 148, (0.0624, 0.1605)),
        (0, 20, (0.0, 0.1611)),
        (1, 29, (0.0061, 0.1718)),
    ],
)
def test_wilson_matches_published_values(
    successes: int, n: int, published: tuple[float, float]
) -> None:
    low, high = wilson_interval(successes, n)
    assert low == pytest.approx(published[0], abs=5e-5)
    assert high == pytest.approx(published[1], abs=5e-5)


def test_wilson_edges_are_exact_and_empty_is_uninformative() -> None:
    assert wilson_interval(0, 7)[0] == 0.0
    assert wilson_interval(7, 7)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("successes", "n"), [(-1, 5), (6, 5), (1, -1), (True, 5)])
def test_wilson_refuses_impossible_counts(successes: int, n: int) -> None:
    with pytest.raises(ValueError, match=r"successes|\bn\b"):
        wilson_interval(successes, n)


def test_reliability_table_bins_like_the_calibration_module() -> None:
    rng = random.Random(8)
    forecasts = [(round(rng.random(), 2), int(rng.random() < 0.5)) for _ in range(400)]
    forecasts += [(0.0, 0), (1.0, 1), (0.3, 1), (0.1, 0)]  # edges of right-closed bins
    table = reliability_table(forecasts)
    curve = calibration_curve([p for p, _ in forecasts], [o for _, o in forecasts])
    assert [b.index for b in table] == curve["bin_ids"]
    assert [b.count for b in table] == curve["bin_counts"]
    assert [b.mean_forecast for b in table] == pytest.approx(curve["prob_pred"])
    assert [b.observed for b in table] == pytest.approx(curve["prob_true"])
    for row in table:
        members = [(p, o) for p, o in forecasts if bin_index(p, 10) == row.index]
        yes = sum(o for _, o in members)
        assert row.count == len(members)
        assert (row.wilson_low, row.wilson_high) == wilson_interval(yes, len(members))
        assert row.wilson_low <= row.observed <= row.wilson_high
        assert (row.low, row.high) == pytest.approx((row.index / 10, (row.index + 1) / 10))


def test_reliability_table_uses_right_closed_bins() -> None:
    table = reliability_table([(0.3, 1), (0.30001, 0), (0.0, 0), (1.0, 1)], n_bins=10)
    assert [(b.index, b.count) for b in table] == [(0, 1), (2, 1), (3, 1), (9, 1)]
    assert table[1] == ReliabilityBin(
        index=2,
        low=0.2,
        high=0.3,
        count=1,
        mean_forecast=0.3,
        observed=1.0,
        wilson_low=wilson_interval(1, 1)[0],
        wilson_high=1.0,
    )


def test_reliability_table_checks_its_input() -> None:
    assert reliability_table([]) == []
    with pytest.raises(ValueError, match="outside"):
        reliability_table([(1.2, 1)])
    with pytest.raises(ValueError, match="outcome"):
        reliability_table([(0.2, 2)])

"""The resampling engine: uniform cohort draws, exact lane-packed sums, gaussians, quantiles."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats  # type: ignore[import-untyped]  # scipy ships no type hints

from arena_core.scoring._resample import (
    cohort_indices,
    gaussians,
    percentile,
    resampled_sums,
    standard_deviation,
)


@pytest.mark.parametrize("k", [1, 2, 7, 52, 200, 256])
def test_cohort_indices_are_uniform_and_in_range(k: int) -> None:
    draws = cohort_indices(random.Random(k), k, 400 * k)
    assert len(draws) == 400 * k
    counts = np.bincount(np.frombuffer(draws, dtype=np.uint8), minlength=k)
    assert counts.size == k
    if k > 1:
        assert stats.chisquare(counts).pvalue > 1e-4


def test_cohort_indices_are_deterministic() -> None:
    assert cohort_indices(random.Random(5), 52, 1000) == cohort_indices(random.Random(5), 52, 1000)
    assert cohort_indices(random.Random(5), 52, 1000) != cohort_indices(random.Random(6), 52, 1000)


def _replayed_draws(seed: int, k: int, resamples: int) -> np.ndarray:
    """The cohort indices resampled_sums draws, replayed from the same seed: resamples x k."""
    rng = random.Random(seed)
    if k == 1:
        return np.zeros((resamples, 1), dtype=int)
    if k > 256:
        return np.array(rng.choices(range(k), k=k * resamples)).reshape(resamples, k)
    half = k // 2
    pairs = np.frombuffer(cohort_indices(rng, k, 2 * half * resamples), dtype=np.uint8)
    drawn = pairs.reshape(resamples, 2 * half).astype(int)
    if k % 2:
        singles = np.frombuffer(cohort_indices(rng, k, resamples), dtype=np.uint8)
        drawn = np.column_stack([drawn, singles])
    return drawn


@pytest.mark.parametrize("k", [1, 2, 3, 52, 53, 256, 300])
def test_resampled_sums_equal_direct_sums_over_the_same_draws(k: int) -> None:
    rng = random.Random(k)
    columns = [
        [float(rng.randint(1, 60)) for _ in range(k)],  # counts
        [rng.uniform(-500.0, 20.0) for _ in range(k)],  # e.g. summed log scores
        [rng.expovariate(1.0) * 1e-6 for _ in range(k)],  # tiny spreads
        [3.5] * k,  # constant: needs no lane
    ]
    resamples = 300
    sums = resampled_sums(columns, resamples=resamples, rng=random.Random(99))
    drawn = _replayed_draws(99, k, resamples)
    for column, got in zip(columns, sums, strict=True):
        values = np.asarray(column)
        expected = values[drawn].sum(axis=1)
        # Fixed point rounds each value once, to 2^-62 of k x its column's range.
        tolerance = 1e-12 * k * (max(column) - min(column)) + 1e-12 * np.abs(expected).max()
        assert len(got) == resamples
        assert np.abs(np.asarray(got) - expected).max() <= tolerance


def test_resampled_sums_of_counts_are_exact() -> None:
    counts = [float(n) for n in (1, 5, 30, 31, 2, 40, 7)]
    sums = resampled_sums([counts], resamples=500, rng=random.Random(1))[0]
    assert all(s == int(s) for s in sums)
    expected = np.asarray(counts)[_replayed_draws(1, len(counts), 500)].sum(axis=1)
    assert sums == expected.tolist()


def test_resampled_sums_refuse_overflowing_values() -> None:
    with pytest.raises(ValueError, match="too large"):
        resampled_sums([[-1e308, 1e308]], resamples=10, rng=random.Random(1))


def test_draw_totals_lanes_do_not_carry_into_each_other() -> None:
    # Largest values in every lane: the sum of K draws must still fit in its 64 bits.
    k = 52
    columns = [[0.0] * (k - 1) + [1.0] for _ in range(5)]
    sums = resampled_sums(columns, resamples=2000, rng=random.Random(3))
    for got in sums:
        assert got == sums[0]
    assert max(sums[0]) <= k


@pytest.mark.parametrize("count", [1, 2, 7, 2000])
def test_gaussians_come_in_the_number_asked(count: int) -> None:
    assert len(gaussians(random.Random(count), count)) == count


def test_gaussians_are_standard_normal() -> None:
    big = gaussians(random.Random(1), 20_000)
    assert stats.kstest(big, "norm").pvalue > 1e-3
    assert abs(float(np.mean(big))) < 0.03
    assert float(np.std(big)) == pytest.approx(1.0, abs=0.03)


def test_percentile_is_numpy_linear_interpolation() -> None:
    rng = random.Random(2)
    for size in (1, 2, 5, 2000):
        values = sorted(rng.gauss(0, 1) for _ in range(size))
        for q in (0.0, 0.025, 0.5, 0.975, 1.0):
            assert percentile(values, q) == pytest.approx(float(np.percentile(values, 100 * q)))


def test_standard_deviation_is_the_sample_one() -> None:
    values = [random.Random(3).gauss(1, 2) for _ in range(50)]
    assert standard_deviation(values) == pytest.approx(float(np.std(values, ddof=1)))
    assert standard_deviation([1.0]) == 0.0
    assert standard_deviation([]) == 0.0

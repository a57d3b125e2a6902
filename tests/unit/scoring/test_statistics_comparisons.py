"""Paired comparisons: the cluster sign-flip test, Holm, and how far a pair is from a verdict."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats  # type: ignore[import-untyped]  # scipy ships no type hints

from arena_core.scoring.comparisons import Z_80, Z_975
from arena_core.scoring.statistics import (
    PairedResult,
    holm_adjust,
    paired_comparison,
    sign_flip_p_value,
    with_holm,
)


def _exact_reference(totals: list[float]) -> float:
    """Share of all 2^K sign patterns with |sum| >= |observed|, by numpy enumeration."""
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(totals))))
    flipped = np.abs(signs @ np.asarray(totals))
    return float(np.mean(flipped >= abs(sum(totals)) - 1e-9))


def test_better_in_every_one_of_eight_weeks_gives_two_in_256() -> None:
    diffs = {f"w{c}": [0.01 * (c + 1), 0.02] for c in range(8)}
    result = paired_comparison(diffs, seed=1)
    assert result is not None
    assert result.p_value == 2 / 256
    worse = paired_comparison({k: [-v for v in d] for k, d in diffs.items()}, seed=1)
    assert worse is not None
    assert worse.p_value == 2 / 256


def test_flips_are_per_cohort_not_per_unit() -> None:
    # Some units favour B, but every week's total favours A: 2 of 256 patterns are as extreme.
    diffs = {f"w{c}": [0.5, -0.3, 0.1 * c] for c in range(8)}
    result = paired_comparison(diffs, seed=1)
    assert result is not None
    assert result.p_value == 2 / 256
    assert result.units == 24
    assert result.clusters == 8


def test_identical_families_give_p_exactly_one() -> None:
    for weeks in (5, 20):  # exact enumeration and Monte Carlo
        result = paired_comparison({f"w{c}": [0.0, 0.0, 0.0] for c in range(weeks)}, seed=1)
        assert result is not None
        assert result.p_value == 1.0
        assert result.difference.estimate == 0.0
        assert result.more_needed is None


def test_a_single_week_can_never_be_significant() -> None:
    assert sign_flip_p_value([0.7], rng=random.Random(1)) == 1.0


def test_differences_that_cancel_out_give_p_one() -> None:
    totals = [0.3, -0.3, 1.2, -1.2, 0.05, -0.05]
    assert sign_flip_p_value(totals, rng=random.Random(1)) == 1.0
    assert sign_flip_p_value(totals * 3, rng=random.Random(1)) == 1.0


def test_noise_around_zero_gives_a_large_p() -> None:
    rng = random.Random(7)
    diffs = {f"w{c}": [rng.gauss(0, 1) for _ in range(20)] for c in range(30)}
    result = paired_comparison(diffs, seed=2)
    assert result is not None
    assert result.p_value > 0.2
    assert result.difference.low < 0 < result.difference.high


@pytest.mark.parametrize("k", [2, 3, 6, 10, 12])
def test_exact_enumeration_matches_scipy_permutation_test(k: int) -> None:
    rng = random.Random(k)
    totals = [rng.gauss(0.3, 1.0) for _ in range(k)]
    scipy_p = stats.permutation_test(
        (np.asarray(totals),),
        lambda x, axis: np.sum(x, axis=axis),
        vectorized=True,
        permutation_type="samples",  # one sample: randomly flipped signs
        n_resamples=np.inf,
        alternative="two-sided",
    ).pvalue
    ours = sign_flip_p_value(totals, rng=random.Random(0))
    assert ours == pytest.approx(scipy_p, abs=1e-12)
    assert ours == pytest.approx(_exact_reference(totals), abs=1e-12)


@pytest.mark.parametrize("k", [13, 14])
def test_monte_carlo_flips_agree_with_exact_enumeration(k: int) -> None:
    rng = random.Random(k)
    totals = [rng.gauss(0.25, 1.0) for _ in range(k)]
    exact = _exact_reference(totals)
    permutations = 20_000
    estimate = sign_flip_p_value(totals, rng=random.Random(3), permutations=permutations)
    assert estimate == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / permutations))


def test_monte_carlo_p_is_never_zero() -> None:
    # 16 weeks all better: the exact p is 2 / 65536; with the +1 correction it is >= 1 / 4001.
    result = paired_comparison({f"w{c}": [1.0 + c] for c in range(16)}, seed=1)
    assert result is not None
    assert 1 / 4001 <= result.p_value <= 3 / 4001


def test_p_value_is_deterministic_for_a_seed() -> None:
    rng = random.Random(5)
    diffs = {f"w{c}": [rng.gauss(0.1, 1) for _ in range(5)] for c in range(20)}
    assert paired_comparison(diffs, seed=3) == paired_comparison(
        dict(reversed(diffs.items())), seed=3
    )


def test_nothing_shared_gives_none() -> None:
    assert paired_comparison({}, seed=1) is None
    assert paired_comparison({"w1": []}, seed=1) is None


def test_invalid_permutations_are_refused() -> None:
    with pytest.raises(ValueError, match="permutations"):
        paired_comparison({"w": [1.0]}, seed=1, permutations=0)


def test_holm_on_a_hand_computed_case() -> None:
    # Sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06.
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_handles_ties_and_edges() -> None:
    assert holm_adjust([0.5, 0.6]) == [1.0, 1.0]
    assert holm_adjust([0.01, 0.01, 0.04]) == pytest.approx([0.03, 0.03, 0.04])
    assert holm_adjust([0.2]) == [0.2]
    assert holm_adjust([]) == []
    with pytest.raises(ValueError, match="outside"):
        holm_adjust([0.1, 1.5])


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30))
def test_holm_is_monotone_capped_and_never_below_raw(p_values: list[float]) -> None:
    adjusted = holm_adjust(p_values)
    m = len(p_values)
    for raw, adj in zip(p_values, adjusted, strict=True):
        assert raw <= adj <= 1.0
        assert adj <= min(1.0, m * raw) + 1e-15
    for i, j in itertools.permutations(range(m), 2):
        if p_values[i] <= p_values[j]:
            assert adjusted[i] <= adjusted[j]


def test_with_holm_fills_the_adjusted_p_values() -> None:
    results = [
        paired_comparison({f"w{c}": [shift + 0.1 * c] for c in range(8)}, seed=1)
        for shift in (0.0, -0.35, 5.0)
    ]
    present = [r for r in results if r is not None]
    adjusted = with_holm(present)
    assert [r.p_holm for r in present] == [None, None, None]
    assert [r.p_holm for r in adjusted] == holm_adjust([r.p_value for r in present])
    assert [r.p_value for r in adjusted] == [r.p_value for r in present]


def _weekly(values: list[float], copies: int = 1) -> dict[str, list[float]]:
    return {f"w{c}-{i}": [v] for c in range(copies) for i, v in enumerate(values)}


def test_detectable_difference_is_2_8_standard_errors() -> None:
    rng = random.Random(11)
    values = [rng.gauss(0.2, 1.0) for _ in range(40)]
    result = paired_comparison(_weekly(values), seed=4)
    assert result is not None
    assert pytest.approx(1.959964 + 0.841621, abs=1e-6) == Z_975 + Z_80
    assert result.detectable == pytest.approx((Z_975 + Z_80) * result.se)
    # One value per week: the bootstrap se is the population sd over sqrt(K).
    assert result.se == pytest.approx(float(np.std(values)) / math.sqrt(40), rel=0.06)


def test_more_needed_is_zero_once_separated() -> None:
    result = paired_comparison(_weekly([1.0 + 0.1 * i for i in range(10)]), seed=1)
    assert result is not None
    assert result.difference.low > 0
    assert result.more_needed == 0.0


def test_more_needed_follows_the_square_root_law_and_is_enough() -> None:
    rng = random.Random(21)
    noise = [rng.gauss(0.0, 1.0) for _ in range(30)]
    values = [v - sum(noise) / 30 + 0.1 for v in noise]  # mean exactly 0.1, se about 0.18
    result = paired_comparison(_weekly(values), seed=2)
    assert result is not None
    assert result.difference.low < 0 < result.difference.high
    d, se, units = abs(result.difference.estimate), result.se, result.units
    expected = max(1, math.ceil(units * ((Z_975 * se / d) ** 2 - 1)))
    assert result.more_needed == expected
    # The same weeks seen often enough to reach that many units (and a margin) do separate.
    assert result.more_needed is not None
    copies = math.ceil(1.3 * (units + result.more_needed) / units)
    bigger = paired_comparison(_weekly(values, copies), seed=2)
    assert bigger is not None
    assert bigger.difference.low > 0 or bigger.difference.high < 0
    assert bigger.more_needed == 0.0
    fewer = paired_comparison(_weekly(values, max(1, copies // 3)), seed=2)
    assert fewer is not None
    assert fewer.more_needed != 0.0


def test_paired_result_fields() -> None:
    result = paired_comparison({"w1": [0.1, 0.3], "w2": [0.2]}, seed=1)
    assert isinstance(result, PairedResult)
    assert result.difference.estimate == pytest.approx(0.2)
    assert (result.units, result.clusters) == (3, 2)
    assert result.p_holm is None

"""Cohort bootstrap intervals against a brute-force two-stage bootstrap written with numpy.

The reference really resamples: K cohorts with replacement, then each drawn cohort's values with
replacement. The library replaces the second stage by a normal approximation, so the two must
agree within Monte-Carlo error plus that approximation.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena_core.scoring import brier_skill_score
from arena_core.scoring.bootstrap import mean_replicates
from arena_core.scoring.statistics import (
    Interval,
    cohort_bootstrap_mean,
    cohort_bootstrap_skill,
)

RESAMPLES = 16_000


def _brute_force(
    groups: dict[str, list[tuple[float, float]]], resamples: int, seed: int, skill: bool
) -> np.ndarray:
    """Replicates of mean(x) (or of 1 - mean(x) / mean(y)) by a literal two-stage bootstrap."""
    rng = np.random.default_rng(seed)
    cohorts = [np.asarray(groups[key], dtype=float).reshape(-1, 2) for key in sorted(groups)]
    k = len(cohorts)
    picks = rng.integers(0, k, size=(resamples, k))
    sum_x, sum_y, count = np.zeros(resamples), np.zeros(resamples), np.zeros(resamples)
    for c, values in enumerate(cohorts):
        times = (picks == c).sum(axis=1)  # how often each resample drew cohort c
        owner = np.repeat(np.arange(resamples), times)
        inner = rng.integers(0, len(values), size=(owner.size, len(values)))
        sum_x += np.bincount(owner, weights=values[inner, 0].sum(axis=1), minlength=resamples)
        sum_y += np.bincount(owner, weights=values[inner, 1].sum(axis=1), minlength=resamples)
        count += times * len(values)
    return 1.0 - sum_x / sum_y if skill else sum_x / count


def _dataset(name: str) -> dict[str, list[float]]:
    rng = random.Random(name)
    if name == "brier-like":  # 30 weeks of 20-40 Brier scores: bounded, skewed
        return {
            f"w{c:02d}": [
                (rng.random() - (rng.random() < 0.4)) ** 2 for _ in range(rng.randint(20, 40))
            ]
            for c in range(30)
        }
    if name == "uneven":  # sizes from 2 to 120, spreads from 0.1 to 3, shifted means
        sizes = [2, 3, 5, 8, 13, 21, 34, 55, 89, 120, 4, 60]
        return {
            f"w{c:02d}": [rng.gauss(rng.gauss(0, 1), 0.1 + 0.25 * c) for _ in range(n)]
            for c, n in enumerate(sizes)
        }
    if name == "few-large":  # 5 cohorts of 200: the cohort stage dominates
        return {f"w{c}": [rng.gauss(c * 0.3, 1.0) for _ in range(200)] for c in range(5)}
    assert name == "one-per-cohort"  # weekly returns: the exact cluster bootstrap
    return {f"w{c:02d}": [rng.gauss(0.5, 4.0)] for c in range(40)}


@pytest.mark.parametrize("name", ["brier-like", "uneven", "few-large", "one-per-cohort"])
def test_mean_interval_matches_brute_force_two_stage_bootstrap(name: str) -> None:
    groups = _dataset(name)
    interval = cohort_bootstrap_mean(groups, seed=11, resamples=RESAMPLES)
    reference = _brute_force(
        {k: [(v, 0.0) for v in values] for k, values in groups.items()}, RESAMPLES, 5, skill=False
    )
    assert interval is not None
    all_values = [v for values in groups.values() for v in values]
    assert interval.estimate == pytest.approx(float(np.mean(all_values)), rel=1e-12)
    assert interval.n == len(all_values)
    assert interval.clusters == len(groups)
    spread = float(reference.std())
    low, high = np.percentile(reference, [2.5, 97.5])
    # Monte-Carlo error of each end is about 0.02 spread at 16,000 resamples;
    # leaving out the within-cohort stage moves them by about 0.5 spread.
    assert interval.low == pytest.approx(low, abs=0.1 * spread)
    assert interval.high == pytest.approx(high, abs=0.1 * spread)
    replicates = mean_replicates(groups, seed=11, resamples=RESAMPLES)
    assert replicates is not None
    assert replicates.se == pytest.approx(spread, rel=0.05)


def test_interval_of_the_mean_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    # Two-stage model: a shared weekly shock plus forecast noise; the true mean is 0.3.
    rng = random.Random(2024)
    trials, covered = 300, 0
    for trial in range(trials):
        groups = {}
        for c in range(25):
            shock = rng.gauss(0.0, 0.05)
            groups[f"w{c}"] = [0.3 + shock + rng.gauss(0.0, 0.2) for _ in range(rng.randint(5, 30))]
        interval = cohort_bootstrap_mean(groups, seed=trial, resamples=1000)
        assert interval is not None
        covered += interval.low <= 0.3 <= interval.high
    # The two-stage bootstrap counts the within-week noise twice, so it errs on the wide side.
    assert 0.90 <= covered / trials <= 0.995


def test_same_seed_same_interval_whatever_the_order_of_cohorts_and_values() -> None:
    groups = _dataset("uneven")
    first = cohort_bootstrap_mean(groups, seed=3)
    keys = list(groups)
    random.Random(1).shuffle(keys)
    shuffled = {}
    for key in keys:
        values = list(groups[key])
        random.Random(key).shuffle(values)
        shuffled[key] = values
    assert cohort_bootstrap_mean(shuffled, seed=3) == first
    assert cohort_bootstrap_mean(groups, seed=3) == first
    other = cohort_bootstrap_mean(groups, seed=4)
    assert other is not None
    assert first is not None
    assert (other.low, other.high) != (first.low, first.high)


def test_no_data_gives_none() -> None:
    assert cohort_bootstrap_mean({}, seed=1) is None
    assert cohort_bootstrap_mean({"w1": [], "w2": []}, seed=1) is None
    assert cohort_bootstrap_skill({}, seed=1) is None
    assert cohort_bootstrap_skill({"w1": []}, seed=1) is None


def test_empty_cohorts_are_not_counted() -> None:
    interval = cohort_bootstrap_mean({"w1": [1.0, 2.0], "w2": [], "w3": [3.0]}, seed=1)
    assert interval is not None
    assert (interval.n, interval.clusters) == (3, 2)
    assert interval.estimate == pytest.approx(2.0)


def test_identical_values_give_a_point_interval() -> None:
    interval = cohort_bootstrap_mean({f"w{c}": [0.25] * (c + 1) for c in range(6)}, seed=1)
    assert interval == Interval(0.25, 0.25, 0.25, 21, 6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"resamples": 1}, "resamples"), ({"level": 1.0}, "level"), ({"level": 0.0}, "level")],
)
def test_invalid_settings_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cohort_bootstrap_mean({"w": [1.0]}, seed=1, **kwargs)  # type: ignore[arg-type]


def test_non_finite_values_are_refused() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        cohort_bootstrap_mean({"w": [1.0, math.nan]}, seed=1)
    with pytest.raises(ValueError, match="non-finite"):
        cohort_bootstrap_skill({"w": [(1.0, math.inf)]}, seed=1)


def test_level_widens_the_interval() -> None:
    groups = _dataset("brier-like")
    narrow = cohort_bootstrap_mean(groups, seed=1, level=0.5)
    wide = cohort_bootstrap_mean(groups, seed=1, level=0.99)
    assert narrow is not None
    assert wide is not None
    assert wide.low < narrow.low < narrow.estimate < narrow.high < wide.high


def _skill_dataset(seed: int, weeks: int) -> dict[str, list[tuple[float, float]]]:
    """(family Brier, market Brier) on the same forecasts: the family is a bit sharper."""
    rng = random.Random(seed)
    groups = {}
    for week in range(weeks):
        pairs = []
        for _ in range(rng.randint(3, 40)):
            truth = rng.betavariate(2, 2)
            outcome = int(rng.random() < truth)
            family = min(max(truth + rng.gauss(0, 0.1), 0.0), 1.0)
            market = min(max(truth + rng.gauss(0, 0.15), 0.0), 1.0)
            pairs.append(((family - outcome) ** 2, (market - outcome) ** 2))
        groups[f"w{week:02d}"] = pairs
    return groups


@pytest.mark.parametrize(("seed", "weeks"), [(1, 30), (2, 8)])
def test_skill_interval_matches_brute_force(seed: int, weeks: int) -> None:
    groups = _skill_dataset(seed, weeks)
    interval = cohort_bootstrap_skill(groups, seed=seed, resamples=RESAMPLES)
    reference = _brute_force(groups, RESAMPLES, seed, skill=True)
    assert interval is not None
    xs = [x for pairs in groups.values() for x, _ in pairs]
    ys = [y for pairs in groups.values() for _, y in pairs]
    assert interval.estimate == pytest.approx(1 - np.mean(xs) / np.mean(ys), rel=1e-12)
    spread = float(reference.std())
    low, high = np.percentile(reference, [2.5, 97.5])
    assert interval.low == pytest.approx(low, abs=0.1 * spread)
    assert interval.high == pytest.approx(high, abs=0.1 * spread)


def test_skill_estimate_is_the_brier_skill_score_against_the_market() -> None:
    rng = random.Random(9)
    rows = [(rng.random(), rng.random(), int(rng.random() < 0.5)) for _ in range(120)]
    groups: dict[str, list[tuple[float, float]]] = {}
    for i, (p, q, o) in enumerate(rows):
        groups.setdefault(f"w{i % 7}", []).append(((p - o) ** 2, (q - o) ** 2))
    interval = cohort_bootstrap_skill(groups, seed=1)
    expected = brier_skill_score(
        [p for p, _, _ in rows], [o for *_, o in rows], [q for _, q, _ in rows]
    )
    assert interval is not None
    assert expected is not None
    assert interval.estimate == pytest.approx(expected, rel=1e-12)
    assert interval.low < interval.estimate < interval.high


def test_perfect_forecaster_has_skill_exactly_one() -> None:
    groups = {key: [(0.0, y) for _, y in pairs] for key, pairs in _skill_dataset(3, 12).items()}
    interval = cohort_bootstrap_skill(groups, seed=1)
    assert interval is not None
    assert (interval.estimate, interval.low, interval.high) == (1.0, 1.0, 1.0)


def test_skill_is_undefined_against_a_perfect_market() -> None:
    assert cohort_bootstrap_skill({"w1": [(0.1, 0.0), (0.2, 0.0)]}, seed=1) is None


def test_skill_is_deterministic_and_order_free() -> None:
    groups = _skill_dataset(4, 20)
    reordered = {key: list(reversed(groups[key])) for key in reversed(list(groups))}
    assert cohort_bootstrap_skill(groups, seed=7) == cohort_bootstrap_skill(reordered, seed=7)

"""Cluster-robust errors and the t distribution, checked against independent computations."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats  # type: ignore[import-untyped]  # scipy ships no type hints

from arena_core.analysis import clustered
from arena_core.analysis.clustered import Clustering, Unit
from arena_core.analysis.tdist import critical_value, incomplete_beta, two_sided_p


@pytest.mark.parametrize("df", [1, 2, 3.5, 7, 30, 400])
@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.5, 6.0, 40.0])
def test_tail_probability_matches_scipy(df: float, t: float) -> None:
    assert two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("df", [1, 2, 5, 12, 100])
@pytest.mark.parametrize("alpha", [0.5, 0.05, 0.0018, 1e-5])
def test_critical_value_matches_scipy(df: float, alpha: float) -> None:
    assert critical_value(df, alpha) == pytest.approx(stats.t.isf(alpha / 2, df), rel=1e-9)


def test_incomplete_beta_matches_scipy_and_refuses_nonsense() -> None:
    for a, b, x in [(0.5, 0.5, 0.3), (3.0, 0.5, 0.9), (20.0, 0.5, 0.99), (2.0, 7.0, 0.01)]:
        assert incomplete_beta(a, b, x) == pytest.approx(stats.beta.cdf(x, a, b), rel=1e-10)
    with pytest.raises(ValueError, match="needs"):
        incomplete_beta(1.0, 1.0, 1.5)
    with pytest.raises(ValueError, match="positive"):
        two_sided_p(1.0, 0.0)


def _cr1(values: list[float], clusters: list[str]) -> float:
    """The CR1 variance of a mean, written out with numpy: (G / (G - 1)) sum_g S_g^2 / n^2."""
    x = np.array(values)
    residuals = x - x.mean()
    groups = sorted(set(clusters))
    sums = np.array([residuals[[c == g for c in clusters]].sum() for g in groups])
    n, g = len(values), len(groups)
    return float(g / (g - 1) * (sums**2).sum() / n**2)


def _sample(seed: int, n: int = 120) -> tuple[list[float], list[Unit]]:
    rng = random.Random(seed)
    units = [Unit(f"e{rng.randrange(25)}", f"w{rng.randrange(6)}") for _ in range(n)]
    shock = {u.event: rng.gauss(0, 1) for u in units}
    values = [shock[u.event] + rng.gauss(0, 1) for u in units]
    return values, units


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_way_errors_match_the_cr1_formula(seed: int) -> None:
    values, units = _sample(seed)
    by_event = clustered.mean(values, units, Clustering.EVENT)
    by_week = clustered.mean(values, units, Clustering.WEEK)
    assert by_event is not None and by_week is not None
    assert by_event.se**2 == pytest.approx(_cr1(values, [u.event for u in units]), rel=1e-12)
    assert by_week.se**2 == pytest.approx(_cr1(values, [u.week for u in units]), rel=1e-12)
    assert by_event.df == len({u.event for u in units}) - 1
    assert by_event.estimate == pytest.approx(sum(values) / len(values))


def test_two_way_error_adds_events_and_weeks_less_their_intersection() -> None:
    values, units = _sample(4)
    both = clustered.mean(values, units, Clustering.EVENT_WEEK)
    assert both is not None
    expected = (
        _cr1(values, [u.event for u in units])
        + _cr1(values, [u.week for u in units])
        - _cr1(values, [f"{u.event}|{u.week}" for u in units])
    )
    assert both.se**2 == pytest.approx(expected, rel=1e-12)
    assert both.df == min(len({u.event for u in units}), len({u.week for u in units})) - 1


def test_independent_observations_get_the_usual_standard_error() -> None:
    rng = random.Random(5)
    values = [rng.gauss(0, 1) for _ in range(400)]
    units = [Unit(f"e{i}", f"w{i}") for i in range(400)]
    found = clustered.mean(values, units, Clustering.EVENT)
    assert found is not None
    assert found.se == pytest.approx(np.std(values, ddof=1) / math.sqrt(400), rel=1e-9)


def test_skill_error_is_the_delta_method_of_the_ratio() -> None:
    rng = random.Random(6)
    units = [Unit(f"e{i // 3}", f"w{i % 5}") for i in range(90)]
    market = [rng.uniform(0.05, 0.4) for _ in units]
    mine = [m * rng.uniform(0.5, 1.3) for m in market]
    found = clustered.skill(mine, market, units, Clustering.EVENT)
    assert found is not None
    x, y = np.array(mine), np.array(market)
    ratio = x.mean() / y.mean()
    influence = -(x - ratio * y) / (len(x) * y.mean())
    events = [u.event for u in units]
    sums = np.array([influence[[e == g for e in events]].sum() for g in sorted(set(events))])
    g = len(sums)
    assert found.estimate == pytest.approx(1 - ratio)
    assert found.se**2 == pytest.approx(g / (g - 1) * (sums**2).sum(), rel=1e-10)
    assert clustered.skill([0.1], [0.0], [Unit("e", "w")], Clustering.EVENT) is None


def test_a_single_cluster_leaves_no_degrees_of_freedom() -> None:
    found = clustered.mean([0.1, 0.3, 0.2], [Unit("e", "w")] * 3, Clustering.EVENT_WEEK)
    assert found is not None
    assert (found.se, found.df) == (0.0, 0.0)
    assert clustered.mean([], [], Clustering.EVENT) is None


def test_covariance_of_a_family_with_itself_is_its_variance() -> None:
    values, units = _sample(7)
    centre = sum(values) / len(values)
    psi = [(v - centre) / len(values) for v in values]
    for scheme in Clustering:
        totals = clustered.totals(psi, units, scheme)
        variance, _ = clustered.variance(psi, units, scheme)
        assert clustered.covariance(totals, totals, scheme) == pytest.approx(variance)


def test_a_two_way_variance_left_by_rounding_falls_back_to_the_larger_one_way() -> None:
    """Events nested in weeks (one market each) make V_event and V_event-and-week cancel;
    weeks with equal sums make V_week zero. Rounding left ~1e-34 instead of 0.0, so the
    "not positive" fallback was skipped and six varied Brier scores got a zero-width interval
    (the demo's breakdowns printed 0.5950 [0.5950, 0.5950])."""
    # The Briers of one family's Politics bets in a three-week demo: 0.8 on a NO, 0.7416 on a
    # NO, the same the next week, then 0.8 on a NO and 0.2584 on a YES.
    values = [0.8**2, 0.741626794258**2] * 2 + [0.8**2, (0.258373205742 - 1) ** 2]
    units = [Unit(f"e{i}", f"w{i // 2}") for i in range(6)]
    found = clustered.mean(values, units, Clustering.EVENT_WEEK)
    by_event = clustered.mean(values, units, Clustering.EVENT)
    assert found is not None and by_event is not None
    assert by_event.se > 0.01
    assert found.se == pytest.approx(by_event.se, rel=1e-9)
    assert found.df == 2


def test_three_way_error_is_inclusion_and_exclusion_over_event_run_week_and_close_week() -> None:
    rng = random.Random(8)
    units = [
        Unit(f"e{rng.randrange(30)}", f"w{rng.randrange(6)}", f"c{rng.randrange(5)}")
        for _ in range(150)
    ]
    shock = {u.closes: rng.gauss(0, 1) for u in units}  # an outcome shock per close week
    values = [shock[u.closes] + rng.gauss(0, 1) for u in units]
    found = clustered.mean(values, units, Clustering.EVENT_WEEK_CLOSE)
    assert found is not None

    def by(*parts: str) -> float:
        return _cr1(values, ["|".join(getattr(u, p) for p in parts) for u in units])

    expected = (
        by("event") + by("week") + by("closes")
        - by("event", "week") - by("event", "closes") - by("week", "closes")
        + by("event", "week", "closes")
    )  # fmt: skip
    assert found.se**2 == pytest.approx(expected, rel=1e-12)
    assert found.df == 5 - 1  # the fewest clusters: five close weeks
    two_way = clustered.mean(values, units, Clustering.EVENT_WEEK)
    assert two_way is not None and found.se > 1.5 * two_way.se  # the shock it missed


def test_an_unknown_close_week_is_the_run_week() -> None:
    values, units = _sample(9)
    unknown = clustered.mean(values, units, Clustering.EVENT_WEEK_CLOSE)
    known = clustered.mean(
        values, [Unit(u.event, u.week, u.week) for u in units], Clustering.EVENT_WEEK_CLOSE
    )
    assert unknown is not None and known is not None
    assert unknown.se == known.se and unknown.df == known.df

"""Numbers from seeds/metaculus-scores-faq.txt and seeds/metaculus-tournament-scoring.txt."""

import math
from datetime import UTC, datetime, timedelta

import pytest

from arena_core.scoring import (
    baseline_score_binary,
    baseline_score_mc,
    log_score,
    peer_score,
    peer_scores_all,
    relative_log_score,
    time_averaged_baseline,
    time_averaged_peer,
)


def _die_average(p: float) -> float:
    # "Will I roll a 6?": five faces resolve No, one resolves Yes.
    return (5 * log_score(p, 0) + log_score(p, 1)) / 6


def test_die_example_log_scores() -> None:
    assert log_score(0.05, 0) == pytest.approx(-0.05, abs=0.005)
    assert log_score(0.05, 1) == pytest.approx(-3.0, abs=0.005)
    assert log_score(0.17, 0) == pytest.approx(-0.19, abs=0.005)
    assert log_score(0.17, 1) == pytest.approx(-1.77, abs=0.005)
    assert _die_average(0.05) == pytest.approx(-0.54, abs=0.005)
    assert _die_average(0.17) == pytest.approx(-0.45, abs=0.005)
    # Properness: the true belief (1/6 ≈ 17%) scores best on average.
    assert _die_average(0.17) > _die_average(0.05)
    assert _die_average(0.17) > _die_average(0.30)


def test_extreme_predictions_table() -> None:
    assert log_score(0.99, 1) == pytest.approx(-0.01, abs=0.0005)
    assert log_score(0.999, 1) == pytest.approx(-0.001, abs=0.0005)
    assert log_score(0.99, 0) == pytest.approx(-4.6, abs=0.01)
    assert log_score(0.999, 0) == pytest.approx(-6.9, abs=0.01)


@pytest.mark.parametrize(
    ("p", "if_yes", "if_no", "expected_at_80"),
    [(0.70, 48, -74, 24), (0.80, 68, -132, 28), (0.90, 85, -232, 21), (0.99, 99, -564, -34)],
)
def test_baseline_binary_table(p: float, if_yes: int, if_no: int, expected_at_80: int) -> None:
    # The FAQ rounds inconsistently (70% Yes is +48 here and +49 in its daily table): ±1.
    yes, no = baseline_score_binary(p, 1), baseline_score_binary(p, 0)
    assert yes == pytest.approx(if_yes, abs=1)
    assert no == pytest.approx(if_no, abs=1)
    assert 0.8 * yes + 0.2 * no == pytest.approx(expected_at_80, abs=1)


def test_baseline_extremes() -> None:
    assert baseline_score_binary(0.5, 1) == pytest.approx(0.0)
    assert baseline_score_binary(1.0, 1) == pytest.approx(100.0)
    assert baseline_score_binary(0.999, 1) == pytest.approx(99.9, abs=0.05)
    assert round(baseline_score_binary(0.999, 0)) == -897
    eight = [0.999] + [0.001 / 7] * 7
    assert baseline_score_mc(eight, 0) == pytest.approx(99.9, abs=0.1)
    worst = [0.001] + [0.999 / 7] * 7
    assert round(baseline_score_mc(worst, 0)) == -232
    assert baseline_score_mc([1 / 3] * 3, 2) == pytest.approx(0.0)


def test_faq_time_averaged_baseline_example() -> None:
    # Open 5 days, resolves Yes at close; 40% from day 2, 70% from day 3, 80% on day 5.
    forecasts = [[1, 0.40], [2, 0.70], [4, 0.80]]
    result = time_averaged_baseline(
        forecasts, 1, open_time=0, scheduled_close_time=5, resolve_time=5
    )
    # The FAQ's rounded daily scores 0, -32, +49, +49, +68 average to +27.
    assert round(result["score"]) == 27
    exact = (
        baseline_score_binary(0.4, 1)
        + 2 * baseline_score_binary(0.7, 1)
        + baseline_score_binary(0.8, 1)
    ) / 5
    assert result["score"] == pytest.approx(exact)
    assert result["coverage"] == pytest.approx(0.8)


def test_early_resolution_counts_zero_until_scheduled_close() -> None:
    start = datetime(2026, 1, 4, tzinfo=UTC)
    result = time_averaged_baseline(
        [[start, 0.9]],
        1,
        open_time=start,
        scheduled_close_time=start + timedelta(days=10),
        resolve_time=start + timedelta(days=2),
    )
    assert result["score"] == pytest.approx(baseline_score_binary(0.9, 1) * 0.2)
    assert result["coverage"] == pytest.approx(0.2)


def test_peer_score_faq_example_with_log_scores_minus1_1_2() -> None:
    # Alex, Bailey, Cory have log scores -1, 1, 2 relative to each other: shift by -3 so every
    # "probability" is valid (peer scores depend only on differences).
    probs = [math.exp(-4), math.exp(-2), math.exp(-1)]
    scores = peer_scores_all(probs)
    assert scores == pytest.approx([-250.0, 50.0, 200.0])
    assert sum(scores) == pytest.approx(0.0)


def test_peer_score_without_others_is_zero() -> None:
    assert peer_score(0.7, []) == 0.0


def test_peer_score_is_log_difference_to_geometric_mean() -> None:
    others = [0.2, 0.5, 0.8]
    geometric_mean = math.prod(others) ** (1 / 3)
    assert peer_score(0.6, others) == pytest.approx(
        100 * (math.log(0.6) - math.log(geometric_mean))
    )


def test_tournament_relative_log_scores_question_1() -> None:
    # Forecaster A day 1: 10% against a 15% median; forecaster B day 2: 90% against 25%.
    assert relative_log_score(0.10, 0.15) == pytest.approx(-0.41, abs=0.005)
    assert relative_log_score(0.90, 0.25) == pytest.approx(1.28, abs=0.005)
    assert relative_log_score(0.55, 0.55) == 0.0


def test_time_averaged_peer_sums_to_zero_and_respects_coverage() -> None:
    forecasters = {
        "a": [[0, 0.3], [2, 0.6]],
        "b": [[1, 0.8]],
        "c": [[0, 0.5]],
    }
    result = time_averaged_peer(forecasters, 1, open_time=0, scheduled_close_time=4, resolve_time=4)
    assert isinstance(result, dict)
    assert sum(r["score"] for r in result.values()) == pytest.approx(0.0)
    assert result["b"]["coverage"] == pytest.approx(0.75)
    # Hand computation for b: active from t=1; vs a (0.3 then 0.6) and c (0.5).
    by_hand = (peer_score(0.8, [0.3, 0.5]) * 1 + peer_score(0.8, [0.6, 0.5]) * 2) / 4
    assert result["b"]["score"] == pytest.approx(by_hand)


def test_time_averaged_peer_accepts_a_list() -> None:
    result = time_averaged_peer(
        [[[0, 0.9]], [[0, 0.1]]], 0, open_time=0, scheduled_close_time=1, resolve_time=1
    )
    assert isinstance(result, list)
    assert result[1]["score"] == pytest.approx(100 * (math.log(0.9) - math.log(0.1)))
    assert result[0]["score"] == pytest.approx(-result[1]["score"])

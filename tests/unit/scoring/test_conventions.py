"""The conventions every scoring function shares (issue: Foundation §4)."""

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_core.errors import ArenaError
from arena_core.scoring import (
    arena_bet_brier,
    bin_index,
    brier_score,
    brier_skill_score,
    calibration_curve,
    log_score,
    mean_brier_score,
    peer_score,
)


@pytest.mark.parametrize("bad", [-0.01, 1.01, math.nan, math.inf, 2])
def test_probabilities_outside_unit_interval_raise_value_error(bad: float) -> None:
    with pytest.raises(ValueError, match=r"probability|outside"):
        brier_score(bad, 1)
    with pytest.raises(ValueError):
        log_score(bad, 0)
    with pytest.raises(ValueError):
        bin_index(bad, 10)


def test_invalid_probability_is_also_an_arena_error() -> None:
    with pytest.raises(ArenaError):
        brier_score(1.5, 1)


@pytest.mark.parametrize("bad_outcome", [2, -1, 0.5, "yes"])
def test_outcome_must_be_binary(bad_outcome: object) -> None:
    with pytest.raises(ValueError, match="outcome"):
        brier_score(0.5, bad_outcome)


def test_log_score_sign_and_clipping() -> None:
    assert log_score(0.8, 1) == pytest.approx(math.log(0.8))
    assert log_score(0.8, 0) == pytest.approx(math.log(0.2))
    certain_miss = log_score(1.0, 0)
    assert math.isfinite(certain_miss)
    assert certain_miss <= math.log(1e-9)
    assert log_score(1.0, 0, eps=0.01) == pytest.approx(math.log(0.01))
    assert log_score(1.0, 1) <= 0.0


def test_skill_score_undefined_when_reference_is_perfect() -> None:
    assert brier_skill_score([0.7, 0.6], [1, 1], "climatology") is None
    assert brier_skill_score([0.7, 0.2], [1, 0], [1.0, 0.0]) is None


def test_skill_score_against_climatology() -> None:
    forecasts = [0.9, 0.8, 0.3, 0.1]
    outcomes = [1, 1, 0, 0]
    # Base rate 0.5 -> reference Brier 0.25.
    expected = 1 - mean_brier_score(forecasts, outcomes) / 0.25
    assert brier_skill_score(forecasts, outcomes, "climatology") == pytest.approx(expected)


def test_skill_score_rejects_unknown_reference_name() -> None:
    with pytest.raises(ValueError, match="unknown reference"):
        brier_skill_score([0.5], [1], "persistence")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("p", "k", "expected"),
    [
        (0.0, 10, 0),
        (0.1, 10, 0),
        (0.10000001, 10, 1),
        (0.2, 10, 1),
        (0.3, 10, 2),
        (0.7, 10, 6),
        (0.9, 10, 8),
        (1.0, 10, 9),
        (0.5, 2, 0),
        (0.51, 2, 1),
        (Decimal("0.3"), 10, 2),
        (1, 5, 4),
        (0, 5, 0),
    ],
)
def test_bins_are_right_closed_and_exact_at_decimal_edges(p: float, k: int, expected: int) -> None:
    assert bin_index(p, k) == expected


def test_bin_index_rejects_bad_bin_counts() -> None:
    with pytest.raises(ValueError):
        bin_index(0.5, 0)


def test_calibration_curve_lists_non_empty_bins_in_order() -> None:
    forecasts = [0.05, 0.1, 0.35, 0.38, 0.95]
    outcomes = [0, 1, 0, 1, 1]
    curve = calibration_curve(forecasts, outcomes, n_bins=10)
    assert curve["bin_ids"] == [0, 3, 9]
    assert curve["bin_counts"] == [2, 2, 1]
    assert curve["prob_pred"] == pytest.approx([0.075, 0.365, 0.95])
    assert curve["prob_true"] == pytest.approx([0.5, 0.5, 1.0])


def test_length_mismatch_and_empty_input_raise() -> None:
    with pytest.raises(ValueError):
        mean_brier_score([0.5, 0.5], [1])
    with pytest.raises(ValueError):
        mean_brier_score([], [])


def test_arena_bet_brier_rejects_bets_above_the_maximum() -> None:
    with pytest.raises(ValueError):
        arena_bet_brier("YES", 3000, 10000, 1)
    with pytest.raises(ValueError):
        arena_bet_brier("MAYBE", 100, 10000, 1)


def test_arena_bet_brier_is_case_insensitive_and_exact() -> None:
    result = arena_bet_brier("no", "1250", "10000", 1)
    assert result == {"brier": 0.25, "confidence": 0.5, "f_yes": 0.5}


@given(st.floats(0, 1), st.sampled_from([0, 1]))
def test_brier_bounds_and_log_score_nonpositive(p: float, o: int) -> None:
    assert 0.0 <= brier_score(p, o) <= 1.0
    assert log_score(p, o) <= 0.0


@given(st.floats(0.001, 0.999), st.lists(st.floats(0.001, 0.999), min_size=1, max_size=5))
def test_peer_scores_are_antisymmetric(p: float, others: list[float]) -> None:
    mine = peer_score(p, others)
    theirs = [peer_score(q, [p, *others[:i], *others[i + 1 :]]) for i, q in enumerate(others)]
    assert mine + sum(theirs) == pytest.approx(0.0, abs=1e-6)

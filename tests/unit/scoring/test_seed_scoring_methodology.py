"""Worked examples of seeds/scoring-methodology.txt."""

from decimal import Decimal

import pytest

from arena_core.scoring import arena_bet_brier, brier_score, brier_skill_score


@pytest.mark.parametrize(
    ("cash", "amount", "confidence"),
    [
        (10_000, 2_500, 1.0),
        (10_000, 1_250, 0.5),
        (10_000, 500, 0.2),
        (10_000, 50, 0.02),
        (8_000, 2_000, 1.0),
        (8_000, 500, 0.25),
    ],
)
def test_implied_confidence_table(cash: int, amount: int, confidence: float) -> None:
    result = arena_bet_brier("YES", amount, cash, 1)
    assert result["confidence"] == confidence


@pytest.mark.parametrize(
    ("side", "yes_outcome", "f_yes", "brier"),
    [
        ("YES", 1, 0.8, 0.04),
        ("YES", 0, 0.8, 0.64),
        ("NO", 1, 0.2, 0.64),
        ("NO", 0, 0.2, 0.04),
    ],
)
def test_side_conversion_table(side: str, yes_outcome: int, f_yes: float, brier: float) -> None:
    # 80% confidence = $2,000 of a $10,000 balance (max bet $2,500).
    result = arena_bet_brier(side, Decimal("2000"), Decimal("10000"), yes_outcome)
    assert result["f_yes"] == f_yes
    assert result["brier"] == brier


def test_rain_examples() -> None:
    assert brier_score(0.8, 1) == pytest.approx(0.04)
    assert brier_score(0.8, 0) == pytest.approx(0.64)


def test_score_range_landmarks() -> None:
    assert brier_score(1.0, 1) == 0.0
    assert brier_score(0.5, 0) == 0.25
    assert brier_score(0.0, 1) == 1.0


def test_skill_score_example_against_random_guesser() -> None:
    # Six coin-flip forecasts (0.25 each) and four perfect ones: BS = 1.5 / 10 = 0.15.
    forecasts = [0.5] * 6 + [1.0] * 4
    outcomes = [1, 0, 1, 0, 1, 0, 1, 1, 1, 1]
    assert brier_skill_score(forecasts, outcomes, 0.5) == pytest.approx(0.40)

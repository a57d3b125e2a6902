"""Worked examples of seeds/proper-scoring-rules.txt."""

import math

import pytest

from arena_core.scoring import (
    brier_score,
    brier_skill_score,
    log_score,
    mean_brier_score,
    mean_log_score,
    murphy_decomposition,
)

AGENT = [0.85, 0.40, 0.12, 0.65, 0.15, 0.30, 0.70, 0.55, 0.20, 0.25]
MARKET = [0.78, 0.35, 0.08, 0.58, 0.10, 0.25, 0.72, 0.50, 0.18, 0.22]
OUTCOMES = [1, 0, 0, 1, 0, 0, 1, 1, 0, 0]


def test_example_1_agent_and_market_brier() -> None:
    assert mean_brier_score(AGENT, OUTCOMES) == pytest.approx(0.08269)
    assert mean_brier_score(MARKET, OUTCOMES) == pytest.approx(0.08354)


def test_example_1_skill_against_market() -> None:
    bss = brier_skill_score(AGENT, OUTCOMES, MARKET)
    assert bss == pytest.approx(1 - 0.08269 / 0.08354)
    # The seed rounds both scores to four places first (0.0827 / 0.0835) and reports 0.96%.
    assert bss == pytest.approx(0.0096, abs=1e-3)
    assert bss is not None
    assert bss > 0


@pytest.mark.parametrize(
    ("f", "brier", "log_loss"),
    [
        (0.60, 0.36, 0.92),
        (0.80, 0.64, 1.61),
        (0.90, 0.81, 2.30),
        (0.95, 0.90, 3.00),
        (0.99, 0.98, 4.61),
        (0.999, 0.998, 6.91),
    ],
)
def test_confident_miss_table(f: float, brier: float, log_loss: float) -> None:
    assert brier_score(f, 0) == pytest.approx(brier, abs=0.003)
    assert -log_score(f, 0) == pytest.approx(log_loss, abs=0.005)


def test_example_2_per_event_log_losses() -> None:
    agent_a = [0.40, 0.65, 0.12, 0.70, 0.30]
    agent_b = [0.25, 0.90, 0.05, 0.95, 0.55]
    outcomes = [0, 1, 0, 1, 0]
    a_losses = [-log_score(f, o) for f, o in zip(agent_a, outcomes, strict=True)]
    b_losses = [-log_score(f, o) for f, o in zip(agent_b, outcomes, strict=True)]
    assert a_losses == pytest.approx([0.5108, 0.4308, 0.1278, 0.3567, 0.3567], abs=1e-4)
    assert b_losses == pytest.approx([0.2877, 0.1054, 0.0513, 0.0513, 0.7985], abs=1e-4)
    assert -mean_log_score(agent_a, outcomes) == pytest.approx(0.3566, abs=1e-4)
    assert -mean_log_score(agent_b, outcomes) == pytest.approx(0.2588, abs=1e-4)


def test_hypothetical_confident_newsom_miss() -> None:
    assert -log_score(0.95, 0) == pytest.approx(2.9957, abs=1e-4)


def test_brier_propriety_identity() -> None:
    # E_p[BS(f)] = (f − p)^2 + p(1 − p): the expected score is minimised at f = p.
    p = 0.3
    for f in (0.1, 0.3, 0.5, 0.9):
        expected = p * brier_score(f, 1) + (1 - p) * brier_score(f, 0)
        assert expected == pytest.approx((f - p) ** 2 + p * (1 - p))


def test_murphy_identity_is_exact_when_bins_hold_one_forecast_value() -> None:
    forecasts = [0.05, 0.05, 0.35, 0.35, 0.35, 0.75, 0.75, 0.95]
    outcomes = [0, 0, 1, 0, 0, 1, 1, 1]
    parts = murphy_decomposition(forecasts, outcomes, n_bins=10)
    base = 4 / 8
    assert parts["uncertainty"] == pytest.approx(base * (1 - base))
    recomposed = parts["reliability"] - parts["resolution"] + parts["uncertainty"]
    assert recomposed == pytest.approx(mean_brier_score(forecasts, outcomes))
    assert parts["brier"] == pytest.approx(mean_brier_score(forecasts, outcomes))


def test_murphy_on_example_1_components() -> None:
    parts = murphy_decomposition(AGENT, OUTCOMES, n_bins=10)
    assert parts["uncertainty"] == pytest.approx(0.4 * 0.6)
    # By hand: bins {.12,.15,.20}->0, {.25,.30}->0, {.40}->0, {.55}->1, {.65,.70}->1, {.85}->1.
    assert parts["reliability"] == pytest.approx(0.821133 / 10, abs=1e-6)
    assert parts["resolution"] == pytest.approx(0.24)
    assert math.isclose(parts["brier"], 0.08269, rel_tol=1e-9, abs_tol=1e-9)

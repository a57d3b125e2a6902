"""'First in N% of draws' is drawn from the distribution the intervals beside it use: a t with
their degrees of freedom, not a normal (after two weeks, t with 1 df is 12.7 standard errors
wide at 95%, the normal 1.96)."""

from __future__ import annotations

import math

import pytest

from arena_core.analysis.ranks import first_shares

ESTIMATES = {"a": 0.0, "b": 1.0}  # higher is better; independent, unit variance each
COVARIANCE = [[1.0, 0.0], [0.0, 1.0]]


def share_of_b(df: float) -> float:
    found = first_shares(ESTIMATES, COVARIANCE, lower_is_better=False, seed=11, draws=40_000, df=df)
    return found["b"]


def test_with_infinite_degrees_of_freedom_the_draws_are_normal() -> None:
    # b - a ~ N(1, 2): P(b first) = Phi(1 / sqrt 2)
    expected = 0.5 * (1 + math.erf(1 / math.sqrt(2) / math.sqrt(2)))
    assert share_of_b(math.inf) == pytest.approx(expected, abs=0.01)


def test_with_one_degree_of_freedom_the_draws_are_a_multivariate_t() -> None:
    # One chi-square scale for both: b - a = 1 + sqrt(2) T1, P(b first) = 1/2 + atan(1/sqrt 2)/pi
    expected = 0.5 + math.atan(1 / math.sqrt(2)) / math.pi
    found = share_of_b(1.0)
    assert found == pytest.approx(expected, abs=0.01)
    assert found < share_of_b(math.inf) - 0.04  # less sure than the normal said


def test_no_degrees_of_freedom_no_share() -> None:
    assert first_shares(ESTIMATES, COVARIANCE, lower_is_better=False, seed=1, df=0.0) == {}

"""Strictly proper scores: Brier, log, and the Brier skill score."""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Literal

from arena_core.scoring._checks import DEFAULT_EPS, Number, clipped, paired, probability
from arena_core.scoring._checks import outcome as check_outcome


def brier_score(p: Number, outcome: object) -> float:
    """(p − o)²: 0 is perfect, 0.25 is a coin flip, 1 is confidently wrong."""
    return (probability(p) - check_outcome(outcome)) ** 2


def mean_brier_score(forecasts: Sequence[Number], outcomes: Sequence[object]) -> float:
    pairs = paired(forecasts, outcomes)
    return math.fsum((f - o) ** 2 for f, o in pairs) / len(pairs)


def log_score(p: Number, outcome: object, eps: float = DEFAULT_EPS) -> float:
    """ln of the probability given to what happened (≤ 0, higher is better, Metaculus's sign).

    The probability is clipped to [eps, 1 − eps] so a certain miss is finite.
    """
    value = probability(p)
    given = value if check_outcome(outcome) == 1 else 1.0 - value
    return math.log(clipped(given, eps))


def mean_log_score(
    forecasts: Sequence[Number], outcomes: Sequence[object], eps: float = DEFAULT_EPS
) -> float:
    pairs = paired(forecasts, outcomes)
    return math.fsum(log_score(f, o, eps) for f, o in pairs) / len(pairs)


def brier_skill_score(
    forecasts: Sequence[Number],
    outcomes: Sequence[object],
    reference: Sequence[Number] | Number | Literal["climatology"],
) -> float | None:
    """1 − BS / BS_ref against a reference forecast.

    ``reference`` is a list of forecasts (e.g. market prices at bet time), a constant forecast
    (0.5 is the random guesser), or ``"climatology"``: the in-sample base rate. When the
    reference scores a perfect 0 the skill is undefined and ``None`` is returned.
    """
    score = mean_brier_score(forecasts, outcomes)
    if isinstance(reference, (int, float, Decimal)):
        constant = probability(reference, "reference")
        ref_score = mean_brier_score([constant] * len(outcomes), outcomes)
    elif isinstance(reference, str):
        if reference != "climatology":
            raise ValueError(f"unknown reference {reference!r}")
        base_rate = math.fsum(check_outcome(o) for o in outcomes) / len(outcomes)
        ref_score = mean_brier_score([base_rate] * len(outcomes), outcomes)
    else:
        ref_score = mean_brier_score(reference, outcomes)
    if ref_score == 0.0:
        return None
    return 1.0 - score / ref_score

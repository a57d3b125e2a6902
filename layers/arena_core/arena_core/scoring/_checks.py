"""Input checks shared by the scoring functions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal

from arena_core.errors import InvalidProbabilityError

Number = float | int | Decimal

DEFAULT_EPS = 1e-12


def probability(p: Number, name: str = "probability") -> float:
    """``p`` as a float, after checking it lies in [0, 1] (NaN and booleans are refused)."""
    if isinstance(p, bool) or not isinstance(p, (int, float, Decimal)):
        raise InvalidProbabilityError(f"{name} must be a number, got {p!r}")
    value = float(p)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise InvalidProbabilityError(f"{name} {p!r} is outside [0, 1]")
    return value


def outcome(o: object) -> int:
    """A binary outcome: 0 or 1 (``True``/``False`` and 0.0/1.0 are accepted)."""
    if isinstance(o, (bool, int, float, Decimal)) and o in (0, 1):
        return int(o)
    raise InvalidProbabilityError(f"outcome must be 0 or 1, got {o!r}")


def paired(forecasts: Sequence[Number], outcomes: Sequence[object]) -> list[tuple[float, int]]:
    """Checked (forecast, outcome) pairs; equal, non-zero lengths required."""
    if len(forecasts) != len(outcomes):
        raise InvalidProbabilityError(f"{len(forecasts)} forecasts but {len(outcomes)} outcomes")
    if not forecasts:
        raise InvalidProbabilityError("no forecasts to score")
    return [
        (probability(f, "forecast"), outcome(o)) for f, o in zip(forecasts, outcomes, strict=True)
    ]


def clipped(p: float, eps: float) -> float:
    if not 0.0 < eps < 0.5:
        raise InvalidProbabilityError(f"eps {eps!r} must lie in (0, 0.5)")
    return min(max(p, eps), 1.0 - eps)

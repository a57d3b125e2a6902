"""The arena's own Brier: confidence implied by bet size (methodology v1 §11.1-11.2)."""

from __future__ import annotations

from decimal import Decimal

from arena_core.domain.money import ONE, to_decimal
from arena_core.domain.rules import MAX_BET_FRACTION
from arena_core.errors import InvalidProbabilityError
from arena_core.scoring._checks import Number
from arena_core.scoring._checks import outcome as check_outcome


def arena_bet_brier(
    side: str, bet_amount: Number | str, cash_balance: Number | str, outcome: object
) -> dict[str, float]:
    """Brier of one bet: confidence = amount / (25% of cash at bet time); f_YES is the
    confidence for a YES bet and its complement for a NO bet; Brier = (f_YES − o)² with o the
    YES outcome. Computed in Decimal so table values come out exact (0.04, not 0.0399…)."""
    amount, cash = to_decimal(bet_amount), to_decimal(cash_balance)
    if cash <= 0:
        raise InvalidProbabilityError(f"cash balance {cash} must be positive")
    if amount < 0:
        raise InvalidProbabilityError(f"bet amount {amount} must not be negative")
    confidence = amount / (cash * MAX_BET_FRACTION)
    if confidence > ONE:
        raise InvalidProbabilityError(
            f"bet ${amount} exceeds 25% of ${cash}: implied confidence {confidence} > 1"
        )
    normalized = side.strip().upper()
    if normalized not in ("YES", "NO"):
        raise ValueError(f"side must be YES or NO, got {side!r}")
    f_yes = confidence if normalized == "YES" else ONE - confidence
    brier: Decimal = (f_yes - check_outcome(outcome)) ** 2
    return {"brier": float(brier), "confidence": float(confidence), "f_yes": float(f_yes)}

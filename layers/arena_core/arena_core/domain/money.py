"""Money and share arithmetic: the one place where rounding happens.

All amounts are ``Decimal``. Cash movements are whole cents and shares are whole micro-shares
(Polymarket's 6-decimal precision). Shares bought and settlement payouts are rounded *down*, so
the book never credits value that does not exist. Sell proceeds are rounded to the *nearest*
cent (half-even): a buy of $A at price p gets floor_micro(A / p) shares, worth A minus less
than p micro-dollars, so selling them all at an unchanged price returns exactly $A (rounding the
proceeds down would lose a cent on most round trips). The cost basis carried out of a position
on a partial sell is rounded half-even, and a full exit carries out the exact remainder, so
nothing is left behind.

Because every movement of cash is a whole number of cents and is recorded exactly as applied,
the ledger identity ``10,000 − Σ buys + Σ sell proceeds + Σ payouts + Σ refunds = cash`` holds
with equality, not approximately.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal, InvalidOperation

CENT = Decimal("0.01")
MICRO_SHARE = Decimal("0.000001")
# Trades execute at the side's price rounded to the micro-dollar (half-even): upstream quotes
# can carry 40 digits, which no record of a trade should.
MICRO_DOLLAR = Decimal("0.000001")
ZERO = Decimal("0")
ONE = Decimal("1")
HUNDRED = Decimal("100")


def to_decimal(value: object) -> Decimal:
    """Convert ints, strings and Decimals exactly; floats through their shortest repr.

    ``Decimal(0.1)`` would carry the binary expansion of the float; ``repr`` gives ``0.1``.
    Raises ``ValueError`` for anything that is not a finite number.
    """
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation as exc:
            raise ValueError(f"not a number: {value!r}") from exc
    else:
        raise ValueError(f"not a number: {value!r}")
    if not result.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return result


def cents_down(amount: Decimal) -> Decimal:
    """Whole cents, rounded toward zero (what the agent receives)."""
    return amount.quantize(CENT, rounding=ROUND_DOWN)


def cents_even(amount: Decimal) -> Decimal:
    """Whole cents, rounded half-even (a share of an existing cost basis)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)


def price_micro(price: Decimal) -> Decimal:
    """A per-share price to the micro-dollar, rounded half-even (the price a trade executes at)."""
    return price.quantize(MICRO_DOLLAR, rounding=ROUND_HALF_EVEN)


def shares_down(shares: Decimal) -> Decimal:
    """Whole micro-shares, rounded toward zero."""
    return shares.quantize(MICRO_SHARE, rounding=ROUND_DOWN)


def significant_digits(number: Decimal) -> int:
    """How many digits ``number`` needs, leading and trailing zeros aside (0 for zero)."""
    digits = number.as_tuple().digits
    if not any(digits):
        return 0
    # index loops, not generators: every number a store writes is measured (twice)
    first, end = 0, len(digits)
    while not digits[first]:
        first += 1
    while not digits[end - 1]:
        end -= 1
    return end - first

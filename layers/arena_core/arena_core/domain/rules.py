"""Capital rules of methodology v1 §5: starting balance, minimum and maximum bet, sells."""

from __future__ import annotations

from decimal import Decimal

from arena_core.domain.money import CENT, HUNDRED, ONE, ZERO, cents_down, price_micro
from arena_core.errors import (
    BetAboveMaximumError,
    BetBelowMinimumError,
    InsufficientCashError,
    InvalidPercentageError,
    InvalidPriceError,
)

STARTING_BALANCE = Decimal("10000.00")
MIN_BET = Decimal("50.00")
MAX_BET_FRACTION = Decimal("0.25")
# A trade needs a price at least one tick away from 0 and 1 (Polymarket's finest tick): a
# quote closer to certainty is no price to trade at, and its shares would be unbounded.
MIN_TICK = Decimal("0.0001")


def max_bet(cash: Decimal) -> Decimal:
    """The largest single bet allowed now: 25% of current cash (exact, not rounded)."""
    return cash * MAX_BET_FRACTION


def check_bet_amount(amount: Decimal, cash: Decimal) -> Decimal:
    """Validate a bet against the capital rules and return it in whole cents.

    Sub-cent amounts are truncated first so the check applies to what would really be spent;
    an amount beyond the cash is refused before any rounding, whatever its size.
    """
    if amount > cash:
        raise InsufficientCashError(f"bet ${amount:.2f} exceeds cash ${cash}")
    if amount < MIN_BET:
        raise BetBelowMinimumError(f"bet ${amount} is below the minimum of ${MIN_BET}")
    spend = cents_down(amount)
    if spend < MIN_BET:
        raise BetBelowMinimumError(f"bet ${amount} is below the minimum of ${MIN_BET}")
    limit = max_bet(cash)
    if spend > limit:
        raise BetAboveMaximumError(
            f"bet ${spend} exceeds the maximum of ${limit.quantize(CENT)} (25% of cash ${cash})"
        )
    return spend


def check_trade_price(price: Decimal | None) -> Decimal:
    """A trade needs a known price at least a tick inside (0, 1); it executes at that price
    rounded to the micro-dollar."""
    if price is None:
        raise InvalidPriceError("no price is available for this side")
    if not MIN_TICK <= price <= ONE - MIN_TICK:
        raise InvalidPriceError(
            f"price {price:.6g} is not between {MIN_TICK} and {ONE - MIN_TICK}: no tradable quote"
        )
    return price_micro(price)


def check_sell_percentage(percentage: Decimal) -> Decimal:
    """Sell percentages lie in (0, 100]."""
    if not ZERO < percentage <= HUNDRED:
        raise InvalidPercentageError(f"sell percentage {percentage} is not in (0, 100]")
    return percentage

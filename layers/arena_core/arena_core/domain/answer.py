"""What an agent answers (methodology v1 §8): BET, SELL or HOLD, with its reasoning (and, under
``v1+panel``, its forecasts for the panel).

The reply format that carries it is `arena_core.protocol`; this is the structurally valid answer the
parser produces, before any rule is checked against a portfolio.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from pydantic import model_validator

from arena_core.domain.base import DomainModel
from arena_core.domain.panel import StatedForecast
from arena_core.domain.text import CleanText


class Action(StrEnum):
    BET = "BET"
    SELL = "SELL"
    HOLD = "HOLD"


class BetInstruction(DomainModel):
    market_id: CleanText
    side: CleanText
    amount: Decimal


class SellInstruction(DomainModel):
    position_id: CleanText
    percentage: Decimal


class Answer(DomainModel):
    """A structurally valid answer; the rules are checked later against a portfolio."""

    action: Action
    bets: tuple[BetInstruction, ...] = ()
    sells: tuple[SellInstruction, ...] = ()
    reasoning: CleanText = ""
    # v1+panel: the probabilities stated for the forecast panel, as the reply gave them.
    forecasts: tuple[StatedForecast, ...] = ()
    forecast_errors: tuple[str, ...] = ()  # entries of 'forecasts' that could not be read

    @model_validator(mode="after")
    def _shape_matches_action(self) -> Answer:
        if self.action is Action.BET and (not self.bets or self.sells):
            raise ValueError("a BET needs a non-empty 'bets' list and no 'sells'")
        if self.action is Action.SELL and (not self.sells or self.bets):
            raise ValueError("a SELL needs a non-empty 'sells' list and no 'bets'")
        if self.action is Action.HOLD and (self.bets or self.sells):
            raise ValueError("a HOLD carries neither 'bets' nor 'sells'")
        return self

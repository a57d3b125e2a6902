"""Scores of the v1 bets (methodology v1 §11): a buy's implied confidence against the outcome."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal

from arena_core.domain.market import NO, Market, ResolutionKind
from arena_core.domain.money import ONE, ZERO
from arena_core.domain.portfolio import BetScore, Trade, TradeKind
from arena_core.scoring.proper import log_score

# Scores are kept to the trillionth: far below any difference a leaderboard shows, and every
# score and every sum of scores is then a whole number of trillionths, exact in any store.
SCORE_PLACES = Decimal("1e-12")


def to_score_places(value: Decimal) -> Decimal:
    return value.quantize(SCORE_PLACES, rounding=ROUND_HALF_EVEN)


def score_buys(
    buys: Iterable[Trade], market: Market, *, family_id: str, at: datetime
) -> list[BetScore]:
    """Brier scores of the buys on a position whose market resolved with a winner.

    50/50 and indeterminate resolutions carry no outcome to score against, so they yield none.
    """
    resolution = market.resolution
    if resolution is None or resolution.kind is not ResolutionKind.WINNER:
        return []
    scores = []
    for trade in buys:
        if trade.kind is not TradeKind.BUY or trade.implied_confidence is None:
            continue
        won = market.side_won(trade.side)
        forecast = trade.implied_confidence
        outcome = ONE if won else ZERO
        scores.append(
            BetScore(
                trade_id=trade.trade_id,
                agent_id=trade.agent_id,
                cohort_id=trade.cohort_id,
                family_id=family_id,
                market_id=trade.market_id,
                side=trade.side,
                amount=trade.amount,
                cash_before=trade.cash_before,
                forecast=forecast,
                market_price=trade.price,
                won=won,
                brier=to_score_places((forecast - outcome) ** 2),
                market_brier=to_score_places((trade.price - outcome) ** 2),
                log_score=to_score_places(Decimal(repr(log_score(float(forecast), int(won))))),
                scored_at=at,
                bet_at=trade.executed_at,
                category=market.category,
                closes_at=market.end_date,
                event_id=market.event_id,
            )
        )
    return scores


def yes_terms(score: BetScore) -> tuple[Decimal, Decimal, int]:
    """A v1 bet score as a forecast for YES: (p_yes, market_p_yes, outcome). A YES bet (or a
    named outcome bought) forecasts its side at the implied confidence; a NO bet forecasts YES
    at one minus it. The price and the outcome are put in the same terms, so every score is
    unchanged. The confidence is taken to the trillionth, as the dataset exports it and as
    bet scores are kept: the statistics read back exactly the values published."""
    forecast = to_score_places(score.forecast)  # as exported: twelve places
    if score.side.upper() == NO:
        return ONE - forecast, ONE - score.market_price, int(not score.won)
    return forecast, score.market_price, int(score.won)

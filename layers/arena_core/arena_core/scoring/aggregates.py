"""Adding scored bets and trades to a family's running aggregate (the arithmetic the DynamoDB
adapter performs with ``ADD`` on counters). Every sum is a whole number of trillionths: each
score is kept to the trillionth, and so is each forecast added to a calibration bin."""

from __future__ import annotations

from collections.abc import Sequence

from arena_core.domain.aggregates import CALIBRATION_BINS, FamilyAggregate
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import BetScore
from arena_core.scoring.bets import to_score_places
from arena_core.scoring.calibration import bin_index


def scores_aggregate(family_id: str, scores: Sequence[BetScore]) -> FamilyAggregate:
    """The aggregate of these scores alone (what one settlement adds)."""
    count, forecast, wins = (
        [0] * CALIBRATION_BINS,
        [ZERO] * CALIBRATION_BINS,
        [0] * CALIBRATION_BINS,
    )
    for score in scores:
        index = bin_index(score.forecast, CALIBRATION_BINS)
        count[index] += 1
        forecast[index] += to_score_places(score.forecast)
        wins[index] += 1 if score.won else 0
    return FamilyAggregate(
        family_id=family_id,
        scored_bets=len(scores),
        brier_sum=sum((s.brier for s in scores), ZERO),
        market_brier_sum=sum((s.market_brier for s in scores), ZERO),
        log_score_sum=sum((s.log_score for s in scores), ZERO),
        wins=sum(1 for s in scores if s.won),
        cal_count=tuple(count),
        cal_forecast=tuple(forecast),
        cal_wins=tuple(wins),
    )


def combined(left: FamilyAggregate, right: FamilyAggregate) -> FamilyAggregate:
    """The sum of two aggregates of the same family, field by field."""
    return FamilyAggregate(
        family_id=left.family_id,
        scored_bets=left.scored_bets + right.scored_bets,
        brier_sum=left.brier_sum + right.brier_sum,
        market_brier_sum=left.market_brier_sum + right.market_brier_sum,
        log_score_sum=left.log_score_sum + right.log_score_sum,
        wins=left.wins + right.wins,
        trades=left.trades + right.trades,
        settled_positions=left.settled_positions + right.settled_positions,
        cal_count=tuple(a + b for a, b in zip(left.cal_count, right.cal_count, strict=True)),
        cal_forecast=tuple(
            a + b for a, b in zip(left.cal_forecast, right.cal_forecast, strict=True)
        ),
        cal_wins=tuple(a + b for a, b in zip(left.cal_wins, right.cal_wins, strict=True)),
    )

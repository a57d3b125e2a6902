"""Running sums per model family: the leaderboard never reads a family's history."""

from __future__ import annotations

from decimal import Decimal

from arena_core.domain.base import DomainModel
from arena_core.domain.money import ZERO

CALIBRATION_BINS = 10


class FamilyAggregate(DomainModel):
    """Running sums per model family, updated with each settlement and trade (never recomputed
    from history): mean Brier = brier_sum / scored_bets, and so on. ``cal_*`` hold, per
    right-closed tenth of implied confidence, the bet count, the forecast sum and the wins: the
    reliability diagram without reading a single bet (``arena_core.scoring.aggregates`` adds
    scores to it)."""

    family_id: str
    scored_bets: int = 0
    brier_sum: Decimal = ZERO
    market_brier_sum: Decimal = ZERO
    log_score_sum: Decimal = ZERO
    wins: int = 0
    trades: int = 0
    settled_positions: int = 0
    cal_count: tuple[int, ...] = (0,) * CALIBRATION_BINS
    cal_forecast: tuple[Decimal, ...] = (ZERO,) * CALIBRATION_BINS
    cal_wins: tuple[int, ...] = (0,) * CALIBRATION_BINS

"""Scoring rules: the arena's Brier, proper scores, calibration, and Metaculus-style scores.

Conventions: ``p`` is P(YES) and outcomes are 0/1; probabilities outside [0, 1] raise
``ValueError`` (as ``arena_core.errors.InvalidProbabilityError``); log scores are ``ln p(outcome)``
(≤ 0, higher is better) clipped to [eps, 1 − eps]; undefined skill scores are ``None``; baseline
and peer scores are ×100. Everything here is pure and deterministic.
"""

from arena_core.scoring.arena import arena_bet_brier
from arena_core.scoring.calibration import bin_index, calibration_curve, murphy_decomposition
from arena_core.scoring.metaculus import (
    baseline_score_binary,
    baseline_score_mc,
    peer_score,
    peer_scores_all,
    relative_log_score,
    time_averaged_baseline,
    time_averaged_peer,
)
from arena_core.scoring.proper import (
    brier_score,
    brier_skill_score,
    log_score,
    mean_brier_score,
    mean_log_score,
)

__all__ = [
    "arena_bet_brier",
    "baseline_score_binary",
    "baseline_score_mc",
    "bin_index",
    "brier_score",
    "brier_skill_score",
    "calibration_curve",
    "log_score",
    "mean_brier_score",
    "mean_log_score",
    "murphy_decomposition",
    "peer_score",
    "peer_scores_all",
    "relative_log_score",
    "time_averaged_baseline",
    "time_averaged_peer",
]

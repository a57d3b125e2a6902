"""Scoring the forecast panel at resolution (methodology ``v1+panel``), and its ensemble.

Per question (one panel market of one cohort's run) every agent's forecast gets its Brier and log
score, the market's Brier at capture beside it (skill against the market is aggregated from the
two), the Metaculus baseline score, and the Metaculus peer score among the cohort's models: all
of them forecast the same question at the same moment, so the models' peer scores sum to zero.
Baselines and the ensemble are scored against the same models (their peer scores are references,
outside that sum).

The ensemble is the log-loss-weighted average of the models' stated probabilities: a family's
weight is the geometric mean of the probabilities it gave to what happened, over its panel
forecasts that resolved before the run (exp of its mean log score), so no weight looks ahead;
with no such history every family weighs the same, and a family without history weighs as the
average of those with one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from arena_core.domain.panel import (
    P_MAX,
    P_MIN,
    PanelForecast,
    PanelQuestion,
    PanelScore,
    ScoredBy,
)
from arena_core.scoring.metaculus import baseline_score_binary, peer_score
from arena_core.scoring.proper import brier_score, log_score

ENSEMBLE = "ensemble"
SCORE_DIGITS = 12
WEIGHT_PLACES = Decimal("0.000001")


@dataclass(frozen=True)
class Entry:
    """One agent's forecast for a question, and who it is."""

    agent_id: str
    family_id: str
    scored_by: ScoredBy
    forecast: PanelForecast


def kept(score: float) -> float:
    """A score as stored and exported: to twelve decimal places, so the statistics computed
    from the store and those recomputed from the dataset read the same numbers."""
    return round(score, SCORE_DIGITS) + 0.0  # + 0.0: never -0.0


def _given(p_yes: float, outcome: int) -> float:
    return p_yes if outcome == 1 else 1.0 - p_yes


def question_scores(
    question: PanelQuestion, outcome: int, entries: Sequence[Entry], resolved_at: datetime
) -> list[PanelScore]:
    """Every entry's scores for one resolved question (``outcome``: 1 if YES won)."""
    models = [float(e.forecast.p_yes) for e in entries if e.scored_by is ScoredBy.LLM]
    given_by_models = [_given(p, outcome) for p in models]
    scores = []
    model_index = 0
    for entry in entries:
        p_yes = float(entry.forecast.p_yes)
        mine = _given(p_yes, outcome)
        if entry.scored_by is ScoredBy.LLM:
            others = given_by_models[:model_index] + given_by_models[model_index + 1 :]
            model_index += 1
        else:
            others = given_by_models
        scores.append(
            PanelScore(
                cohort_id=question.cohort_id,
                week=question.week,
                run_at=question.run_at,
                market_id=question.market.market_id,
                category=question.market.category,
                end_date=question.market.end_date,
                agent_id=entry.agent_id,
                family_id=entry.family_id,
                scored_by=entry.scored_by,
                stated=entry.forecast.stated,
                p_yes=entry.forecast.p_yes,
                clipped=entry.forecast.clipped,
                missing=entry.forecast.missing,
                market_p_yes=question.market.p_yes,
                outcome=outcome,
                brier=kept(brier_score(p_yes, outcome)),
                log_score=kept(log_score(p_yes, outcome)),
                market_brier=kept(brier_score(question.market.p_yes, outcome)),
                baseline_score=kept(baseline_score_binary(p_yes, outcome)),
                peer_score=kept(peer_score(mine, others)),
                resolved_at=resolved_at,
                event_id=question.market.event_id,
            )
        )
    return scores


def ensemble_weights(
    history: Iterable[PanelScore], families: Sequence[str], before: datetime
) -> dict[str, float]:
    """Each family's weight from its model forecasts resolved strictly before ``before``."""
    logs: dict[str, list[float]] = {}
    for score in history:
        if score.scored_by is ScoredBy.LLM and score.resolved_at < before:
            logs.setdefault(score.family_id, []).append(score.log_score)
    known = {f: math.exp(math.fsum(v) / len(v)) for f, v in logs.items() if f in families}
    if not known:
        return dict.fromkeys(families, 1.0)
    average = math.fsum(known.values()) / len(known)
    return {f: known.get(f, average) for f in families}


def ensemble_forecast(
    question: PanelQuestion, models: Sequence[Entry], weights: Mapping[str, float]
) -> PanelForecast:
    """The weighted average of the models' own (not filled-in) forecasts; the market's price at
    capture, flagged missing, when no model stated one."""
    stated = [e for e in models if not e.forecast.missing]
    total = math.fsum(weights.get(e.family_id, 0.0) for e in stated)
    if not stated or total <= 0.0:
        return PanelForecast(
            market_id=question.market.market_id,
            stated=None,
            p_yes=question.market.p_yes,
            missing=True,
        )
    mean = math.fsum(weights.get(e.family_id, 0.0) * float(e.forecast.p_yes) for e in stated)
    p_yes = Decimal(repr(mean / total)).quantize(WEIGHT_PLACES)
    p_yes = min(max(p_yes, P_MIN), P_MAX)  # an average of clipped values: a rounding guard
    return PanelForecast(market_id=question.market.market_id, stated=p_yes, p_yes=p_yes)

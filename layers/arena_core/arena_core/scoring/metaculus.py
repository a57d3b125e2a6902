"""Metaculus-style log-based scores: baseline, peer, relative, and their time averages.

Semantics follow the Metaculus scores FAQ: scores are ×100; the baseline is the uniform forecast
(50% on a binary question, 1/N on N options); a peer score is the mean log-score difference to
every other forecaster (0 when there is no one else); time-averaged scores integrate a step
function of forecasts over [open, scheduled close], count 0 where no forecast stands and after an
early resolution, and divide by the full scheduled duration. Coverage is the share of that
duration with a standing forecast.

The relative log score uses the natural logarithm, as Metaculus tournaments do since 2022.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import pairwise

from arena_core.scoring._checks import DEFAULT_EPS, Number, clipped, probability
from arena_core.scoring._checks import outcome as check_outcome

Moment = datetime | float | int
Forecast = Sequence[Number | datetime]


def _ln(p: Number, eps: float) -> float:
    return math.log(clipped(probability(p), eps))


def baseline_score_binary(p: Number, outcome: object, eps: float = DEFAULT_EPS) -> float:
    """100 × (ln P(outcome) − ln 0.5) / ln 2: +100 for certainty, 0 for 50%."""
    yes = probability(p)
    given = yes if check_outcome(outcome) == 1 else 1.0 - yes
    return 100.0 * (_ln(given, eps) - math.log(0.5)) / math.log(2.0)


def baseline_score_mc(
    probs: Sequence[Number], outcome_index: int, eps: float = DEFAULT_EPS
) -> float:
    """100 × (ln p_k − ln(1/N)) / ln N for the option k that happened."""
    values = [probability(p, "option probability") for p in probs]
    n = len(values)
    if n < 2:
        raise ValueError("a multiple-choice question needs at least two options")
    if not 0 <= outcome_index < n:
        raise ValueError(f"outcome_index {outcome_index} is not an option index")
    if abs(math.fsum(values) - 1.0) > 1e-6:
        raise ValueError(f"option probabilities sum to {math.fsum(values)}, not 1")
    return 100.0 * (_ln(values[outcome_index], eps) - math.log(1.0 / n)) / math.log(n)


def peer_score(p: Number, others: Sequence[Number], eps: float = DEFAULT_EPS) -> float:
    """100 × mean over others of (ln p − ln p_i); p and p_i are the probabilities each forecaster
    gave to the outcome that happened. With no others the score is 0."""
    mine = _ln(p, eps)
    if not others:
        return 0.0
    return 100.0 * math.fsum(mine - _ln(q, eps) for q in others) / len(others)


def peer_scores_all(probs: Sequence[Number], eps: float = DEFAULT_EPS) -> list[float]:
    """Every forecaster's peer score against all the others; they sum to zero."""
    return [peer_score(p, [*probs[:i], *probs[i + 1 :]], eps) for i, p in enumerate(probs)]


def relative_log_score(p: Number, median: Number, eps: float = DEFAULT_EPS) -> float:
    """ln p − ln m: the probability given to the outcome against the median's."""
    return _ln(p, eps) - _ln(median, eps)


def _seconds(moment: Moment | Number) -> float:
    if isinstance(moment, datetime):
        return moment.timestamp()
    if isinstance(moment, bool):
        raise ValueError(f"not a time: {moment!r}")
    return float(moment)


def _steps(forecasts: Sequence[Forecast]) -> list[tuple[float, float]]:
    """Sorted (time, P(yes)) steps; a later forecast at the same time replaces an earlier one."""
    steps: dict[float, float] = {}
    for entry in forecasts:
        if len(entry) != 2:
            raise ValueError(f"a forecast is [time, p_yes], got {entry!r}")
        moment, p_yes = entry
        if isinstance(p_yes, datetime):
            raise ValueError(f"a forecast is [time, p_yes], got {entry!r}")
        steps[_seconds(moment)] = probability(p_yes, "p_yes")
    return sorted(steps.items())


def _standing(steps: list[tuple[float, float]], at: float) -> float | None:
    current = None
    for moment, p_yes in steps:
        if moment > at:
            break
        current = p_yes
    return current


def _window(
    open_time: Moment, close_time: Moment, resolve_time: Moment
) -> tuple[float, float, float]:
    start, close, resolved = _seconds(open_time), _seconds(close_time), _seconds(resolve_time)
    if close <= start:
        raise ValueError("scheduled_close_time must be after open_time")
    return start, min(max(resolved, start), close), close - start


def _intervals(
    all_steps: Sequence[list[tuple[float, float]]], start: float, end: float
) -> list[tuple[float, float]]:
    cuts = {start, end} | {t for steps in all_steps for t, _ in steps if start < t < end}
    points = sorted(cuts)
    return [(a, b) for a, b in pairwise(points) if b > a]


def time_averaged_baseline(
    forecasts: Sequence[Forecast],
    outcome: object,
    *,
    open_time: Moment,
    scheduled_close_time: Moment,
    resolve_time: Moment,
    eps: float = DEFAULT_EPS,
) -> dict[str, float]:
    """Time-averaged binary baseline score of one forecaster's step function."""
    o = check_outcome(outcome)
    steps = _steps(forecasts)
    start, end, duration = _window(open_time, scheduled_close_time, resolve_time)
    total = covered = 0.0
    for a, b in _intervals([steps], start, end):
        p_yes = _standing(steps, a)
        if p_yes is None:
            continue
        total += baseline_score_binary(p_yes, o, eps) * (b - a)
        covered += b - a
    return {"score": total / duration, "coverage": covered / duration}


def time_averaged_peer(
    forecasters: Mapping[str, Sequence[Forecast]] | Sequence[Sequence[Forecast]],
    outcome: object,
    *,
    open_time: Moment,
    scheduled_close_time: Moment,
    resolve_time: Moment,
    eps: float = DEFAULT_EPS,
) -> dict[str, dict[str, float]] | list[dict[str, float]]:
    """Time-averaged peer scores: at each instant, each forecaster with a standing forecast is
    compared with every other forecaster who has one. Returns ``{"score", "coverage"}`` per
    forecaster, keyed like the input (a mapping gives a dict, a list gives a list)."""
    o = check_outcome(outcome)
    keys = list(forecasters) if isinstance(forecasters, Mapping) else list(range(len(forecasters)))
    steps = [_steps(forecasters[k]) for k in keys]  # type: ignore[index]
    start, end, duration = _window(open_time, scheduled_close_time, resolve_time)
    totals = [0.0] * len(keys)
    covered = [0.0] * len(keys)
    for a, b in _intervals(steps, start, end):
        standing = [_standing(s, a) for s in steps]
        given = {i: (p if o == 1 else 1.0 - p) for i, p in enumerate(standing) if p is not None}
        for i, mine in given.items():
            others = [q for j, q in given.items() if j != i]
            totals[i] += peer_score(mine, others, eps) * (b - a)
            covered[i] += b - a
    results = [
        {"score": totals[i] / duration, "coverage": covered[i] / duration} for i in range(len(keys))
    ]
    if isinstance(forecasters, Mapping):
        return {str(k): r for k, r in zip(keys, results, strict=True)}
    return results

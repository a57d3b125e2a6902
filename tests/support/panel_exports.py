"""Recompute the v1+panel leaderboard from a site's exported files alone, and compare.

What a researcher holding only ``panel_scores``, ``coherence``, ``forecasts`` and
``family_returns`` (with the rules stated in ``panel_leaderboard``) would do: check every
peer score against the models' stated probabilities of its question, rebuild the panel
statistics with the library, and find every figure of the published panel leaderboard.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

from arena_core.domain.coherence import TradeCoherence, coherence_summary
from arena_core.domain.panel import PanelScore, ScoredBy
from arena_core.scoring.metaculus import peer_score
from arena_core.scoring.statistics import Interval, ScoredForecast
from arena_core.site.panel_statistics import PanelStatistics, compute_panel
from arena_core.site.statistics import RankingRules, Statistics, compute

V1_PANEL = "v1+panel"
Row = dict[str, str]


def read_csv(path: Path) -> list[Row]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def number(text: str) -> float | None:
    return None if text == "" else float(text)


def six(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def panel_scores(data: Path) -> list[PanelScore]:
    rows = [r for r in read_csv(data / "panel_scores.csv") if r["methodology"] == V1_PANEL]
    return [
        PanelScore.model_validate(
            {
                k: (None if v == "" else v)
                for k, v in r.items()
                if k not in ("methodology", "run_week")
            }
        )
        for r in rows
    ]


def check_peer_scores(scores: list[PanelScore]) -> int:
    """Every stored peer score equals the one recomputed from the models' stated probabilities
    of its question; the models' sum to zero. Returns the number of questions checked."""
    questions: dict[tuple[str, int, str], list[PanelScore]] = defaultdict(list)
    for s in scores:
        questions[(s.cohort_id, s.week, s.market_id)].append(s)
    for rows in questions.values():
        given = {r.agent_id: float(r.p_yes if r.outcome else 1 - r.p_yes) for r in rows}
        models = [r.agent_id for r in rows if r.scored_by is ScoredBy.LLM]
        for r in rows:
            others = [given[m] for m in models if m != r.agent_id]
            assert math.isclose(r.peer_score, peer_score(given[r.agent_id], others), abs_tol=1e-9)
        total = math.fsum(r.peer_score for r in rows if r.scored_by is ScoredBy.LLM)
        assert math.isclose(total, 0.0, abs_tol=1e-9)
    return len(questions)


def _returns(data: Path) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    for r in read_csv(data / "family_returns.csv"):
        if r["methodology"] == V1_PANEL:
            found.setdefault(r["family_id"], {})[r["cohort_id"]] = float(Decimal(r["return_pct"]))
    return found


def _bets(data: Path, rules: RankingRules, returns: dict[str, dict[str, float]]) -> Statistics:
    rows: dict[str, list[ScoredForecast]] = {}
    for r in read_csv(data / "forecasts.csv"):
        if r["methodology"] != V1_PANEL:
            continue
        rows.setdefault(r["family_id"], []).append(
            ScoredForecast(
                family_id=r["family_id"],
                agent_id=r["agent_id"],
                cohort_id=r["cohort_id"],
                market_id=r["market_id"],
                p_yes=float(Decimal(r["p_yes"])),
                market_p_yes=float(Decimal(r["market_p_yes"])),
                outcome=int(r["outcome"]),
            )
        )
    return compute(rows, returns, rankable=set(), rules=rules, groups={})


def _coherence(data: Path) -> dict[str, list[TradeCoherence]]:
    found: dict[str, list[TradeCoherence]] = defaultdict(list)
    names = TradeCoherence.model_fields
    for r in read_csv(data / "coherence.csv"):
        values: dict[str, Any] = {k: (None if v == "" else v) for k, v in r.items() if k in names}
        found[r["family_id"]].append(TradeCoherence.model_validate(values))
    return found


def _assert_interval(row: Row, estimate: str, prefix: str, interval: Interval | None) -> None:
    expected = (
        (None, None, None) if interval is None else (interval.estimate, interval.low, interval.high)
    )
    found = (number(row[estimate]), number(row[f"{prefix}_low"]), number(row[f"{prefix}_high"]))
    assert found == tuple(six(v) for v in expected), (row["family_id"], estimate)


def recompute_panel_leaderboard(data: Path) -> PanelStatistics:
    """Assert every figure of ``panel_leaderboard.csv`` recomputes from the input tables."""
    board = [r for r in read_csv(data / "panel_leaderboard.csv") if r["methodology"] == V1_PANEL]
    assert board, "no v1+panel leaderboard"
    rules = RankingRules(int(board[0]["min_forecasts"]), int(board[0]["min_weeks"]))
    scores = panel_scores(data)
    check_peer_scores(scores)
    returns = _returns(data)
    panel = compute_panel(scores, returns, rules)
    bets = _bets(data, rules, returns)
    coherence = _coherence(data)
    for row in board:
        family = row["family_id"]
        stats = panel.families.get(family)
        shared = panel.shared.families.get(family)
        assert row["rank"] == ("" if stats is None or stats.rank is None else str(stats.rank))
        ranks = ("", "") if stats is None or stats.rank_range is None else stats.rank_range
        assert (row["rank_best"], row["rank_worst"]) == tuple(map(str, ranks))
        assert int(row["panel_forecasts"]) == (stats.forecasts if stats else 0)
        assert int(row["missing"]) == (stats.missing if stats else 0)
        _assert_interval(row, "peer_score", "peer_score", stats.peer if stats else None)
        _assert_interval(row, "baseline_score", "baseline_score", stats.baseline if stats else None)
        _assert_interval(row, "brier", "brier", shared.brier if shared else None)
        _assert_interval(row, "brier_skill_vs_market", "skill", shared.skill if shared else None)
        if row["kind"] in ("llm", "baseline"):
            summary = coherence_summary(coherence.get(family, []))
            assert int(row["coherence_trades"]) == summary.trades
            assert int(row["coherent_trades"]) == summary.coherent
            median = summary.median_size_to_kelly
            assert number(row["median_size_to_kelly"]) == (
                None if median is None else float(median)
            )
            trading = bets.families.get(family)
            _assert_interval(row, "bet_brier", "bet_brier", trading.brier if trading else None)
            _assert_interval(row, "return_pct_mean", "return", trading.returns if trading else None)
    return panel

"""The v1+panel statistics and leaderboard on constructed panel scores: ranking by peer score
then Brier, rank ranges, the minimum sample over run weeks, the market as a forecaster, the
reference rows, and the coherence summaries."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from arena_core.domain.coherence import TradeCoherence, coherence_of, coherence_summary
from arena_core.domain.panel import (
    PanelForecast,
    PanelMarket,
    PanelQuestion,
    PanelScore,
    ScoredBy,
)
from arena_core.scoring.panel import Entry, question_scores
from arena_core.site.panel_statistics import MARKET, compute_panel, market_rows, run_week
from arena_core.site.statistics import RankingRules

RUN = datetime(2026, 3, 1, 0, 5, tzinfo=UTC)
RULES = RankingRules(min_forecasts=6, min_cohorts=2)


def question(week: int, index: int, price: str) -> PanelQuestion:
    run_at = RUN + timedelta(weeks=week)
    market = PanelMarket(
        market_id=f"m{week}-{index}",
        question="?",
        category="cat-a" if index % 2 else "cat-b",
        end_date=run_at + timedelta(days=3),
        p_yes=Decimal(price),
    )
    return PanelQuestion(
        cohort_id="c2026-03-01", week=week + 1, run_at=run_at, market=market, agent_ids=()
    )


def forecast(market: str, p: str, *, missing: bool = False) -> PanelForecast:
    return PanelForecast(
        market_id=market, stated=None if missing else Decimal(p), p_yes=Decimal(p), missing=missing
    )


def scores(weeks: int, per_week: int, stated: dict[str, str]) -> list[PanelScore]:
    """Every question resolves YES; each family states its own constant probability."""
    found: list[PanelScore] = []
    for week in range(weeks):
        for index in range(per_week):
            q = question(week, index, "0.5")
            entries = [
                Entry(f"c.{family}", family, ScoredBy.LLM, forecast(q.market.market_id, p))
                for family, p in stated.items()
            ]
            entries.append(
                Entry(
                    "c.follower", "follower", ScoredBy.BASELINE, forecast(q.market.market_id, "0.5")
                )
            )
            found += question_scores(q, 1, entries, q.run_at + timedelta(days=3))
    return found


def test_families_rank_by_peer_score_with_rank_ranges_over_run_weeks() -> None:
    rows = scores(3, 4, {"good": "0.9", "fair": "0.7", "poor": "0.3"})
    stats = compute_panel(rows, {}, RULES).families
    assert [stats[f].rank for f in ("good", "fair", "poor")] == [1, 2, 3]
    assert stats["good"].weeks == 3 and stats["good"].forecasts == 12
    # Every week alike: the intervals collapse onto the estimates, which never overlap.
    assert [stats[f].rank_range for f in ("good", "fair", "poor")] == [(1, 1), (2, 2), (3, 3)]
    expected = 100 * (math.log(0.9 / 0.7) + math.log(0.9 / 0.3)) / 2
    assert stats["good"].peer is not None
    assert stats["good"].peer.estimate == pytest.approx(expected)
    peers = [stats[f].peer for f in ("good", "fair", "poor")]
    assert math.fsum(p.estimate for p in peers if p) == pytest.approx(0.0, abs=1e-9)
    assert stats["follower"].rank is None and stats["follower"].scored_by is ScoredBy.BASELINE


def test_peer_ties_are_broken_by_brier() -> None:
    rows = scores(2, 4, {"a": "0.8", "b": "0.8"})
    stats = compute_panel(rows, {}, RULES).families
    assert stats["a"].rank == 1 and stats["b"].rank == 2  # equal peer and Brier: by id
    assert stats["b"].tied_with_leader


def test_the_minimum_sample_counts_run_weeks() -> None:
    rows = scores(1, 8, {"a": "0.8", "b": "0.6"})
    stats = compute_panel(rows, {}, RULES).families
    assert stats["a"].forecasts == 8 and stats["a"].weeks == 1
    assert not stats["a"].eligible and stats["a"].rank is None


def test_the_market_is_a_forecaster_peer_scored_against_the_models() -> None:
    rows = scores(1, 2, {"a": "0.8", "b": "0.6"})
    market = market_rows(rows)
    assert len(market) == 2 and {m.family_id for m in market} == {MARKET}
    expected = 100 * (math.log(0.5 / 0.8) + math.log(0.5 / 0.6)) / 2
    assert market[0].peer_score == pytest.approx(expected)
    assert market[0].brier == pytest.approx(0.25) and market[0].scored_by is ScoredBy.MARKET
    shared = compute_panel(rows, {}, RULES).shared.families[MARKET]
    assert shared.skill is not None and shared.skill.estimate == pytest.approx(0.0)


def test_clusters_are_run_weeks_not_cohorts() -> None:
    (row, *_) = scores(1, 1, {"a": "0.8"})
    other = row.model_copy(update={"cohort_id": "c2026-02-22", "week": 2})
    assert run_week(row) == run_week(other) == "w2026-03-01"


def coherent_buy(p: str, price: str, amount: str) -> TradeCoherence:
    return coherence_of(
        "m",
        "YES",
        yes_side=True,
        p_yes=Decimal(p),
        yes_price=Decimal(price),
        amount=Decimal(amount),
        cash=Decimal(1000),
    )


def test_coherence_summary_shares_and_median_size_to_kelly() -> None:
    trades = [
        coherent_buy("0.6", "0.5", "100"),  # Kelly 0.2: size 0.1 -> 0.5
        coherent_buy("0.8", "0.5", "250"),  # Kelly capped at 0.25: size 0.25 -> 1
        coherent_buy("0.4", "0.5", "50"),  # against the stated edge: no Kelly ratio
    ]
    summary = coherence_summary(trades)
    assert (summary.trades, summary.coherent) == (3, 2)
    assert summary.share == Decimal("0.666667")
    assert summary.median_size_to_kelly == Decimal("0.75")
    empty = coherence_summary(())
    assert (empty.share, empty.median_size_to_kelly) == (None, None)

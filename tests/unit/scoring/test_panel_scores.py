"""Panel scores against hand-computed values; the ensemble's weights never look ahead."""

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from arena_core.domain.panel import PanelForecast, PanelMarket, PanelQuestion, ScoredBy
from arena_core.scoring.panel import Entry, ensemble_forecast, ensemble_weights, question_scores

RUN = datetime(2026, 2, 1, 12, tzinfo=UTC)
QUESTION = PanelQuestion(
    cohort_id="c2026-02-01",
    week=1,
    run_at=RUN,
    market=PanelMarket(
        market_id="m",
        question="?",
        category="x",
        end_date=RUN + timedelta(days=5),
        p_yes=Decimal("0.6"),
    ),
    agent_ids=("c.a", "c.b", "c.f"),
)


def entry(agent: str, p: str, by: ScoredBy = ScoredBy.LLM, *, missing: bool = False) -> Entry:
    forecast = PanelForecast(
        market_id="m", stated=None if missing else Decimal(p), p_yes=Decimal(p), missing=missing
    )
    return Entry(f"c.{agent}", agent, by, forecast)


ENTRIES = [entry("a", "0.8"), entry("b", "0.5"), entry("f", "0.6", ScoredBy.BASELINE)]


def test_scores_match_hand_computed_values() -> None:
    a, b, follower = question_scores(QUESTION, 1, ENTRIES, RUN + timedelta(days=5))
    assert a.brier == pytest.approx(0.04) and a.market_brier == pytest.approx(0.16)
    assert a.log_score == pytest.approx(math.log(0.8))
    assert a.baseline_score == pytest.approx(100 * math.log(0.8 / 0.5) / math.log(2))
    assert a.peer_score == pytest.approx(100 * math.log(0.8 / 0.5))
    assert a.peer_score + b.peer_score == pytest.approx(0.0, abs=1e-12)
    # A baseline is compared with the models, outside their zero sum.
    expected = 100 * (math.log(0.6 / 0.8) + math.log(0.6 / 0.5)) / 2
    assert follower.peer_score == pytest.approx(expected)
    assert follower.brier == follower.market_brier  # the market's price: zero skill


def test_a_no_resolution_scores_the_other_side() -> None:
    a, b, _ = question_scores(QUESTION, 0, ENTRIES, RUN)
    assert a.brier == pytest.approx(0.64) and a.log_score == pytest.approx(math.log(0.2))
    assert a.peer_score == pytest.approx(100 * math.log(0.2 / 0.5))
    assert a.outcome == 0 and b.peer_score == -a.peer_score


def test_the_ensemble_weighs_families_by_their_past_and_only_their_past() -> None:
    assert ensemble_weights([], ["a", "b"], RUN) == {"a": 1.0, "b": 1.0}
    past = question_scores(QUESTION, 1, ENTRIES, RUN - timedelta(days=1))
    future = question_scores(QUESTION, 0, ENTRIES, RUN + timedelta(days=1))
    weights = ensemble_weights([*past, *future], ["a", "b", "new"], RUN)
    assert weights["a"] == pytest.approx(0.8) and weights["b"] == pytest.approx(0.5)
    assert weights["new"] == pytest.approx(0.65)  # no history: the average weight
    models = [entry("a", "0.8"), entry("b", "0.5"), entry("new", "0.9", missing=True)]
    blended = ensemble_forecast(QUESTION, models, weights)
    assert float(blended.p_yes) == pytest.approx((0.8 * 0.8 + 0.5 * 0.5) / 1.3, abs=1e-6)
    nobody = ensemble_forecast(QUESTION, [entry("a", "0.8", missing=True)], weights)
    assert nobody.missing and nobody.p_yes == Decimal("0.6")

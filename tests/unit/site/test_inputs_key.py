"""What the forecasts table is computed from (``inputs.forecasts_key``): the same scores at
the same maturity give the same key; a score more, another methodology or a forecast maturing
give another."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from arena_core.domain.portfolio import BetScore
from arena_core.site.inputs import forecasts_key

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _score(trade_id: str, closes_in: timedelta) -> BetScore:
    return BetScore(
        trade_id=trade_id, agent_id="c.a", cohort_id="c", family_id="a", market_id="m",
        side="YES", amount=Decimal(10), cash_before=Decimal(100), forecast=Decimal("0.6"),
        market_price=Decimal("0.5"), won=True, brier=Decimal("0.16"),
        market_brier=Decimal("0.25"), log_score=Decimal("-0.51"), scored_at=NOW,
        closes_at=NOW + closes_in,
    )  # fmt: skip


def test_the_key_moves_with_what_the_table_shows_and_nothing_else() -> None:
    scores = [_score("t1", timedelta(hours=-1)), _score("t2", timedelta(hours=2))]
    key = forecasts_key("v1", scores, NOW)
    assert forecasts_key("v1", list(scores), NOW + timedelta(minutes=10)) == key
    assert forecasts_key("v1", scores, NOW + timedelta(hours=2)) != key  # t2 matured
    assert forecasts_key("v1", [*scores, _score("t3", timedelta(0))], NOW) != key
    assert forecasts_key("v1+panel", scores, NOW) != key
    assert forecasts_key("v1", scores[::-1], NOW) != key  # the rows' order is the table's

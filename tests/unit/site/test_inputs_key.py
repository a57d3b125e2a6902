"""What the forecasts table's digests are kept under (``publication/boards.py``: the
methodology, each family's scored count and the cohorts, digested canonically by the memo): the
same counts over the same cohorts give the same key, a score more, another methodology or
another cohort another; ``rows.next_maturity`` says until when the kept digests hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from arena_core.dataset.rows import next_maturity
from arena_core.domain.portfolio import BetScore
from arena_core.publication.memo import inputs_digest

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _score(trade_id: str, closes_in: timedelta) -> BetScore:
    return BetScore(
        trade_id=trade_id, agent_id="c.a", cohort_id="c", family_id="a", market_id="m",
        side="YES", amount=Decimal(10), cash_before=Decimal(100), forecast=Decimal("0.6"),
        market_price=Decimal("0.5"), won=True, brier=Decimal("0.16"),
        market_brier=Decimal("0.25"), log_score=Decimal("-0.51"), scored_at=NOW,
        closes_at=NOW + closes_in,
    )  # fmt: skip


def forecasts_key(methodology: str, counts: dict[str, int], cohorts: list[str]) -> str:
    """The inputs the forecasts table's digests are kept under, as the board reader gives them."""
    return inputs_digest([methodology, counts, sorted(cohorts)])


def test_the_key_moves_with_what_the_table_shows_and_nothing_else() -> None:
    counts, cohorts = {"a": 2, "b": 0}, ["c1", "c2"]
    key = forecasts_key("v1", counts, cohorts)
    assert forecasts_key("v1", dict(reversed(counts.items())), cohorts[::-1]) == key
    assert forecasts_key("v1", {**counts, "a": 3}, cohorts) != key  # a score more
    assert forecasts_key("v1", {**counts, "c": 0}, cohorts) != key  # another family
    assert forecasts_key("v1", counts, [*cohorts, "c3"]) != key
    assert forecasts_key("v1+panel", counts, cohorts) != key


def test_a_key_holds_until_the_first_unmatured_score_matures() -> None:
    scores = [
        _score("t1", timedelta(hours=-1)),
        _score("t2", timedelta(hours=3)),
        _score("t3", timedelta(hours=2)),
    ]
    assert next_maturity(scores, NOW) == NOW + timedelta(hours=2)
    assert next_maturity(scores, NOW + timedelta(hours=2)) == NOW + timedelta(hours=3)
    assert next_maturity(scores, NOW + timedelta(hours=3)) is None
    assert next_maturity([], NOW) is None

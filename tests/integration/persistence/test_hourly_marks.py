"""Each hour's sheet of prices on every backend: one item an hour, rewritten in place by a
rerun, read back by hour range oldest first; an empty sheet is not written."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from arena_core.domain.market_record import HourlyMarks
from arena_core.ports.stores import Stores
from tests.support.builders import WEEK0


def sheet(hours: int, **prices: str) -> HourlyMarks:
    return HourlyMarks(
        hour=WEEK0 + timedelta(hours=hours), prices={k: Decimal(v) for k, v in prices.items()}
    )


def test_sheets_are_read_by_hour_range_oldest_first(stores: Stores) -> None:
    for hours in (3, 0, 2, 1):
        stores.markets.record_marks(sheet(hours, m1=f"0.4{hours}", m2="0.5"))
    found = stores.markets.marks(WEEK0 + timedelta(hours=1), WEEK0 + timedelta(hours=2))
    assert found == [sheet(1, m1="0.41", m2="0.5"), sheet(2, m1="0.42", m2="0.5")]
    assert len(stores.markets.marks(WEEK0, WEEK0 + timedelta(days=1))) == 4
    assert stores.markets.marks(WEEK0 + timedelta(days=1), WEEK0 + timedelta(days=2)) == []


def test_a_rerun_of_the_hour_rewrites_its_sheet_and_an_empty_one_is_not_written(
    stores: Stores,
) -> None:
    stores.markets.record_marks(sheet(0, m1="0.40"))
    stores.markets.record_marks(sheet(0, m1="0.45"))
    stores.markets.record_marks(sheet(1))
    found = stores.markets.marks(WEEK0, WEEK0 + timedelta(hours=1))
    assert found == [sheet(0, m1="0.45")]


def test_prices_come_back_exactly_beyond_dynamodbs_digits(stores: Stores) -> None:
    """Recorded prices can exceed DynamoDB's 38 significant digits: kept as text."""
    long = "0." + "1234567890" * 5
    stores.markets.record_marks(sheet(0, m1=long))
    ((back,),) = [s.prices.values() for s in stores.markets.marks(WEEK0, WEEK0)]
    assert back == Decimal(long)

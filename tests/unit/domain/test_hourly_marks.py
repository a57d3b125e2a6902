"""An hour's sheet of prices holds the first outcome's price of every market it can mark
(issue 28 §2: market pages plot the price at every hourly mark)."""

from __future__ import annotations

from decimal import Decimal

from arena_core.domain.market import Market, OutcomeQuote, ResolutionKind
from arena_core.domain.market_record import HourlyMarks
from tests.support.builders import WEEK0, binary, resolved


def test_a_sheet_keeps_the_first_outcomes_usable_price_of_markets_still_open() -> None:
    unpriced = Market(
        market_id="m4", question="Q?", outcomes=(OutcomeQuote(name="A"), OutcomeQuote(name="B"))
    )
    out_of_range = binary("m5", "0.5").model_copy(
        update={"outcomes": (OutcomeQuote(name="Yes", price=Decimal("1.5")),)}
    )
    sheet = HourlyMarks.of(
        WEEK0,
        [
            binary("m2", "0.25"),
            binary("m1", "0"),
            resolved(binary("m3", "0.9"), ResolutionKind.WINNER, "Yes"),
            unpriced,
            out_of_range,
        ],
    )
    assert sheet.hour == WEEK0
    assert sheet.prices == {"m1": Decimal("0"), "m2": Decimal("0.25")}  # in id order


def test_a_sheet_of_nothing_is_empty() -> None:
    assert HourlyMarks.of(WEEK0, []).prices == {}

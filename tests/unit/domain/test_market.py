"""Market sides and side-correct prices (methodology v1 §10.3-10.4)."""

from decimal import Decimal

import pytest
from pydantic import ValidationError

from arena_core.domain.market import (
    NO,
    YES,
    Market,
    MarketStatus,
    OutcomeQuote,
    Resolution,
    ResolutionKind,
)
from arena_core.errors import UnknownSideError
from tests.unit.domain.factories import binary, named, resolved


def test_binary_sides_and_no_price_is_one_minus_yes() -> None:
    market = binary(yes="0.37")
    assert market.is_binary
    assert market.sides == (YES, NO)
    assert market.side_price("yes") == Decimal("0.37")
    assert market.side_price(" No ") == Decimal("0.63")


def test_no_price_ignores_the_no_quote() -> None:
    market = Market(
        market_id="m",
        question="q",
        outcomes=(
            OutcomeQuote(name="Yes", price=Decimal("0.4")),
            OutcomeQuote(name="No", price=Decimal("0.7")),
        ),
    )
    assert market.side_price("NO") == Decimal("0.6")


def test_named_outcomes_trade_at_their_own_price() -> None:
    market = named()
    assert not market.is_binary
    assert market.canonical_side("celtics") == "Celtics"
    assert market.side_price("KNICKS") == Decimal("0.20")


def test_unknown_side_names_the_choices() -> None:
    with pytest.raises(UnknownSideError, match="Lakers, Celtics, Knicks"):
        named().canonical_side("YES")


def test_missing_price_is_none() -> None:
    assert binary(yes=None).side_price("NO") is None


def test_resolution_consistency_is_enforced() -> None:
    with pytest.raises(ValidationError):
        binary().model_copy(update={"status": MarketStatus.RESOLVED}).model_validate(
            binary().model_dump() | {"status": "resolved"}
        )
    with pytest.raises(ValidationError):
        Resolution(kind=ResolutionKind.WINNER)
    with pytest.raises(ValidationError):
        Resolution(kind=ResolutionKind.SPLIT, winner="YES")


def test_winner_must_be_a_side() -> None:
    with pytest.raises(ValidationError, match="winner"):
        Market.model_validate(
            binary().model_dump()
            | {"status": "resolved", "resolution": {"kind": "winner", "winner": "Maybe"}}
        )


def test_side_won() -> None:
    market = resolved(binary(), ResolutionKind.WINNER, "YES")
    assert market.side_won("yes")
    assert not market.side_won("NO")


def test_duplicate_outcomes_rejected() -> None:
    with pytest.raises(ValidationError, match="distinct"):
        named(prices={"A": "0.5", "a": "0.5"})

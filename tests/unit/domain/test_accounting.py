"""Buys, sells, marks and settlement: the worked examples and the edge cases."""

from decimal import Decimal

import pytest

from arena_core.domain import accounting
from arena_core.domain.accounting import TradeContext
from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_core.domain.portfolio import PositionStatus, SettlementKind
from arena_core.domain.valuation import totals
from arena_core.errors import (
    BetAboveMaximumError,
    BetBelowMinimumError,
    EmptyTradeError,
    InvalidPercentageError,
    InvalidPriceError,
    MarketNotTradableError,
    NotSettleableError,
    PositionMismatchError,
    UnknownPositionError,
)
from arena_local.book import Book
from tests.unit.domain.factories import T0, binary, closed, named, resolved

D = Decimal


def ctx(trade_id: str = "d1-t0", agent_id: str = "a1") -> TradeContext:
    return TradeContext(agent_id, "c1", "d1", trade_id, T0)


def test_buy_500_yes_at_040_gives_1250_shares() -> None:
    execution = accounting.buy(
        ctx(),
        cash=D("10000"),
        market=binary(yes="0.40"),
        side="YES",
        amount=D("500"),
        existing=None,
    )
    assert execution.trade.shares == D("1250")
    assert execution.cash_after == D("9500")
    assert execution.position.cost_basis == D("500")
    assert execution.position.avg_entry_price == D("0.4")
    assert execution.trade.implied_confidence == D("0.2")


def test_no_side_buys_at_one_minus_yes() -> None:
    execution = accounting.buy(
        ctx(), cash=D("10000"), market=binary(yes="0.40"), side="no", amount=D("600"), existing=None
    )
    assert execution.trade.price == D("0.60")
    assert execution.trade.shares == D("1000")
    assert execution.position.side == "NO"


def test_second_bet_same_side_adds_and_updates_average_price() -> None:
    book = Book("a1")
    book.buy(binary(yes="0.40"), "YES", D("500"), decision_id="d1", at=T0)
    book.buy(binary(yes="0.50"), "YES", D("500"), decision_id="d2", at=T0)
    (position,) = book.positions.values()
    assert position.shares == D("2250")
    assert position.cost_basis == D("1000")
    assert position.avg_entry_price == D("1000") / D("2250")
    assert len(book.trades) == 2


def test_opposite_side_is_a_separate_position() -> None:
    book = Book("a1")
    book.buy(binary(), "YES", D("100"), decision_id="d1", at=T0)
    book.buy(binary(), "NO", D("100"), decision_id="d1", at=T0)
    assert len(book.positions) == 2


@pytest.mark.parametrize(
    ("amount", "error"),
    [(D("49.99"), BetBelowMinimumError), (D("2500.01"), BetAboveMaximumError)],
)
def test_bet_limits(amount: Decimal, error: type[Exception]) -> None:
    with pytest.raises(error):
        accounting.buy(
            ctx(), cash=D("10000"), market=binary(), side="YES", amount=amount, existing=None
        )


def test_max_bet_is_25_percent_of_current_cash() -> None:
    execution = accounting.buy(
        ctx(), cash=D("8000"), market=binary(), side="YES", amount=D("2000"), existing=None
    )
    assert execution.trade.implied_confidence == D("1")
    with pytest.raises(BetAboveMaximumError):
        accounting.buy(
            ctx(), cash=D("7999.99"), market=binary(), side="YES", amount=D("2000"), existing=None
        )


def test_sub_cent_amounts_are_truncated() -> None:
    execution = accounting.buy(
        ctx(), cash=D("10000"), market=binary(), side="YES", amount=D("100.999"), existing=None
    )
    assert execution.trade.amount == D("100.99")


@pytest.mark.parametrize("yes", ["0", "1", None])
def test_price_must_be_strictly_inside_zero_one(yes: str | None) -> None:
    with pytest.raises(InvalidPriceError):
        accounting.buy(
            ctx(),
            cash=D("10000"),
            market=binary(yes=yes),
            side="YES",
            amount=D("100"),
            existing=None,
        )


def test_closed_market_cannot_be_traded() -> None:
    market = binary().model_copy(update={"status": MarketStatus.CLOSED})
    with pytest.raises(MarketNotTradableError):
        accounting.buy(
            ctx(), cash=D("10000"), market=market, side="YES", amount=D("100"), existing=None
        )


def test_sell_half_reduces_basis_proportionally_and_realizes_pnl() -> None:
    book = Book("a1")
    trade = book.buy(binary(yes="0.40"), "YES", D("500"), decision_id="d1", at=T0)
    sale = book.sell(binary(yes="0.60"), trade.position_id, D("50"), decision_id="d2", at=T0)
    assert sale.shares == D("625")
    assert sale.amount == D("375")
    assert sale.cost_basis_sold == D("250")
    assert sale.realized_pnl == D("125")
    position = book.positions[trade.position_id]
    assert position.shares == D("625")
    assert position.cost_basis == D("250")
    assert position.is_open
    assert book.cash == D("9875")


def test_selling_100_percent_closes_the_position_exactly() -> None:
    book = Book("a1")
    trade = book.buy(binary(yes="0.37"), "YES", D("333.33"), decision_id="d1", at=T0)
    book.sell(binary(yes="0.41"), trade.position_id, D("33.3"), decision_id="d2", at=T0)
    book.sell(binary(yes="0.45"), trade.position_id, D("100"), decision_id="d3", at=T0)
    position = book.positions[trade.position_id]
    assert position.status is PositionStatus.CLOSED
    assert position.shares == 0
    assert position.cost_basis == 0
    book.reconcile()


@pytest.mark.parametrize("pct", [D("0"), D("-5"), D("100.01"), D("150")])
def test_sell_percentage_must_be_in_0_100(pct: Decimal) -> None:
    book = Book("a1")
    trade = book.buy(binary(), "YES", D("100"), decision_id="d1", at=T0)
    with pytest.raises(InvalidPercentageError):
        book.sell(binary(), trade.position_id, pct, decision_id="d2", at=T0)


def test_sell_unknown_or_foreign_position() -> None:
    book = Book("a1")
    with pytest.raises(UnknownPositionError):
        book.sell(binary(), "nope", D("10"), decision_id="d1", at=T0)
    trade = book.buy(binary("m1"), "YES", D("100"), decision_id="d1", at=T0)
    with pytest.raises(PositionMismatchError):
        book.sell(binary("m9"), trade.position_id, D("10"), decision_id="d2", at=T0)


def test_mark_uses_side_correct_price() -> None:
    book = Book("a1")
    book.buy(binary(yes="0.40"), "NO", D("600"), decision_id="d1", at=T0)
    totals = book.totals({"m1": binary(yes="0.30")})
    # 1000 NO shares marked at 0.70.
    assert totals.positions_value == D("700.00")
    assert totals.total_value == D("10100.00")
    assert totals.pnl == D("100.00")
    assert totals.pnl_pct == D("1")


def test_closed_unresolved_market_without_price_keeps_prior_valuation() -> None:
    book = Book("a1")
    trade = book.buy(binary(yes="0.40"), "YES", D("500"), decision_id="d1", at=T0)
    book.positions[trade.position_id] = book.positions[trade.position_id].model_copy(
        update={"last_mark_price": D("0.55")}
    )
    mark = book.marks({"m1": closed(binary())})[trade.position_id]
    assert mark.stale
    assert mark.value == D("1250") * D("0.55")
    # Missing from the refresh entirely: same fallback, never zero.
    assert book.marks({})[trade.position_id].value == D("687.5")


def test_closed_market_with_a_price_uses_it() -> None:
    book = Book("a1")
    trade = book.buy(binary(yes="0.40"), "YES", D("500"), decision_id="d1", at=T0)
    mark = book.marks({"m1": closed(binary(), yes="0.99")})[trade.position_id]
    assert not mark.stale
    assert mark.price == D("0.99")


def test_portfolio_example_from_scoring_methodology() -> None:
    result = totals(D("7500"), [D("3200")])
    assert result.total_value == D("10700")
    assert result.pnl == D("700")
    assert result.pnl_pct == D("7")


def test_settlement_winner_pays_one_dollar_and_scores_brier() -> None:
    book = Book("a1", family_id="fam")
    book.buy(binary(yes="0.40"), "YES", D("500"), decision_id="d1", at=T0)
    (record,) = book.settle(resolved(binary(), ResolutionKind.WINNER, "YES"), at=T0)
    assert record.kind is SettlementKind.WON
    assert record.payout == D("1250")
    assert record.realized_pnl == D("750")
    assert book.cash == D("10750")
    (score,) = book.bet_scores
    assert score.forecast == D("0.2")
    assert score.brier == (D("0.2") - 1) ** 2
    assert score.market_price == D("0.40")
    book.reconcile()


def test_settlement_loser_pays_nothing() -> None:
    book = Book("a1")
    book.buy(binary(yes="0.40"), "NO", D("600"), decision_id="d1", at=T0)
    (record,) = book.settle(resolved(binary(), ResolutionKind.WINNER, "YES"), at=T0)
    assert record.kind is SettlementKind.LOST
    assert record.payout == 0
    assert book.bet_scores[0].won is False
    assert book.bet_scores[0].brier == (D("600") / D("2500")) ** 2


def test_split_pays_half_and_is_excluded_from_brier() -> None:
    book = Book("a1")
    book.buy(named(), "Lakers", D("300"), decision_id="d1", at=T0)
    (record,) = book.settle(resolved(named(), ResolutionKind.SPLIT), at=T0)
    assert record.kind is SettlementKind.SPLIT
    assert record.payout == D("500.00")  # 1000 shares x $0.50
    assert book.bet_scores == []
    book.reconcile()


def test_indeterminate_refunds_remaining_cost_as_cancelled() -> None:
    book = Book("a1")
    trade = book.buy(binary(yes="0.40"), "YES", D("500"), decision_id="d1", at=T0)
    book.sell(binary(yes="0.50"), trade.position_id, D("20"), decision_id="d2", at=T0)
    (record,) = book.settle(resolved(binary(), ResolutionKind.INDETERMINATE), at=T0)
    assert record.kind is SettlementKind.CANCELLED
    assert record.is_refund
    assert record.payout == D("400")
    assert book.positions[trade.position_id].status is PositionStatus.CANCELLED
    assert book.bet_scores == []
    sums = book.reconcile()
    assert sums.refunds == D("400")
    assert sums.payouts == 0


def test_unresolved_markets_do_not_settle_and_resettling_is_a_no_op() -> None:
    book = Book("a1")
    book.buy(binary(), "YES", D("100"), decision_id="d1", at=T0)
    with pytest.raises(NotSettleableError):
        book.settle(binary(), at=T0)
    market = resolved(binary(), ResolutionKind.WINNER, "NO")
    assert len(book.settle(market, at=T0)) == 1
    cash = book.cash
    assert book.settle(market, at=T0) == []
    assert book.cash == cash
    assert len(book.settlements) == 1


# --- issue 26 §5 -----------------------------------------------------------------------------


def test_a_sell_that_would_return_less_than_a_cent_is_refused() -> None:
    """Before: selling 0.0000001% of a large position executed a $0.00 trade, and the SELL
    counted as succeeded."""
    book = Book("a1")
    trade = book.buy(binary(yes="0.01"), "YES", D("2500"), decision_id="d1", at=T0)
    assert book.positions[trade.position_id].shares == D("250000")
    with pytest.raises(EmptyTradeError, match="less than a cent"):
        book.sell(binary(yes="0.01"), trade.position_id, D("0.0000001"), decision_id="d2", at=T0)
    assert len(book.trades) == 1
    sold = book.sell(binary(yes="0.01"), trade.position_id, D("0.0004"), decision_id="d3", at=T0)
    assert sold.amount == D("0.01")  # one cent is a trade


def test_the_portfolio_right_after_a_buy_at_an_unchanged_price_is_worth_what_it_was() -> None:
    """Before: $100 at 0.30 buys 333.333333 shares, worth $99.9999999: rounded down, the
    portfolio showed $9,999.99 right after the buy. Values round to the nearest cent, as a
    sale of the position would."""
    book = Book("a1")
    book.buy(binary(yes="0.30"), "YES", D("100"), decision_id="d1", at=T0)
    result = book.totals({"m1": binary(yes="0.30")})
    assert result.positions_value == D("100.00")
    assert result.total_value == D("10000.00")
    assert result.pnl == 0


def test_the_book_scores_buys_of_positions_sold_before_resolution() -> None:
    """The book settles as the settlement service does: every buy on a resolved market is
    scored, whatever became of its position (before: open positions only)."""
    book = Book("a1", family_id="fam")
    kept = book.buy(binary(yes="0.40"), "YES", D("500"), decision_id="d1", at=T0)
    sold = book.buy(binary(yes="0.40"), "NO", D("600"), decision_id="d1", at=T0)
    book.sell(binary(yes="0.40"), sold.position_id, D("100"), decision_id="d2", at=T0)
    market = resolved(binary(), ResolutionKind.WINNER, "YES")
    (record,) = book.settle(market, at=T0)
    assert record.position_id == kept.position_id
    assert sorted(s.trade_id for s in book.bet_scores) == sorted([kept.trade_id, sold.trade_id])
    assert book.settle(market, at=T0) == [] and len(book.bet_scores) == 2  # once

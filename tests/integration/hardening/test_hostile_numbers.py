"""Defect 2: after the checkpoint, an amount of 1e30, a price below 1e-19 or a 40-digit number
raised on every retry and left the decision claimed with some trades applied. Numbers are now
validated before the checkpoint, and an instruction that cannot execute is a rejected trade.

Defect 14: a buy and a full sell at an unchanged price lost a cent. Proceeds now round to the
nearest cent, so the round trip returns exactly what was spent."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_core.domain import accounting
from arena_core.domain.accounting import TradeContext
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.money import CENT
from arena_core.errors import DecisionFormatError
from arena_core.protocol import parse_answer
from tests.integration.decide.conftest import WEEK_UNIVERSE, World
from tests.support.agents import ScriptedAgent
from tests.support.builders import binary

AT = datetime(2026, 3, 1, 0, 5, tzinfo=UTC)


def bet(amount: object, market: str = "m1") -> str:
    return json.dumps(
        {"action": "BET", "bets": [{"market_id": market, "side": "YES", "amount": amount}]}
    )


@pytest.mark.parametrize(
    "amount",
    [1e30, "1" * 40, "1" + "0" * 40, 10**40, "0." + "1" * 45],
)
def test_numbers_beyond_the_decimal_context_are_format_errors(amount: object) -> None:
    with pytest.raises(DecisionFormatError):
        parse_answer(bet(amount))


def test_a_huge_bet_is_a_format_error_then_a_fallback_never_a_stuck_claim(world: World) -> None:
    result = world.service().decide(world.request(), ScriptedAgent(bet(1e30)))
    assert result.status is DecisionStatus.SUCCEEDED
    assert result.fallback
    record = world.stores.decisions.get_decision(result.decision_id)
    assert record is not None
    assert record.status is DecisionStatus.SUCCEEDED


def test_a_bet_above_the_cash_is_rejected_by_its_rule_before_any_rounding(world: World) -> None:
    result = world.service().decide(world.request(), ScriptedAgent(bet("99999999999999")))
    assert result.status is DecisionStatus.RETRYABLE_FAILURE  # a BET that executed nothing
    assert result.outcome is not None
    (trade,) = result.outcome.trades
    assert (trade.executed, trade.rule) == (False, "insufficient_cash")


@pytest.mark.parametrize("price", ["1e-20", "0.00005", "0.99995", "1e-19"])
def test_a_price_within_a_tick_of_0_or_1_is_rejected_by_its_rule(price: str) -> None:
    market = binary("m1", price)
    ctx = TradeContext("a", "c", "d", "t", AT)
    from arena_core.errors import InvalidPriceError  # noqa: PLC0415

    with pytest.raises(InvalidPriceError):
        accounting.buy(
            ctx, cash=Decimal(10000), market=market, side="YES", amount=Decimal(100), existing=None
        )


def test_a_price_with_forty_digits_trades_at_the_micro_dollar() -> None:
    market = binary("m1", "0.2535202333457238200098540078123285")
    ctx = TradeContext("a", "c", "d", "t", AT)
    execution = accounting.buy(
        ctx, cash=Decimal(10000), market=market, side="YES", amount=Decimal(100), existing=None
    )
    assert execution.trade.price == Decimal("0.253520")


def test_a_tiny_price_in_the_universe_is_a_rejected_trade_not_a_crash(world: World) -> None:
    tiny = binary("m5", "1e-20")
    ref = world.blobs.put(WEEK_UNIVERSE, json.dumps([tiny.model_dump(mode="json")]).encode())
    request = world.request()
    request = type(request)(request.agent_id, request.run_at, ref, request.owner)
    result = world.service().decide(request, ScriptedAgent(bet(100, "m5")))
    assert result.outcome is not None
    assert [t.rule for t in result.outcome.trades] == ["invalid_price"]


@settings(max_examples=300, deadline=None)
@given(
    amount=st.decimals(min_value=Decimal(50), max_value=Decimal(2500), places=2),
    price=st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("0.9999"), places=4),
)
def test_a_buy_and_a_full_sell_at_an_unchanged_price_return_what_was_spent(
    amount: Decimal, price: Decimal
) -> None:
    market = binary("m1", str(price))
    cash = Decimal("10000.00")
    bought = accounting.buy(
        TradeContext("a", "c", "d", "t0", AT),
        cash=cash,
        market=market,
        side="YES",
        amount=amount,
        existing=None,
    )
    sold = accounting.sell(
        TradeContext("a", "c", "d", "t1", AT),
        cash=bought.cash_after,
        market=market,
        position=bought.position,
        percentage=Decimal(100),
    )
    assert sold.trade.amount == bought.trade.amount == amount.quantize(CENT)
    assert sold.cash_after == cash
    assert sold.trade.realized_pnl == 0

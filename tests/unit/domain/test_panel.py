"""The forecast panel (v1+panel): selection on the recorded Gamma dump, forecasts, coherence."""

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.adapters.polymarket import parse_market
from arena_core.domain.answer import BetInstruction
from arena_core.domain.coherence import kelly_fraction
from arena_core.domain.decisions import TradeAudit
from arena_core.domain.market import Market
from arena_core.domain.panel import (
    PRICE_BAND,
    Panel,
    PanelMarket,
    StatedForecast,
    complete_forecasts,
    forecast_problems,
    select_panel,
)
from arena_core.errors import MarketPayloadError
from arena_core.services.outcome import trade_coherence

TOP = "polymarket/gamma/wom_gamma_markets_top_volume_closed300_open300_2026-02.json"
WEEK = datetime(2026, 2, 1, tzinfo=UTC)  # a Sunday, as the dump was recorded
RUN = WEEK + timedelta(hours=12)
HORIZON = timedelta(days=60)


@pytest.fixture(scope="module")
def recorded(fixtures_dir: Path) -> list[Market]:
    markets = []
    for payload in json.loads((fixtures_dir / TOP).read_text()):
        try:
            markets.append(parse_market(payload))
        except MarketPayloadError:
            continue
    return markets


def draw(markets: list[Market], size: int = 30, week: datetime = WEEK) -> Panel:
    run = week + timedelta(hours=12)
    return select_panel(markets, week_start=week, run_at=run, size=size, horizon=HORIZON)


def test_the_panel_respects_horizon_price_band_and_binarity(recorded: list[Market]) -> None:
    panel = draw(recorded)
    assert len(panel.markets) == 30
    assert panel.eligible > 30 and not panel.short
    by_id = {m.market_id: m for m in recorded}
    low, high = PRICE_BAND
    for chosen in panel.markets:
        market = by_id[chosen.market_id]
        assert len(market.outcomes) == 2
        assert market.end_date is not None and RUN < market.end_date <= RUN + HORIZON
        assert chosen.p_yes == market.outcomes[0].price
        assert low <= chosen.p_yes <= high
    assert len({m.market_id for m in panel.markets}) == 30


def test_the_panel_is_the_same_for_a_week_whatever_the_order(recorded: list[Market]) -> None:
    first = draw(recorded)
    again = draw(list(reversed(recorded)))
    assert first == again
    next_week = draw(recorded, week=WEEK + timedelta(days=7))
    assert [m.market_id for m in next_week.markets] != [m.market_id for m in first.markets]


def test_fewer_eligible_markets_than_k_give_a_smaller_panel_that_says_so(
    recorded: list[Market],
) -> None:
    eligible = draw(recorded, size=1000)
    assert eligible.short
    assert len(eligible.markets) == eligible.eligible < 1000


def test_categories_take_turns(recorded: list[Market]) -> None:
    pool = draw(recorded, size=1000).markets
    by_id = {m.market_id: m for m in recorded}
    names = ["Sports"] * 60 + ["Politics"] * 25 + ["Crypto"] * 3
    tagged = [
        by_id[chosen.market_id].model_copy(update={"category": name})
        for chosen, name in zip(pool, names, strict=False)
    ]
    available = Counter(m.category for m in tagged)
    panel = draw(tagged, size=30)
    taken = Counter(m.category for m in panel.markets)
    assert taken["Crypto"] == available["Crypto"] == 3  # a small category is taken whole
    assert abs(taken["Sports"] - taken["Politics"]) <= 1
    assert sum(taken.values()) == 30


def _panel(*prices: str) -> Panel:
    markets = tuple(
        PanelMarket(
            market_id=f"m{i}",
            question=f"Q{i}?",
            category="x",
            end_date=RUN + timedelta(days=3),
            p_yes=Decimal(p),
        )
        for i, p in enumerate(prices)
    )
    return Panel(week_start=WEEK, run_at=RUN, requested=len(markets), eligible=9, markets=markets)


def test_forecasts_are_completed_clipped_and_flagged() -> None:
    panel = _panel("0.40", "0.70", "0.20")
    stated = [
        StatedForecast(market_id="m0", p_yes=Decimal("0")),
        StatedForecast(market_id="m0", p_yes=Decimal("0.9")),  # a duplicate: the first counts
        StatedForecast(market_id="m1", p_yes=Decimal("1.5")),  # out of range: missing
        StatedForecast(market_id="zz", p_yes=Decimal("0.5")),  # unknown: ignored
    ]
    problems = forecast_problems(stated, panel)
    assert any("more than once" in p for p in problems)
    assert any("between 0 and 1" in p for p in problems)
    assert any("'zz' is not a panel market" in p for p in problems)
    assert any("no forecast for 'm2'" in p for p in problems)
    done = complete_forecasts(stated, panel)
    assert [f.market_id for f in done] == ["m0", "m1", "m2"]
    assert (done[0].p_yes, done[0].stated, done[0].clipped) == (Decimal("0.001"), Decimal(0), True)
    assert done[1].missing and done[1].p_yes == Decimal("0.70") and done[1].stated is None
    assert done[2].missing and done[2].p_yes == Decimal("0.20")
    assert (
        forecast_problems(
            [StatedForecast(market_id=m, p_yes=Decimal("0.5")) for m in ("m0", "m1", "m2")], panel
        )
        == []
    )


def test_kelly_is_the_edge_over_the_odds_capped_at_the_bet_rule() -> None:
    # YES at 0.40 believing 0.50: (0.5 - 0.4) / 0.6; NO at YES 0.40 believing 0.30: 0.1 / 0.4.
    assert kelly_fraction(Decimal("0.5"), Decimal("0.4"), yes_side=True) == Decimal(
        "0.1"
    ) / Decimal("0.6")
    assert kelly_fraction(Decimal("0.3"), Decimal("0.4"), yes_side=False) == Decimal("0.25")
    assert kelly_fraction(Decimal("0.99"), Decimal("0.4"), yes_side=True) == Decimal("0.25")
    assert kelly_fraction(Decimal("0.3"), Decimal("0.4"), yes_side=True) < 0


def _buy(market_id: str, side: str, price: str, amount: str) -> TradeAudit:
    return TradeAudit(
        index=0,
        trade_id=f"t-{market_id}-{side}",
        instruction=BetInstruction(market_id=market_id, side=side, amount=Decimal(amount)),
        executed=True,
        rule=None,
        reason=None,
        price=Decimal(price),
        shares=Decimal(amount) / Decimal(price),
        amount=Decimal(amount),
    )


def test_trades_are_checked_against_the_agents_own_forecasts() -> None:
    panel = _panel("0.40", "0.40", "0.40")
    forecasts = complete_forecasts(
        [
            StatedForecast(market_id="m0", p_yes=Decimal("0.50")),
            StatedForecast(market_id="m1", p_yes=Decimal("0.50")),
        ],
        panel,
    )
    trades = [
        _buy("m0", "yes", "0.40", "1000"),  # with its edge: coherent
        _buy("m1", "NO", "0.60", "500"),  # against it: incoherent, Kelly says not to bet
        _buy("m2", "YES", "0.40", "500"),  # no forecast of its own (a fill-in): left out
        _buy("elsewhere", "YES", "0.40", "500"),  # not a panel market
    ]
    firsts = {"m0": "Yes", "m1": "Yes", "m2": "Yes"}
    found = trade_coherence(trades, forecasts, panel.by_id(), firsts, Decimal("10000"))
    assert [(c.market_id, c.coherent) for c in found] == [("m0", True), ("m1", False)]
    yes = found[0]
    assert yes.fraction == Decimal("0.1")
    assert yes.kelly == (Decimal("0.1") / Decimal("0.6")).quantize(Decimal("0.000001"))
    assert yes.size_to_kelly == (Decimal("0.1") / (Decimal("0.1") / Decimal("0.6"))).quantize(
        Decimal("0.000001")
    )
    assert found[1].yes_side is False and found[1].yes_price == Decimal("0.40")
    assert found[1].size_to_kelly is None

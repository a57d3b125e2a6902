"""The forecast panel (v1+panel): selection on the recorded Gamma dump and on made-up listings
(every rule of the design), forecasts, coherence."""

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
from arena_core.domain.market import Market, OutcomeQuote
from arena_core.domain.panel import (
    Panel,
    PanelMarket,
    StatedForecast,
    complete_forecasts,
    eligible_markets,
    forecast_problems,
    select_panel,
)
from arena_core.domain.panel_design import PanelDesign, Stratum, panel_design
from arena_core.errors import MarketPayloadError
from arena_core.services.outcome import trade_coherence

TOP = "polymarket/gamma/wom_gamma_markets_top_volume_closed300_open300_2026-02.json"
WEEK = datetime(2026, 2, 1, tzinfo=UTC)  # a Sunday, as the dump was recorded
RUN = WEEK + timedelta(hours=12)
DESIGN = panel_design()


@pytest.fixture(scope="module")
def recorded(fixtures_dir: Path) -> list[Market]:
    markets = []
    for payload in json.loads((fixtures_dir / TOP).read_text()):
        try:
            markets.append(parse_market(payload))
        except MarketPayloadError:
            continue
    return markets


def draw(
    markets: list[Market],
    design: PanelDesign = DESIGN,
    week: datetime = WEEK,
    recent: frozenset[str] = frozenset(),
) -> Panel:
    run = week + timedelta(hours=12)
    return select_panel(markets, week_start=week, run_at=run, design=design, recent=recent)


def market(
    market_id: str,
    *,
    days: float = 3.0,
    price: str = "0.40",
    liquidity: str | None = "5000",
    event: str | None = None,
    category: str | None = None,
) -> Market:
    yes = Decimal(price)
    return Market(
        market_id=market_id,
        question=f"Will {market_id} happen?",
        outcomes=(OutcomeQuote(name="Yes", price=yes), OutcomeQuote(name="No", price=1 - yes)),
        end_date=RUN + timedelta(days=days),
        liquidity=None if liquidity is None else Decimal(liquidity),
        event_id=event,
        category=category,
    )


def design(size: int, *strata: tuple[float, float, float]) -> PanelDesign:
    return PanelDesign(
        size=size,
        strata=tuple(Stratum(f"{low}-{high}", low, high, share) for low, high, share in strata),
        band=DESIGN.band,
        per_event=1,
        fresh_weeks=2,
        min_liquidity=DESIGN.min_liquidity,
    )


def test_the_recorded_panel_respects_every_rule_and_counts_what_qualified(
    recorded: list[Market],
) -> None:
    panel = draw(recorded)
    assert panel.markets and panel.short  # the dump is a sample: fewer qualify than K
    eligible, _ = eligible_markets(recorded, RUN, DESIGN, frozenset())
    assert len(panel.markets) == len({c.event for c in eligible})  # every event, once
    by_id = {m.market_id: m for m in recorded}
    low, high = DESIGN.band
    for chosen in panel.markets:
        found = by_id[chosen.market_id]
        assert len(found.outcomes) == 2 and found.end_date is not None
        assert RUN < found.end_date <= RUN + timedelta(days=DESIGN.horizon_days)
        assert chosen.p_yes == found.outcomes[0].price and low <= chosen.p_yes <= high
        assert (found.liquidity or 0) >= DESIGN.min_liquidity
        days = (found.end_date - RUN).total_seconds() / 86400
        stratum = DESIGN.stratum_of(days)
        assert stratum is not None and chosen.stratum == stratum.name
    events = Counter(by_id[m.market_id].event_id or m.market_id for m in panel.markets)
    assert max(events.values()) == 1  # one question per event
    counts = panel.counts
    assert counts is not None and counts.listed == len(recorded)
    narrowing = [counts.binary, counts.in_strata, counts.in_band, counts.liquid, counts.fresh]
    assert narrowing == sorted(narrowing, reverse=True) and counts.fresh == panel.eligible
    assert sum(s.eligible for s in panel.strata) == panel.eligible
    assert sum(s.chosen for s in panel.strata) == len(panel.markets)
    assert [s.quota for s in panel.strata] == DESIGN.quotas() and sum(DESIGN.quotas()) == 300


def test_the_panel_is_the_same_for_a_week_whatever_the_order(recorded: list[Market]) -> None:
    first = draw(recorded)
    again = draw(list(reversed(recorded)))
    assert first == again


def test_markets_asked_in_the_weeks_before_are_never_asked_again() -> None:
    listing = [market(f"m{i}", days=2 + i % 10) for i in range(80)]
    first = draw(listing, design(30, (0, 7, 0.5), (7, 14, 0.5)))
    asked = frozenset(m.market_id for m in first.markets)
    again = draw(listing, design(30, (0, 7, 0.5), (7, 14, 0.5)), recent=asked)
    assert len(first.markets) == len(again.markets) == 30
    assert not asked & {m.market_id for m in again.markets}
    assert again.counts is not None and again.counts.fresh == 80 - 30


def test_one_question_per_event_near_certain_and_illiquid_markets_left_out() -> None:
    listing = [
        *(market(f"ladder{i}", event="btc-ladder") for i in range(6)),  # one event
        market("sure", price="0.97"),  # outside the band
        market("thin", liquidity="999"),  # below the floor
        market("unknown", liquidity=None),  # unknown liquidity is none
        market("late", days=30),  # beyond every stratum
        market("past", days=-1),  # closed before the run
        market("fine"),
    ]
    panel = draw(listing, design(10, (0, 14, 1.0)))
    chosen = sorted(m.market_id for m in panel.markets)
    assert len(chosen) == 2 and chosen[0] == "fine" and chosen[1].startswith("ladder")
    counts = panel.counts
    assert counts is not None
    assert (counts.listed, counts.in_strata, counts.in_band, counts.liquid) == (12, 10, 9, 7)


def test_each_stratum_takes_its_share_and_a_short_one_leaves_the_rest_to_the_others() -> None:
    listing = [market(f"soon{i}", days=3) for i in range(100)]
    listing += [market(f"later{i}", days=10) for i in range(15)]
    panel = draw(listing, design(40, (0, 7, 0.5), (7, 14, 0.5)))
    strata = {s.name: (s.quota, s.eligible, s.chosen) for s in panel.strata}
    assert strata == {"0-7": (20, 100, 25), "7-14": (20, 15, 15)}
    assert len(panel.markets) == 40 and not panel.short


def test_categories_take_turns_within_a_stratum() -> None:
    names = ["Sports"] * 60 + ["Politics"] * 25 + ["Crypto"] * 3
    listing = [market(f"m{i}", category=name) for i, name in enumerate(names)]
    panel = draw(listing, design(30, (0, 14, 1.0)))
    taken = Counter(m.category for m in panel.markets)
    assert taken["Crypto"] == 3  # a small category is taken whole
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

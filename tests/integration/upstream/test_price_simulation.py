"""The demo's seeded price simulation over the recorded dump, read back through the real client."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena_core.adapters.polymarket import GammaMarketSource, parse_market
from arena_core.adapters.rate_limit import TokenBucket
from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_local.replay import GammaReplay
from arena_local.simulation import PriceSimulation
from tests.integration.upstream.test_parse_market_fixtures import TOP

START = datetime(2026, 3, 1, tzinfo=UTC)
HORIZON = timedelta(weeks=2)


@pytest.fixture(scope="module")
def dump(fixtures_dir: Path) -> list[dict[str, Any]]:
    return json.loads((fixtures_dir / TOP).read_text())


def state(dump: list[dict[str, Any]], seed: int, moment: datetime) -> dict[str, dict[str, Any]]:
    return PriceSimulation(dump, seed=seed, start=START, horizon=HORIZON).state_at(moment)


def test_same_seed_same_prices_other_seed_other_prices(dump: list[dict[str, Any]]) -> None:
    moment = START + timedelta(days=3, hours=5)
    assert state(dump, 7, moment) == state(dump, 7, moment)
    assert state(dump, 7, moment) != state(dump, 8, moment)


def test_every_market_starts_open_with_prices_inside_the_band(dump: list[dict[str, Any]]) -> None:
    for fields in state(dump, 1, START).values():
        assert fields["closed"] is False
        prices = [Decimal(p) for p in json.loads(fields["outcomePrices"])]
        assert all(Decimal("0.01") <= p <= Decimal("0.99") for p in prices)


def test_markets_end_at_their_recorded_outcome(dump: list[dict[str, Any]]) -> None:
    simulation = PriceSimulation(dump, seed=3, start=START, horizon=HORIZON)
    end = state(dump, 3, START + HORIZON + timedelta(hours=1))
    kinds: Counter[str] = Counter()
    for raw in dump:
        market = parse_market(raw | end[str(raw["id"])])
        recorded = parse_market(raw)
        assert market.status is recorded.status
        assert market.resolution == recorded.resolution
        kinds[market.resolution.kind if market.resolution else market.status] += 1
        plan = simulation.plans[str(raw["id"])]
        assert (plan.resolves_at is None) == (not raw["closed"])
    assert kinds[ResolutionKind.WINNER] > 0
    assert kinds[ResolutionKind.SPLIT] == 1
    assert kinds[MarketStatus.CLOSED] > 0
    assert kinds[MarketStatus.OPEN] > 0


def test_prices_converge_to_the_winner_before_resolution(dump: list[dict[str, Any]]) -> None:
    simulation = PriceSimulation(dump, seed=5, start=START, horizon=HORIZON)
    winners = [
        r
        for r in dump
        if r["closed"]
        and r.get("umaResolutionStatus") == "resolved"
        and json.loads(r["outcomePrices"])[0] == "1"
    ]
    raw = winners[0]
    plan = simulation.plans[str(raw["id"])]
    assert plan.resolves_at is not None
    just_before = plan.resolves_at - timedelta(minutes=1)
    early = Decimal(json.loads(simulation.state_at(START)[plan.market_id]["outcomePrices"])[0])
    late = Decimal(json.loads(simulation.state_at(just_before)[plan.market_id]["outcomePrices"])[0])
    assert late > early
    assert late >= Decimal("0.9")


def test_the_real_client_reads_the_simulation_through_the_replay(
    dump: list[dict[str, Any]],
) -> None:
    replay = GammaReplay(dump)
    for market_id, fields in state(dump, 2, START).items():
        replay.set_fields(market_id, fields)
    source = GammaMarketSource(
        httpx.Client(transport=replay.transport()), limiter=TokenBucket(rate=1000, burst=1000)
    )
    universe = source.top_markets(limit=500)
    assert len(universe.markets) == 500  # every recorded market is open at the start
    assert all(m.status is MarketStatus.OPEN for m in universe.markets.values())


def live_market(market_id: str, yes: str, ends: datetime) -> dict[str, Any]:
    return {
        "id": market_id,
        "question": f"Live {market_id}?",
        "outcomes": json.dumps(["Yes", "No"]),
        "outcomePrices": json.dumps([yes, str(1 - Decimal(yes))]),
        "closed": False,
        "endDate": ends.isoformat().replace("+00:00", "Z"),
    }


def test_live_markets_settle_by_their_end_date_with_their_own_odds() -> None:
    inside = [live_market(str(i), "0.8", START + timedelta(days=3)) for i in range(400)]
    later = live_market("later", "0.5", START + HORIZON + timedelta(days=1))
    markets = [*inside, later]
    kept = PriceSimulation(markets, seed=9, start=START, horizon=HORIZON)
    assert all(plan.resolves_at is None for plan in kept.plans.values())  # recorded semantics
    live = PriceSimulation(
        markets, seed=9, start=START, horizon=HORIZON, settle_open_by_end_date=True
    )
    assert live.plans["later"].resolves_at is None
    after = START + timedelta(days=3, minutes=1)
    outcomes = [parse_market(m | live.fields_for(m["id"], after)) for m in inside]
    assert all(m.status is MarketStatus.RESOLVED for m in outcomes)
    yes = sum(1 for m in outcomes if m.resolution and m.resolution.winner == "YES")
    assert 280 <= yes <= 360  # drawn with the market's 80% (seeded: the same every run)
    before = parse_market(inside[0] | live.fields_for("0", START + timedelta(days=2)))
    assert before.status is MarketStatus.OPEN


def _recorded_change_rate(fixtures_dir: Path, name: str) -> float:
    """The share of ten-minute steps at which a recorded price history changed."""
    history = json.loads((fixtures_dir / "polymarket" / "prices_history" / name).read_text())
    by_step = {point["t"] // 600: point["p"] for point in history["history"]}
    prices = [by_step[step] for step in sorted(by_step)]
    return sum(a != b for a, b in itertools.pairwise(prices)) / (len(prices) - 1)


def test_prices_and_volume_move_on_every_pass_as_live_markets_do(
    dump: list[dict[str, Any]], fixtures_dir: Path
) -> None:
    """The cost model meters this churn: prices moved once an hour and volume never (the meter
    saw one pass in six, and no write for volume)."""
    simulation = PriceSimulation(dump, seed=4, start=START, horizon=HORIZON)
    passes = [START + timedelta(days=1, minutes=10 * i) for i in range(37)]  # six hours
    states = [simulation.state_at(moment) for moment in passes]
    open_ids = [i for i, f in states[-1].items() if not f["closed"] and "volume" in f]
    moved = changed = 0
    for before, after in itertools.pairwise(states):
        for market_id in open_ids:
            changed += before[market_id]["outcomePrices"] != after[market_id]["outcomePrices"]
            moved += before[market_id]["volume"] != after[market_id]["volume"]
            assert after[market_id]["volumeNum"] > before[market_id]["volumeNum"]
    steps = len(open_ids) * (len(passes) - 1)
    assert moved == steps  # volume: every market, every pass
    share = changed / steps
    recorded = [
        _recorded_change_rate(fixtures_dir, name)
        for name in (
            "wom_prices_history_token_1111281915_interval_1m_fidelity10.json",  # a month
            "wom_prices_history_token_1111281915_interval_1d.json",  # its last day
        )
    ]
    month, day = recorded
    assert 0.05 < month < day < 0.2  # the recorded churn: 10% of steps a month, 15% its last day
    assert abs(share - day) < 0.03  # the busier of the two, within sampling
    # within one hour, passes other than the hour's first see moves too
    within = [s[open_ids[0]]["outcomePrices"] for s in states[1:6]]
    assert len(set(within)) > 1 or len({s[open_ids[1]]["outcomePrices"] for s in states[1:6]}) > 1


def test_volume_keeps_the_markets_in_their_recorded_order(dump: list[dict[str, Any]]) -> None:
    simulation = PriceSimulation(dump, seed=4, start=START, horizon=HORIZON)
    later = simulation.state_at(START + timedelta(days=5))
    recorded = sorted(
        (r for r in dump if not r["closed"]), key=lambda r: float(r["volumeNum"]), reverse=True
    )
    grown = [later[str(r["id"])]["volumeNum"] for r in recorded]
    assert grown == sorted(grown, reverse=True)

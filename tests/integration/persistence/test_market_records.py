"""A market's observed history on every backend: each change of state is appended, nothing is
lost when two passes observe at once, and the resolution time is kept."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_core.domain.market_record import MarketObservation, new_observations
from arena_core.ports.stores import Stores
from tests.support.builders import RUN_AT, binary, resolved


def test_states_are_appended_in_order_with_the_resolution_time(stores: Stores) -> None:
    market = binary("m1", "0.4")
    proposed = market.model_copy(update={"status": MarketStatus.CLOSED, "uma_status": "proposed"})
    disputed = proposed.model_copy(update={"uma_status": "disputed"})
    final = resolved(disputed.model_copy(update={"uma_status": "resolved"}), ResolutionKind.SPLIT)
    for step, seen in enumerate((market, proposed, proposed, disputed, proposed, final)):
        at = RUN_AT + timedelta(hours=step)
        before = stores.markets.get_markets(["m1"])
        stores.markets.record_observations(new_observations([seen], before, at))
        stores.markets.save_markets([seen])
    stores.markets.mark_market_resolved(final, RUN_AT + timedelta(hours=6))
    record = stores.markets.market_records(["m1", "unknown"])["m1"]
    assert len(record.observations) == 5  # the repeated "proposed" was not a change
    assert record.uma_history == ["proposed", "disputed", "proposed", "resolved"]
    assert record.disputes == 1
    assert record.observations[-1].resolution is ResolutionKind.SPLIT
    assert record.resolved_at == RUN_AT + timedelta(hours=6)
    assert record.market == final


def test_concurrent_observers_lose_nothing(stores: Stores) -> None:
    stores.markets.save_markets([binary("m2", "0.5")])
    observations = [
        MarketObservation(
            market_id="m2",
            at=RUN_AT + timedelta(minutes=i),
            status=MarketStatus.CLOSED,
            uma_status=f"s{i}",
        )
        for i in range(8)
    ]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda o: stores.markets.record_observations([o]), observations))
    found = stores.markets.market_records(["m2"])["m2"].observations
    assert sorted(o.uma_status or "" for o in found) == [f"s{i}" for i in range(8)]

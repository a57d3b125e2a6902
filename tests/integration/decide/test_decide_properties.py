"""Property: whatever a model answers, no executed trade breaks a rule and cash stays >= 0."""

import json
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena_core.domain.portfolio import TradeKind
from arena_core.domain.rules import MAX_BET_FRACTION, MIN_BET
from arena_core.domain.valuation import reconcile
from arena_core.services.decide import DecideRequest
from arena_local.memory import memory_stores
from tests.integration.decide.conftest import UNIVERSE, make_world
from tests.support.agents import ScriptedAgent
from tests.support.builders import RUN_AT

bets = st.fixed_dictionaries(
    {
        "market_id": st.sampled_from(["m1", "m2", "m3", "x"]),
        "side": st.sampled_from(["YES", "no", "Lakers", "CELTICS", "maybe"]),
        "amount": st.one_of(st.integers(-100, 6000), st.decimals(0, 3000, places=3).map(str)),
    }
)
replies = st.one_of(
    st.builds(
        lambda b: {"action": "BET", "bets": b, "reasoning": "r"},
        st.lists(bets, min_size=1, max_size=6),
    ),
    st.just({"action": "HOLD", "reasoning": "r"}),
    st.text(max_size=30),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(replies, min_size=1, max_size=3))
def test_executed_trades_never_break_a_rule(week_replies: list[Any]) -> None:
    world = make_world(memory_stores())
    agent_id = world.agents[0].agent_id
    for week, reply in enumerate(week_replies):
        text = reply if isinstance(reply, str) else json.dumps(reply)
        run_at = RUN_AT.replace(day=1 + 7 * week)
        world.clock.set(run_at)  # each week's run happens in its week, never ahead of time
        request = DecideRequest(agent_id, run_at, world.universe_for(run_at), f"run-{week}")
        world.service().decide(request, ScriptedAgent(text))
    prices = {m.market_id: m for m in UNIVERSE}
    for trade in world.stores.ledger.trades(agent_id):
        assert Decimal(0) < trade.price < Decimal(1)
        assert trade.cash_after >= 0
        if trade.kind is TradeKind.BUY:
            assert trade.amount >= MIN_BET
            assert trade.amount <= trade.cash_before * MAX_BET_FRACTION
            assert trade.price == prices[trade.market_id].side_price(trade.side)
    agent = world.stores.ledger.get_agent(agent_id)
    assert agent.cash >= 0
    reconcile(agent.cash, world.stores.ledger.trades(agent_id), [])
    positions = [p for p in world.stores.ledger.positions(agent_id) if p.is_open]
    assert len({(p.market_id, p.side) for p in positions}) == len(positions)

"""A snapshot pass reads an unchanged agent with one batched profile read, no query."""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.domain.answer import BetInstruction
from arena_core.services.trading import TradeRun, execute_all
from tests.integration.persistence.test_trades_and_settlement import LEASE, MARKETS
from tests.support.aws import TABLE, create_stores, dynamo_client, embedded_aws
from tests.support.builders import RUN_AT, open_cohort


class CountingClient:
    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, Counter[str]()

    def __getattr__(self, name: str) -> Any:
        self.calls[name] += 1
        return getattr(self.inner, name)


def test_unchanged_agents_cost_one_batch_read_and_changed_ones_a_query() -> None:
    with embedded_aws():
        seeded = create_stores()
        _, agents = open_cohort(seeded)
        client = CountingClient(dynamo_client())
        stores = dynamo_stores(client, TABLE)
        ids = [a.agent_id for a in agents]
        stores.ledger.holdings_of(ids)
        assert client.calls["query"] == len(ids)
        client.calls.clear()
        stores.ledger.holdings_of(ids)
        assert client.calls == {"batch_get_item": 1}
        record = stores.decisions.claim_decision(
            agents[0], 1, owner="o", now=RUN_AT, lease=LEASE, max_attempts=3
        )
        bet = BetInstruction(market_id="m1", side="YES", amount=100)
        execute_all(
            stores.ledger,
            TradeRun(agents[0].agent_id, record.decision_id, "o", MARKETS, RUN_AT),
            [bet],
        )
        client.calls.clear()
        fresh = stores.ledger.holdings_of(ids)
        assert client.calls["query"] == 1  # only the agent that traded is read again
        assert [p.market_id for p in fresh[agents[0].agent_id].positions] == ["m1"]

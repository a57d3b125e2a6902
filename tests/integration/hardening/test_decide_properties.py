"""Whatever a model answers and however a recorded Gamma payload is garbled, the decide path
ends in a typed outcome: the decision reaches a status within the attempt limit, nothing but an
``ArenaError`` (a typed retry or a loud upstream failure) ever leaves the service, the ledger
reconciles exactly, and the site still publishes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from arena_core.adapters.polymarket.parse import parse_market
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.valuation import reconcile
from arena_core.errors import ArenaError, MarketPayloadError
from arena_core.services.decide import DecideRequest
from arena_core.services.publish_site import PublishSiteService
from arena_local.memory import memory_stores
from tests.conftest import FIXTURES
from tests.integration.decide.conftest import WEEK_UNIVERSE, make_world
from tests.support.agents import ScriptedAgent

RECORDED = FIXTURES / "polymarket/gamma/wom_gamma_markets_top_volume_closed300_open300_2026-02.json"
MAX_ATTEMPTS = 3


def recorded_markets() -> list[dict[str, Any]]:
    payloads: list[dict[str, Any]] = json.loads(RECORDED.read_text())
    return [p for p in payloads if not p.get("closed")][:12]


GAMMA = recorded_markets()
hostile_text = st.text(
    st.characters(categories=["L", "N", "P", "S", "Z", "Cc", "Cs", "Cf"]), max_size=60
)
numbers = st.one_of(
    st.integers(-(10**50), 10**50),
    st.floats(allow_nan=False),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.sampled_from(["1e30", "9" * 400, "-0", "$1,250.50", "50%", "1e-400"]),
)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | hostile_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text, inner, max_size=3),
    max_leaves=12,
)
bets = st.fixed_dictionaries(
    {
        "market_id": st.sampled_from([*(str(p["id"]) for p in GAMMA), "gone"]) | json_values,
        "side": st.sampled_from(["YES", "no", "Celtics"]) | json_values,
        "amount": st.integers(50, 2500) | numbers | json_values,
    }
)
decisions = st.fixed_dictionaries(
    {
        "action": st.sampled_from(["BET", "BET", "SELL", "HOLD", "bet", "MAYBE"]) | json_values,
        "bets": st.lists(bets, min_size=1, max_size=3) | json_values,
        "sells": st.lists(st.dictionaries(hostile_text, json_values), max_size=2),
        "reasoning": hostile_text | json_values,
    }
)
# Answers a model could well give: valid in shape, hostile in their content.
plausible = st.fixed_dictionaries(
    {
        "action": st.just("BET"),
        "bets": st.lists(
            st.fixed_dictionaries(
                {
                    "market_id": st.sampled_from([str(p["id"]) for p in GAMMA]),
                    "side": st.sampled_from(["YES", "NO", "yes"]),
                    "amount": st.integers(1, 4000) | numbers,
                }
            ),
            min_size=1,
            max_size=3,
        ),
        "reasoning": hostile_text,
    }
)
replies = st.one_of(
    plausible.map(json.dumps),
    plausible.map(json.dumps),
    hostile_text,
    decisions.map(json.dumps),
    decisions.map(lambda d: "Sure! " + json.dumps(d) + " {"),
    st.integers(1, 60).map(lambda n: "{" * n + '"action": "HOLD"' + "}" * n),
    json_values.map(json.dumps),
)


FIELDS = ["id", "question", "outcomes", "outcomePrices", "clobTokenIds", "volumeNum", "endDate"]
mutations = st.lists(
    st.tuples(st.integers(0, len(GAMMA) - 1), st.sampled_from(FIELDS), json_values),
    max_size=4,
)


def universe(changes: list[tuple[int, str, Any]]) -> list[dict[str, Any]]:
    payloads = [dict(p) for p in GAMMA]
    for index, field, value in changes:
        payloads[index][field] = value
    markets = []
    for payload in payloads:
        try:
            markets.append(parse_market(payload).model_dump(mode="json"))
        except MarketPayloadError:
            continue  # skipped with its reason: the typed outcome for a bad market
    return markets


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(texts=st.lists(replies, min_size=1, max_size=4), changes=mutations)
def test_any_reply_and_any_garbled_market_end_in_a_typed_outcome(
    texts: list[str], changes: list[tuple[int, str, Any]]
) -> None:
    world = make_world(memory_stores())
    markets = universe(changes)
    event(f"markets kept: {len(markets)} of {len(GAMMA)}")
    ref = world.blobs.put(WEEK_UNIVERSE, json.dumps(markets).encode())
    agent_id = world.agents[0].agent_id
    agent = ScriptedAgent(*texts)
    statuses = []
    for attempt in range(MAX_ATTEMPTS + 1):  # the workflow's retries, then one more run
        request = DecideRequest(agent_id, world.request().run_at, ref, f"invocation-{attempt}")
        try:
            result = world.service(max_attempts=MAX_ATTEMPTS).decide(request, agent)
        except ArenaError:
            continue  # typed: a retry (or a loud upstream failure, which no agent here raises)
        statuses.append(result.status)
        if result.status is not DecisionStatus.RETRYABLE_FAILURE:
            break
    assert statuses, "every attempt raised"
    event(f"ended {statuses[-1].value} after {len(statuses)} run(s), {agent.calls} replies")
    assert statuses[-1] in (
        DecisionStatus.SUCCEEDED,
        DecisionStatus.RETRYABLE_FAILURE,
        DecisionStatus.EXHAUSTED,
    )
    (record,) = world.stores.decisions.decisions(agent_id)
    assert record.attempts <= MAX_ATTEMPTS
    assert record.status is not DecisionStatus.CLAIMED  # never stuck
    member = world.stores.ledger.get_agent(agent_id)
    reconcile(member.cash, world.stores.ledger.trades(agent_id), [])
    assert member.cash >= 0
    event(f"trades applied: {min(len(world.stores.ledger.trades(agent_id)), 2)}+")
    with tempfile.TemporaryDirectory() as folder:
        publisher = LocalFolderPublisher(Path(folder))
        report = PublishSiteService(world.stores, publisher, world.blobs, world.clock).run()
        assert report.files > 0

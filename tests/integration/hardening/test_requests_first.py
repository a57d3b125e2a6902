"""Issue 26 §3: nothing is claimed or sealed before the request is known good.

Before: three decide events with a wrong ``universe_ref`` took the real agent-week's claim,
failed after it and exhausted its attempts, so the real run found the week exhausted; Finalize
sealed a run dated 2099 for ever; Prepare for a week before any cohort stored today's markets
as that week's universe; one unreadable object under ``commitments/decisions/`` made every
later seal fail."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from arena_core.constants import universe_key
from arena_core.domain.commitment_log import DECISIONS_PREFIX, LOG_KEY, RUNS_PREFIX
from arena_core.domain.decisions import DecisionStatus
from arena_core.errors import RunRequestError
from arena_core.ports.clock import FixedClock
from arena_core.services.commitments import seal_run
from arena_core.services.decide import DecideRequest
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import InMemoryBlobStore, InMemoryCommitmentStore, memory_stores
from tests.integration.decide.conftest import UNIVERSE, World
from tests.support.agents import ScriptedAgent
from tests.support.builders import RUN_AT, WEEK0, open_cohort
from tests.support.markets import StaticMarketSource

BET = '{"action": "BET", "bets": [{"market_id": "m1", "side": "YES", "amount": 500}]}'


def other_week_universe(world: World) -> str:
    last_week = (WEEK0 - timedelta(days=7)).date()
    return world.blobs.put(universe_key(last_week), b"[]")


@pytest.mark.parametrize("wrong", ["missing", "another week's", "not a universe"])
def test_wrong_universes_claim_nothing_and_the_real_run_decides(world: World, wrong: str) -> None:
    refs = {
        "missing": "universes/week-2026-03-01-typo.json",
        "another week's": other_week_universe(world),
        "not a universe": world.blobs.put("universes/elsewhere.json", b"{}"),
    }
    request = world.request()
    agent = ScriptedAgent(BET)
    for invocation in range(3):
        forged = DecideRequest(request.agent_id, RUN_AT, refs[wrong], f"forged-{invocation}")
        with pytest.raises(RunRequestError, match="universe"):
            world.service().decide(forged, agent)
    assert agent.calls == 0
    assert world.stores.decisions.decisions(request.agent_id) == []
    result = world.service().decide(request, agent)
    assert (result.status, result.executed) == (DecisionStatus.SUCCEEDED, 1)


@pytest.mark.parametrize(
    "run_at",
    [
        datetime(2026, 3, 1, 0, 5),  # no time zone
        WEEK0 - timedelta(days=1),  # before the cohort opened
        datetime(2099, 1, 4, 0, 5, tzinfo=UTC),  # in the future
        datetime(1, 1, 1, tzinfo=UTC),  # outside the calendar: week arithmetic overflows
    ],
    ids=["naive", "before the cohort", "future", "year 1"],
)
def test_a_bad_run_time_claims_nothing(world: World, run_at: datetime) -> None:
    request = world.request()
    bad = DecideRequest(request.agent_id, run_at, request.universe_ref, "forged")
    with pytest.raises(RunRequestError):
        world.service().decide(bad, ScriptedAgent(BET))
    assert world.stores.decisions.decisions(request.agent_id) == []


def test_finalize_refuses_a_run_in_the_future_and_writes_nothing() -> None:
    store = InMemoryCommitmentStore()
    stores = memory_stores()
    with pytest.raises(RunRequestError, match="future"):
        seal_run(
            stores.decisions,
            store,
            run_id="forged",
            run_at=datetime(2099, 1, 4, 0, 5, tzinfo=UTC),
            decision_ids=[],
            now=RUN_AT,
        )
    assert store.keys("commitments/") == []


@pytest.mark.parametrize(
    "week", [datetime(2020, 1, 5, tzinfo=UTC), datetime(2026, 2, 22, tzinfo=UTC)]
)
def test_prepare_refuses_a_week_before_any_cohort_and_captures_nothing(week: datetime) -> None:
    stores, blobs = memory_stores(), InMemoryBlobStore()
    open_cohort(stores)  # the first cohort: the week of 2026-03-01
    clock = FixedClock(RUN_AT + timedelta(days=3))
    service = PrepareRunService(stores, StaticMarketSource(UNIVERSE), blobs, clock)
    with pytest.raises(RunRequestError, match="no active cohort"):
        service.prepare(RunRequest(week_start=week))
    assert blobs.find(universe_key(week.date())) is None
    assert stores.markets.captures("m1") == []


def test_prepare_refuses_a_week_outside_the_calendar() -> None:
    stores, blobs = memory_stores(), InMemoryBlobStore()
    open_cohort(stores)
    service = PrepareRunService(stores, StaticMarketSource(UNIVERSE), blobs, FixedClock(RUN_AT))
    with pytest.raises(RunRequestError, match="outside"):
        service.prepare(RunRequest(week_start=datetime(1, 1, 7, tzinfo=UTC)))


def test_prepare_refuses_names_that_match_no_agent() -> None:
    stores, blobs = memory_stores(), InMemoryBlobStore()
    open_cohort(stores)
    service = PrepareRunService(stores, StaticMarketSource(UNIVERSE), blobs, FixedClock(RUN_AT))
    with pytest.raises(RunRequestError):
        service.prepare(RunRequest(agent_ids=["c2026-03-01.no-such-family"]))
    assert blobs.find(universe_key(WEEK0.date())) is None


def test_an_unreadable_commitment_is_skipped_and_named_and_sealing_goes_on(world: World) -> None:
    store = InMemoryCommitmentStore()
    service = world.service()
    service._commitments = store  # the world's service, with a commitments store
    result = service.decide(world.request(), ScriptedAgent(BET))
    junk = f"{DECISIONS_PREFIX}{result.decision_id}/{'f' * 64}.json"
    store.create(junk, b"\x00not json")
    nested = f"{DECISIONS_PREFIX}nested.json"
    store.create(nested, json.dumps([[[]]] * 3).encode())
    for run in ("run-1", "run-2"):  # every later Finalize seals too
        report = seal_run(
            world.stores.decisions,
            store,
            run_id=run,
            run_at=RUN_AT,
            decision_ids=[result.decision_id],
            now=RUN_AT + timedelta(minutes=5),
        )
        assert report is not None
        assert set(report.unreadable) == {junk, nested}
    log = store.read(LOG_KEY)
    assert log is not None
    listed = log.body.decode()
    assert junk not in listed and result.decision_id in listed
    assert len(store.keys(RUNS_PREFIX)) == 2

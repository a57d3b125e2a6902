"""Defect 7: a rerun of a future week was accepted (every active agent got an extra decision
now, with trades stamped in the future) and a non-Sunday week was silently moved; the decide
function accepted a future run time. Both are refused with a clear, typed error."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arena_core.errors import RunRequestError
from arena_core.ports.clock import FixedClock
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import InMemoryBlobStore, memory_stores
from tests.integration.decide.conftest import World
from tests.support.agents import ScriptedAgent
from tests.support.builders import WEEK0, binary, open_cohort
from tests.support.markets import StaticMarketSource

NOW = WEEK0 + timedelta(days=10)  # the Wednesday of the second week


def prepare(week_start: datetime) -> None:
    stores = memory_stores()
    open_cohort(stores)
    service = PrepareRunService(
        stores, StaticMarketSource([binary("m1")]), InMemoryBlobStore(), FixedClock(NOW)
    )
    service.prepare(RunRequest(week_start=week_start))


@pytest.mark.parametrize(
    "week",
    [
        datetime(2099, 1, 4, tzinfo=UTC),  # a Sunday, decades ahead
        WEEK0 + timedelta(days=14),  # next Sunday
    ],
)
def test_a_future_week_is_refused(week: datetime) -> None:
    with pytest.raises(RunRequestError, match="has not started"):
        prepare(week)


def test_a_week_that_is_not_a_sunday_is_refused_not_moved() -> None:
    with pytest.raises(RunRequestError, match="not a Sunday"):
        prepare(WEEK0 + timedelta(days=3))


def test_past_and_current_weeks_are_rerun() -> None:
    prepare(WEEK0)
    prepare(WEEK0 + timedelta(days=7))


def test_the_decide_step_refuses_a_future_run_time(world: World) -> None:
    request = world.request()
    future = type(request)(
        request.agent_id, world.clock.now() + timedelta(days=7), request.universe_ref, "r"
    )
    agent = ScriptedAgent('{"action": "HOLD"}')
    with pytest.raises(RunRequestError, match="in the future"):
        world.service().decide(future, agent)
    assert agent.calls == 0
    assert world.stores.decisions.decisions(request.agent_id) == []

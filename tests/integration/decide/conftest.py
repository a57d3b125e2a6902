"""A small world for decide tests: a cohort, a market universe in the blob store, a clock."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from arena_core.constants import universe_key
from arena_core.domain.cohort import Agent, Cohort, week_start_for
from arena_core.domain.market import Market, OutcomeQuote
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.services.decide import DecideRequest, DecideService, DecideSettings
from arena_local.memory import InMemoryBlobStore, memory_stores
from tests.support.aws import create_stores, embedded_aws
from tests.support.builders import RUN_AT, WEEK0, binary, open_cohort

# The run's universe lives under its week's key: a decide request naming another is refused.
WEEK_UNIVERSE = universe_key(WEEK0.date())

UNIVERSE = [
    binary("m1", "0.40"),
    binary("m2", "0.25"),
    Market(
        market_id="m3",
        question="Who wins the final?",
        outcomes=(
            OutcomeQuote(name="Lakers", price=Decimal("0.30")),
            OutcomeQuote(name="Celtics", price=Decimal("0.70")),
        ),
    ),
]


@dataclass
class World:
    stores: Stores
    blobs: BlobStore
    clock: FixedClock
    cohort: Cohort
    agents: list[Agent]
    universe_ref: str

    def service(self, stores: Any = None, **settings: Any) -> DecideService:
        return DecideService(
            stores or self.stores, self.blobs, self.clock, DecideSettings(**settings)
        )

    def universe_for(self, run_at: datetime) -> str:
        """The run's universe, captured (again) for the week of ``run_at``: a later week's
        request names its own week's universe."""
        key = universe_key(week_start_for(run_at).date())
        return self.blobs.find(key) or self.blobs.put(key, self.blobs.get(self.universe_ref))

    def request(self, agent: int = 0, owner: str = "run-1") -> DecideRequest:
        return DecideRequest(self.agents[agent].agent_id, RUN_AT, self.universe_ref, owner)


def make_world(stores: Stores) -> World:
    blobs = InMemoryBlobStore()
    ref = blobs.put(
        WEEK_UNIVERSE, json.dumps([m.model_dump(mode="json") for m in UNIVERSE]).encode()
    )
    cohort, agents = open_cohort(stores)
    return World(stores, blobs, FixedClock(RUN_AT), cohort, agents, ref)


@pytest.fixture(params=["memory", "dynamodb"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    if request.param == "memory":
        yield make_world(memory_stores())
        return
    with embedded_aws():
        yield make_world(create_stores())

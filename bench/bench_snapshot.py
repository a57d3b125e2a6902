"""Snapshot pass at scale: 100 cohorts x 7 agents x 50 positions, on moto (with the lean
shims the tests and the demo use) and on DynamoDB Local (AWS's own engine).

Prints, per backend, the wall seconds of a first pass (every agent's holdings read) and of a
second (holdings unchanged: one batch read of the profiles), and the upstream requests against
the minimum ``ceil(M / batch)`` for the M distinct markets held (target ratio 1.0). Prices come
through the real Gamma client from a replayed dump of synthetic markets. Run with `make bench`.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import boto3
import httpx
from moto import mock_aws

from arena_core.adapters.dynamodb import create_table_kwargs, dynamo_stores
from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import to_attributes
from arena_core.adapters.dynamodb.cohorts import agent_item, cohort_item
from arena_core.adapters.dynamodb.ledger import position_item
from arena_core.adapters.dynamodb.table import Table
from arena_core.adapters.polymarket import GammaMarketSource
from arena_core.adapters.rate_limit import TokenBucket
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import default_lineup
from arena_core.domain.portfolio import Position
from arena_core.ports.clock import FixedClock
from arena_core.services.snapshot import SnapshotService
from arena_local.moto_shims import lean_dynamodb
from arena_local.replay import GammaReplay
from tests.support.dynamodb_local import FAST_START_JVM_OPTIONS, DynamoDBLocal

COHORTS, POSITIONS, MARKETS, BATCH = int(os.environ.get("BENCH_COHORTS", "100")), 50, 500, 50
START = datetime(2024, 1, 7, tzinfo=UTC)


def gamma_market(index: int, rng: random.Random) -> dict[str, Any]:
    yes = round(rng.uniform(0.05, 0.95), 3)
    return {
        "id": str(100000 + index),
        "question": f"Synthetic market {index}?",
        "outcomes": '["Yes", "No"]',
        "outcomePrices": json.dumps([str(yes), str(round(1 - yes, 3))]),
        "volumeNum": 1000000 - index,
        "closed": False,
        "endDate": "2027-01-01T00:00:00Z",
    }


def seed(table: Table, rng: random.Random) -> int:
    """Write cohorts, agents, positions, guards and market counters directly (bench setup)."""
    items: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    lineup = default_lineup(include_baselines=False)
    for week in range(COHORTS):
        cohort = Cohort.open(START + timedelta(weeks=week), lineup)
        items.append(cohort_item(cohort))
        for agent in cohort.agents():
            items.append(
                agent_item(agent.model_copy(update={"cash": Decimal("5000"), "version": POSITIONS}))
            )
            for n, market in enumerate(rng.sample(range(MARKETS), POSITIONS)):
                market_id = str(100000 + market)
                position = Position(
                    position_id=f"p{week}-{agent.family_id}-{n}",
                    agent_id=agent.agent_id,
                    cohort_id=cohort.cohort_id,
                    market_id=market_id,
                    side="YES",
                    shares=Decimal("200"),
                    cost_basis=Decimal("100"),
                    opened_at=cohort.week_start,
                    opened_by=f"{agent.agent_id}.w001.t{n:02d}",
                )
                items.append(position_item(position))
                counts[market_id] = counts.get(market_id, 0) + 1
    for market_id, count in counts.items():
        fields = {
            **k.market_key(market_id),
            "market_id": market_id,
            "open_positions": count,
            k.GSI1PK: k.OPEN_MARKETS,
            k.GSI1SK: market_id,
        }
        items.append(to_attributes(fields))
    table.batch_put(items)
    return len(counts)


def snapshot_pass(client: Any, backend: str, rng: random.Random) -> None:
    """Seed the table, then time two passes: the first reads every agent's holdings, the second
    finds them unchanged (one batch read of the profiles)."""
    client.create_table(**create_table_kwargs("bench"))
    stores = dynamo_stores(client, "bench")
    started = time.perf_counter()
    distinct = seed(Table(client, "bench"), rng)
    setup = time.perf_counter() - started
    replay = GammaReplay([gamma_market(i, rng) for i in range(MARKETS)])
    source = GammaMarketSource(
        httpx.Client(transport=replay.transport()),
        batch_size=BATCH,
        limiter=TokenBucket(rate=30, burst=30),
    )
    walls = []
    for minutes in (0, 10):
        moment = START + timedelta(weeks=COHORTS, minutes=minutes)
        started = time.perf_counter()
        report = SnapshotService(stores, source, FixedClock(moment)).run()
        walls.append(time.perf_counter() - started)
    minimum = math.ceil(distinct / BATCH)
    print(
        f"[{backend}] cohorts={COHORTS} agents={report.agents} positions={report.positions} "
        f"markets={distinct} setup_seconds={setup:.1f}"
    )
    print(f"[{backend}] snapshot_pass_seconds first={walls[0]:.2f} second={walls[1]:.2f}")
    ratio = report.requests / minimum
    print(f"[{backend}] upstream_requests={report.requests} minimum={minimum} ratio={ratio:.2f}")


def main() -> None:
    os.environ.update(
        AWS_DEFAULT_REGION="us-east-1", AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x"
    )
    with mock_aws(), lean_dynamodb():  # moto as the tests and the demo run it
        snapshot_pass(boto3.client("dynamodb"), "moto", random.Random(7))
    with DynamoDBLocal(jvm_options=FAST_START_JVM_OPTIONS) as server:
        snapshot_pass(server.client(), "dynamodb-local", random.Random(7))


if __name__ == "__main__":
    main()

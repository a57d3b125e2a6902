"""Typed errors for contention, retried throttling, and the blob stores."""

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from arena_core.adapters.dynamodb.table import Table
from arena_core.adapters.retry import Retrier, RetryPolicy
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.domain import accounting
from arena_core.domain.accounting import TradeContext
from arena_core.errors import NotFoundError, PersistenceError, VersionConflictError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.stores import Stores
from arena_local.memory import InMemoryBlobStore
from tests.support.aws import embedded_aws
from tests.support.builders import RUN_AT, binary, open_cohort
from tests.support.fake_time import FakeTime


def test_a_stale_version_is_a_typed_conflict_and_changes_nothing(stores: Stores) -> None:
    _, agents = open_cohort(stores)
    agent = agents[0]
    record = stores.decisions.claim_decision(
        agent, 1, owner="o", now=RUN_AT, lease=timedelta(minutes=5), max_attempts=3
    )
    ctx = TradeContext(
        agent.agent_id, agent.cohort_id, record.decision_id, f"{record.decision_id}.t00", RUN_AT
    )
    execution = accounting.buy(
        ctx, cash=agent.cash, market=binary("m1"), side="YES", amount=Decimal("100"), existing=None
    )
    with pytest.raises(VersionConflictError, match=agent.agent_id):
        stores.ledger.apply_trade(execution, expected_version=agent.version + 1, owner="o")
    assert stores.ledger.trades(agent.agent_id) == []
    assert stores.ledger.get_agent(agent.agent_id) == agent


def throttled(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "slow down"}}, "GetItem")


class FlakyClient:
    def __init__(self, failures: list[ClientError]) -> None:
        self.failures = failures
        self.calls = 0

    def get_item(self, **kwargs: Any) -> dict[str, Any]:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return {"Item": {"PK": {"S": "x"}}}


def table(client: Any, time: FakeTime) -> Table:
    retrier = Retrier(
        RetryPolicy(max_attempts=4, base_delay=0.1, total_budget=5),
        sleep=time.sleep,
        clock=time.clock,
        give_up=PersistenceError,
    )
    return Table(client, "t", retrier=retrier)


def test_throttling_is_retried_with_backoff() -> None:
    time = FakeTime()
    client = FlakyClient(
        [throttled("ThrottlingException"), throttled("ProvisionedThroughputExceededException")]
    )
    assert table(client, time).get({"PK": "x", "SK": "y"}) == {"PK": {"S": "x"}}
    assert client.calls == 3
    assert len(time.sleeps) == 2


def test_persistent_throttling_gives_up_with_a_persistence_error() -> None:
    client = FlakyClient([throttled("ThrottlingException")] * 10)
    with pytest.raises(PersistenceError, match="gave up after 4 attempts"):
        table(client, FakeTime()).get({"PK": "x", "SK": "y"})


def test_other_service_errors_are_not_swallowed() -> None:
    client = FlakyClient([throttled("ValidationException")])
    with pytest.raises(PersistenceError, match="ValidationException"):
        table(client, FakeTime()).get({"PK": "x", "SK": "y"})
    assert client.calls == 1


@pytest.fixture(params=["s3", "memory"])
def blobs(request: pytest.FixtureRequest) -> Iterator[BlobStore]:
    if request.param == "memory":
        yield InMemoryBlobStore()
        return
    with embedded_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="audit")
        yield S3BlobStore(client, "audit", prefix="runs")


def test_blob_round_trip_and_missing(blobs: BlobStore) -> None:
    ref = blobs.put("prompts/d1/attempt-1.txt", b"the prompt", content_type="text/plain")
    assert blobs.get(ref) == b"the prompt"
    ref2 = blobs.put("prompts/d1/attempt-1.txt", b"replaced")
    assert ref2 == ref
    assert blobs.get(ref) == b"replaced"
    with pytest.raises(NotFoundError):
        blobs.get(ref.replace("attempt-1", "attempt-9"))

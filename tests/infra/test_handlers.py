"""The scheduled handlers (open_cohort, snapshot, resolve) invoked as Lambda would, in-process,
on the real adapters under moto (DynamoDB, S3) with a movable market source."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from arena_core import bootstrap
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.site_publishers import S3SitePublisher
from arena_core.domain.market import ResolutionKind
from arena_core.errors import PublicationBusyError
from arena_core.ports.clock import FixedClock
from arena_core.services import publish_site
from arena_core.settings import ArenaSettings
from arena_local.workflow import LambdaContext
from functions.decide import handler as decide_handler
from functions.open_cohort import handler as open_cohort_handler
from functions.resolve import handler as resolve_handler
from functions.snapshot import handler as snapshot_handler
from tests.support.aws import FAKE_ENV, TABLE, create_stores
from tests.support.builders import binary, resolved
from tests.support.markets import StaticMarketSource

SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)
CONTEXT: Any = LambdaContext()  # what Powertools reads from Lambda's context object


@pytest.fixture
def wired(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[tuple[FixedClock, StaticMarketSource, Any]]:
    for key, value in {**FAKE_ENV, "POWERTOOLS_TRACE_DISABLED": "true"}.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        stores = create_stores()
        s3 = boto3.client("s3")
        for bucket in ("audit", "site"):
            s3.create_bucket(Bucket=bucket)
        clock = FixedClock(SUNDAY)
        source = StaticMarketSource([binary("m1", "0.40"), binary("m2", "0.70")])
        settings = ArenaSettings(
            table_name=TABLE, audit_bucket="audit", site_bucket="site", include_llms=False
        )
        bootstrap.reset(
            bootstrap.Container(
                settings,
                clock=clock,
                injected=bootstrap.Injected(
                    stores=stores,
                    blobs=S3BlobStore(s3, "audit"),
                    market_source=source,
                    publisher=S3SitePublisher(s3, "site"),
                ),
            )
        )
        yield clock, source, s3
        bootstrap.reset()


def test_open_cohort_is_idempotent_under_duplicate_deliveries(
    wired: tuple[FixedClock, StaticMarketSource, Any],
) -> None:
    first = open_cohort_handler.handler({"source": "schedule"}, CONTEXT)
    again = open_cohort_handler.handler({"source": "schedule"}, CONTEXT)
    opened = {"cohort_id": "c2026-03-01", "agents": 3, "lineup_release": 1}
    assert first == {**opened, "created": True}
    assert again == {**opened, "created": False}


def test_snapshot_and_resolve_handlers_mark_settle_and_publish(
    wired: tuple[FixedClock, StaticMarketSource, Any],
) -> None:
    clock, source, s3 = wired
    open_cohort_handler.handler({}, CONTEXT)
    clock.set(SUNDAY + timedelta(minutes=5))
    prepared = decide_handler.prepare({}, CONTEXT)
    for item in prepared["items"]:
        decide_handler.decide({**item, "execution_id": "run-1"}, CONTEXT)
    clock.set(SUNDAY + timedelta(minutes=30))  # a refresh window's first tick (30 by default)
    snapshot = snapshot_handler.handler({"source": "schedule"}, CONTEXT)
    assert snapshot["agents"] == 3
    assert snapshot["site_uploaded"] > 0
    index = s3.get_object(Bucket="site", Key="index.html")
    assert index["ContentType"] == "text/html; charset=utf-8"
    assert b"Leaderboard" in index["Body"].read()
    for market_id in ("m1", "m2"):
        source.set(resolved(source.markets[market_id], ResolutionKind.WINNER, "YES"))
    clock.set(SUNDAY + timedelta(hours=1))
    published = s3.get_object(Bucket="site", Key="data/leaderboard.json")["ETag"]
    resolution = resolve_handler.handler({"source": "schedule"}, CONTEXT)
    assert resolution["checked"] >= 1
    assert sum(resolution["settled"].values()) >= 1
    assert resolution["completed_cohorts"] == ["c2026-03-01"]
    # The resolution pass publishes nothing: the next snapshot tick shows what it settled
    assert s3.get_object(Bucket="site", Key="data/leaderboard.json")["ETag"] == published
    clock.set(SUNDAY + timedelta(hours=1, minutes=10))
    tick = snapshot_handler.handler({"source": "schedule"}, CONTEXT)
    # No tick ran at 01:00: this one makes up the hour's publication, and says so
    assert tick["site_scope"] == "full" and tick["site_why"].startswith("missed: last")
    clock.set(SUNDAY + timedelta(hours=1, minutes=20))
    tick = snapshot_handler.handler({"source": "schedule"}, CONTEXT)
    assert tick["site_scope"] == "board"
    leaderboard = json.loads(
        s3.get_object(Bucket="site", Key="data/leaderboard.json")["Body"].read()
    )
    follower = next(r for r in leaderboard if r["family_id"] == "baseline-market-follower")
    assert follower["resolved_bets"] >= 1


def test_a_snapshot_tick_finding_the_site_busy_exits_and_finalize_is_retried(
    wired: tuple[FixedClock, StaticMarketSource, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another publication holds the site's lease: the tick publishes nothing and says so; the
    run's Finalize, after waiting, fails with the retryable PublicationBusyError (its Retry
    tries again), its seal and snapshot pass being idempotent."""
    clock, _, s3 = wired
    monkeypatch.setattr(publish_site, "WAITS", ())
    open_cohort_handler.handler({}, CONTEXT)
    clock.set(SUNDAY + timedelta(minutes=5))
    prepared = decide_handler.prepare({}, CONTEXT)
    results = [
        decide_handler.decide({**item, "execution_id": "run-1"}, CONTEXT)
        for item in prepared["items"]
    ]
    held = S3SitePublisher(s3, "site").open("another", clock.now(), timedelta(minutes=30))
    clock.set(SUNDAY + timedelta(minutes=10))
    tick = snapshot_handler.handler({"source": "schedule"}, CONTEXT)
    assert (tick["site_scope"], tick["site_uploaded"]) == (None, 0)
    assert tick["site_why"] == "the site is being published by another"
    event = {"results": results, "execution_id": "run-1", "run_at": prepared["run_at"]}
    with pytest.raises(PublicationBusyError):
        decide_handler.finalize(event, CONTEXT)
    held.release()
    assert decide_handler.finalize(event, CONTEXT)["snapshot"]["site_scope"] == "weekly"

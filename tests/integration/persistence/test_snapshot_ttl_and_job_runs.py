"""Bounded growth: raw 10-minute snapshots and raw series points carry a TTL; hourly
snapshots, final (latest) snapshots and hourly, daily and weekly series points do not; and the
scheduled jobs' last runs, as ``arena status`` reads them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import boto3

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.adapters.dynamodb.schema import EXPIRES_AT
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.ports.stores import Stores
from arena_core.services.snapshot import family_points
from tests.support.aws import TABLE, create_stores, dynamo_client, embedded_aws

TAKEN = datetime(2026, 3, 1, 0, 10, tzinfo=UTC)


def _snapshot(taken_at: datetime) -> PortfolioSnapshot:
    money = Decimal("10000.00")
    return PortfolioSnapshot(
        agent_id="c2026-03-01.kimi-k2",
        cohort_id="c2026-03-01",
        family_id="kimi-k2",
        taken_at=taken_at,
        cash=money,
        positions_value=Decimal(0),
        total_value=money,
        total_pnl=Decimal(0),
        total_pnl_pct=Decimal(0),
        brier=None,
        resolved_bets=0,
        open_positions=0,
    )


def _items_by_kind() -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for item in boto3.client("dynamodb").scan(TableName=TABLE)["Items"]:
        found.setdefault(item["entity"]["S"], []).append(item)
    return found


def test_raw_snapshots_expire_after_the_setting_and_nothing_else_does() -> None:
    with embedded_aws():
        create_stores()  # the table
        stores = dynamo_stores(dynamo_client(), TABLE, snapshot_ttl=timedelta(days=30))
        passes = [_snapshot(TAKEN), _snapshot(TAKEN + timedelta(minutes=10))]
        stores.views.put_snapshots(passes)
        stores.views.put_hourly(passes)
        stores.views.put_finals(passes)
        points = family_points(passes, passes[-1].taken_at)  # raw, hour, day and week
        stores.views.put_series(points)
        kinds = _items_by_kind()
        expiries = sorted(int(i[EXPIRES_AT]["N"]) for i in kinds["snapshot"])
        expected = [int((TAKEN + timedelta(days=30, minutes=m)).timestamp()) for m in (0, 10)]
        assert expiries == expected
        raw = [i for i in kinds["series"] if i["resolution"]["S"] == "raw"]
        assert [int(i[EXPIRES_AT]["N"]) for i in raw] == expected[1:]
        assert kinds["hourly"] and kinds["latest"] and len(kinds["series"]) == 4
        kept = [i for kind in ("hourly", "latest", "series") for i in kinds[kind] if i not in raw]
        assert all(EXPIRES_AT not in item for item in kept)
        # And the snapshots read back as they were written
        window = stores.views.snapshots("c2026-03-01.kimi-k2", TAKEN, TAKEN + timedelta(hours=1))
        assert [s.taken_at for s in window] == [TAKEN, TAKEN + timedelta(minutes=10)]


def test_without_a_ttl_raw_snapshots_are_kept() -> None:
    with embedded_aws():
        stores = create_stores()
        stores.views.put_snapshots([_snapshot(TAKEN)])
        assert all(EXPIRES_AT not in i for kind in _items_by_kind().values() for i in kind)


def test_job_runs_keep_the_latest_time_of_each_job(stores: Stores) -> None:
    assert stores.views.job_runs() == {}
    stores.views.record_job_run("snapshot", TAKEN)
    stores.views.record_job_run("snapshot", TAKEN + timedelta(minutes=10))
    stores.views.record_job_run("snapshot", TAKEN + timedelta(minutes=5))  # a late retry
    stores.views.record_job_run("resolve", TAKEN + timedelta(hours=1))
    assert stores.views.job_runs() == {
        "snapshot": TAKEN + timedelta(minutes=10),
        "resolve": TAKEN + timedelta(hours=1),
    }


def test_a_series_points_mean_return_is_kept_to_a_hundred_millionth() -> None:
    """Three agents' returns average to a third: stored and carried as 3.33333333, not to the
    28 digits a division gives."""
    agents = [
        _snapshot(TAKEN).model_copy(
            update={"agent_id": f"c{week}.kimi-k2", "cohort_id": f"c{week}", "total_pnl_pct": pct}
        )
        for week, pct in (("1", Decimal(10)), ("2", Decimal(0)), ("3", Decimal(0)))
    ]
    points = family_points(agents, TAKEN)
    assert {p.return_pct for p in points} == {Decimal("3.33333333")}
    assert {p.agents for p in points} == {3}

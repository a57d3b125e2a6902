"""One function per Lambda entry point: build the use case from the container, run it, and
return a JSON-ready summary. Handlers stay thin (parse, call one of these, record metrics).

Each entry point imports its own services, so a function loads only what it runs (the decide
function never imports the site renderer and Jinja2): cold-start budget.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, time
from typing import Any

from arena_core.bootstrap import Container
from arena_core.events import DecideItem, DecisionRunInput, FinalizeInput

UTC_MIDNIGHT = time(0, 0)
SNAPSHOT_MINUTES = 10  # the snapshot schedule's period


def open_cohort(c: Container) -> dict[str, Any]:
    from arena_core.services.open_cohort import OpenCohortService  # noqa: PLC0415

    return asdict(OpenCohortService(c.repo, c.clock, c.lineup).open())


def prepare(c: Container, event: DecisionRunInput) -> dict[str, Any]:
    from arena_core.services.decision_run import PrepareRunService, RunRequest  # noqa: PLC0415

    week = (
        datetime.combine(event.week_start, UTC_MIDNIGHT, tzinfo=c.clock.now().tzinfo)
        if event.week_start
        else None
    )
    service = PrepareRunService(
        c.repo,
        c.market_source,
        c.blobs,
        c.clock,
        universe_size=c.settings.universe_size,
        horizon=c.settings.decision_horizon,
    )
    prepared = service.prepare(RunRequest(week, event.cohort_ids, event.agent_ids))
    return {
        "run_at": prepared.run_at.isoformat(),
        "universe_ref": prepared.universe_ref,
        "markets": prepared.markets,
        "items": prepared.items,
        "max_concurrency": event.max_concurrency or 0,
    }


def decide(c: Container, item: DecideItem) -> dict[str, Any]:
    from arena_core.errors import AttemptsExhaustedError  # noqa: PLC0415
    from arena_core.services.decide import (  # noqa: PLC0415
        DecideRequest,
        DecideService,
        DecideSettings,
        DecideStatus,
    )

    settings = DecideSettings(
        format_retries=c.settings.format_retries,
        max_attempts=c.settings.max_attempts,
        lease=c.lease,
    )
    # The execution id makes the owner token: a retried step of the same run resumes its own
    # claim, while an overlapping execution of the same week waits or finds the work done.
    owner = f"{item.execution_id}:{item.agent_id}"
    request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, owner)
    result = DecideService(c.repo, c.blobs, c.clock, settings).decide(request, c.agent_for)
    if result.status is DecideStatus.EXHAUSTED:
        # Not retryable: the workflow's Catch records this agent's failure for the run.
        raise AttemptsExhaustedError(result.error or f"{result.decision_id}: attempts exhausted")
    retries = sum(
        max(0, int(r.get("transport_attempts") or 1) - 1)
        for r in result.outcome.get("responses", [])
    )
    return {
        "agent_id": item.agent_id,
        "decision_id": result.decision_id,
        "status": result.status.value,
        "action": result.action,
        "fallback": result.fallback,
        "executed": result.executed,
        "rejected": result.rejected,
        "error": result.error,
        "upstream_retries": retries,
    }


def site_refresh_due(c: Container) -> bool:
    """Whether now falls in the first 10 minutes of a site refresh window (windows start at
    Sunday 00:00 UTC): one 10-minute schedule tick per window publishes."""
    now = c.clock.now()
    sunday_based_day = (now.weekday() + 1) % 7
    minutes = sunday_based_day * 1440 + now.hour * 60 + now.minute
    return minutes % c.settings.site_refresh_minutes < SNAPSHOT_MINUTES


def snapshot_and_publish(c: Container, *, force_publish: bool = False) -> dict[str, Any]:
    from arena_core.services.snapshot import SnapshotService  # noqa: PLC0415

    report = SnapshotService(c.repo, c.market_source, c.clock).run()
    site = publish_site(c) if force_publish or site_refresh_due(c) else None
    return {
        "taken_at": report.taken_at.isoformat(),
        "agents": report.agents,
        "positions": report.positions,
        "markets": report.markets,
        "requests": report.requests,
        "failed_market_ids": list(report.failed_market_ids),
        "stale_positions": report.stale_positions,
        "seconds": report.seconds,
        "site_files": site.files if site else 0,
        "site_uploaded": site.uploaded if site else 0,
    }


def finalize(c: Container, event: FinalizeInput) -> dict[str, Any]:
    statuses: dict[str, int] = {}
    for result in event.results:
        key = str(result.get("status", "failed"))
        statuses[key] = statuses.get(key, 0) + 1
    # The run's trades appear on the site at once, whatever the refresh window.
    return {"decisions": statuses, "snapshot": snapshot_and_publish(c, force_publish=True)}


def publish_site(c: Container) -> Any:
    from arena_core.services.publish_site import PublishSiteService  # noqa: PLC0415

    return PublishSiteService(c.repo, c.publisher, c.blobs, c.clock).run()


def resolve(c: Container) -> dict[str, Any]:
    from arena_core.services.resolution import ResolutionService  # noqa: PLC0415

    report = ResolutionService(c.repo, c.market_source, c.clock).run()
    changed = bool(report.settled or report.completed_cohorts)
    site = publish_site(c) if changed and site_refresh_due(c) else None
    return {
        "checked": report.checked,
        "settled": {s.market_id: len(s.settled) for s in report.settled},
        "failed_market_ids": list(report.failed_market_ids),
        "completed_cohorts": list(report.completed_cohorts),
        "site_uploaded": site.uploaded if site else 0,
    }

"""One function per Lambda entry point: build the use case from the container, run it, and
return its typed result. Handlers stay thin (parse, call one of these, record metrics).

Each entry point imports its own services, so a function loads only what it runs (the decide
function never imports the site renderer and Jinja2): cold-start budget.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from arena_core.bootstrap import Container
from arena_core.constants import RESOLVE_PERIOD, SNAPSHOT_PERIOD

if TYPE_CHECKING:  # the workflow's models load only in the functions of the workflow
    from arena_core.services.commitments import SealReport
    from arena_core.services.open_cohort import OpenCohortResult
    from arena_core.services.panel import PanelSettings
    from arena_core.services.publish_site import Scope, SiteReport
    from arena_core.workflow import DecideInput, DecideOutput, FinalizeInput, PreparedRun, RunInput

UTC_MIDNIGHT = time(0, 0)


class _Result(BaseModel):
    # Built on first use: a function returns one of these, and its cold start pays for no other.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class SnapshotResult(_Result):
    taken_at: datetime
    agents: int
    positions: int
    markets: int
    requests: int
    failed_market_ids: tuple[str, ...]
    stale_positions: int
    seconds: float
    site_files: int
    site_uploaded: int


class FinalizeResult(_Result):
    decisions: dict[str, int]
    snapshot: SnapshotResult
    run_root: str | None = None  # the Merkle root of the run's commitments, when sealed
    # Committed objects sealing skipped because they cannot be read (listed for an operator).
    unreadable_commitments: tuple[str, ...] = ()


class ResolveResult(_Result):
    checked: int
    settled: dict[str, int]  # market id -> positions settled now
    failed_market_ids: tuple[str, ...]
    completed_cohorts: tuple[str, ...]
    site_uploaded: int
    panel_scored: int = 0  # v1+panel questions scored now
    panel_void: int = 0


def panel_settings(c: Container) -> PanelSettings:
    from arena_core.services.panel import PanelSettings  # noqa: PLC0415

    return PanelSettings(c.settings.panel_size, timedelta(days=c.settings.panel_horizon_days))


def open_cohort(c: Container) -> OpenCohortResult:
    from arena_core.services.open_cohort import OpenCohortService  # noqa: PLC0415

    service = OpenCohortService(
        c.stores.cohorts,
        c.clock,
        c.lineups,
        c.settings.methodology,
        include_llms=c.settings.include_llms,
        include_baselines=c.settings.include_baselines,
    )
    return service.open()


def prepare(c: Container, event: RunInput) -> PreparedRun:
    from arena_core.services.weekly_run import PrepareRunService, RunRequest  # noqa: PLC0415

    week = (
        datetime.combine(event.week_start, UTC_MIDNIGHT, tzinfo=c.clock.now().tzinfo)
        if event.week_start
        else None
    )
    service = PrepareRunService(
        c.stores,
        c.market_source,
        c.blobs,
        c.clock,
        universe_size=c.settings.universe_size,
        horizon=c.settings.decision_horizon,
        panel=panel_settings(c),
    )
    request = RunRequest(week, event.cohort_ids, event.agent_ids, event.max_concurrency or 0)
    return service.prepare(request)


def decide(c: Container, item: DecideInput) -> DecideOutput:
    from arena_core.domain.decisions import DecisionStatus  # noqa: PLC0415
    from arena_core.errors import AttemptsExhaustedError  # noqa: PLC0415
    from arena_core.services.decide import (  # noqa: PLC0415
        DecideRequest,
        DecideService,
        DecideSettings,
    )
    from arena_core.workflow import DecideOutput  # noqa: PLC0415

    settings = DecideSettings(
        format_retries=c.settings.format_retries,
        max_attempts=c.settings.max_attempts,
        lease=c.lease,
        panel=panel_settings(c),
    )
    # The execution names the run: a retried step of the same run takes its claim over (the
    # invocation it replaces, if still alive, is fenced out: each invocation owns the claim
    # under its own token), while an overlapping execution of the same week waits or finds
    # the work done.
    run = f"{item.execution_id}:{item.agent_id}"
    owner = f"{run}:{uuid.uuid4().hex}"
    request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, owner, run)
    service = DecideService(c.stores, c.blobs, c.clock, settings, commitments=c.commitments)
    result = service.decide(request, c.agent_for)
    if result.status is DecisionStatus.EXHAUSTED:
        # Not retryable: the workflow's Catch records this agent's failure for the run.
        raise AttemptsExhaustedError(result.error or f"{result.decision_id}: attempts exhausted")
    outcome = result.outcome
    return DecideOutput(
        agent_id=item.agent_id,
        decision_id=result.decision_id,
        status=result.status,
        already_decided=result.already_decided,
        action=result.action.value if result.action else None,
        fallback=result.fallback,
        executed=result.executed,
        rejected=result.rejected,
        error=result.error,
        upstream_retries=outcome.transport_retries if outcome else 0,
    )


def site_refresh_due(c: Container) -> bool:
    """Whether now falls in the first snapshot period of a site refresh window (windows start
    at Sunday 00:00 UTC): one snapshot tick per window publishes."""
    now = c.clock.now()
    sunday_based_day = (now.weekday() + 1) % 7
    minutes = sunday_based_day * 1440 + now.hour * 60 + now.minute
    return minutes % c.settings.site_refresh_minutes < SNAPSHOT_PERIOD.total_seconds() // 60


REFERENCE_SUNDAY = datetime(2000, 1, 2, tzinfo=UTC)  # refresh windows count from Sundays 00:00


def window_crossed(c: Container, since: timedelta) -> bool:
    """Whether a site refresh window started within ``since`` before now: the first run of a
    job after each window's start publishes, whatever minute the job's schedule fires at (an
    hourly job crosses every window of an hour or less)."""
    window = timedelta(minutes=c.settings.site_refresh_minutes)
    now = c.clock.now()
    return (now - REFERENCE_SUNDAY) // window != (now - since - REFERENCE_SUNDAY) // window


def snapshot_and_publish(c: Container, *, weekly: bool = False) -> SnapshotResult:
    """A snapshot pass, then the site: a light publication on its refresh window, or (after
    the decision run) the weekly one, whatever the window."""
    from arena_core.services.publish_site import LIGHT, WEEKLY  # noqa: PLC0415
    from arena_core.services.snapshot import SnapshotService  # noqa: PLC0415

    report = SnapshotService(c.stores, c.market_source, c.clock).run()
    c.stores.views.record_job_run("snapshot", report.taken_at)
    due = weekly or site_refresh_due(c)
    site = publish_site(c, WEEKLY if weekly else LIGHT) if due else None
    return SnapshotResult(
        taken_at=report.taken_at,
        agents=report.agents,
        positions=report.positions,
        markets=report.markets,
        requests=report.requests,
        failed_market_ids=report.failed_market_ids,
        stale_positions=report.stale_positions,
        seconds=report.seconds,
        site_files=site.files if site else 0,
        site_uploaded=site.uploaded if site else 0,
    )


def finalize(c: Container, event: FinalizeInput) -> FinalizeResult:
    from arena_core.services.weekly_run import decision_counts  # noqa: PLC0415

    decisions = decision_counts(event.results)
    report = seal_run(c, event)
    # The run's trades appear on the site at once, whatever the refresh window.
    snapshot = snapshot_and_publish(c, weekly=True)
    return FinalizeResult(
        decisions=decisions,
        snapshot=snapshot,
        run_root=report.root if report else None,
        unreadable_commitments=report.unreadable if report else (),
    )


def seal_run(c: Container, event: FinalizeInput) -> SealReport | None:
    """The run's commitment: the Merkle root of its decisions' commitments, written once per
    execution, and the log brought up to date. Before the site: it never waits on rendering."""
    from arena_core.services import commitments  # noqa: PLC0415
    from arena_core.workflow import DecideOutput  # noqa: PLC0415

    store = c.commitments
    if store is None:
        return None
    decided = [r.decision_id for r in event.results if isinstance(r, DecideOutput)]
    return commitments.seal_run(
        c.stores.decisions,
        store,
        run_id=event.execution_id,
        run_at=event.run_at or c.clock.now(),
        decision_ids=decided,
        now=c.clock.now(),
    )


def publish_site(c: Container, scope: Scope | None = None) -> SiteReport:
    """Publish the site (default: the weekly scope, everything)."""
    from arena_core.analysis.figures import Rules  # noqa: PLC0415
    from arena_core.services.publish_site import WEEKLY, PublishSiteService  # noqa: PLC0415

    rules = Rules(min_forecasts=c.settings.min_forecasts, min_cohorts=c.settings.min_cohorts)
    from arena_core.site.build import parse_simulation  # noqa: PLC0415

    simulated = parse_simulation(c.settings.simulation)
    service = PublishSiteService(
        c.stores, c.publisher, c.blobs, c.clock, rules, simulated=simulated
    )
    return service.run(scope or WEEKLY)


def resolve(c: Container) -> ResolveResult:
    from arena_core.services.publish_site import FULL  # noqa: PLC0415
    from arena_core.services.resolution import ResolutionService  # noqa: PLC0415

    report = ResolutionService(c.stores, c.market_source, c.clock).run()
    c.stores.views.record_job_run("resolve", c.clock.now())
    # The hourly pass refreshes the leaderboards, statistics and data (the snapshot ticks
    # between refresh only the live cohorts' pages), whether or not it settled anything: at
    # its first run of each refresh window (every run, with windows of an hour or less).
    site = publish_site(c, FULL) if window_crossed(c, RESOLVE_PERIOD) else None
    return ResolveResult(
        checked=report.checked,
        settled={s.market_id: len(s.settled) for s in report.settled},
        failed_market_ids=report.failed_market_ids,
        completed_cohorts=report.completed_cohorts,
        site_uploaded=site.uploaded if site else 0,
        panel_scored=len(report.panel.scored),
        panel_void=len(report.panel.void),
    )

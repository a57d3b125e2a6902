"""One function per Lambda entry point: build the use case from the container, run it, and
return its typed result. Handlers stay thin (parse, call one of these, log the result).

Each entry point imports its own services, so a function loads only what it runs (the decide
function never imports the site renderer and Jinja2): cold-start budget.
"""

from __future__ import annotations

import uuid
from datetime import datetime, time
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from arena_core.bootstrap import Container
from arena_core.errors import PublicationBusyError
from arena_core.observability import logger

if TYPE_CHECKING:  # the workflow's models load only in the functions of the workflow
    from collections.abc import Sequence

    from arena_core.domain.portfolio import PortfolioSnapshot
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
    site_scope: str | None = None  # what the tick published (board, live, full, daily, weekly)
    site_why: str = ""  # why it was due (or why nothing was published)


class FinalizeResult(_Result):
    decisions: dict[str, int]
    snapshot: SnapshotResult
    run_root: str | None = None  # the Merkle root of the run's commitments, when sealed
    # The agents that ended without a decision, named in one alert when a topic is configured.
    undecided: tuple[str, ...] = ()
    # Committed objects sealing skipped because they cannot be read (listed for an operator).
    unreadable_commitments: tuple[str, ...] = ()


class ResolveResult(_Result):
    checked: int
    settled: dict[str, int]  # market id -> positions settled now
    failed_market_ids: tuple[str, ...]
    completed_cohorts: tuple[str, ...]
    panel_scored: int = 0  # v1+panel questions scored now
    panel_void: int = 0


def panel_settings(c: Container) -> PanelSettings:
    from arena_core.services.panel import PanelSettings  # noqa: PLC0415

    return PanelSettings(c.settings.panel_size)


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
    concurrency = event.max_concurrency
    if concurrency is None:  # the schedule's run, or a rerun that does not say
        concurrency = c.settings.run_concurrency
    request = RunRequest(week, event.cohort_ids, event.agent_ids, concurrency)
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


def snapshot_and_publish(c: Container, *, weekly: bool = False) -> SnapshotResult:
    """A snapshot pass, then the site: what the tick's time calls for (``publication/plan.py``),
    or (after the decision run) the weekly publication, whatever the time."""
    from arena_core.services.publish_site import WEEKLY  # noqa: PLC0415
    from arena_core.services.snapshot import SnapshotService  # noqa: PLC0415

    # A tick reads eventually consistent (its last write is ten minutes old); the pass after a
    # decision run reads what the run has just written, so strongly.
    reads = c.stores if weekly else c.reading_stores
    # A scheduled pass that refreshed no market fails (the operator is told); the pass after
    # a decision run marks at the last prices rather than leave the run unreported.
    report = SnapshotService(
        c.stores, c.market_source, c.clock, reads=reads, require_refresh=not weekly
    ).run()
    c.stores.views.record_job_run("snapshot", report.taken_at)
    if not weekly:
        watch_resolution(c, report.taken_at)
    # The snapshots just written are the live agents' latest: the publication reads none back.
    site = publish_site(c, WEEKLY if weekly else None, fresh=report.snapshots)
    if weekly and site.lease == "busy":  # the run's Retry tries Finalize again
        raise PublicationBusyError(site.why)
    # What was published and why, each file uploaded and each value computed again.
    logger.info("site", extra={"publication": site.lines()})
    return SnapshotResult(
        taken_at=report.taken_at,
        agents=report.agents,
        positions=report.positions,
        markets=report.markets,
        requests=report.requests,
        failed_market_ids=report.failed_market_ids,
        stale_positions=report.stale_positions,
        seconds=report.seconds,
        site_files=site.files,
        site_uploaded=site.uploaded,
        site_scope=site.scope,
        site_why=site.why,
    )


def watch_resolution(c: Container, now: datetime) -> None:
    """The first pass of each hour alerts when no resolution pass ran for three hours (no
    cohort would ever complete): one read, no alarm or custom metric to pay for."""
    from arena_core.services.run_alerts import alert_stalled_resolution  # noqa: PLC0415
    from arena_core.services.snapshot import opens_hour  # noqa: PLC0415

    if c.alerts is None or not opens_hour(now):
        return
    alert_stalled_resolution(c.alerts, c.stores.views.job_runs().get("resolve"), now)


def finalize(c: Container, event: FinalizeInput) -> FinalizeResult:
    from arena_core.services.weekly_run import decision_counts  # noqa: PLC0415

    decisions = decision_counts(event.results)
    report = seal_run(c, event)
    # The run's trades appear on the site at once, whatever the refresh window.
    snapshot = snapshot_and_publish(c, weekly=True)
    # Last: a failure to alert fails the step, whose retry then finds the rest done.
    undecided = alert_failures(c, event)
    return FinalizeResult(
        decisions=decisions,
        snapshot=snapshot,
        run_root=report.root if report else None,
        unreadable_commitments=report.unreadable if report else (),
        undecided=tuple(undecided),
    )


def alert_failures(c: Container, event: FinalizeInput) -> list[str]:
    """One alert naming the run's agents that ended without a decision (when a topic is
    configured); the agents named."""
    from arena_core.services.run_alerts import alert_failed_agents, failed_agents  # noqa: PLC0415

    if c.alerts is None:
        return [f.agent_id for f in failed_agents(event.results)]
    return alert_failed_agents(
        c.alerts, event.results, run_id=event.execution_id, run_at=event.run_at
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


def publish_site(
    c: Container, scope: Scope | None = None, *, fresh: Sequence[PortfolioSnapshot] = ()
) -> SiteReport:
    """Publish ``scope`` (None: what the time calls for, as a snapshot tick does);
    ``fresh``: snapshots just taken, the latest of their agents."""
    from arena_core.analysis.figures import Rules  # noqa: PLC0415
    from arena_core.publication.plan import Cadence  # noqa: PLC0415
    from arena_core.services.publish_site import PublishSiteService  # noqa: PLC0415
    from arena_core.site.build import parse_simulation  # noqa: PLC0415

    rules = Rules(min_forecasts=c.settings.min_forecasts, min_cohorts=c.settings.min_cohorts)
    cadence = Cadence(c.settings.leaderboard_refresh_minutes, c.settings.site_refresh_minutes)
    service = PublishSiteService(
        c.reading_stores,
        c.publisher,
        c.blobs,
        c.clock,
        rules,
        simulated=parse_simulation(c.settings.simulation),
        cadence=cadence,
        contact=c.settings.site_contact,
    )
    return service.run(scope, fresh=fresh)


def resolve(c: Container) -> ResolveResult:
    """Settle and complete; the next snapshot tick shows it (its leaderboard within ten
    minutes, the site-wide pages and a completed cohort's final pages within the hour): one
    publisher per tick, none at the same minute as another."""
    from arena_core.services.resolution import ResolutionService  # noqa: PLC0415

    report = ResolutionService(c.stores, c.market_source, c.clock).run()
    c.stores.views.record_job_run("resolve", c.clock.now())
    return ResolveResult(
        checked=report.checked,
        settled={s.market_id: len(s.settled) for s in report.settled},
        failed_market_ids=report.failed_market_ids,
        completed_cohorts=report.completed_cohorts,
        panel_scored=len(report.panel.scored),
        panel_void=len(report.panel.void),
    )

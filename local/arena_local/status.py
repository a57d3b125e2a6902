"""``arena status``: the facts an operator checks first, read from the stores.

Active cohorts and their agents' values (each agent's latest snapshot), when the snapshot and
resolve jobs last ran, the last decision run with each agent's status, failed executions of
the past week, messages in the dead-letter queue and the site's address. ``collect`` reads them
from the stores plus what Step Functions and SQS say (the CLI asks them; the demo passes its
own), and the result is JSON, so a demo writes it beside its site for ``arena status --dir``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal

from pydantic import BaseModel, ConfigDict

from arena_core.constants import DECISION_RUN_OFFSET
from arena_core.domain.cohort import Agent, Cohort, decision_week, week_start_for
from arena_core.domain.decisions import DecisionRecord, DecisionStatus
from arena_core.domain.text import terminal_text
from arena_core.ports.stores import Stores
from arena_core.publication.state import Report
from arena_core.services.resolution import cohorts_for_decisions

STATUS_FILE = "status.json"
FAILED_EXECUTIONS = ("FAILED", "TIMED_OUT", "ABORTED")
HORIZON = 5  # cohorts that still decide (ARENA_DECISION_HORIZON, the deployed default)


class _Fact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Execution(_Fact):
    name: str
    status: str  # RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED
    started: datetime


class AgentValue(_Fact):
    agent_id: str
    display_name: str
    value: Decimal | None  # the latest snapshot's total value (None before the first)
    pnl_pct: Decimal | None


class CohortStatus(_Fact):
    cohort_id: str
    agents: tuple[AgentValue, ...]


class AgentDecision(_Fact):
    agent_id: str
    display_name: str
    decision: str  # succeeded, fallback, retrying, exhausted, failed (or running)


class Status(_Fact):
    at: datetime
    cohorts: tuple[CohortStatus, ...]  # the active ones
    last_snapshot: datetime | None
    last_resolve: datetime | None
    last_run: datetime | None  # the scheduled time of the last decision run
    last_run_agents: tuple[AgentDecision, ...]
    last_execution: Execution | None
    failed_executions: tuple[Execution, ...]
    dead_letters: int | None
    site: str | None
    # The site's last publications: scope, why, what they uploaded and computed again.
    publications: tuple[Report, ...] = ()
    # Confirmed and pending subscriptions to the alarm topic (None: not read, a demo).
    subscribers: tuple[int, int] | None = None


def decision_state(record: DecisionRecord | None, running: bool) -> str:
    """The five words of an agent's last decision (and ``running`` while a run works on it)."""
    if record is None:
        return "running" if running else "failed"
    if record.status is DecisionStatus.SUCCEEDED:
        return "fallback" if record.outcome is not None and record.outcome.fallback else "succeeded"
    if record.status is DecisionStatus.CLAIMED:
        return "retrying" if record.attempts else "running"
    if record.status is DecisionStatus.RETRYABLE_FAILURE:
        return "retrying" if running else "failed"
    return record.status.value  # exhausted, failed


def last_run_time(now: datetime) -> datetime:
    """The most recent scheduled decision run (Sunday 00:05 UTC) at or before ``now``."""
    run = week_start_for(now) + DECISION_RUN_OFFSET
    return run if run <= now else run - timedelta(days=7)


def collect(
    stores: Stores,
    now: datetime,
    executions: list[Execution],
    dead_letters: int | None,
    site: str | None,
    *,
    publications: tuple[Report, ...] = (),
) -> Status:
    ordered = sorted(executions, key=lambda e: e.started)
    latest = ordered[-1] if ordered else None
    running = latest is not None and latest.status == "RUNNING"
    run_at = last_run_time(now)
    everything = stores.cohorts.cohorts()
    active = [c for c in everything if c.completed_at is None]
    # Who the last run asked: the newest cohorts active when it ran (a cohort may have
    # completed since).
    then = [c for c in everything if c.week_start <= run_at and not _done_before(c, run_at)]
    deciding = cohorts_for_decisions(then, HORIZON)
    jobs = stores.views.job_runs()
    week_ago = now - timedelta(days=7)
    return Status(
        at=now,
        cohorts=tuple(_values(stores, c) for c in active),
        last_snapshot=jobs.get("snapshot"),
        last_resolve=jobs.get("resolve"),
        last_run=run_at if deciding else None,
        last_run_agents=tuple(a for c in deciding for a in _decisions(stores, c, run_at, running)),
        last_execution=latest,
        failed_executions=tuple(
            e for e in ordered if e.status in FAILED_EXECUTIONS and e.started >= week_ago
        ),
        dead_letters=dead_letters,
        site=site,
        publications=publications,
    )


def _done_before(cohort: Cohort, moment: datetime) -> bool:
    return cohort.completed_at is not None and cohort.completed_at < moment


def _values(stores: Stores, cohort: Cohort) -> CohortStatus:
    latest = stores.views.latest_snapshots(cohort)
    agents = []
    for spec in cohort.lineup:
        agent_id = Agent.id_for(cohort.cohort_id, spec.family_id)
        snapshot = latest.get(agent_id)
        agents.append(
            AgentValue(
                agent_id=agent_id,
                display_name=spec.display_name,
                value=snapshot.total_value if snapshot else None,
                pnl_pct=snapshot.total_pnl_pct if snapshot else None,
            )
        )
    return CohortStatus(cohort_id=cohort.cohort_id, agents=tuple(agents))


def _decisions(
    stores: Stores, cohort: Cohort, run_at: datetime, running: bool
) -> list[AgentDecision]:
    week = decision_week(cohort.week_start, run_at)
    found = []
    for spec in cohort.lineup:
        agent_id = Agent.id_for(cohort.cohort_id, spec.family_id)
        record = stores.decisions.get_decision(DecisionRecord.id_for(agent_id, week))
        state = decision_state(record, running)
        found.append(
            AgentDecision(agent_id=agent_id, display_name=spec.display_name, decision=state)
        )
    return found


def render(status: Status) -> list[str]:
    def when(moment: datetime | None) -> str:
        return f"{moment:%Y-%m-%d %H:%M} UTC" if moment else "never"

    lines = [f"Status at {when(status.at)}"]
    lines.append(
        f"Last snapshot: {when(status.last_snapshot)}; last resolve: {when(status.last_resolve)}"
    )
    execution = status.last_execution
    run = f"Last decision run: {when(status.last_run)}"
    if execution is not None:
        run += (
            f" (execution {shown(execution.name)}: {shown(execution.status)}, "
            f"started {when(execution.started)})"
        )
    lines.append(run)
    for agent in status.last_run_agents:
        lines.append(f"  {shown(agent.agent_id):<48} {shown(agent.decision)}")
    lines.append(f"Active cohorts: {len(status.cohorts)}")
    for cohort in status.cohorts:
        lines.append(f"  {shown(cohort.cohort_id)}")
        for value in cohort.agents:
            worth = f"${value.value:,.2f}" if value.value is not None else "no snapshot yet"
            pnl = f" ({value.pnl_pct:+.2f}%)" if value.pnl_pct is not None else ""
            lines.append(f"    {shown(value.display_name):<40} {worth:>14}{pnl}")
    failed = status.failed_executions
    lines.append(f"Failed executions in the last 7 days: {len(failed)}")
    lines += [f"  {shown(e.name)}: {shown(e.status)}, started {when(e.started)}" for e in failed]
    letters = "unknown" if status.dead_letters is None else str(status.dead_letters)
    lines.append(f"Messages in the dead-letter queue: {letters}")
    lines += subscriber_lines(status.subscribers)
    lines.append(f"Site: {shown(status.site or 'not published')}")
    lines += _publications(status.publications, when)
    return lines


PUBLICATIONS_SHOWN, DETAILS_SHOWN = 5, 6


def _publications(reports: tuple[Report, ...], when: Callable[[datetime], str]) -> list[str]:
    """The last publications, newest first: scope and why, and what each uploaded and computed
    again (a few of each)."""
    lines = [f"Last publications: {len(reports)} kept"] if reports else []
    for report in reversed(reports[-PUBLICATIONS_SHOWN:]):
        lines.append(
            f"  {when(report.at)} {shown(report.scope)} ({shown(report.why)}): "
            f"{report.uploaded} uploaded, {report.repaired} repaired, "
            f"{len(report.misses)} computed again"
        )
        lines += [f"    uploaded {shown(p)}" for p in report.paths[:DETAILS_SHOWN]]
        lines += [f"    computed again {shown(m)}" for m in report.misses[:DETAILS_SHOWN]]
    return lines


def subscriber_lines(subscribers: tuple[int, int] | None) -> list[str]:
    """Who receives the alerts, with a warning when no subscription is confirmed."""
    if subscribers is None:
        return []
    confirmed, pending = subscribers
    if confirmed:
        return [f"Alerts: {confirmed} confirmed subscription(s) to the alarm topic"]
    waiting = (
        f" ({pending} pending: confirm the e-mail AWS sent)"
        if pending
        else " (deploy with -c arena:alarmEmail=you@example.com, or subscribe to AlarmTopicArn)"
    )
    return [
        f"WARNING: no confirmed subscription to the alarm topic: nobody receives alerts{waiting}"
    ]


def shown(text: str) -> str:
    """Stored text as one inert line: a status read from a folder may hold anything."""
    return terminal_text(text, 120)

"""One alert per decision run in which an agent ended without a decision.

The Map's Catch keeps one agent's failure from failing the run, so a run whose agents failed
still succeeds, and the failed-run rule never fires for it. Finalize therefore names them in one
message: those whose step failed for good (the Catch's record: attempts exhausted, a fatal
upstream error, a bug) and those whose decision ended without success (a retryable failure left
for a rerun). A rerun that finds a decision already final is not a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from arena_core.domain.decision_status import DecisionStatus
from arena_core.ports.alerts import Alerts
from arena_core.workflow import DecideOutput, FailureRecord

ENDED_WITHOUT_DECISION = frozenset(
    {DecisionStatus.FAILED, DecisionStatus.EXHAUSTED, DecisionStatus.RETRYABLE_FAILURE}
)
CAUSE_LIMIT = 300  # characters of each cause quoted: the message stays one screen


@dataclass(frozen=True)
class FailedAgent:
    agent_id: str
    status: DecisionStatus
    reason: str


def failed_agents(results: Sequence[DecideOutput | FailureRecord]) -> list[FailedAgent]:
    """The run's agents that ended failed, exhausted or awaiting a retry, in agent order."""
    found = []
    for result in results:
        if isinstance(result, FailureRecord):
            reason = f"{result.error}: {result.cause}"
            found.append(FailedAgent(result.agent_id, result.status, reason))
        elif result.status in ENDED_WITHOUT_DECISION and not result.already_decided:
            found.append(FailedAgent(result.agent_id, result.status, result.error or ""))
    return sorted(found, key=lambda f: f.agent_id)


def alert_message(run_id: str, run_at: datetime | None, failed: Sequence[FailedAgent]) -> str:
    when = f" of {run_at:%Y-%m-%d %H:%M} UTC" if run_at else ""
    lines = [f"Decision run {run_id}{when}: {len(failed)} agent(s) ended without a decision."]
    for agent in failed:
        reason = " ".join(agent.reason.split())[:CAUSE_LIMIT]
        lines.append(
            f"- {agent.agent_id}: {agent.status.value}" + (f" ({reason})" if reason else "")
        )
    lines.append(
        "A rerun of the week (arena rerun --week ... --agent ...) retries them; decisions "
        "already final are never taken twice."
    )
    return "\n".join(lines)


def alert_failed_agents(
    alerts: Alerts,
    results: Sequence[DecideOutput | FailureRecord],
    *,
    run_id: str,
    run_at: datetime | None,
) -> list[str]:
    """Send one alert naming every agent that ended without a decision (none when all
    decided); return the agents named."""
    failed = failed_agents(results)
    if failed:
        subject = f"Forecaster Arena: {len(failed)} agent(s) failed in run {run_id}"
        alerts.send(subject, alert_message(run_id, run_at, failed))
    return [f.agent_id for f in failed]

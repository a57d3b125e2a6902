"""One alert per decision run in which an agent ended without a decision; one an hour while
the resolution passes have stopped.

The Map's Catch keeps one agent's failure from failing the run, so a run whose agents failed
still succeeds, and the failed-run rule never fires for it. Finalize therefore names them in one
message: those whose step failed for good (the Catch's record: attempts exhausted, a fatal
upstream error, a bug) and those whose decision ended without success (a retryable failure left
for a rerun). A rerun that finds a decision already final is not a failure.

The message is bounded: a summary by status and error first (what a week of mass failures
needs), then one line per agent until ``MESSAGE_BYTES``, then how many more there are. A
thousand failing agents fit in one message, whatever their causes hold (emoji, half an emoji).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from arena_core.constants import RESOLVE_SILENCE
from arena_core.domain.decision_status import DecisionStatus
from arena_core.domain.text import inert_text
from arena_core.ports.alerts import Alerts
from arena_core.workflow import DecideOutput, FailureRecord

ENDED_WITHOUT_DECISION = frozenset(
    {DecisionStatus.FAILED, DecisionStatus.EXHAUSTED, DecisionStatus.RETRYABLE_FAILURE}
)
CAUSE_LIMIT = 300  # characters of each cause quoted: the message stays one screen
MESSAGE_BYTES = 32_000  # UTF-8 bytes of a message (SNS takes 256 KB; an e-mail stays readable)


@dataclass(frozen=True)
class FailedAgent:
    agent_id: str
    status: DecisionStatus
    reason: str
    kind: str = ""  # the error's type (a Catch's record), for the summary


def failed_agents(results: Sequence[DecideOutput | FailureRecord]) -> list[FailedAgent]:
    """The run's agents that ended failed, exhausted or awaiting a retry, in agent order."""
    found = []
    for result in results:
        if isinstance(result, FailureRecord):
            reason = f"{result.error}: {result.cause}"
            found.append(FailedAgent(result.agent_id, result.status, reason, result.error))
        elif result.status in ENDED_WITHOUT_DECISION and not result.already_decided:
            found.append(FailedAgent(result.agent_id, result.status, result.error or ""))
    return sorted(found, key=lambda f: f.agent_id)


def _summary(failed: Sequence[FailedAgent]) -> str:
    """How many ended each way: by status, and by error type where the step failed."""
    counts = Counter(
        f"{a.status.value} ({inert_text(a.kind)[:60]})" if a.kind else a.status.value
        for a in failed
    )
    return "By outcome: " + ", ".join(f"{what} {n}" for what, n in counts.most_common())


def alert_message(run_id: str, run_at: datetime | None, failed: Sequence[FailedAgent]) -> str:
    """The summary, then each agent (its cause on one line, inert and cut) while the message
    stays within ``MESSAGE_BYTES``, then how many were left out."""
    when = f" of {run_at:%Y-%m-%d %H:%M} UTC" if run_at else ""
    head = [
        f"Decision run {run_id}{when}: {len(failed)} agent(s) ended without a decision.",
        _summary(failed),
    ]
    tail = (
        "A rerun of the week (arena rerun --week ... --agent ...) retries them; decisions "
        "already final are never taken twice. arena status lists every agent."
    )
    used = sum(len(line.encode()) + 1 for line in [*head, tail]) + 100  # room for "... more"
    lines = list(head)
    for shown, agent in enumerate(failed):
        reason = inert_text(" ".join(agent.reason.split()))[:CAUSE_LIMIT]
        line = f"- {agent.agent_id}: {agent.status.value}" + (f" ({reason})" if reason else "")
        used += len(line.encode()) + 1
        if used > MESSAGE_BYTES:
            lines.append(f"... and {len(failed) - shown} more agent(s), not listed here.")
            break
        lines.append(line)
    lines.append(tail)
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


def alert_stalled_resolution(alerts: Alerts, last: datetime | None, now: datetime) -> bool:
    """Alert when the last resolution pass is older than ``RESOLVE_SILENCE`` (a schedule
    disabled, a function that cannot start: nothing settles, no cohort completes); whether it
    did. A deployment whose resolution never ran yet is not judged (its first is within the
    hour)."""
    if last is None or now - last <= RESOLVE_SILENCE:
        return False
    hours = (now - last).total_seconds() / 3600
    alerts.send(
        f"Forecaster Arena: no resolution pass for {hours:.0f} hours",
        f"The last resolution pass ran at {last:%Y-%m-%d %H:%M} UTC ({hours:.1f} hours ago): "
        "nothing is settled and no cohort completes. Check the Resolve schedule (EventBridge "
        "Scheduler: enabled?) and the Resolve function (Lambda console: throttles, errors, its "
        "log group). This alert repeats every hour until a pass runs.",
    )
    return True

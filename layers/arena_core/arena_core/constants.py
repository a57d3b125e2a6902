"""Names and cadences shared by the runtime and the CDK app: defined here once.

The schedules fire at these cadences and the services reason about the same cadences (the
site's refresh window, the decision run's time); the no-snapshot alarm's silence is three missed
passes. Changing one here changes it everywhere.

The handlers emit no custom CloudWatch metric (a metric costs $0.30 a month for every month it
receives data): what they used to count is in their JSON log lines, which the opt-in dashboard
queries with Logs Insights, and the alarms watch free ``AWS/*`` metrics.
"""

from __future__ import annotations

from datetime import date, timedelta
from enum import StrEnum

SERVICE_NAME = "forecaster-arena"


class ObjectLockMode(StrEnum):
    """S3 Object Lock retention modes for committed objects and audit records (a deployment
    setting: ``-c arena:objectLockMode``): GOVERNANCE lets a principal allowed
    s3:BypassGovernanceRetention delete early; COMPLIANCE lets no one, root included."""

    GOVERNANCE = "GOVERNANCE"
    COMPLIANCE = "COMPLIANCE"


# Cadences (methodology v1 §3): the cohort opens Sunday 00:00 UTC, the decision run follows.
DECISION_RUN_OFFSET = timedelta(minutes=5)
SNAPSHOT_PERIOD = timedelta(minutes=10)
RESOLVE_PERIOD = timedelta(hours=1)
# The snapshot alarm fires when no snapshot was recorded for this long (three missed passes).
SNAPSHOT_SILENCE = 3 * SNAPSHOT_PERIOD
RESOLVE_SILENCE = 3 * RESOLVE_PERIOD  # no resolution pass for this long: alarm NoResolve


def _minutes(period: timedelta) -> int:
    return int(period.total_seconds() // 60)


def _rate(period: timedelta) -> str:
    minutes = _minutes(period)
    if minutes % 60 == 0:
        hours = minutes // 60
        return f"rate({hours} hour{'s' if hours > 1 else ''})"
    return f"rate({minutes} minutes)"


# EventBridge Scheduler expressions (UTC), derived from the cadences above.
OPEN_COHORT_SCHEDULE = "cron(0 0 ? * SUN *)"
DECISION_RUN_SCHEDULE = f"cron({_minutes(DECISION_RUN_OFFSET)} 0 ? * SUN *)"
SNAPSHOT_SCHEDULE = _rate(SNAPSHOT_PERIOD)
RESOLVE_SCHEDULE = _rate(RESOLVE_PERIOD)


UNIVERSE_PREFIX = "universes/"


def universe_key(week_start: date) -> str:
    """The audit key of a week's captured market universe (written once by its first run)."""
    return f"{UNIVERSE_PREFIX}week-{week_start.isoformat()}.json"


# The site's Content-Security-Policy: no inline script or style, nothing from elsewhere. CloudFront
# sends it as a header; every page also carries it in a <meta> tag (so any other host of the
# exported site applies it), less the directives a <meta> tag cannot carry (browsers ignore
# frame-ancestors there); `arena serve` sends the header too.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADER_ONLY_DIRECTIVES = ("frame-ancestors",)
META_CONTENT_SECURITY_POLICY = "; ".join(
    d
    for d in CONTENT_SECURITY_POLICY.split("; ")
    if d.split(" ", 1)[0] not in HEADER_ONLY_DIRECTIVES
)

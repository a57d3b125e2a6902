"""The deployed schedules, read from the synthesized template and fired by a simulated clock.

Each ``AWS::Scheduler::Schedule`` of the template becomes a ``Schedule``: its expression (the
two forms the app uses: ``cron(M H ? * DOW *)`` and ``rate(N minutes|hour|hours)``), its input,
and its target (a function, by the logical id prefix ``Functions<Name>``, or the state machine).
``firings`` lists every moment of a simulated span at which a schedule fires, in the order the
deployed system would see them (by time, then in template order for simultaneous firings).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from arena_local.demo.errors import DemoError

CRON = re.compile(r"^cron\((\d+) (\d+) \? \* (SUN|MON|TUE|WED|THU|FRI|SAT|\*) \*\)$")
RATE = re.compile(r"^rate\((\d+) (minute|minutes|hour|hours)\)$")
DAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")  # datetime.weekday() order
FUNCTION_PREFIX = "Functions"


@dataclass(frozen=True)
class Schedule:
    name: str
    expression: str
    target: str  # a function name ("Snapshot") or "workflow"
    payload: dict[str, Any]

    def fires_at(self, moment: datetime) -> bool:
        """Whether the schedule fires at ``moment`` (rates count from midnight UTC)."""
        if moment.second or moment.microsecond:
            return False
        cron = CRON.match(self.expression)
        if cron:
            minute, hour, day = int(cron[1]), int(cron[2]), cron[3]
            on_day = day == "*" or DAYS[moment.weekday()] == day
            return on_day and moment.hour == hour and moment.minute == minute
        rate = RATE.match(self.expression)
        if rate:
            period = int(rate[1]) * (60 if rate[2].startswith("hour") else 1)
            return (moment.hour * 60 + moment.minute) % period == 0
        raise DemoError(f"schedule {self.name}: unsupported expression {self.expression!r}")


def _target(arn: Any) -> str:
    if isinstance(arn, Mapping) and "Ref" in arn:
        return "workflow"
    if isinstance(arn, Mapping) and "Fn::GetAtt" in arn:
        logical_id = str(arn["Fn::GetAtt"][0])
        match = re.match(rf"^{FUNCTION_PREFIX}([A-Za-z]+?)[0-9A-F]{{8}}$", logical_id)
        if match:
            return match[1]
    raise DemoError(f"schedule target {arn!r} is neither a function nor the state machine")


def schedules_from(template: Mapping[str, Any]) -> list[Schedule]:
    found = []
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Scheduler::Schedule":
            continue
        props = resource["Properties"]
        target = props["Target"]
        if props.get("ScheduleExpressionTimezone", "UTC") != "UTC":
            raise DemoError(f"schedule {logical_id} is not in UTC")
        found.append(
            Schedule(
                name=logical_id,
                expression=props["ScheduleExpression"],
                target=_target(target["Arn"]),
                payload=json.loads(target.get("Input") or "{}"),
            )
        )
    if not found:
        raise DemoError("the template has no schedules")
    return found


def firings(
    schedules: Sequence[Schedule], start: datetime, end: datetime
) -> Iterator[tuple[datetime, Schedule]]:
    """Every (moment, schedule) firing in ``[start, end)``, minute by minute."""
    moment = start.replace(second=0, microsecond=0)
    while moment < end:
        for schedule in schedules:
            if schedule.fires_at(moment):
                yield moment, schedule
        moment += timedelta(minutes=1)

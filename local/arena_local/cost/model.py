"""How often everything happens in a month, read off the synthesized template, and what a
metered sample says each occurrence costs.

Invocations per month come from the template's schedules; publications per month by scope from
the snapshot schedule and the deployment's refresh window, through the very function that picks
a tick's scope (``publication/plan.py``); a run's Decide invocations, and each function's and
publication's requests, units, bytes and seconds per occurrence, from the metered sample
(``steady.py``: the steady state itself, so nothing is scaled by a number of cohorts). A
schedule change therefore moves exactly the lines it drives.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena_core.publication.plan import Cadence, completed, plan_tick
from arena_local.cost.meter import PUBLICATIONS, Usage

PRICES = Path(__file__).with_name("prices-us-east-1.json")
MONTH_MINUTES = 43830  # 30.4375 days
HOURS_PER_MONTH = MONTH_MINUTES / 60
WEEKS_PER_MONTH = MONTH_MINUTES / (7 * 1440)
WEEKLY = ("OpenCohort", "Prepare", "Decide", "Finalize", PUBLICATIONS["weekly"])
PUBLISHER = dict.fromkeys(PUBLICATIONS.values(), "Snapshot") | {PUBLICATIONS["weekly"]: "Finalize"}
SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Line:
    service: str
    what: str
    quantity: float
    unit: str
    price: float  # per unit
    pool: str | None = None  # the always-free allowance (prices.json free_tier) it draws on
    high: float | None = None  # a range's upper quantity (CPU seconds on Graviton); None: exact

    @property
    def dollars(self) -> float:
        return self.quantity * self.price

    @property
    def top(self) -> float:
        """The quantity at the top of its range."""
        return self.quantity if self.high is None else self.high

    @property
    def dollars_high(self) -> float:
        return self.top * self.price


def load_prices(path: Path = PRICES) -> dict[str, Any]:
    prices: dict[str, Any] = json.loads(path.read_text())
    return prices


def per_month(expression: str) -> float:
    """Firings per month of an EventBridge Scheduler expression (rate, or a weekly cron)."""
    rate = re.fullmatch(r"rate\((\d+) (minute|minutes|hour|hours|day|days)\)", expression)
    if rate:
        minutes = int(rate.group(1)) * {"m": 1, "h": 60, "d": 1440}[rate.group(2)[0]]
        return MONTH_MINUTES / minutes
    if re.fullmatch(r"cron\(\S+ \S+ \? \* [A-Z]{3} \*\)", expression):
        return WEEKS_PER_MONTH
    raise ValueError(f"no monthly count for schedule {expression!r}")


def resources(template: dict[str, Any], kind: str) -> dict[str, Any]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def schedules(template: dict[str, Any]) -> dict[str, float]:
    """Invocations per month by target: a function's name, or ``workflow``."""
    found: dict[str, float] = {}
    for schedule in resources(template, "AWS::Scheduler::Schedule").values():
        props = schedule["Properties"]
        target = json.dumps(props["Target"]["Arn"])
        name = re.search(r'"Functions([A-Za-z]+?)[0-9A-F]{8}"', target)
        key = name.group(1) if name else "workflow"
        found[key] = found.get(key, 0.0) + per_month(props["ScheduleExpression"])
    return found


def functions(template: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """Memory (MB) and architecture of each arena function, by name."""
    found = {}
    for logical, fn in resources(template, "AWS::Lambda::Function").items():
        name = re.fullmatch(r"Functions([A-Za-z]+?)[0-9A-F]{8}", logical)
        if name:
            props = fn["Properties"]
            found[name.group(1)] = (int(props["MemorySize"]), props["Architectures"][0])
    return found


def refresh_minutes(template: dict[str, Any]) -> int:
    """The deployment's site refresh window (the functions' ARENA_SITE_REFRESH_MINUTES)."""
    for fn in resources(template, "AWS::Lambda::Function").values():
        env = fn["Properties"].get("Environment", {}).get("Variables", {})
        if "ARENA_SITE_REFRESH_MINUTES" in env:
            return int(env["ARENA_SITE_REFRESH_MINUTES"])
    return 30


def scopes_per_week(refresh: int, period: timedelta) -> Counter[str]:
    """What a week of snapshot ticks publishes, by scope, as the deployed ticks plan it (each
    publication completing)."""
    cadence = Cadence(board=10, live=refresh)
    found: Counter[str] = Counter()
    done: dict[str, datetime] = {}
    for i in range(int(timedelta(weeks=1) / period)):
        now = SUNDAY + i * period
        plan = plan_tick(now, cadence, done)
        if plan is not None:
            found[plan.scope.name] += 1
            done |= completed(plan.scope, now)
    return found


def counts(template: dict[str, Any], usage: dict[str, Usage]) -> dict[str, float]:
    """Occurrences per month of every function and every publication scope."""
    fired = schedules(template)
    runs = fired.get("workflow", 0.0)
    found = {name: fired.get(name, 0.0) for name in functions(template)}
    prepared = usage.get("Prepare", Usage()).invocations
    decides = usage.get("Decide", Usage()).invocations / max(prepared, 1)
    found |= {"Prepare": runs, "Finalize": runs, "Decide": runs * decides}
    snapshot = next(
        props["Properties"]["ScheduleExpression"]
        for props in resources(template, "AWS::Scheduler::Schedule").values()
        if "FunctionsSnapshot" in json.dumps(props["Properties"]["Target"]["Arn"])
    )
    period = timedelta(minutes=MONTH_MINUTES / per_month(snapshot))
    for scope, weekly in scopes_per_week(refresh_minutes(template), period).items():
        found[PUBLICATIONS[scope]] = weekly * WEEKS_PER_MONTH
    found[PUBLICATIONS["weekly"]] = runs
    return found


def average(usage: Usage, attribute: str) -> float:
    """Per occurrence, over what the sample metered."""
    return float(getattr(usage, attribute)) / max(usage.invocations, 1)


def monthly(usage: Mapping[str, Usage], n: Mapping[str, float], attribute: str) -> float:
    """A metered quantity per month: each function's and publication's average per
    occurrence times its occurrences."""
    return sum(n.get(name, 0.0) * average(used, attribute) for name, used in usage.items())


def requests(usage: Mapping[str, Usage], n: Mapping[str, float], *operations: str) -> float:
    """Requests of ``operations`` per month, as ``monthly`` counts them."""
    return sum(
        n.get(name, 0.0) * sum(used.requests[o] for o in operations) / max(used.invocations, 1)
        for name, used in usage.items()
    )

"""The monthly cost of a deployment, line by line, from the synthesized template (functions,
memory, schedules, alarms, dashboards, secrets, the state machine) and a metered simulated week
(requests, request units, bytes and seconds per invocation), priced with the dated table in
``prices-us-east-1.json``. Invocations per month come from the template's schedules, so a
schedule change moves exactly the lines it drives.

Steady state: ``cohorts`` cohorts active at once (the decision horizon, 5), each with the
lineup's agents. The simulated week has one cohort, so per-agent work (decisions, snapshot
and resolve writes and reads, publishing reads, storage) is multiplied by ``cohorts``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_local.cost.meter import PUBLICATIONS, Usage

PRICES = Path(__file__).with_name("prices-us-east-1.json")
MONTH_MINUTES = 43830  # 30.4375 days
WEEKS_PER_MONTH = MONTH_MINUTES / (7 * 1440)
DECISION_FUNCTIONS = ("Prepare", "Decide", "Finalize")
# Each publication runs with the function that triggers it: a snapshot tick, the hourly
# resolution pass, the weekly run's Finalize.
PUBLISHED_BY = {
    PUBLICATIONS["light"]: "Snapshot",
    PUBLICATIONS["full"]: "Resolve",
    PUBLICATIONS["weekly"]: "Finalize",
}
PER_AGENT = ("Snapshot", "Resolve", *PUBLISHED_BY)  # their work grows with the active agents


@dataclass(frozen=True)
class Line:
    service: str
    what: str
    quantity: float
    unit: str
    price: float  # per unit
    pool: str | None = None  # the always-free allowance (prices.json free_tier) it draws on

    @property
    def dollars(self) -> float:
        return self.quantity * self.price


@dataclass(frozen=True)
class Measured:
    """A metered simulated week: usage per function, the table and site at its end."""

    usage: dict[str, Usage]
    table_bytes: dict[str, int]
    site_bytes: int
    audit_bucket: str
    agents: int  # in the simulated lineup
    llm_agents: int  # of which answer through a model (the rest: baselines)
    weeks: int = 1


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


def publications(template: dict[str, Any], counts: dict[str, float]) -> dict[str, float]:
    """Publications per month by scope: a snapshot tick per refresh window (live pages), the
    resolution pass's first run in each window (everything), one per decision run (weekly)."""
    windows = MONTH_MINUTES / refresh_minutes(template)
    return {
        PUBLICATIONS["light"]: min(counts.get("Snapshot", 0.0), windows),
        PUBLICATIONS["full"]: min(counts.get("Resolve", 0.0), windows),
        PUBLICATIONS["weekly"]: counts.get("Finalize", 0.0),
    }


def invocations(template: dict[str, Any], measured: Measured, cohorts: int) -> dict[str, float]:
    fired = schedules(template)
    runs = fired.get("workflow", 0.0)
    per_run = measured.usage.get("Decide", Usage()).invocations / measured.weeks
    counts = {name: fired.get(name, 0.0) for name in functions(template)}
    counts.update({"Prepare": runs, "Finalize": runs, "Decide": runs * per_run * cohorts})
    return counts


def _average(usage: Usage, attribute: str) -> float:
    return float(getattr(usage, attribute)) / max(usage.invocations, 1)


def lambda_lines(
    template: dict[str, Any], measured: Measured, prices: dict[str, Any], cohorts: int
) -> tuple[list[Line], float]:
    counts = invocations(template, measured, cohorts)
    assumed = prices["assumptions"]
    lines, total = [], 0.0
    published = publications(template, counts)
    for name, (memory, arch) in sorted(functions(template).items()):
        usage = measured.usage.get(name, Usage())
        seconds = counts[name] * _average(usage, "seconds")
        if name == "Decide":  # waiting for the model: the LLM agents' share of decisions
            share = measured.llm_agents / max(measured.agents, 1)
            seconds += counts[name] * share * assumed["llm_reply_seconds"]
        for publication, trigger in PUBLISHED_BY.items():
            if name == trigger:  # the publications this function makes, at the deployed refresh
                usage_of = measured.usage.get(publication, Usage())
                seconds += published[publication] * _average(usage_of, "seconds")
        gb_seconds = seconds * memory / 1024
        lines.append(
            Line(
                "Lambda",
                f"{name} requests",
                counts[name],
                "requests",
                prices["lambda_request"],
                "lambda_requests",
            )
        )
        lines.append(
            Line(
                "Lambda",
                f"{name} compute ({memory} MB {arch})",
                gb_seconds,
                "GB-s",
                prices[f"lambda_{arch}_gb_second"],
                "lambda_gb_seconds",
            )
        )
        total += counts[name]
    return lines, total

"""The cost model: quantities metered on a simulated week, priced per month from the template's
schedules; a schedule change moves the lines it drives and no other."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from arena_core.domain.lineup import BASELINES
from arena_local.cost.lines import all_lines
from arena_local.cost.model import (
    WEEKS_PER_MONTH,
    Line,
    Measured,
    load_prices,
    per_month,
    schedules,
)
from arena_local.cost.report import render
from arena_local.cost.run import measure_week
from arena_local.cost.totals import growth
from arena_local.workflow import synthesized_template


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesized_template()


@pytest.fixture(scope="module")
def measured(template: dict[str, Any]) -> Measured:
    """A metered week of the three baselines on a 100-market universe."""
    return measure_week(template, BASELINES, universe_size=100)


def _expression(template: dict[str, Any], target: str) -> str:
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::Scheduler::Schedule":
            props = resource["Properties"]
            if target in json.dumps(props["Target"]["Arn"]):
                return str(props["ScheduleExpression"])
    raise AssertionError(f"no schedule targets {target}")


def _by_what(lines: list[Line]) -> dict[str, Line]:
    return {f"{line.service} {line.what}": line for line in lines}


def test_the_week_is_metered_per_function(template: dict[str, Any], measured: Measured) -> None:
    usage = measured.usage
    per_week = {
        name: per_month(_expression(template, f"Functions{name}")) / WEEKS_PER_MONTH
        for name in ("Snapshot", "Resolve", "OpenCohort")
    }
    assert {name: usage[name].invocations for name in per_week} == {
        name: round(count) for name, count in per_week.items()
    }
    assert usage["Snapshot"].invocations == 7 * 24 * 6  # every 10 minutes, as deployed
    assert (usage["Prepare"].invocations, usage["Finalize"].invocations) == (1, 1)
    assert usage["Decide"].invocations == len(BASELINES)
    assert usage["PublishWeekly"].invocations >= 1  # after the decision run, and at the end
    snapshot, decide = usage["Snapshot"], usage["Decide"]
    assert snapshot.requests["dynamodb:BatchWriteItem"] >= snapshot.invocations  # its snapshots
    assert snapshot.write_units > snapshot.invocations and snapshot.read_units > 0
    assert decide.requests["dynamodb:TransactWriteItems"] > 0  # the baselines' trades
    assert decide.prompts == len(BASELINES) and decide.prompt_bytes > 0
    assert measured.table_bytes["snapshot"] > 0
    assert all(usage[n].log_bytes > 0 for n in ("OpenCohort", "Decide", "Snapshot", "Resolve"))


def test_quantities_per_month_follow_the_schedules(
    template: dict[str, Any], measured: Measured
) -> None:
    prices = load_prices()
    lines = _by_what(all_lines(template, measured, prices, cohorts=1))
    month = per_month(_expression(template, "FunctionsSnapshot"))
    assert lines["Lambda Snapshot requests"].quantity == pytest.approx(month)
    assert lines["Lambda OpenCohort requests"].quantity == pytest.approx(WEEKS_PER_MONTH)
    assert lines["Scheduler invocations"].quantity == pytest.approx(
        sum(schedules(template).values())
    )
    writes = sum(u.write_units for u in measured.usage.values() if u.invocations)
    assert lines["DynamoDB write request units"].quantity > writes  # a month is > a week
    alarms = [r for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert lines["CloudWatch alarms"].quantity == len(alarms)


def test_snapshots_every_five_minutes_move_the_snapshot_lines_only(
    template: dict[str, Any], measured: Measured
) -> None:
    prices = load_prices()
    faster = copy.deepcopy(template)
    for resource in faster["Resources"].values():
        props = resource.get("Properties", {})
        if props.get("ScheduleExpression") == _expression(template, "FunctionsSnapshot"):
            props["ScheduleExpression"] = "rate(5 minutes)"
    before = _by_what(all_lines(template, measured, prices))
    after = _by_what(all_lines(faster, measured, prices))
    requests, compute = "Lambda Snapshot requests", "Lambda Snapshot compute (1024 MB arm64)"
    assert after[requests].quantity == pytest.approx(2 * before[requests].quantity)
    # Twice the passes, but the same publications (one per refresh window) in the compute.
    assert before[compute].quantity < after[compute].quantity < 2 * before[compute].quantity
    assert after["Scheduler invocations"].quantity == pytest.approx(
        before["Scheduler invocations"].quantity + before["Lambda Snapshot requests"].quantity
    )
    for what in ("DynamoDB write request units", "DynamoDB read request units"):
        assert after[what].quantity > before[what].quantity
    # The site is published once per refresh window, however often the snapshots run.
    assert after["S3 PUT/LIST requests"].quantity == pytest.approx(
        before["S3 PUT/LIST requests"].quantity
    )
    moved = {
        what for what in before if after[what].quantity != pytest.approx(before[what].quantity)
    }
    unmoved = {
        "Lambda OpenCohort requests",
        "Lambda Decide requests",
        "Lambda Resolve requests",
        "CloudWatch alarms",
        "CloudWatch dashboards",
        "Secrets Manager secrets",
    }
    assert not moved & unmoved


def test_the_report_names_the_biggest_items_and_ends_with_the_total(
    template: dict[str, Any], measured: Measured
) -> None:
    prices = load_prices()
    lines = all_lines(template, measured, prices)
    out = render(lines, measured, prices, models=["openai/gpt-5.2"], cohorts=5, ttl_days=30)
    total = sum(line.dollars for line in lines)
    assert out[-1] == f"Total: ${total:.2f} per month"
    assert sum(bool(re.fullmatch(r"Total: \$\d+\.\d\d per month", line)) for line in out) == 1
    biggest = max(lines, key=lambda line: line.dollars)
    assert f"Biggest line items: {biggest.service} {biggest.what}" in "\n".join(out)
    assert prices["dated"] in out[0]
    table = growth(measured, 5, 30)
    assert table.stored_after(52, ttl=True) < table.stored_after(52, ttl=False)
    assert any(line.startswith("Table growth per week: ") for line in out)


def test_a_shorter_site_refresh_moves_the_publishing_lines(
    template: dict[str, Any], measured: Measured
) -> None:
    prices = load_prices()
    faster = copy.deepcopy(template)
    for resource in faster["Resources"].values():
        variables = resource.get("Properties", {}).get("Environment", {}).get("Variables", {})
        if "ARENA_SITE_REFRESH_MINUTES" in variables:
            assert variables["ARENA_SITE_REFRESH_MINUTES"] == "30"  # the default
            variables["ARENA_SITE_REFRESH_MINUTES"] = "10"
    before = _by_what(all_lines(template, measured, prices))
    after = _by_what(all_lines(faster, measured, prices))
    assert after["S3 PUT/LIST requests"].quantity > before["S3 PUT/LIST requests"].quantity
    compute = "Lambda Snapshot compute (1024 MB arm64)"
    assert after[compute].quantity > before[compute].quantity
    for same in ("Lambda Snapshot requests", "Lambda Resolve requests", "CloudWatch alarms"):
        assert after[same].quantity == pytest.approx(before[same].quantity)

"""The cost model: a metered steady state (live cohorts after completed ones, a sample at the
deployed cadence), priced per month from the template's schedules; the model's monthly
quantities agree with a longer metered span's, line by line; a schedule change moves the lines
it drives and no other."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from arena_core.domain.lineup import BASELINES
from arena_core.protocol.budget import completion_budget
from arena_local.cost.compute_lines import lambda_seconds, upstream_rounds
from arena_local.cost.init import import_seconds
from arena_local.cost.lines import all_lines, line_map
from arena_local.cost.llm import (
    RecordedReply,
    panel_prompt_bytes,
    recorded_replies,
    weekly_spend,
)
from arena_local.cost.meter import PUBLICATIONS, Usage
from arena_local.cost.model import (
    HOURS_PER_MONTH,
    WEEKLY,
    WEEKS_PER_MONTH,
    counts,
    load_prices,
    per_month,
    schedules,
)
from arena_local.cost.report import render
from arena_local.cost.steady import (
    TYPICAL,
    Measured,
    SteadyState,
    as_deployed,
    measure_steady_state,
)
from arena_local.cost.totals import after_free_tier
from arena_local.standins import standin_lineup
from arena_local.workflow import synthesized_template

# Small: the three baselines, a 100-market universe, two completed cohorts before the five
# live ones; a 6-hour sample from Sunday 00:00 (the report's), metered on to a whole day.
SMALL = SteadyState(
    history_weeks=2,
    scores_per_agent=5,
    sample_hours=6,  # as the report meters it
    span_hours=24,
    warm_up_hours=6,
    universe_size=100,
)


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesized_template()


@pytest.fixture(scope="module")
def measured(template: dict[str, Any]) -> Measured:
    return measure_steady_state(template, BASELINES, SMALL)


def _expression(template: dict[str, Any], target: str) -> str:
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::Scheduler::Schedule":
            props = resource["Properties"]
            if target in json.dumps(props["Target"]["Arn"]):
                return str(props["ScheduleExpression"])
    raise AssertionError(f"no schedule targets {target}")


def test_the_sample_is_metered_per_function_and_publication(measured: Measured) -> None:
    usage = measured.usage
    ticks = SMALL.sample_hours * 6
    # Every 10 minutes and hourly, as deployed; costed from the hours after the run's (the
    # week's run hour is metered, then left out of theirs: ``steady.TYPICAL``)
    assert usage["Snapshot"].invocations == ticks - 6
    assert usage["Resolve"].invocations == SMALL.sample_hours - 1
    assert (usage["OpenCohort"].invocations, usage["Prepare"].invocations) == (1, 1)
    assert usage["Decide"].invocations == len(BASELINES) * SMALL.live_cohorts
    # Every tick published: its leaderboard, the window's live figures, the hour's everything,
    # the day's pages (Sunday 00:00), and the run's weekly publication
    published = {name: usage[p].invocations for name, p in PUBLICATIONS.items() if p in usage}
    assert published == {
        "daily": 1,
        "full": SMALL.sample_hours - 1,
        "live": SMALL.sample_hours,
        "board": ticks - 2 * SMALL.sample_hours,
        "weekly": 1,
    }
    board = usage[PUBLICATIONS["board"]]
    assert 1 < board.site_uploads / board.invocations <= 8  # the home page, its tables, manifest
    assert usage[PUBLICATIONS["daily"]].site_uploads > 10 * board.site_uploads / board.invocations
    assert usage["Snapshot"].write_units > 0 and usage["Snapshot"].read_units > 0
    assert usage["Decide"].requests["dynamodb:TransactWriteItems"] > 0  # the baselines' trades
    assert measured.table_after.items["snapshot"] > measured.table_before.items["snapshot"]
    assert all(measured.init_seconds[f] > 0 for f in ("Snapshot", "Decide"))


def test_the_sample_is_rendered_as_deployed(measured: Measured) -> None:
    """No page names a simulation: a simulated build's footer carries the time it was drawn, so
    every page would be uploaded again at every publication, which a deployment never does."""
    assert measured.site_bytes > 0
    assert measured.simulated_pages == 0
    assert all(not spec.stand_in for spec in as_deployed(standin_lineup()))
    assert [s.model_id for s in as_deployed(standin_lineup())] == [
        s.model_id for s in standin_lineup()
    ]


def test_the_model_agrees_with_a_metered_day_line_by_line(
    template: dict[str, Any], measured: Measured
) -> None:
    """Quantities per month from the 6-hour sample (occurrences from the template, costs per
    occurrence from the sample) against the day's own counts: each weekly item once a week,
    everything else scaled from the day. Within 10% per line."""
    assert measured.span_usage is not None
    prices = load_prices()
    model = line_map(all_lines(template, measured, prices))
    span = SMALL.span_hours
    direct_usage = measured.span_usage
    # Passes and resolutions are costed from the hours after the run's (``TYPICAL``)
    hours = {name: span - 1 if name in TYPICAL else span for name in direct_usage}
    direct = {
        name: usage.invocations
        * (WEEKS_PER_MONTH if name in WEEKLY else HOURS_PER_MONTH / hours[name])
        for name, usage in direct_usage.items()
    }
    # CPU seconds are the one noisy quantity (a shared machine): the day is costed at the
    # sample's CPU per invocation, so this compares occurrences and requests, never timings.
    # (Seconds from the day were seen 50% off for Resolve in CI.)
    day_usage = {
        name: replace(usage, seconds=usage.invocations * _cpu_per_call(measured, name))
        for name, usage in direct_usage.items()
    }
    metered = replace(measured, usage=day_usage)
    day = line_map(all_lines(template, metered, prices, occurrences=direct))
    assert set(day) == set(model)
    compared = 0
    for what, line in model.items():
        expected = day[what].quantity
        if expected == line.quantity == 0:
            continue
        assert line.quantity == pytest.approx(expected, rel=0.10), what
        compared += 1
    assert compared >= 25


def _cpu_per_call(measured: Measured, name: str) -> float:
    sample = measured.usage.get(name)
    if sample is None or sample.invocations == 0:
        return 0.0
    return sample.seconds / sample.invocations


def test_occurrences_per_month_follow_the_schedules(
    template: dict[str, Any], measured: Measured
) -> None:
    n = counts(template, measured.usage)
    assert n["Snapshot"] == pytest.approx(per_month(_expression(template, "FunctionsSnapshot")))
    assert n["OpenCohort"] == pytest.approx(WEEKS_PER_MONTH)
    assert n["Decide"] == pytest.approx(WEEKS_PER_MONTH * len(BASELINES) * SMALL.live_cohorts)
    publications = sum(n[PUBLICATIONS[s]] for s in ("board", "live", "full", "daily"))
    assert publications == pytest.approx(n["Snapshot"])  # every tick publishes once
    assert n[PUBLICATIONS["full"]] == pytest.approx(24 * 30.4375 - 30.4375)
    lines = line_map(all_lines(template, measured, load_prices()))
    assert lines["Scheduler invocations"].quantity == pytest.approx(
        sum(schedules(template).values())
    )
    alarms = [r for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert lines["CloudWatch alarms, as alarm metrics"].quantity == len(alarms) == 2
    assert lines["CloudWatch dashboards"].quantity == 0
    assert lines["CloudWatch custom metrics, by emitting cadence"].quantity == 0


def test_snapshots_every_five_minutes_move_the_snapshot_lines_only(
    template: dict[str, Any], measured: Measured
) -> None:
    prices = load_prices()
    faster = copy.deepcopy(template)
    for resource in faster["Resources"].values():
        props = resource.get("Properties", {})
        if props.get("ScheduleExpression") == _expression(template, "FunctionsSnapshot"):
            props["ScheduleExpression"] = "rate(5 minutes)"
    before = line_map(all_lines(template, measured, prices))
    after = line_map(all_lines(faster, measured, prices))
    requests = "Lambda Snapshot requests"
    assert after[requests].quantity == pytest.approx(2 * before[requests].quantity)
    assert after["Scheduler invocations"].quantity == pytest.approx(
        before["Scheduler invocations"].quantity + before[requests].quantity
    )
    for what in ("DynamoDB write request units", "DynamoDB read request units"):
        assert after[what].quantity > before[what].quantity
    moved = {w for w in before if after[w].quantity != pytest.approx(before[w].quantity)}
    unmoved = {
        "Lambda OpenCohort requests",
        "Lambda Decide requests",
        "Lambda Resolve requests",
        "CloudWatch alarms, as alarm metrics",
        "CloudWatch dashboards",
        "Secrets Manager secrets",
    }
    assert not moved & unmoved


def test_the_report_ends_with_the_list_price_total_and_names_what_was_given_up(
    template: dict[str, Any], measured: Measured
) -> None:
    prices = load_prices()
    lines = all_lines(template, measured, prices)
    out = render(lines, measured, prices, models=["openai/gpt-5.2"])
    total = sum(line.dollars_high for line in lines)  # the top of the range
    assert out[-1] == f"Total: ${total:.2f} per month"
    assert sum(bool(re.fullmatch(r"Total: \$\d+\.\d\d per month", line)) for line in out) == 1
    free = after_free_tier(lines, prices)
    assert f"With AWS's always-free tier unused elsewhere in the account: ${free:.2f}" in out[-4]
    low = sum(line.dollars for line in lines)
    assert out[-3].startswith(f"Range: ${low:.2f} (CPU as measured on this x86 machine) to ")
    assert free < total
    given = out.index("What the operator gives up for these savings:")
    assert len([line for line in out[given + 1 : -4] if line.startswith("  - ")]) >= 5
    biggest = max(lines, key=lambda line: line.dollars_high)
    assert f"Biggest line items: {biggest.service} {biggest.what}" in "\n".join(out)
    assert prices["dated"] in out[0]


def test_cpu_derived_lines_are_ranges_from_x86_to_graviton(
    template: dict[str, Any], measured: Measured
) -> None:
    """CPU is measured on this x86 machine; the functions run on Graviton: each compute line
    and INIT spans the stated factor, the CPU part only (waits and a model's reply do not
    scale), and nothing else is a range."""
    prices = load_prices()
    same = copy.deepcopy(prices)
    same["assumptions"]["arm64_cpu_factor"] = [1.0, 1.0]
    doubled = copy.deepcopy(prices)
    doubled["assumptions"]["arm64_cpu_factor"] = [1.0, 2.0]
    flat = line_map(all_lines(template, measured, same))
    wide = line_map(all_lines(template, measured, doubled))
    ranged = {k for k, line in wide.items() if line.high is not None}
    assert ranged == {k for k in wide if k.startswith("Lambda") and ("compute" in k or "INIT" in k)}
    for key in ranged:
        assert flat[key].high == pytest.approx(flat[key].quantity)
        assert wide[key].quantity == pytest.approx(flat[key].quantity)
        assert wide[key].quantity <= wide[key].top <= 2 * wide[key].quantity + 1e-9
    snapshot = next(v for k, v in wide.items() if k.startswith("Lambda Snapshot compute"))
    assert snapshot.top > snapshot.quantity  # its CPU is most of it
    init = wide["Lambda INIT of cold starts (every invocation)"]
    assert init.high == pytest.approx(2 * init.quantity)
    decide = next(v for k, v in wide.items() if k.startswith("Lambda Decide compute"))
    assert decide.top < 2 * decide.quantity  # the model's reply is a wait, not CPU


def _reply(model: str, completion: int) -> RecordedReply:
    return RecordedReply(model, prompt_tokens=10, completion_tokens=completion)


def _sampled(prompts: int, prompt_bytes: int) -> Measured:
    """A metered sample reduced to what the LLM estimate reads: Decide's stored prompts."""
    decide = Usage()
    decide.prompts, decide.prompt_bytes = prompts, prompt_bytes
    return cast(Measured, SimpleNamespace(usage={"Decide": decide}, steady=SteadyState()))


def test_the_llm_range_comes_from_recorded_usage_per_family_and_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prices = load_prices()
    sampled = _sampled(prompts=10, prompt_bytes=400_000)  # 10,000 tokens a prompt
    models = ["openai/gpt-5.2", "qwen/qwen3-235b-a22b-2507"]
    replies = [_reply("openai/gpt-5-mini", 1000), _reply("openai/gpt-5-mini", 3000),
               _reply("google/gemini-2.5-flash", 100)]  # fmt: skip
    gpt, qwen = weekly_spend(sampled, prices, models, replies=replies)
    assert gpt.recorded and not qwen.recorded  # qwen's provider has no recording
    price_in, price_out = prices["llm"]["openai/gpt-5.2"]
    cohorts = SteadyState().live_cohorts
    assert gpt.low == pytest.approx(cohorts * (10_000 * price_in + 2000 * price_out) / 1e6)
    # high: three replies at the cap (unset: the budget sized for the panel, none under v1),
    # each retry resending what came before
    cap = completion_budget(0)
    high_in = 3 * 10_000 + (0 + 1 + 2) * cap
    assert gpt.high == pytest.approx(cohorts * (high_in * price_in + 3 * cap * price_out) / 1e6)
    q_in, q_out = prices["llm"]["qwen/qwen3-235b-a22b-2507"]
    overall = (1000 + 3000 + 100) / 3  # no recording of its provider: every recording's mean
    assert qwen.low == pytest.approx(cohorts * (10_000 * q_in + overall * q_out) / 1e6)
    # The cap, the retries and K are the settings' (another value of each moves it)
    monkeypatch.setenv("ARENA_LLM_MAX_TOKENS", "8192")
    monkeypatch.setenv("ARENA_FORMAT_RETRIES", "0")
    (capped,) = weekly_spend(sampled, prices, models[:1], replies=replies)
    assert capped.high == pytest.approx(cohorts * (10_000 * price_in + 8192 * price_out) / 1e6)
    (k30,) = weekly_spend(sampled, prices, models[:1], panel_size=30, replies=replies)
    (k60,) = weekly_spend(sampled, prices, models[:1], panel_size=60, replies=replies)
    assert gpt.low < k30.low < k60.low  # the panel's rows and forecasts, through the builder
    assert panel_prompt_bytes(60) > panel_prompt_bytes(30) > 0
    # The recorded payloads themselves: every response with usage fields, read in place
    recorded = recorded_replies()
    assert {r.provider for r in recorded} >= {"openai", "google", "x-ai", "anthropic"}
    assert all(r.completion_tokens >= 0 for r in recorded)


def test_the_report_prints_the_llm_spend_as_a_range_at_the_configured_k(
    template: dict[str, Any], measured: Measured, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_PANEL_SIZE", "45")
    prices = load_prices()
    out = render(all_lines(template, measured, prices), measured, prices, models=["x-ai/grok-4"])
    v1 = next(line for line in out if line.startswith("  v1: $"))
    panel = next(line for line in out if line.startswith("  v1+panel (K=45): $"))
    assert re.search(r"x-ai/grok-4 \$\d+\.\d\d-\d+\.\d\d", v1) and "*" not in v1
    assert "K=45" in panel


def test_init_is_the_imports_cpu_time_not_the_wall_clocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a shared machine the wall clock counts other processes' turns: a cost run measured
    INIT at several times what the imports cost. A module that waits half a second as it is
    imported costs almost no CPU."""
    (tmp_path / "waits_on_import.py").write_text("import time\ntime.sleep(0.5)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert import_seconds("waits_on_import") < 0.25


def test_batched_upstream_requests_are_waited_for_in_rounds() -> None:
    """A snapshot pass fetches its markets' batches in parallel (the Gamma client's
    concurrency): it waits for rounds of requests, not for each in turn."""
    assert upstream_rounds(0, 10, 4) == 0
    assert upstream_rounds(30, 10, 4) == 10  # three batches a pass: one round each
    assert upstream_rounds(50, 10, 4) == 20  # five: two rounds
    assert upstream_rounds(30, 10, 1) == 30  # one at a time (Prepare's pages)
    usage = Usage()
    usage.invocations, usage.requests["http:gamma-api.polymarket.com"] = 10, 30
    assumed = load_prices()["assumptions"]
    serial = lambda_seconds(usage, 1024, assumed)
    batched = lambda_seconds(usage, 1024, assumed, parallel=4)
    assert serial - batched == pytest.approx(2 * assumed["upstream_request_seconds"])

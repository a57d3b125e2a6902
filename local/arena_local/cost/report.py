"""``arena cost`` and ``bench/bench_cost.py``: the cost lines printed, the biggest named, what
the operator gives up for the savings, the total with the always-free tier, and one closing line
``Total: $X.XX per month`` (AWS only, list prices, no free tier), the top of the range: CPU
measured on this x86 machine, run on Graviton (``arm64_cpu_factor``). A line whose quantity is
a range prints both ends; the LLM spend (not in the total) is a range per family, under v1 and
under v1+panel at the configured K."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_local.cost.llm import settings, weekly_spend
from arena_local.cost.model import WEEKS_PER_MONTH, Line
from arena_local.cost.steady import Measured
from arena_local.cost.totals import after_free_tier, growth_per_week, storage_after

TARGET = 2.00  # dollars per month of AWS at list prices, excluding LLM calls and egress
MB = 1e6
GIVEN_UP = (
    "No dashboard unless asked for (-c arena:dashboard=true, $3.00): graphs come from the "
    "Lambda and Step Functions consoles, Logs Insights and arena status.",
    "No custom metric ($0.30 each a month): decisions, fallbacks, rejected trades, retries, "
    "snapshot durations and stale positions are in the handlers' JSON log lines, graphed only "
    "by Logs Insights.",
    "Two alarms instead of ten: no alert for a transient error a retry absorbed; a scheduled "
    "function's failure (a pass that refreshes no market included) alerts only after Lambda's "
    "two retries (dead-letter queue); a failed run by an EventBridge rule, a failed agent by "
    "Finalize's message, a stopped resolution by the snapshot pass's hourly check.",
    "An unencrypted alarm topic (a customer managed key would cost $1.00): messages carry only "
    "alarm names, run and agent ids.",
    "Live cohorts' pages and charts redrawn daily (and after each run); their figures follow "
    "every 30 minutes through one small JSON per cohort, read by the site's script (without "
    "script: the day's figures). Cohort data tables and market pages daily, but for what a "
    "settlement or resolution changed (its market's page, the decisions that traded it): "
    "within the hour.",
    "Publications, and the passes' reads, eventually consistent: a page may show the table as "
    "it was a second earlier, until the next tick.",
    "The hour's and day's points of the series, and the hourly snapshots, written when the hour "
    "closes: the hour in progress is drawn from its newest pass.",
    "Raw 10-minute family series points expire after 30 days, as raw snapshots do (the site "
    "reads the last day of them).",
    "The table encrypted with DynamoDB's own key: no key of the account's to audit in CloudTrail.",
)


def render(
    lines: Sequence[Line], measured: Measured, prices: dict[str, Any], *, models: Sequence[str]
) -> list[str]:
    steady = measured.steady
    out = [
        f"Monthly AWS cost, us-east-1 list prices dated {prices['dated']} "
        f"(local/arena_local/cost/prices-us-east-1.json); a metered steady state: "
        f"{steady.live_cohorts} live cohorts of {measured.agents} agents "
        f"({measured.llm_agents} answering through a model) after {steady.history_weeks} "
        f"completed ones, a {steady.sample_hours}-hour sample from Sunday 00:00 at the deployed "
        f"cadence (site refresh {measured.refresh_minutes} minutes)",
        f"{'service':<16} {'item':<52} {'quantity':>14} {'unit':<13} {'unit $':>11} {'$/month':>9}",
    ]
    for line in lines:
        quantity = f"{line.quantity:,.2f}"
        dollars = f"{line.dollars:.2f}"
        if line.high is not None:
            quantity = f"{quantity}-{line.high:,.2f}"
            dollars = f"{dollars}-{line.dollars_high:.2f}"
        out.append(
            f"{line.service:<16} {line.what:<52} {quantity:>14} {line.unit:<13} "
            f"{line.price:>11.8g} {dollars:>9}"
        )
    low = sum(line.dollars for line in lines)
    total = sum(line.dollars_high for line in lines)
    biggest = sorted(lines, key=lambda line: line.dollars_high, reverse=True)[:3]
    out.append(
        "Biggest line items: "
        + "; ".join(f"{b.service} {b.what} ${b.dollars_high:.2f}" for b in biggest)
    )
    out.append(_table_line(measured, prices))
    out += _llm_lines(measured, prices, models)
    out.append("What the operator gives up for these savings:")
    out += [f"  - {given}" for given in GIVEN_UP]
    free = after_free_tier(lines, prices)
    out.append(
        f"With AWS's always-free tier unused elsewhere in the account: ${free:.2f} per month"
    )
    factors = prices["assumptions"]["arm64_cpu_factor"]
    out.append(
        f"Range: ${low:.2f} (CPU as measured on this x86 machine) to ${total:.2f} (Graviton "
        f"taking {factors[1]:g}x the CPU time, assumed) per month; the total is the top"
    )
    verdict = "within" if total <= TARGET else "ABOVE"
    out.append(
        f"Target ${TARGET:.2f} per month at list prices, free tier unused (AWS; no LLM, no "
        f"egress): {verdict} it"
    )
    out.append(f"Total: ${total:.2f} per month")
    return out


def _table_line(measured: Measured, prices: dict[str, Any]) -> str:
    months = prices["assumptions"]["months_of_history"]
    weekly = sum(growth_per_week(measured, indexes=True).values())
    return (
        f"Table after {months} months: {storage_after(measured, months * 52 / 12) / MB:.0f} MB "
        f"as billed (items, 100 bytes each of overhead, index copies), growing "
        f"{weekly / MB:.1f} MB a week before raw snapshots and raw series points expire (30 days)"
    )


def _llm_lines(measured: Measured, prices: dict[str, Any], models: Sequence[str]) -> list[str]:
    """The weekly LLM spend as a range, per family: under v1 and under v1+panel at K."""
    configured = settings()
    out = [
        f"LLM spend per week (not in the total; tokens x the per-model table dated "
        f"{prices['llm']['dated']}; low: replies of the size the recorded OpenRouter usage "
        f"shows, per provider; high: every reply at the token cap (the setting, else the "
        f"budget sized for the panel: protocol/budget.py) and all "
        f"{configured.format_retries} format retries taken):"
    ]
    k = configured.panel_size
    for name, panel in (("v1", None), (f"v1+panel (K={k})", k)):
        spend = weekly_spend(measured, prices, models, panel_size=panel)
        low, high = sum(s.low for s in spend), sum(s.high for s in spend)
        shown = ", ".join(
            f"{s.model} ${s.low:.2f}-{s.high:.2f}" + ("" if s.recorded else "*") for s in spend
        )
        out.append(
            f"  {name}: ${low:.2f}-${high:.2f} a week (${low * WEEKS_PER_MONTH:.2f}-"
            f"${high * WEEKS_PER_MONTH:.2f} a month): {shown}"
        )
    out.append(
        "  (* no recorded reply of its provider: every recording's mean.) A weekly budget "
        "caps it: -c arena:llmWeeklyBudget=USD (an agent over it is recorded failed, not "
        "retried)."
    )
    return out

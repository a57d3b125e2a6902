"""``arena cost`` and ``bench/bench_cost.py``: the cost lines printed, the biggest named, and
one closing line ``Total: $X.XX per month`` (AWS only, list prices)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_local.cost.model import WEEKS_PER_MONTH, Line, Measured
from arena_local.cost.totals import after_free_tier, growth, llm_per_week

TARGET = 2.00  # dollars per month of AWS, excluding LLM calls and egress
MB = 1e6


def render(
    lines: Sequence[Line],
    measured: Measured,
    prices: dict[str, Any],
    *,
    models: Sequence[str],
    cohorts: int,
    ttl_days: int,
) -> list[str]:
    out = [
        f"Monthly AWS cost, us-east-1 list prices dated {prices['dated']} "
        f"(local/arena_local/cost/prices-us-east-1.json); steady state: {cohorts} active "
        f"cohorts of {measured.agents} agents ({measured.llm_agents} answering through a model)",
        f"{'service':<16} {'item':<44} {'quantity':>14} {'unit':<11} {'unit $':>11} {'$/month':>9}",
    ]
    for line in lines:
        out.append(
            f"{line.service:<16} {line.what:<44} {line.quantity:>14,.2f} {line.unit:<11} "
            f"{line.price:>11.8g} {line.dollars:>9.2f}"
        )
    total = sum(line.dollars for line in lines)
    biggest = sorted(lines, key=lambda line: line.dollars, reverse=True)[:3]
    out.append(
        "Biggest line items: "
        + "; ".join(f"{b.service} {b.what} ${b.dollars:.2f}" for b in biggest)
    )
    out += _growth_lines(measured, cohorts, ttl_days)
    out += _llm_lines(measured, prices, models, cohorts)
    free = after_free_tier(lines, prices)
    out.append(
        f"With AWS's always-free tier unused elsewhere in the account: ${free:.2f} per month"
    )
    listed = "within" if total <= TARGET else "above"
    freed = "within" if free <= TARGET else "above"
    monitoring = sum(line.dollars for line in lines if line.service == "CloudWatch")
    out.append(
        f"Target ${TARGET:.2f} per month (AWS, no LLM, no egress): {freed} it with the "
        f"always-free tier; {listed} it at list prices, where CloudWatch (dashboard, metrics, "
        f"alarms, logs) is ${monitoring:.2f}"
    )
    out.append(f"Total: ${total:.2f} per month")
    return out


def _growth_lines(measured: Measured, cohorts: int, ttl_days: int) -> list[str]:
    table = growth(measured, cohorts, ttl_days)
    kept = table.per_week - table.raw_per_week
    year = 52.0
    return [
        f"Table growth per week: {table.per_week / MB:.2f} MB without TTL; with TTL "
        f"{kept / MB:.2f} MB once raw 10-minute snapshots ({table.raw_per_week / MB:.2f} MB a "
        f"week) expire after {ttl_days} days; after a year: "
        f"{table.stored_after(year, ttl=False) / MB:.0f} MB without TTL, "
        f"{table.stored_after(year, ttl=True) / MB:.0f} MB with it",
    ]


def _llm_lines(
    measured: Measured, prices: dict[str, Any], models: Sequence[str], cohorts: int
) -> list[str]:
    spend = llm_per_week(measured, prices, models, cohorts)
    weekly = sum(dollars for _, dollars in spend)
    shown = ", ".join(f"{model} ${dollars:.2f}" for model, dollars in spend)
    return [
        f"LLM spend per week (tokens × the per-model table dated {prices['llm']['dated']}; "
        f"not in the total): ${weekly:.2f} (${weekly * WEEKS_PER_MONTH:.2f} per month): {shown}"
    ]

"""What the cost lines are computed from beyond occurrences: the table's size after a year
(grown as the sample grew it), the alarms as CloudWatch bills them, the total once the
always-free allowances are used (the LLM spend per week: ``llm.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_local.cost.model import Line, resources
from arena_local.cost.steady import Measured

HOURS_PER_WEEK = 168
# Written once a week, by the cohort opener and the decision run (the sample holds one of each);
# everything else grows with the passes and resolutions, hour by hour.
WEEKLY_ENTITIES = frozenset(
    {"agent", "cohort", "decision", "trade", "position", "open-guard", "capture", "market"}
)
EXPIRING = frozenset({"snapshot", "series-raw"})  # TTL: ARENA_SNAPSHOT_TTL_DAYS (30)


def growth_per_week(measured: Measured, *, indexes: bool) -> dict[str, float]:
    """Bytes the table gains per week, by entity, as billed (item, overhead, and the index
    copies where ``indexes``)."""
    grown = measured.table_after.minus(measured.table_before)
    found = {}
    for entity in set(grown.bytes) | set(grown.items):
        billed = grown.billed(entity) - (0 if indexes else grown.index_bytes[entity])
        scale = 1.0 if entity in WEEKLY_ENTITIES else HOURS_PER_WEEK / measured.sample_hours
        found[entity] = billed * scale
    return found


def _after(measured: Measured, weeks: float, *, indexes: bool, ttl_days: int) -> float:
    kept = 0.0
    for entity, per_week in growth_per_week(measured, indexes=indexes).items():
        lived = min(weeks, ttl_days / 7) if entity in EXPIRING and ttl_days else weeks
        kept += per_week * lived
    return kept


def storage_after(measured: Measured, weeks: float) -> float:
    """Bytes billed as DynamoDB storage after ``weeks``: items, their 100-byte overhead and
    their copies in the global secondary indexes."""
    return _after(measured, weeks, indexes=True, ttl_days=measured.steady.ttl_days)


def table_after(measured: Measured, weeks: float) -> float:
    """The table's size (items and overhead, no global index) after ``weeks``: what
    point-in-time recovery is billed on."""
    return _after(measured, weeks, indexes=False, ttl_days=measured.steady.ttl_days)


def alarm_metrics(template: dict[str, Any]) -> int:
    """CloudWatch bills an alarm per metric it evaluates: a metric-math alarm counts each."""
    total = 0
    for alarm in resources(template, "AWS::CloudWatch::Alarm").values():
        metrics = alarm["Properties"].get("Metrics")
        total += sum(1 for m in metrics if "MetricStat" in m) if metrics else 1
    return total


def after_free_tier(lines: Sequence[Line], prices: dict[str, Any]) -> float:
    """The total once each always-free allowance is used (once per pool, not per line)."""
    total = sum(line.dollars for line in lines if line.pool is None)
    pools: dict[str, list[Line]] = {}
    for line in lines:
        if line.pool is not None:
            pools.setdefault(line.pool, []).append(line)
    for pool, members in pools.items():
        left = float(prices["free_tier"][pool])
        for line in sorted(members, key=lambda m: m.price, reverse=True):
            used = min(left, line.quantity)
            left -= used
            total += (line.quantity - used) * line.price
    return total

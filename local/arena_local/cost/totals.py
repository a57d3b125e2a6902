"""What the cost lines add up to: table growth with and without the snapshot TTL, the total
after AWS's always-free allowances, and the LLM spend per week."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena_local.cost.meter import Usage
from arena_local.cost.model import Line, Measured

RAW_SNAPSHOTS = "snapshot"  # the entity whose items expire through TTL


@dataclass(frozen=True)
class Growth:
    """Table bytes added per week in steady state, and what TTL bounds."""

    per_week: float
    raw_per_week: float
    ttl_days: int

    def stored_after(self, weeks: float, ttl: bool) -> float:
        kept = self.per_week - self.raw_per_week
        raw_weeks = min(weeks, self.ttl_days / 7) if ttl and self.ttl_days else weeks
        return kept * weeks + self.raw_per_week * raw_weeks


def growth(measured: Measured, cohorts: int, ttl_days: int) -> Growth:
    scale = cohorts / measured.weeks
    total = sum(measured.table_bytes.values()) * scale
    return Growth(total, measured.table_bytes.get(RAW_SNAPSHOTS, 0) * scale, ttl_days)


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


def llm_per_week(
    measured: Measured, prices: dict[str, Any], models: Sequence[str], cohorts: int
) -> list[tuple[str, float]]:
    """Dollars per week per model: prompt tokens from the prompts the decide path stored,
    completion tokens assumed; each model decides once a week in each deciding cohort."""
    decide = measured.usage.get("Decide", Usage())
    prompt_bytes = decide.prompt_bytes / max(decide.prompts, 1)
    assumed = prices["assumptions"]
    tokens_in = prompt_bytes / assumed["bytes_per_token"]
    tokens_out = assumed["completion_tokens_per_reply"]
    found = []
    for model in models:
        price_in, price_out = prices["llm"].get(model, (0.0, 0.0))
        found.append((model, cohorts * (tokens_in * price_in + tokens_out * price_out) / 1e6))
    return found

"""The default deployment's cost report (``arena cost``, ``bench/bench_cost.py``)."""

from __future__ import annotations

from arena_core.domain.lineup import BASELINES, LINEUP_V1
from arena_local.cost.lines import all_lines
from arena_local.cost.model import load_prices
from arena_local.cost.report import render
from arena_local.cost.run import measure_week

__all__ = ["cost_report"]


def cost_report(*, cohorts: int = 5, universe_size: int = 500, ttl_days: int = 30) -> list[str]:
    """The default deployment (the v1 lineup's seven families and the baselines), its week
    simulated with the families' stand-ins (same prompts, same calls) and metered."""
    from arena_local.standins import standin_lineup  # noqa: PLC0415
    from arena_local.workflow import synthesized_template  # noqa: PLC0415 - the CDK app

    template = synthesized_template()
    measured = measure_week(template, standin_lineup() + BASELINES, universe_size=universe_size)
    prices = load_prices()
    lines = all_lines(template, measured, prices, cohorts=cohorts, ttl_days=ttl_days)
    models = [family.openrouter_id for family in LINEUP_V1]
    return render(lines, measured, prices, models=models, cohorts=cohorts, ttl_days=ttl_days)

"""The default deployment's cost report (``arena cost``, ``bench/bench_cost.py``)."""

from __future__ import annotations

from arena_core.domain.lineup import BASELINES, LINEUP_V1
from arena_local.cost.lines import all_lines
from arena_local.cost.model import load_prices
from arena_local.cost.report import render
from arena_local.cost.steady import SteadyState, measure_steady_state

__all__ = ["cost_report"]


def cost_report(steady: SteadyState | None = None) -> list[str]:
    """The default deployment (the v1 lineup's seven families and the baselines) in a metered
    steady state, its families answered by their stand-ins (same prompts, same calls)."""
    from arena_local.standins import standin_lineup  # noqa: PLC0415
    from arena_local.workflow import synthesized_template  # noqa: PLC0415 - the CDK app

    template = synthesized_template()
    prices = load_prices()
    measured = measure_steady_state(
        template,
        standin_lineup() + BASELINES,
        steady or SteadyState(),
        runtime_init_seconds=prices["assumptions"]["runtime_init_seconds"],
    )
    lines = all_lines(template, measured, prices)
    models = [family.openrouter_id for family in LINEUP_V1]
    return render(lines, measured, prices, models=models)

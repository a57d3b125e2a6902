"""The forecast panel's design as the methodology page states it (``domain/panel_design.py``), and
each week's panel as it was drawn (its stratum and eligibility counts, from ``panel_questions``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena_core.domain.panel import PanelQuestion
from arena_core.domain.panel_design import panel_design


def panel_page() -> dict[str, Any]:
    """K, the strata, the band and the other rules of the deployed design, for the template."""
    design = panel_design()
    return {
        "size": design.size,
        "horizon_days": int(design.horizon_days),
        "band": design.band,
        "strata": [
            {
                "name": s.name,
                "share": f"{100 * s.share:.0f}%",
                "days": s.name,
            }
            for s in design.strata
        ],
        "per_event": design.per_event,
        "fresh_weeks": design.fresh_weeks,
        "min_liquidity": f"{design.min_liquidity:,.0f}",
    }


@dataclass(frozen=True)
class PanelWeek:
    """One week's panel as drawn: when, K, what qualified and was drawn per stratum."""

    run_at: datetime
    requested: int
    eligible: int
    strata: tuple[tuple[str, int, int, int], ...]  # (stratum, quota, eligible, drawn)


def panel_weeks(questions: Iterable[PanelQuestion]) -> list[PanelWeek]:
    """Each week's panel, newest first, from the questions registered for it (every cohort of
    a week asks the same panel: one cohort's questions describe it)."""
    by_run: dict[datetime, dict[str, PanelQuestion]] = {}
    for question in questions:
        by_run.setdefault(question.run_at, {})[question.market.market_id] = question
    found = []
    for run_at, asked in sorted(by_run.items(), reverse=True):
        drawn = Counter(q.stratum or "" for q in asked.values())
        strata: dict[str, tuple[str, int, int, int]] = {}
        for q in asked.values():
            if q.stratum is not None:
                strata[q.stratum] = (
                    q.stratum,
                    q.stratum_quota or 0,
                    q.stratum_eligible or 0,
                    drawn[q.stratum],
                )
        first = next(iter(asked.values()))
        found.append(
            PanelWeek(
                run_at,
                first.requested or len(asked),
                first.eligible or 0,
                tuple(strata[name] for name in sorted(strata)),
            )
        )
    return found

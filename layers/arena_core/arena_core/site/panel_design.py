"""The forecast panel's design as the methodology page states it (``domain/panel_design.py``)."""

from __future__ import annotations

from typing import Any

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
                "days": f"{s.min_days:g} to {s.max_days:g}",
            }
            for s in design.strata
        ],
        "per_event": design.per_event,
        "fresh_weeks": design.fresh_weeks,
        "min_liquidity": f"{design.min_liquidity:,.0f}",
    }

"""The realistic world's forecasters and the panel plans the power benchmark compares.

The forecasters are set so that the pairs the target speaks of exist: a true Brier gap near
0.02 between models (``sharp`` against ``fair`` and ``gross``), between a model and the market
(``fair``, ``gross``), and between a model and the best (the same), beside exactly equal pairs
(``good-a``/``good-b``, and each late family with its twin), a family leaning YES, one with 3%
gross errors and a poor one. Their gaps come out of the world (the truth of each plan), not
from these numbers directly: ``bench/bench_power.py`` prints them.
"""

from __future__ import annotations

from arena_local.validity.realistic import (
    FOLLOWER,
    HOLD,
    RANDOM,
    Forecaster,
    PanelPlan,
    WorldAssumptions,
    design,
    stratum,
)

FORECASTERS = (
    Forecaster("sharp", 0.4),
    Forecaster("good-a", 1.0),
    Forecaster("good-b", 1.0),
    Forecaster("fair", 1.5),
    Forecaster("poor", 2.0),
    Forecaster("yes-leaning", 0.6, bias=0.4),
    Forecaster("gross", 0.6, gross=0.03),
    Forecaster("late-sharp", 0.4, joins=4),
    Forecaster("late-fair", 1.5, joins=4),
    Forecaster("market-follower", kind=FOLLOWER),
    Forecaster("always-half", kind=HOLD),
    Forecaster("random", kind=RANDOM),
)
REALISTIC = WorldAssumptions(FORECASTERS)

# The panel as deployed before issue 34: K from the top-500 trading universe, closing within
# 60 days, priced in [0.03, 0.97], re-asked freely, any number per event.
TOP_500 = "top-500 (before)"


def before(size: int = 30) -> PanelPlan:
    return PanelPlan(
        f"{TOP_500} K={size}",
        design(
            size,
            [stratum("within 60 days", 0, 60, 1.0)],
            band=("0.03", "0.97"),
            per_event=10**6,
            fresh_weeks=0,
            min_liquidity="0",
        ),
        universe="top",
    )

"""The realistic world's forecasters and the panel plans the power benchmark compares.

The forecasters are set so that the pairs the target speaks of exist: a true Brier gap near
0.02 between models (``sharp`` against ``fair`` and ``gross``), between a model and the market
(``fair``, ``gross``), and between a model and the best (the same), beside exactly equal pairs
(``good-a``/``good-b``, and each late family with its twin), a family leaning YES, one with 3%
gross errors and a poor one. Their gaps come out of the world (the truth of each plan), not
from these numbers directly: ``bench/bench_power.py`` prints them.
"""

from __future__ import annotations

from arena_core.domain.panel_design import (
    FRESH_WEEKS,
    MIN_LIQUIDITY,
    PANEL_SIZE,
    PER_EVENT,
    PRICE_BAND,
    STRATA,
    PanelDesign,
    Stratum,
)
from arena_local.validity.fitted import Fitted
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


def after(
    name: str = "default",
    *,
    size: int = PANEL_SIZE,
    strata: tuple[Stratum, ...] = STRATA,
    band: tuple[str, str] = (str(PRICE_BAND[0]), str(PRICE_BAND[1])),
    per_event: int = PER_EVENT,
    fresh_weeks: int = FRESH_WEEKS,
    first_asks: bool = False,
) -> PanelPlan:
    """The deployed design (``domain.panel_design``), or a variant of one of its rules."""
    return PanelPlan(
        f"all active, {name}",
        design(
            size,
            list(strata),
            band=band,
            per_event=per_event,
            fresh_weeks=fresh_weeks,
            min_liquidity=str(MIN_LIQUIDITY),
        ),
        first_asks=first_asks,
    )


VARIANTS = {
    "after": after,
    "k-100": lambda: after("K=100", size=100),
    "k-200": lambda: after("K=200", size=200),
    "band-03": lambda: after("band [0.03, 0.97]", band=("0.03", "0.97")),
    "band-10": lambda: after("band [0.10, 0.90]", band=("0.10", "0.90")),
    "band-20": lambda: after("band [0.20, 0.80]", band=("0.20", "0.80")),
    "within-7": lambda: after("all within 7 days", strata=(stratum("within 7 days", 0, 7, 1),)),
    "strata-7-14": lambda: after(
        "half within 7 days, half 8 to 14",
        strata=(stratum("within 7 days", 0, 7, 0.5), stratum("8 to 14 days", 7, 14, 0.5)),
        fresh_weeks=2,
    ),
    "within-30": lambda: after("within 30 days", strata=(stratum("within 30 days", 0, 30, 1),)),
    "reask-once": lambda: after("re-asked, counted once", fresh_weeks=0, first_asks=True),
    "reask": lambda: after("re-asked freely", fresh_weeks=0),
    "events-3": lambda: after("3 per event", per_event=3),
}


def world_rows(world: WorldAssumptions, fitted: Fitted, gaps: dict[str, float]) -> list[list[str]]:
    """What the realistic world is: each fact fitted to the dump or assumed, for the page.
    ``gaps``: each forecaster's true Brier minus the market's under the deployed design."""
    models = [f for f in world.forecasters if f.kind == "llm"]
    late = [f for f in models if f.joins]
    gross = [f for f in models if f.gross]
    dump = f"fitted: {fitted.source}"
    return [
        [
            "Open binary markets priced outside [0.05, 0.95]",
            f"{1 - fitted.share_priced_within(0.05, 0.95):.0%} (resampled)",
            dump,
        ],
        [
            "Duration from listing to end",
            f"median {sorted(fitted.durations)[len(fitted.durations) // 2]:.0f} days of a "
            f"market open at a snapshot, {fitted.share_longer(70):.0%} over 70 days",
            dump,
        ],
        [
            "Events",
            f"{fitted.single_share:.0%} single markets; of the others "
            f"{fitted.ladder_share:.0%} ladders (nested thresholds), the rest candidates",
            dump,
        ],
        ["Liquidity at least $1,000", f"{fitted.share_liquid(1000):.0%} of open markets", dump],
        ["Active markets at any time", f"{world.active_markets:,}", "assumed"],
        [
            "Mispricing (logit sd)",
            f"{world.market_lasting} lasting per market, {world.market_weekly} redrawn weekly",
            "assumed",
        ],
        [
            "Models",
            f"{len(models)} ({len(late)} join in week {late[0].joins if late else 0}); "
            f"3 baselines and the models' ensemble beside",
            "assumed",
        ],
        [
            "Models read the price and share errors",
            f"price weight {models[0].reads_price}; a shared error of sd {world.shared_error} "
            "per market",
            "assumed",
        ],
        [
            "Gross errors",
            f"{len(gross)} model with {gross[0].gross:.0%} of forecasts at 0.97 on its unlikely "
            "side"
            if gross
            else "none",
            "assumed",
        ],
        [
            "Outcome shocks (logit sd)",
            f"{world.weekly_shock} market-wide per week of resolution, {world.category_shock} "
            "per category",
            "assumed",
        ],
        [
            "'By date' single markets",
            f"{world.by_date_share:.0%}: a YES resolves at once",
            "assumed",
        ],
        [
            "True Brier minus the market's (deployed panel)",
            "; ".join(f"{f} {g:+.3f}" for f, g in gaps.items()),
            "the truth: long seasons pooled",
        ],
    ]


def design_of(design: PanelDesign) -> dict[str, object]:
    """The design measured as "all active, default": the deployed one (a test checks)."""
    return {
        "size": design.size,
        "strata": [[s.name, s.min_days, s.max_days, s.share] for s in design.strata],
        "band": [str(b) for b in design.band],
        "per_event": design.per_event,
        "fresh_weeks": design.fresh_weeks,
        "min_liquidity": str(design.min_liquidity),
    }

"""What kind of build a site is: a deployment of real models on live markets, or a simulation
(the local demo's clock, prices, replayed markets, stand-ins that know the outcomes).

Every page of a simulated build carries a banner naming what is simulated and saying that its
figures say nothing about the real models, and its footer says what it is; a deployment of
real models on live markets shows neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena_core.domain.cohort import Cohort

CLOCK, PRICES, REPLAYED = "clock", "prices", "replayed-markets"
SIMULATION_PARTS = (CLOCK, PRICES, REPLAYED)


def parse_simulation(text: str) -> frozenset[str]:
    """``clock,prices,replayed-markets`` (any of them, comma-separated) as a set; unknown
    parts are refused, so a typo cannot hide a simulation."""
    parts = frozenset(p.strip() for p in text.split(",") if p.strip())
    unknown = parts - set(SIMULATION_PARTS)
    if unknown:
        raise ValueError(f"unknown simulation part(s): {', '.join(sorted(unknown))}")
    return parts


@dataclass(frozen=True)
class SiteBuild:
    simulated: frozenset[str] = frozenset()  # CLOCK, PRICES, REPLAYED
    stand_ins: bool = False  # some agent is a simulated stand-in
    board_minutes: int = 10  # how often the leaderboard is regenerated
    live_minutes: int = 30  # how often the live cohorts' figures are

    @classmethod
    def of(
        cls,
        simulated: frozenset[str],
        cohorts: Iterable[Cohort],
        *,
        board_minutes: int = 10,
        live_minutes: int = 30,
    ) -> SiteBuild:
        stand_ins = any(spec.stand_in for c in cohorts for spec in c.lineup)
        return cls(simulated, stand_ins, board_minutes, live_minutes)

    @staticmethod
    def every(minutes: int) -> str:
        """A cadence in words: "every 10 minutes", "every hour", "once a day", "once a week"."""
        named = {60: "every hour", 1440: "once a day", 10080: "once a week"}
        if minutes in named:
            return named[minutes]
        if minutes % 1440 == 0:
            return f"every {minutes // 1440} days"
        if minutes % 60 == 0:
            return f"every {minutes // 60} hours"
        return f"every {minutes} minutes"

    @property
    def is_simulation(self) -> bool:
        return bool(self.simulated) or self.stand_ins

    def what(self) -> list[str]:
        """What is simulated, in words, for the banner."""
        found = []
        if CLOCK in self.simulated:
            found.append("the clock (weeks pass in minutes)")
        if PRICES in self.simulated:
            found.append("the prices (a seeded simulation)")
        if REPLAYED in self.simulated:
            found.append("the markets (recorded Polymarket questions replayed, some long resolved)")
        if self.stand_ins:
            found.append(
                "the agents (seeded stand-ins that know how the simulation resolves its markets, "
                "each to its own degree)"
            )
        return found

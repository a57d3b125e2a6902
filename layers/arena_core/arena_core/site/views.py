"""What the leaderboard pages are drawn from: one leaderboard per methodology version, with its
families (their charts, recent decisions and lineup releases), its input tables and the
statistics computed from them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from arena_core.analysis.figures import Rules
from arena_core.dataset.boards import BoardResult, Row
from arena_core.dataset.records import DecisionView
from arena_core.dataset.table import Table
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.domain.releases import LineupRelease
from arena_core.site.charts import RangeChart
from arena_core.site.series import LazySeries


@dataclass
class FamilyView:
    spec: AgentSpec
    latest_of: Callable[[], list[PortfolioSnapshot]]  # its latest in every cohort, by cohort
    series: LazySeries  # its points at every resolution, read as charts need them
    draw_charts: Callable[[], list[RangeChart]]  # its model page's (the leaderboard has none)
    recent: list[DecisionView] = field(default_factory=list)
    # The lineup releases where the family changed model or name (or was retired: None).
    releases: list[tuple[LineupRelease, AgentSpec | None]] = field(default_factory=list)

    @cached_property
    def charts(self) -> list[RangeChart]:
        return self.draw_charts()

    @cached_property
    def latest(self) -> list[PortfolioSnapshot]:
        """Read where it is shown (the model pages): the leaderboard needs only the live
        cohorts' and the completed part it keeps (``site/completed.py``)."""
        return self.latest_of()


@dataclass
class LeaderboardData:
    """One methodology version's leaderboard: its cohorts, its families (charts, decisions,
    releases), the rows of its input tables, and the statistics computed from their published
    CSV (``site.boards``)."""

    methodology: str
    cohorts: list[Cohort]
    families: list[FamilyView]
    inputs: dict[str, Table]  # the input tables, by name, as published
    result: BoardResult
    rules: Rules
    as_of: datetime | None = None  # its newest snapshot: the time its values are from

    def family(self, family_id: str) -> FamilyView | None:
        return next((f for f in self.families if f.spec.family_id == family_id), None)

    def row(self, family_id: str) -> Row | None:
        return self.result.row(family_id)

"""The ``v1+panel`` leaderboard: one row per forecaster of the panel, ranked on panel scores.

Model families with the minimum sample of panel forecasts are ranked by mean peer score among
the models (higher first), then mean Brier; each shows the rank range its peer interval allows.
Beside the panel columns sit the family's v1 trading columns over the same cohorts (bet Brier,
return, P/L, trades) and how its buys follow its own forecasts. Families below the sample are
provisional; baselines, the models' ensemble and the market's own price at capture are
reference rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena_core.domain.coherence import CoherenceSummary
from arena_core.domain.panel import ScoredBy
from arena_core.site.collect import LeaderboardData, PanelBoard
from arena_core.site.leaderboard import LeaderboardRow, Standing
from arena_core.site.panel_statistics import PanelFamilyStatistics
from arena_core.site.statistics import FamilyStatistics

REFERENCE_NAMES = {
    ScoredBy.ENSEMBLE.value: "Ensemble of the models",
    ScoredBy.MARKET.value: "Market price at capture",
}
REFERENCE_ORDER = {ScoredBy.BASELINE: 0, ScoredBy.ENSEMBLE: 1, ScoredBy.MARKET: 2}


@dataclass(frozen=True)
class PanelLeaderboardRow:
    family_id: str
    display_name: str
    kind: str  # llm, baseline, ensemble or market
    stand_in: bool
    standing: Standing
    panel: PanelFamilyStatistics | None  # peer and baseline scores, counts, rank
    scores: FamilyStatistics | None  # Brier, log score, skill against the market
    coherence: CoherenceSummary | None  # model families and baselines: their buys
    trading: LeaderboardRow | None  # the v1 trading columns over the same cohorts

    @property
    def rank(self) -> int | None:
        return self.panel.rank if self.panel else None

    @property
    def rank_range(self) -> tuple[int, int] | None:
        return self.panel.rank_range if self.panel else None

    @property
    def tied_with_leader(self) -> bool:
        return self.panel.tied_with_leader if self.panel else False


def _standing(kind: ScoredBy, panel: PanelFamilyStatistics | None) -> Standing:
    if kind is not ScoredBy.LLM:
        return Standing.REFERENCE
    if panel is not None and panel.rank is not None:
        return Standing.RANKED
    return Standing.PROVISIONAL if panel and panel.forecasts else Standing.UNSCORED


def _family_rows(board: LeaderboardData, panel: PanelBoard) -> list[PanelLeaderboardRow]:
    rows = []
    for view in board.families:
        family = view.spec.family_id
        stats = panel.statistics.families.get(family)
        kind = ScoredBy.LLM if view.spec.kind.value == ScoredBy.LLM.value else ScoredBy.BASELINE
        rows.append(
            PanelLeaderboardRow(
                family_id=family,
                display_name=view.spec.display_name,
                kind=kind.value,
                stand_in=view.spec.stand_in,
                standing=_standing(kind, stats),
                panel=stats,
                scores=panel.statistics.shared.families.get(family),
                coherence=panel.summary(family),
                trading=view.row,
            )
        )
    return rows


def _reference_rows(panel: PanelBoard) -> list[PanelLeaderboardRow]:
    rows = []
    for family, stats in panel.statistics.families.items():
        if stats.scored_by not in (ScoredBy.ENSEMBLE, ScoredBy.MARKET):
            continue
        rows.append(
            PanelLeaderboardRow(
                family_id=family,
                display_name=REFERENCE_NAMES[stats.scored_by.value],
                kind=stats.scored_by.value,
                stand_in=False,
                standing=Standing.REFERENCE,
                panel=stats,
                scores=panel.statistics.shared.families.get(family),
                coherence=None,
                trading=None,
            )
        )
    return rows


def panel_leaderboard(board: LeaderboardData) -> list[PanelLeaderboardRow]:
    """Ranked families by rank; then provisional and unscored ones by mean peer score; then
    the reference rows: baselines, the ensemble, the market."""
    if board.panel is None:
        return []
    rows = _family_rows(board, board.panel) + _reference_rows(board.panel)
    standing = {Standing.RANKED: 0, Standing.PROVISIONAL: 1, Standing.UNSCORED: 2}

    def key(row: PanelLeaderboardRow) -> tuple[int, int, int, float, str]:
        peer = row.panel.peer.estimate if row.panel and row.panel.peer else float("-inf")
        reference = REFERENCE_ORDER.get(ScoredBy(row.kind), 0) if row.kind != "llm" else 0
        return (standing.get(row.standing, 3), row.rank or 0, reference, -peer, row.family_id)

    return sorted(rows, key=key)

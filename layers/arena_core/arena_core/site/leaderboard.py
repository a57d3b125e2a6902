"""The leaderboard: one row per family, every headline number with its interval and sample.

Model families are ranked by mean Brier (lower first) once they have the minimum sample (N
scored forecasts over W cohorts); each ranked family shows the range of ranks its interval
allows, and families whose range reaches the top are tied with the leader. Families below the
sample are provisional, without rank; families with no scored forecast are never ranked;
baselines and the market are reference rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import BetScore, PortfolioSnapshot
from arena_core.scoring.statistics import Interval
from arena_core.site.statistics import FamilyStatistics


class Standing(StrEnum):
    RANKED = "ranked"
    PROVISIONAL = "provisional"  # below the minimum sample: no rank yet
    UNSCORED = "unscored"  # no scored forecast: never ranked
    REFERENCE = "reference"  # a baseline


@dataclass(frozen=True)
class LeaderboardRow:
    family_id: str
    display_name: str
    kind: AgentKind
    stand_in: bool
    standing: Standing
    rank: int | None
    rank_range: tuple[int, int] | None
    tied_with_leader: bool
    cohorts: int  # cohorts the family has an agent in
    forecasts: int  # scored forecasts
    scored_cohorts: int  # cohorts with at least one scored forecast
    brier: Interval | None
    log_score: Interval | None
    market_brier: Interval | None  # the market's Brier on the same forecasts
    skill: Interval | None  # Brier skill against the market on the same forecasts
    relative_log: Interval | None  # 100 x (log score - the market's)
    returns: Interval | None  # mean return % over its cohorts
    total_pnl: Decimal
    win_rate: Decimal | None
    resolved_bets: int
    trades: int


def _standing(spec: AgentSpec, stats: FamilyStatistics) -> Standing:
    if spec.kind is AgentKind.BASELINE:
        return Standing.REFERENCE
    if stats.rank is not None:
        return Standing.RANKED
    return Standing.PROVISIONAL if stats.forecasts else Standing.UNSCORED


def leaderboard_row(
    spec: AgentSpec,
    scores: Sequence[BetScore],
    latest: Sequence[PortfolioSnapshot],
    stats: FamilyStatistics,
) -> LeaderboardRow:
    """The family's row from its bet scores and its agents' latest snapshots, both of the
    leaderboard's cohorts only."""
    n = len(scores)
    return LeaderboardRow(
        family_id=spec.family_id,
        display_name=spec.display_name,
        kind=spec.kind,
        stand_in=spec.stand_in,
        standing=_standing(spec, stats),
        rank=stats.rank,
        rank_range=stats.rank_range,
        tied_with_leader=stats.tied_with_leader,
        cohorts=len(latest),
        forecasts=stats.forecasts,
        scored_cohorts=stats.cohorts,
        brier=stats.brier,
        log_score=stats.log_score,
        market_brier=stats.market_brier,
        skill=stats.skill,
        relative_log=stats.relative_log,
        returns=stats.returns,
        total_pnl=sum((s.total_pnl for s in latest), ZERO),
        win_rate=Decimal(sum(s.won for s in scores)) / n if n else None,
        resolved_bets=n,
        trades=sum(s.trades for s in latest),
    )


ORDER = {Standing.RANKED: 0, Standing.PROVISIONAL: 1, Standing.UNSCORED: 2, Standing.REFERENCE: 3}


def ordered(rows: Iterable[LeaderboardRow]) -> list[LeaderboardRow]:
    """Ranked families by rank, then provisional and unscored ones, then the baselines; within
    a group by mean Brier (missing last), then by mean return."""

    def key(row: LeaderboardRow) -> tuple[int, int, bool, float, float, str]:
        brier = row.brier.estimate if row.brier else 0.0
        returns = -(row.returns.estimate if row.returns else 0.0)
        return (
            ORDER[row.standing],
            row.rank or 0,
            row.brier is None,
            brier,
            returns,
            row.family_id,
        )

    return sorted(rows, key=key)

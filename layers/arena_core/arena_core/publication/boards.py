"""The leaderboards' reads and statistics: one leaderboard per methodology version, computed from
its input tables (``dataset/boards.py``), with reads bounded by what changed.

Families read one latest snapshot per agent of each live cohort (a sealed cohort's come from its
record), their scored forecasts (carried), and their series at the resolution each chart range
needs; under v1+panel also the panel's scores and the families' trade coherence. What changes
a few times a day (the forecasts' statistics, their table's digests, the sealed cohorts' part of
the returns tables, the return statistics) goes through the memo, each keyed on what it is
computed from. Results are never aggregated across methodologies: the current version (the
newest cohort's) first.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache, partial
from typing import TypeVar

from arena_core.analysis.figures import Rules
from arena_core.dataset import rows as inputs
from arena_core.dataset.boards import build
from arena_core.dataset.table import Csvs, Table
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.panel import Methodology
from arena_core.domain.portfolio import BetScore, PortfolioSnapshot, SeriesPoint
from arena_core.domain.releases import LineupRelease, family_changes
from arena_core.publication.carried import CarriedViews
from arena_core.publication.cohorts import SiteStores, families, methodologies, positions_of
from arena_core.publication.completed import CompletedPart, LiveReturns, computed, newest
from arena_core.publication.memo import Memo
from arena_core.publication.sealed_set import SealedSet
from arena_core.publication.slots import BETS, COMPLETED, DIGESTS, RETURNS
from arena_core.site.charts import RangeChart
from arena_core.site.series import LazySeries, family_series, pnl_charts, return_charts
from arena_core.site.views import FamilyView, LeaderboardData

T = TypeVar("T")
PARTS = {"bets": BETS, "returns": RETURNS}


@dataclass(frozen=True)
class _Reads:
    """What one publication reads per family, once, whichever leaderboards it appears on."""

    latest: Callable[[], dict[str, list[PortfolioSnapshot]]]  # every cohort's, on first use
    series: dict[str, LazySeries]
    charts: dict[str, Callable[[], list[RangeChart]]]  # drawn where a model page is
    releases: dict[str, list[tuple[LineupRelease, AgentSpec | None]]]


class BoardReader:
    def __init__(
        self,
        stores: SiteStores,
        views: CarriedViews,
        memo: Memo,
        sealed: SealedSet,
        *,
        now: datetime,
        rules: Rules,
    ) -> None:
        self._stores = stores
        self._views = views
        self._memo = memo
        self._sealed = sealed
        self._scores: dict[str, list[BetScore]] = {}
        self.now = now
        self._rules = rules

    def leaderboards(self, cohorts: Sequence[Cohort]) -> list[LeaderboardData]:
        """One leaderboard per methodology version, the current one first."""
        specs = families(cohorts)
        releases = self._stores.lineups.releases()
        changes = {s.family_id: family_changes(releases, s.family_id) for s in specs}
        series = {s.family_id: family_series(partial(self._series, s.family_id), self.now)
                  for s in specs}  # fmt: skip
        reads = _Reads(
            latest=cache(partial(self._latest_by_family, cohorts, specs)),
            series=series,
            charts={
                s.family_id: partial(
                    pnl_charts,
                    s.display_name,
                    series[s.family_id],
                    self.now,
                    release_marks(changes[s.family_id]),
                )
                for s in specs
            },
            releases=changes,
        )
        return [
            self._leaderboard(v, [c for c in cohorts if c.methodology_version == v], reads)
            for v in methodologies(cohorts)
        ]

    def _series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        return self._views.series(family_id, resolution, start, end)

    def _latest_by_family(
        self, cohorts: Sequence[Cohort], specs: Sequence[AgentSpec]
    ) -> dict[str, list[PortfolioSnapshot]]:
        """Each family's latest snapshot in each of ``cohorts`` (by cohort id)."""
        found: dict[str, list[PortfolioSnapshot]] = {s.family_id: [] for s in specs}
        for cohort in sorted(cohorts, key=lambda c: c.cohort_id):
            for snapshot in sorted(
                self._views.latest_snapshots(cohort).values(), key=lambda s: s.agent_id
            ):
                found.setdefault(snapshot.family_id, []).append(snapshot)
        return found

    def _leaderboard(self, version: str, cohorts: list[Cohort], reads: _Reads) -> LeaderboardData:
        ids = {c.cohort_id for c in cohorts}
        specs = families(cohorts)
        sealed = frozenset(ids & self._sealed.ids)
        unsealed = [c for c in cohorts if c.cohort_id not in sealed]
        done = [c for c in unsealed if c.status is CohortStatus.COMPLETED]

        @cache
        def latest() -> dict[str, list[PortfolioSnapshot]]:
            every = reads.latest()
            return {
                s.family_id: [x for x in every.get(s.family_id, []) if x.cohort_id in ids]
                for s in specs
            }

        @cache
        def positions() -> list[inputs.Row]:  # of the completed cohorts, sealed or not
            found = self._sealed.positions(sealed)
            found += [row for c in done for row in positions_of(self._stores, c)]
            return sorted(found, key=lambda r: (r["cohort_id"], r["position_id"]))

        def returns() -> list[inputs.Row]:
            return inputs.return_rows(version, latest(), cohorts, positions(), self.now)

        part = self._sealed_part(version, sealed, specs, cohorts)
        live = self._latest_by_family(unsealed, specs)
        unsealed_positions = [row for c in done for row in positions_of(self._stores, c)]
        moving = LiveReturns(
            part, inputs.return_rows(version, live, cohorts, unsealed_positions, self.now)
        )
        tables = {
            "family_returns": Table("family_returns", returns, bodies=moving.bodies),
            "position_returns": Table(
                "position_returns", positions, digests=None if done else part.positions
            ),
            "families": Table.of("families", inputs.family_rows(version, specs)),
        }
        if version == Methodology.V1_PANEL:
            tables |= {n: Table.of(n, r) for n, r in self._panel_tables(version, cohorts, specs)}
        tables["forecasts"] = self._forecasts(version, ids, specs)
        result = build(
            Csvs(tables),
            version,
            self._rules,
            digests={name: table.digest for name, table in tables.items()},
            records=moving.records,
            keep=partial(self._keep, version),
        )
        views = [
            FamilyView(
                spec,
                partial(lambda f: latest().get(f, []), spec.family_id),
                reads.series[spec.family_id],
                reads.charts[spec.family_id],
                releases=reads.releases.get(spec.family_id, []),
            )
            for spec in specs
        ]
        order = {row.family_id: i for i, row in enumerate(result.rows)}
        views.sort(key=lambda v: order.get(v.spec.family_id, len(order)))
        as_of = newest(part, live)
        return LeaderboardData(version, cohorts, views, tables, result, self._rules, as_of)

    def _keep(self, version: str, part: str, found: object, compute: Callable[[], T]) -> T:
        return self._memo.get(PARTS[part], f"board/{version}/{part}", found, compute)  # type: ignore[arg-type]

    def _sealed_part(
        self,
        version: str,
        sealed: frozenset[str],
        specs: Sequence[AgentSpec],
        cohorts: list[Cohort],
    ) -> CompletedPart:
        """The sealed cohorts' part of the returns tables (computed from their records when
        they changed, or a position of theirs reached its scheduled end)."""

        def compute() -> CompletedPart:
            finals = {c: self._sealed.finals(c) or [] for c in sorted(sealed)}
            latest: dict[str, list[PortfolioSnapshot]] = {}
            for found in finals.values():
                for snapshot in found:
                    latest.setdefault(snapshot.family_id, []).append(snapshot)
            positions = self._sealed.positions(sealed)
            rows = inputs.return_rows(version, latest, cohorts, positions, self.now)
            return computed(
                self.now,
                returns=rows,
                completed=sealed,
                positions=positions,
                position_digests=Table.of("position_returns", positions).digests,
                finals=[s for found in finals.values() for s in found],
            )

        key = [sorted(sealed), [s.family_id for s in specs], self._sealed.key()]
        return self._memo.get(
            COMPLETED, f"board/{version}/completed", key, compute, until=lambda p: p.until
        )

    def _forecasts(self, version: str, ids: Collection[str], specs: Sequence[AgentSpec]) -> Table:
        """The forecasts table, its rows and files computed only when needed: their digests
        are kept with what they are computed from (each family's scored count) until a score
        matures, so a publication in which no bet was scored and none matured neither reads
        a score nor formats a row nor analyses one."""

        @cache
        def scores() -> list[BetScore]:
            return [
                b for s in specs for b in self._family_scores(s.family_id) if b.cohort_id in ids
            ]

        def rows() -> list[inputs.Row]:
            return inputs.forecast_rows(version, scores(), self.now)

        made: list[Table] = []  # the table computed on a miss (its files made once)

        def compute() -> tuple[str, str]:
            made.append(Table("forecasts", rows))
            return made[0].digests

        counts = {s.family_id: self._views.scored_count(s.family_id) for s in specs}
        digests = self._memo.get(
            DIGESTS,
            f"board/{version}/forecasts",
            [version, counts, sorted(ids)],
            compute,
            until=lambda _: inputs.next_maturity(scores(), self.now),
            keep=lambda _: all(len(self._family_scores(f)) == n for f, n in counts.items()),
        )
        return made[0] if made else Table("forecasts", rows, digests=digests)

    def _family_scores(self, family_id: str) -> list[BetScore]:
        if family_id not in self._scores:
            self._scores[family_id] = self._views.family_scores(family_id)
        return self._scores[family_id]

    def _panel_tables(
        self, version: str, cohorts: Sequence[Cohort], specs: Sequence[AgentSpec]
    ) -> list[tuple[str, list[inputs.Row]]]:
        ids = {c.cohort_id for c in cohorts}
        panel = self._stores.panel
        scores = [s for c in cohorts for s in panel.scores(c.cohort_id)]
        coherence = [
            c
            for spec in specs
            for c in panel.family_coherence(spec.family_id)
            if c.cohort_id in ids
        ]
        return [
            ("panel_scores", inputs.panel_score_rows(version, scores, self.now)),
            ("coherence", inputs.coherence_rows(version, coherence)),
        ]

    def return_charts(self, boards: Sequence[LeaderboardData]) -> list[RangeChart]:
        """The home page's chart: every family's P/L over time, one series each (the series
        already read for the model pages)."""
        seen: dict[str, LazySeries] = {}
        names: dict[str, str] = {}
        for board in boards:
            for view in board.families:
                seen[view.spec.family_id] = view.series
                names[view.spec.family_id] = view.spec.display_name
        return return_charts([(names[f], s) for f, s in seen.items()], self.now)


def release_marks(
    changes: Sequence[tuple[LineupRelease, AgentSpec | None]],
) -> list[tuple[datetime, str]]:
    """Where a family's equity chart marks a lineup release (after its first appearance)."""
    return [
        (
            release.effective_from,
            f"release {release.release}: {spec.model_id if spec else 'retired'}",
        )
        for release, spec in changes[1:]
    ]

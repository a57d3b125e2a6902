"""Read what the site shows from the repository, with reads bounded by what changes.

Global pages (leaderboards, model pages) read one latest snapshot per agent of each family, its
scored forecasts, and the family series at the resolution each chart range needs; under
methodology v1+panel also the panel's scores and the families' trade coherence. Results are
never aggregated across methodologies: there is one leaderboard per methodology version, each
computed from its own cohorts, the current version (the newest cohort's) first. Agent pages
read the last day's snapshots and one hourly snapshot per hour before it. Cohort and agent pages
are built only for the cohorts asked for (the live ones; a completed cohort is published once
and left alone).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache, partial
from typing import Protocol

from arena_core.analysis.figures import Rules
from arena_core.dataset import rows as inputs
from arena_core.dataset.boards import Kept, build
from arena_core.dataset.details import DecisionDetails
from arena_core.dataset.records import AgentView, CohortView, DecisionView, PositionView
from arena_core.dataset.table import Csvs, Digests, Table
from arena_core.domain import accounting
from arena_core.domain.coherence import DecisionCoherence
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.domain.decisions import DecisionOutcome, DecisionRecord
from arena_core.domain.holdings import AgentRecords
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.market import Market
from arena_core.domain.panel import Methodology, PanelScore
from arena_core.domain.portfolio import (
    SIX_HOURS,
    BetScore,
    PortfolioSnapshot,
    Position,
    SeriesPoint,
    six_hourly,
    snapshot_hour,
)
from arena_core.domain.releases import LineupRelease, family_changes
from arena_core.errors import ArenaError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.stores import (
    WithCohorts,
    WithLedger,
    WithLineups,
    WithMarkets,
    WithPanel,
    WithViews,
)
from arena_core.ports.view_store import ViewStore
from arena_core.publication.carried import CarriedViews
from arena_core.publication.completed import (
    CompletedPart,
    LiveReturns,
    completed_key,
    computed,
    newest,
)
from arena_core.publication.details import read_details
from arena_core.publication.table_memo import kept_digests
from arena_core.site.charts import RangeChart
from arena_core.site.series import (
    LazySeries,
    agent_charts,
    family_series,
    pnl_charts,
    return_charts,
)
from arena_core.site.views import FamilyView, LeaderboardData


def families(cohorts: Sequence[Cohort]) -> list[AgentSpec]:
    """Every family that ever had an agent, with its most recent display name."""
    seen: dict[str, AgentSpec] = {}
    for cohort in sorted(cohorts, key=lambda c: c.week_start):
        for spec in cohort.lineup:
            seen[spec.family_id] = spec
    return list(seen.values())


def methodologies(cohorts: Sequence[Cohort]) -> list[str]:
    """The methodology versions of the cohorts, the current one (the newest cohort's) first,
    then the others from the most recently used; v1 alone when there is no cohort yet."""
    order: list[str] = []
    for cohort in sorted(cohorts, key=lambda c: c.week_start, reverse=True):
        if cohort.methodology_version not in order:
            order.append(cohort.methodology_version)
    return order or [Methodology.V1.value]


@dataclass(frozen=True)
class _FamilyReads:
    """What one publication reads per family, once, whichever leaderboards it appears on."""

    latest: Callable[[], dict[str, list[PortfolioSnapshot]]]  # every cohort's, on first use
    scores: _Scores
    series: dict[str, LazySeries]
    charts: dict[str, Callable[[], list[RangeChart]]]  # drawn where a model page is
    releases: dict[str, list[tuple[LineupRelease, AgentSpec | None]]]
    positions: Callable[[], list[inputs.Row]]  # every completed cohort's, on first use


def _newest(latest: Mapping[str, Sequence[PortfolioSnapshot]]) -> datetime | None:
    return max((s.taken_at for found in latest.values() for s in found), default=None)


class _Scores:
    """Each family's scores, read (or taken from the carried state) on first use."""

    def __init__(self, views: ViewStore) -> None:
        self._views = views
        self._read: dict[str, list[BetScore]] = {}

    def __call__(self, family_id: str) -> list[BetScore]:
        if family_id not in self._read:
            self._read[family_id] = self._views.family_scores(family_id)
        return self._read[family_id]

    def expected(self, family_id: str) -> int:
        """How many of the family's bets are scored (its aggregate's count)."""
        aggregate = self._views.family_aggregates().get(family_id)
        return aggregate.scored_bets if aggregate else 0


def _kept_digests(kept: tuple[str, str] | None, key: str, now: datetime) -> Digests | None:
    """A table's digests as kept under ``key`` (``"csv json until"``), while ``now`` is
    before ``until`` (``-``: never)."""
    if kept is None or kept[0] != key:
        return None
    digests, _, until = kept[1].rpartition(" ")
    try:
        if until != "-" and now >= datetime.fromisoformat(until):
            return None
    except (ValueError, TypeError):  # not a time, or one without its zone
        return None
    return kept_digests(digests)


class SiteStores(WithCohorts, WithLedger, WithLineups, WithMarkets, WithViews, WithPanel, Protocol):
    """The roles the site reads: cohorts and agents, every position on a market, the lineup
    releases, market state, snapshots and records, and the forecast panel."""


class SiteCollector:
    def __init__(
        self,
        stores: SiteStores,
        blobs: BlobStore | None,
        now: datetime,
        rules: Rules | None = None,
        *,
        views: ViewStore | None = None,
        kept: Kept | None = None,
    ) -> None:
        """``views``: the view store to read through instead of the stores' own (the carried
        one of a publication, ``site/carried.py``); ``kept``: the forecasts' statistics kept
        between publications (``boards.build``)."""
        self._kept = kept
        self._rules = rules or Rules()
        self._cohorts = stores.cohorts
        self._markets = stores.markets
        self._views = views or stores.views
        self._panel = stores.panel
        self._ledger = stores.ledger
        self._lineups = stores.lineups
        self._blobs = blobs
        self.now = now

    def releases(self) -> list[LineupRelease]:
        return self._lineups.releases()

    def leaderboards(
        self,
        cohorts: Sequence[Cohort],
        positions: Callable[[], Sequence[inputs.Row]] = tuple,
        read: Collection[str] = (),
    ) -> list[LeaderboardData]:
        """One leaderboard per methodology version, the current one first. ``positions``: reads
        the positions of completed cohorts published before (called only if they are needed),
        ``read``: the completed cohorts they were read from (those of any other completed
        cohort are read once here)."""
        specs = families(cohorts)
        releases = self._lineups.releases()
        changes = {s.family_id: family_changes(releases, s.family_id) for s in specs}
        series = {s.family_id: self._family_series(s.family_id) for s in specs}
        reads = _FamilyReads(
            latest=cache(partial(self._latest_by_family, cohorts, specs)),
            scores=_Scores(self._views),
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
            positions=cache(lambda: self.completed_positions(cohorts, positions(), read)),
        )
        boards = []
        for version in methodologies(cohorts):
            members = [c for c in cohorts if c.methodology_version == version]
            boards.append(self._leaderboard(version, members, reads))
        return boards

    def completed_positions(
        self,
        cohorts: Sequence[Cohort],
        published: Sequence[inputs.Row],
        read: Collection[str] = (),
    ) -> list[inputs.Row]:
        """The positions of every completed cohort: those published before, and those of a
        cohort neither in the table nor ``read`` before, read from the ledger once."""
        known = {row["cohort_id"] for row in published} | set(read)
        found = list(published)
        for cohort in cohorts:
            if cohort.status is CohortStatus.COMPLETED and cohort.cohort_id not in known:
                found += self._positions_of(cohort)
        return found

    def _positions_of(self, cohort: Cohort) -> list[inputs.Row]:
        agents = self._cohorts.agents(cohort.cohort_id)
        holdings = self._ledger.holdings_of([a.agent_id for a in agents])
        ids = sorted({p.market_id for h in holdings.values() for p in h.positions})
        markets = self._markets.get_markets(ids) if ids else {}
        return [
            row
            for agent in agents
            for row in inputs.position_rows(
                cohort.methodology_version,
                agent.family_id,
                holdings[agent.agent_id].positions if agent.agent_id in holdings else [],
                markets,
            )
        ]

    def latest_snapshots(self, cohort: Cohort) -> dict[str, PortfolioSnapshot]:
        """Each agent's latest snapshot in ``cohort`` (read once per publication)."""
        return self._views.latest_snapshots(cohort)

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

    def _leaderboard(
        self, version: str, cohorts: list[Cohort], reads: _FamilyReads
    ) -> LeaderboardData:
        ids = {c.cohort_id for c in cohorts}
        specs = families(cohorts)
        done = {c.cohort_id for c in cohorts if c.status is CohortStatus.COMPLETED}

        @cache
        def latest() -> dict[str, list[PortfolioSnapshot]]:
            every = reads.latest()
            return {
                s.family_id: [x for x in every.get(s.family_id, []) if x.cohort_id in ids]
                for s in specs
            }

        @cache
        def mine() -> list[inputs.Row]:
            return [p for p in reads.positions() if p["cohort_id"] in ids]

        def returns() -> list[inputs.Row]:
            return inputs.return_rows(version, latest(), cohorts, mine(), self.now)

        part = self._completed_part(version, done, specs)
        live = self._latest_by_family([c for c in cohorts if c.cohort_id not in done], specs)
        moving = (
            None
            if part is None
            else LiveReturns(part, inputs.return_rows(version, live, cohorts, [], self.now))
        )
        tables = {
            "family_returns": Table(
                "family_returns", returns, bodies=None if moving is None else moving.bodies
            ),
            "position_returns": Table(
                "position_returns", mine, digests=None if part is None else part.positions
            ),
            "families": Table.of("families", inputs.family_rows(version, specs)),
        }
        if version == Methodology.V1_PANEL:
            panel = self._panel_tables(version, cohorts, specs)
            tables |= {name: Table.of(name, found) for name, found in panel.items()}
        tables["forecasts"] = self._forecasts(version, ids, specs, reads.scores)
        if part is None:
            lineups = sum(len(c.lineup) for c in cohorts if c.cohort_id in done)
            part = self._keep_completed(
                version, done=done, lineups=lineups, specs=specs, tables=tables, latest=latest()
            )
        digests = {name: table.digest for name, table in tables.items()}
        result = build(
            Csvs(tables),
            version,
            self._rules,
            self._kept,
            digests,
            records=None if moving is None else moving.records,
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
        as_of = newest(part, live) if part is not None else _newest(latest())
        return LeaderboardData(version, cohorts, views, tables, result, self._rules, as_of)

    def _completed_part(
        self, version: str, done: Collection[str], specs: Sequence[AgentSpec]
    ) -> CompletedPart | None:
        """The completed cohorts' part of the returns tables, as kept, if it still holds."""
        if self._kept is None:
            return None
        key = completed_key(version, done, [s.family_id for s in specs])
        earlier = self._kept.get(f"{version}/completed")
        if earlier is None or earlier[0] != key:
            return None
        part = CompletedPart.load(key, earlier[1])
        return part if part is not None and part.holds(key, self.now) else None

    def _keep_completed(
        self,
        version: str,
        *,
        done: Collection[str],
        lineups: int,
        specs: Sequence[AgentSpec],
        tables: Mapping[str, Table],
        latest: Mapping[str, Sequence[PortfolioSnapshot]],
    ) -> CompletedPart | None:
        """The completed part of the tables computed from every row, kept for the next
        publications when every completed cohort's final snapshots were read whole."""
        if self._kept is None:
            return None
        finals = [s for found in latest.values() for s in found if s.cohort_id in done]
        if len(finals) != lineups:  # some not read yet (an index catching up): not kept
            return None
        key = completed_key(version, done, [s.family_id for s in specs])
        part = computed(
            key,
            self.now,
            returns=tables["family_returns"].rows,
            completed=done,
            positions=tables["position_returns"].rows,
            position_digests=tables["position_returns"].digests,
            finals=finals,
        )
        self._kept[f"{version}/completed"] = (key, part.dump())
        return part

    def _forecasts(
        self, version: str, ids: Collection[str], specs: Sequence[AgentSpec], reads: _Scores
    ) -> Table:
        """The forecasts table, its rows and files computed only when needed: their digests
        are kept with what they were computed from (``inputs.forecasts_key``) until a score
        matures, so a publication in which no bet was scored and none matured neither reads
        a score nor formats a row nor analyses one."""

        @cache
        def scores() -> list[BetScore]:
            return [b for s in specs for b in reads(s.family_id) if b.cohort_id in ids]

        def rows() -> list[inputs.Row]:
            return inputs.forecast_rows(version, scores(), self.now)

        if self._kept is None:
            return Table("forecasts", rows)
        counts = {s.family_id: reads.expected(s.family_id) for s in specs}
        key, slot = inputs.forecasts_key(version, counts, ids), f"{version}/forecasts.csv"
        kept = _kept_digests(self._kept.get(slot), key, self.now)
        if kept is not None:
            return Table("forecasts", rows, digests=kept)
        table = Table("forecasts", rows)
        if all(len(reads(f)) == n for f, n in counts.items()):  # no index catching up
            until = inputs.next_maturity(scores(), self.now)
            self._kept[slot] = (
                key,
                " ".join([*table.digests, until.isoformat() if until else "-"]),
            )
        return table

    def _panel_tables(
        self, version: str, cohorts: Sequence[Cohort], specs: Sequence[AgentSpec]
    ) -> dict[str, list[inputs.Row]]:
        ids = {c.cohort_id for c in cohorts}
        scores = [s for c in cohorts for s in self._panel.scores(c.cohort_id)]
        coherence = [
            c
            for spec in specs
            for c in self._panel.family_coherence(spec.family_id)
            if c.cohort_id in ids
        ]
        return {
            "panel_scores": inputs.panel_score_rows(version, scores, self.now),
            "coherence": coherence_rows(version, coherence),
        }

    def _family_series(self, family_id: str) -> LazySeries:
        def read(resolution: str, start: datetime, end: datetime) -> list[SeriesPoint]:
            if resolution == SIX_HOURS and not isinstance(self._views, CarriedViews):
                return six_hourly(self._views.series(family_id, "hour", start, end))
            return self._views.series(family_id, resolution, start, end)

        return family_series(read, self.now)

    def return_charts(self, boards: Sequence[LeaderboardData]) -> list[RangeChart]:
        """The home page's chart: every family's mean return over time, one series each (the
        series already read for the model pages)."""
        seen: dict[str, LazySeries] = {}
        names: dict[str, str] = {}
        for board in boards:
            for view in board.families:
                seen[view.spec.family_id] = view.series
                names[view.spec.family_id] = view.spec.display_name
        return return_charts([(names[f], s) for f, s in seen.items()], self.now)

    def cohort_view(self, cohort: Cohort, *, charts: bool = True) -> CohortView:
        """A cohort's agents with their records, and every market they hold, traded or were
        asked about, read at once; without ``charts``, not the snapshots the agents' charts and
        the hourly table are drawn from (what market pages and the feed do not need)."""
        latest = self._views.latest_snapshots(cohort)
        members = self._cohorts.agents(cohort.cohort_id)
        records = {a.agent_id: self._views.agent_records(a.agent_id) for a in members}
        questions = (
            self._panel.questions(cohort.cohort_id)
            if cohort.methodology_version == Methodology.V1_PANEL
            else []
        )
        ids = {q.market.market_id for q in questions}
        for found in records.values():
            ids |= {p.market_id for p in found.positions} | {t.market_id for t in found.trades}
        markets = self._markets.get_markets(sorted(ids))
        agents = [
            self._agent_view(
                a, latest.get(a.agent_id), cohort, records[a.agent_id], markets, charts=charts
            )
            for a in members
        ]
        view = CohortView(cohort, agents, questions, markets=markets)
        if questions:  # v1+panel ranks on the peer score: the cohort page orders by it
            view.panel_scores = self._panel.scores(cohort.cohort_id)
            view.peer = peer_by_agent(view.panel_scores)
        return view

    def _agent_view(
        self,
        agent: Agent,
        latest: PortfolioSnapshot | None,
        cohort: Cohort,
        records: AgentRecords,
        markets: Mapping[str, Market],
        *,
        charts: bool = True,
    ) -> AgentView:
        view = AgentView(agent, latest)
        view.trades, view.settlements, view.scores = (
            records.trades,
            records.settlements,
            records.scores,
        )
        view.positions = [
            self._position_view(p, markets.get(p.market_id)) for p in records.positions
        ]
        view.decisions = [self._decision_view(d) for d in records.decisions]
        if not charts:
            return view
        view.hourly = with_open_hour(
            self._views.hourly_snapshots(agent.agent_id, cohort.week_start, self.now), latest
        )
        # A completed cohort's charts end where it ended, not at the publication.
        done = cohort.status is CohortStatus.COMPLETED and latest is not None
        end = latest.taken_at if done and latest is not None else self.now
        view.charts = self._agent_charts(agent, view.hourly, cohort, end)
        return view

    def _agent_charts(
        self, agent: Agent, hourly: list[PortfolioSnapshot], cohort: Cohort, end: datetime
    ) -> list[RangeChart]:
        """Every pass for the last day, hourly beyond: an agent page reads what its charts
        show, not every snapshot since the cohort opened (144 a day)."""
        since = max(cohort.week_start, end - timedelta(days=1))
        recent = self._views.snapshots(agent.agent_id, since, end)
        return agent_charts(agent.display_name, recent, hourly, end)

    @staticmethod
    def _position_view(position: Position, market: Market | None) -> PositionView:
        question = market.question if market else position.market_id
        if not position.is_open:
            return PositionView(position, question, None, None)
        mark = accounting.mark(position, market)
        return PositionView(position, question, mark.price, mark.value)

    def details(self, view: CohortView, only: set[str] | None = None) -> list[DecisionDetails]:
        """The cohort's decisions in full (a few audit reads each); ``only`` these ids."""
        return [
            read_details(record, self._blobs)
            for record in view.records()
            if only is None or record.decision_id in only
        ]

    def _decision_view(self, record: DecisionRecord) -> DecisionView:
        outcome = record.outcome
        return DecisionView(record, outcome, self._reasoning(outcome))

    def _reasoning(self, outcome: DecisionOutcome | None) -> str:
        if outcome is None:
            return ""
        if outcome.reasoning_ref is None or self._blobs is None:
            return outcome.reasoning
        try:
            return self._blobs.get(outcome.reasoning_ref).decode("utf-8", "replace")
        except ArenaError:
            return outcome.reasoning  # the excerpt, when the whole text cannot be read


def with_open_hour(
    hourly: list[PortfolioSnapshot], latest: PortfolioSnapshot | None
) -> list[PortfolioSnapshot]:
    """The hourly snapshots and, for the hour still open, its newest snapshot so far: an
    hour's own is written when the hour closes (by the next hour's first pass)."""
    if latest is None or (
        hourly and snapshot_hour(hourly[-1].taken_at) >= snapshot_hour(latest.taken_at)
    ):
        return hourly
    return [*hourly, latest]


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


def peer_by_agent(scores: Sequence[PanelScore]) -> dict[str, float]:
    """Each agent's mean peer score over its scored panel forecasts."""
    found: dict[str, list[float]] = {}
    for score in scores:
        found.setdefault(score.agent_id, []).append(score.peer_score)
    return {agent: sum(v) / len(v) for agent, v in found.items()}


def coherence_rows(methodology: str, coherence: Sequence[DecisionCoherence]) -> list[inputs.Row]:
    """One row per executed buy on a panel market the agent forecast in the same decision."""
    return [
        {
            "methodology": methodology,
            "decision_id": decision.decision_id,
            "agent_id": decision.agent_id,
            "cohort_id": decision.cohort_id,
            "family_id": decision.family_id,
            "week": decision.week,
            **trade.model_dump(),
        }
        for decision in sorted(coherence, key=lambda c: c.decision_id)
        for trade in decision.trades
    ]

"""Regenerate the site and publish what changed.

A publication has a scope; the snapshot tick chooses it from the time (``entrypoints``):

- every tick (``board``): the leaderboards (every methodology version's, with their
  statistics) and the home page and data files they are read from, after every snapshot;
- the first tick of each refresh window (``live``, every 30 minutes by default): also one small
  JSON of the live figures per live cohort, which the cohort's and its agents' pages read
  (``site/live.py``);
- the first tick of each hour (``full``): also the model, pairwise, methodology and data pages,
  every site-wide table, the markets table and list, the universes of weeks not yet published,
  and the final pages of a cohort completed since the last;
- the first tick of each UTC day (``daily``): also the live cohorts' pages, data tables and
  (when their decisions changed) decision pages, and the market pages (their positions' values
  move with every price: drawn hourly, a hundred pages or more would be uploaded every hour);
- after a decision run (``weekly``): everything, ``datapackage.json`` and ``dataset.zip``.

Reads are bounded by what changes: what the leaderboard needs beyond the live cohorts (every
bet score, the completed cohorts' final snapshots, a month of hourly series points) is carried
from one publication to the next (``site/carried.py``); the live cohorts' records are read only
by the scopes that render pages from them; decision pages, prompts and raw replies only when a
cohort's decisions changed since they were last published. Only changed objects are uploaded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache

from pydantic import BaseModel, ConfigDict

from arena_core.analysis.figures import Rules
from arena_core.dataset import exports
from arena_core.dataset.cohort_tables import cohort_tables
from arena_core.dataset.costs import cost_rows, merged
from arena_core.dataset.package import BUNDLE, PACKAGE, SITE_TABLES, bundle, datapackage
from arena_core.dataset.records import CohortView, DecisionView
from arena_core.dataset.rows import Row, carried_positions
from arena_core.dataset.tables import GLOBAL_TABLES
from arena_core.dataset.universes import new_universes, run_weeks, universe_path
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.domain.releases import LineupRelease
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.publisher import INTERNAL, PublishReport, SitePublisher, digest
from arena_core.publication.carried import CARRIED, HISTORY, KEPT, Carried, CarriedViews, FeedEntry
from arena_core.publication.collect import SiteCollector, SiteStores
from arena_core.publication.costs import FamilyCosts
from arena_core.publication.details import decisions_marker
from arena_core.publication.table_memo import TableMemo
from arena_core.site.build import SiteBuild
from arena_core.site.charts import RangeChart
from arena_core.site.costs import family_costs
from arena_core.site.feed import FeedItem, latest_decisions
from arena_core.site.live import live_file, live_path, live_values
from arena_core.site.markets import market_row, market_views
from arena_core.site.render import SiteRenderer, recent_decisions
from arena_core.site.results import results_marker
from arena_core.site.views import LeaderboardData

# The publication's own marks, kept out of what readers are served (``INTERNAL``).
COMPLETION_MARK = INTERNAL + "cohorts/{cohort_id}/completed"
DECISIONS_MARK = INTERNAL + "cohorts/{cohort_id}/decisions.txt"  # what its decision pages show
RESULTS_MARK = INTERNAL + "cohorts/{cohort_id}/results.txt"  # the results they show
COSTS_PATH = "data/costs.json"  # carried over: the rows of every cohort
POSITIONS_PATH = "data/position_returns.json"  # carried over: completed cohorts' positions
HOME = "index.html"


@dataclass(frozen=True)
class Scope:
    """What a publication renders beyond the leaderboards every one renders."""

    name: str
    live: bool  # the live cohorts' figures (one small JSON each)
    site_wide: bool  # model, pairwise, methodology, data and market pages, site-wide tables
    cohort_pages: bool  # the live cohorts' pages, data tables and changed decision pages
    bundle: bool  # datapackage.json and dataset.zip


BOARD = Scope("board", live=False, site_wide=False, cohort_pages=False, bundle=False)
LIVE = Scope("live", live=True, site_wide=False, cohort_pages=False, bundle=False)
FULL = Scope("full", live=True, site_wide=True, cohort_pages=False, bundle=False)
DAILY = Scope("daily", live=True, site_wide=True, cohort_pages=True, bundle=False)
WEEKLY = Scope("weekly", live=True, site_wide=True, cohort_pages=True, bundle=True)
SCOPES = (BOARD, LIVE, FULL, DAILY, WEEKLY)


class SiteReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    files: int
    uploaded: int
    cohorts_rendered: tuple[str, ...]
    scope: str = "weekly"  # board, live, full, daily or weekly (a site without a home: daily)


class PublishSiteService:
    def __init__(
        self,
        stores: SiteStores,
        publisher: SitePublisher,
        blobs: BlobStore | None,
        clock: Clock,
        rules: Rules | None = None,
        *,
        simulated: frozenset[str] = frozenset(),
    ) -> None:
        self._rules = rules or Rules()
        self._simulated = simulated
        self._stores = stores
        self._publisher = publisher
        self._blobs = blobs
        self._clock = clock

    def _published_positions(self) -> list[Row]:
        """The completed cohorts' positions as last published (read only if needed)."""
        earlier = self._publisher.read(POSITIONS_PATH)
        return carried_positions(json.loads(earlier)) if earlier else []

    def _live(self, cohorts: list[Cohort], published: Mapping[str, str]) -> list[Cohort]:
        return [
            c
            for c in cohorts
            if c.status is CohortStatus.ACTIVE
            or COMPLETION_MARK.format(cohort_id=c.cohort_id) not in published
        ]

    def _read_changed_details(
        self, view: CohortView, collector: SiteCollector, published: Mapping[str, str]
    ) -> None:
        """Read the cohort's decisions in full (prompts, replies) only when they changed since
        they were last published: then every page and table of them is rendered again. When
        only some decisions' results moved (a market resolved), just those are read and their
        pages rendered; everything else is left as it is."""
        cohort_id = view.cohort.cohort_id
        mark = DECISIONS_MARK.format(cohort_id=cohort_id)
        if published.get(mark) != digest(decisions_marker(view.records())):
            view.details = collector.details(view)
            return
        now = results_marker(view)
        earlier = self._publisher.read(RESULTS_MARK.format(cohort_id=cohort_id))
        before = dict(
            line.split(" ", 1)
            for line in (earlier or b"").decode("utf-8", "replace").splitlines()
            if " " in line
        )
        moved = {d for d, value in now.items() if before.get(d) != value}
        if moved:
            view.details = collector.details(view, moved)
            view.details_partial = True

    def run(self, scope: Scope = WEEKLY, *, fresh: Sequence[PortfolioSnapshot] = ()) -> SiteReport:
        """Publish ``scope``; ``fresh``: snapshots just taken (the latest of their agents, not
        read back)."""
        now = self._clock.now()
        state = Carried.load(self._publisher.read(CARRIED), self._publisher.read(KEPT))
        carried = CarriedViews(
            self._stores.views, state, lambda: self._publisher.read(HISTORY), fresh=fresh
        )
        collector = SiteCollector(
            self._stores, self._blobs, now, self._rules, views=carried, kept=state.statistics
        )
        cohorts = self._stores.cohorts.cohorts()
        published = self._publisher.published()
        renderer = SiteRenderer(
            now,
            build=SiteBuild.of(self._simulated, cohorts),
            tables=TableMemo(published, state.statistics),
        )
        if not scope.cohort_pages and HOME not in published:
            scope = DAILY  # a site without its home page yet gets everything at once
        live = self._live(cohorts, published)
        files: dict[str, bytes] = {}
        views = self._cohort_views(collector, live, scope)
        for view in views:
            if scope.cohort_pages or view.cohort.status is CohortStatus.COMPLETED:
                self._read_changed_details(view, collector, published)
                files.update(self._cohort_files(renderer, view))
        boards = collector.leaderboards(cohorts, self._published_positions, state.positions_read)
        state.positions_read = sorted(
            c.cohort_id for c in cohorts if c.status is CohortStatus.COMPLETED
        )
        feed = self._feed(views, carried, collector, live)
        fresh_costs = cost_rows(views)  # none but where pages are drawn (site-wide)
        costs = cache(lambda: merged(self._publisher.read(COSTS_PATH), fresh_costs))
        spent = FamilyCosts(state.statistics)
        returns = collector.return_charts(boards)
        if scope.site_wide:
            weeks = run_weeks(cohorts, now)
            universes = new_universes(self._blobs, weeks, published)
            shown = [w for w in weeks if w in universes or f"{universe_path(w)}.csv" in published]
            files.update(
                self._site_wide_files(
                    renderer,
                    boards=boards,
                    cohorts=cohorts,
                    views=views,
                    returns=returns,
                    feed=feed,
                    costs=costs(),
                    spent=spent,
                    weeks=shown,
                    releases=collector.releases(),
                )
            )
            # The hourly marks are read only where the market pages are drawn.
            until = now if scope.cohort_pages else None
            markets = market_views(self._stores, views, cohorts, marks_until=until)
            if scope.cohort_pages:
                files.update(renderer.market_files(markets))
            files.update(self._markets_table([market_row(m) for m in markets], renderer))
            for week, rows in universes.items():
                files.update(
                    exports.table_files("data/universes", "universe", rows, week.isoformat())
                )
        else:
            shown = []
            spend = spent.of(boards, published.get(COSTS_PATH), costs)
            files.update(
                renderer.home_files(boards, cohorts, returns=returns, feed=feed, spend=spend)
            )
        if scope.live:
            files.update(self._live_files(collector, live))
        if scope.bundle:  # the package describes (and the zip holds) the week's dataset
            files[PACKAGE] = datapackage(
                GLOBAL_TABLES + SITE_TABLES,
                {c.cohort_id: cohort_tables(c) for c in cohorts},
                shown,
                now,
            )
            files[BUNDLE] = self._bundle(files, published)
        files |= carried.files()
        report: PublishReport = self._publisher.publish(files, known=published)
        return SiteReport(
            files=len(files),
            uploaded=len(report.uploaded),
            cohorts_rendered=tuple(v.cohort.cohort_id for v in views),
            scope=scope.name,
        )

    def _cohort_views(
        self, collector: SiteCollector, live: list[Cohort], scope: Scope
    ) -> list[CohortView]:
        """The live cohorts' records, for the scopes that render pages from them: in full
        (their agents' charts too) where the cohort's own pages are drawn."""
        if not scope.site_wide:
            return []
        return [
            collector.cohort_view(
                c, charts=scope.cohort_pages or c.status is CohortStatus.COMPLETED
            )
            for c in live
        ]

    @staticmethod
    def _feed(
        views: list[CohortView],
        carried: CarriedViews,
        collector: SiteCollector,
        live: list[Cohort],
    ) -> list[FeedItem]:
        """The home page's latest decisions: from the records read, else as carried (they
        change with a decision run, whose publication reads the records)."""
        if not views and carried.carried.feed is None:  # never read yet: read them now
            views = [collector.cohort_view(c, charts=False) for c in live]
        if views:
            feed = latest_decisions(views)
            carried.remember_feed(
                [
                    FeedEntry(
                        agent=i.agent, record=i.decision.record, reasoning=i.decision.reasoning
                    )
                    for i in feed
                ]
            )
            return feed
        return [
            FeedItem(e.agent, DecisionView(e.record, e.record.outcome, e.reasoning))
            for e in carried.carried.feed or []
        ]

    def _live_files(self, collector: SiteCollector, live: list[Cohort]) -> dict[str, bytes]:
        """One JSON of the live figures per live cohort (what its pages' script shows): the
        active ones, and a cohort completed since its pages were last drawn, whose file then
        holds its final figures (its pages keep naming it)."""
        files = {}
        for cohort in live:
            latest = collector.latest_snapshots(cohort)
            positions = {a: self._stores.ledger.positions(a) for a in latest}
            held = sorted({p.market_id for ps in positions.values() for p in ps if p.is_open})
            markets = self._stores.markets.get_markets(held)
            as_of = max((s.taken_at for s in latest.values()), default=None)
            values = live_values(latest, positions, markets)
            files[live_path(cohort.cohort_id)] = live_file(cohort, values, as_of)
        return files

    @staticmethod
    def _cohort_files(renderer: SiteRenderer, view: CohortView) -> dict[str, bytes]:
        files = renderer.cohort_files(view, tables=True)
        cohort_id = view.cohort.cohort_id
        if view.details is not None:
            files[DECISIONS_MARK.format(cohort_id=cohort_id)] = decisions_marker(view.records())
            lines = sorted(f"{d} {value}" for d, value in results_marker(view).items())
            files[RESULTS_MARK.format(cohort_id=cohort_id)] = ("\n".join(lines) + "\n").encode()
        if view.cohort.status is CohortStatus.COMPLETED:
            files[COMPLETION_MARK.format(cohort_id=cohort_id)] = b"final\n"
        return files

    def _site_wide_files(
        self,
        renderer: SiteRenderer,
        *,
        boards: list[LeaderboardData],
        cohorts: list[Cohort],
        views: list[CohortView],
        returns: list[RangeChart],
        feed: list[FeedItem],
        costs: list[dict[str, object]],
        spent: FamilyCosts,
        weeks: list[date],
        releases: list[LineupRelease],
    ) -> dict[str, bytes]:
        """The leaderboards and every page and table computed from them; the families' costs
        kept with the costs table written (``spent``), for the publications that follow."""
        for board in boards:
            recent_decisions(board.families, views)
        spend = family_costs(boards, costs)
        files = renderer.global_files(
            boards,
            cohorts,
            returns=returns,
            feed=feed,
            costs=costs,
            spend=spend,
            universe_weeks=weeks,
            releases=releases,
        )
        files.update(exports.table_files("data", "costs", costs))
        spent.keep(boards, digest(files[COSTS_PATH]), spend)
        return files

    def _markets_table(
        self, fresh: list[dict[str, object]], renderer: SiteRenderer
    ) -> dict[str, bytes]:
        """The markets table (the rows published before, updated with the live markets) and
        the markets page listing them."""
        earlier = self._publisher.read("data/markets.json")
        rows = {str(r["market_id"]): r for r in json.loads(earlier)} if earlier else {}
        rows |= {str(r["market_id"]): {k: exports.cell(v) for k, v in r.items()} for r in fresh}
        ordered = [rows[i] for i in sorted(rows)]
        return {
            **exports.table_files("data", "markets", ordered),
            **renderer.markets_index(ordered),
        }

    def _bundle(self, files: dict[str, bytes], published: Mapping[str, str]) -> bytes:
        paths = [
            p
            for p in {*files, *published}
            if p.startswith("data/") and p.endswith((".csv", ".json")) and p != BUNDLE
        ]
        return bundle(paths, lambda path: files.get(path) or self._publisher.read(path))

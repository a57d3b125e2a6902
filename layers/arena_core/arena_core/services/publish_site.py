"""Regenerate the site and publish what changed.

Reads are bounded by what changes. Cohort and agent pages and their exports are rendered for
active cohorts, and once more for a completed cohort that has not been published since it
completed; older completed cohorts are left as published. A cohort's decision pages, prompts
and raw replies (read from the audit bucket) are rendered only when its decisions changed since
they were last published.

A publication has a scope. A snapshot tick renders the live cohorts' and agents' pages (their
values move every pass), which keeps it flat with history and cheap. The fuller publication, after
each resolution pass (hourly) and decision run, also renders the leaderboards with their
statistics, the model, home and pairwise pages and the site-wide tables, the market pages and
the markets table, and the universes of weeks not yet published; the weekly one (after the
decision run) also rebuilds ``datapackage.json`` and ``dataset.zip``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

from pydantic import BaseModel, ConfigDict

from arena_core.analysis.figures import Rules
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.publisher import INTERNAL, PublishReport, SitePublisher, digest
from arena_core.site import exports
from arena_core.site.build import SiteBuild
from arena_core.site.cohort_tables import cohort_tables
from arena_core.site.collect import CohortView, SiteCollector, SiteStores
from arena_core.site.costs import cost_rows, merged
from arena_core.site.dataset import BUNDLE, PACKAGE, SITE_TABLES, bundle, datapackage
from arena_core.site.decision_details import decisions_marker
from arena_core.site.feed import latest_decisions
from arena_core.site.inputs import carried_positions
from arena_core.site.markets import market_row, market_views
from arena_core.site.render import SiteRenderer, recent_decisions
from arena_core.site.results import results_marker
from arena_core.site.tables import GLOBAL_TABLES
from arena_core.site.universes import new_universes, run_weeks, universe_path

# The publication's own marks, kept out of what readers are served (``INTERNAL``).
COMPLETION_MARK = INTERNAL + "cohorts/{cohort_id}/completed"
DECISIONS_MARK = INTERNAL + "cohorts/{cohort_id}/decisions.txt"  # what its decision pages show
RESULTS_MARK = INTERNAL + "cohorts/{cohort_id}/results.txt"  # the results they show
COSTS_PATH = "data/costs.json"  # carried over: the rows of every cohort
POSITIONS_PATH = "data/position_returns.json"  # carried over: completed cohorts' positions
HOME = "index.html"


@dataclass(frozen=True)
class Scope:
    """What a publication renders beyond the pages every one renders."""

    name: str
    boards: bool  # leaderboards, statistics, model pages, the home and pairwise pages
    markets: bool  # market pages, the markets table, new weeks' universes
    bundle: bool  # datapackage.json and dataset.zip


LIGHT = Scope("light", boards=False, markets=False, bundle=False)  # a snapshot tick
FULL = Scope("full", boards=True, markets=True, bundle=False)  # after a resolution pass
WEEKLY = Scope("weekly", boards=True, markets=True, bundle=True)  # after a decision run


class SiteReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    files: int
    uploaded: int
    cohorts_rendered: tuple[str, ...]
    scope: str = "weekly"  # light, full or weekly: what was rendered (a first tick: full)


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

    def _live(self, cohorts: list[Cohort], published: dict[str, str]) -> list[Cohort]:
        return [
            c
            for c in cohorts
            if c.status is CohortStatus.ACTIVE
            or COMPLETION_MARK.format(cohort_id=c.cohort_id) not in published
        ]

    def _read_changed_details(
        self, view: CohortView, collector: SiteCollector, published: dict[str, str]
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

    def run(self, scope: Scope = WEEKLY) -> SiteReport:
        now = self._clock.now()
        collector = SiteCollector(self._stores, self._blobs, now, self._rules)
        cohorts = self._stores.cohorts.cohorts()
        renderer = SiteRenderer(now, build=SiteBuild.of(self._simulated, cohorts))
        published = self._publisher.published()
        if not scope.boards and HOME not in published:
            scope = FULL  # a site without its home page yet gets everything at once
        live = self._live(cohorts, published)
        cohort_views = [collector.cohort_view(c) for c in live]
        files: dict[str, bytes] = {}
        for view in cohort_views:
            if scope.boards:  # a tick renders pages only: data, decisions and marks wait
                self._read_changed_details(view, collector, published)
            files.update(self._cohort_files(renderer, view, scope.boards))
        weeks = run_weeks(cohorts, now)
        universes = new_universes(self._blobs, weeks, published) if scope.markets else {}
        shown = [w for w in weeks if w in universes or f"{universe_path(w)}.csv" in published]
        if scope.boards:
            files.update(self._board_files(collector, renderer, cohorts, cohort_views, shown))
        if scope.markets:
            markets = market_views(self._stores, cohort_views, cohorts)
            files.update(renderer.market_files(markets))
            files.update(self._markets_table([market_row(m) for m in markets], renderer))
        for week, rows in universes.items():
            files.update(exports.table_files("data/universes", "universe", rows, week.isoformat()))
        if scope.bundle:  # the package describes (and the zip holds) the week's dataset
            files[PACKAGE] = datapackage(
                GLOBAL_TABLES + SITE_TABLES,
                {c.cohort_id: cohort_tables(c) for c in cohorts},
                shown,
                now,
            )
            files[BUNDLE] = self._bundle(files, published)
        report: PublishReport = self._publisher.publish(files)
        return SiteReport(
            files=len(files),
            uploaded=len(report.uploaded),
            cohorts_rendered=tuple(c.cohort_id for c in live),
            scope=scope.name,
        )

    @staticmethod
    def _cohort_files(renderer: SiteRenderer, view: CohortView, tables: bool) -> dict[str, bytes]:
        files = renderer.cohort_files(view, tables=tables)
        if not tables:
            return files  # nothing marked done: the next fuller publication renders the rest
        cohort_id = view.cohort.cohort_id
        if view.details is not None:
            files[DECISIONS_MARK.format(cohort_id=cohort_id)] = decisions_marker(view.records())
            lines = sorted(f"{d} {value}" for d, value in results_marker(view).items())
            files[RESULTS_MARK.format(cohort_id=cohort_id)] = ("\n".join(lines) + "\n").encode()
        if view.cohort.status is CohortStatus.COMPLETED:
            files[COMPLETION_MARK.format(cohort_id=cohort_id)] = b"final\n"
        return files

    def _board_files(
        self,
        collector: SiteCollector,
        renderer: SiteRenderer,
        cohorts: list[Cohort],
        views: list[CohortView],
        weeks: list[date],
    ) -> dict[str, bytes]:
        """The leaderboards and every page and table computed from them."""
        earlier = self._publisher.read(POSITIONS_PATH)
        positions = carried_positions(json.loads(earlier)) if earlier else []
        boards = collector.leaderboards(cohorts, positions)
        for board in boards:
            recent_decisions(board.families, views)
        costs = merged(self._publisher.read(COSTS_PATH), cost_rows(views))
        files = renderer.global_files(
            boards,
            cohorts,
            returns=collector.return_charts(boards),
            feed=latest_decisions(views),
            costs=costs,
            universe_weeks=weeks,
            releases=collector.releases(),
        )
        files.update(exports.table_files("data", "costs", costs))
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

    def _bundle(self, files: dict[str, bytes], published: dict[str, str]) -> bytes:
        paths = [
            p
            for p in {*files, *published}
            if p.startswith("data/") and p.endswith((".csv", ".json")) and p != BUNDLE
        ]
        return bundle(paths, lambda path: files.get(path) or self._publisher.read(path))

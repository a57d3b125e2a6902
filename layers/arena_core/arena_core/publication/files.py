"""The render step: every file a publication hands the writer, as lazy files (a body made only if
it must be written), from what it computed (``publication/compute.py``) and the site's pages
(``site/render.py``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from arena_core.dataset import exports
from arena_core.dataset.cohort_tables import cohort_tables, detail_rows
from arena_core.dataset.package import BUNDLE, PACKAGE, SITE_TABLES, bundle, datapackage
from arena_core.dataset.records import CohortView
from arena_core.dataset.table import Table
from arena_core.dataset.tables import GLOBAL_TABLES
from arena_core.domain.decisions import DecisionRecord
from arena_core.errors import ArenaError
from arena_core.ports.publisher import LazyFile, lazy_files
from arena_core.publication.cohorts import families
from arena_core.publication.compute import Computed
from arena_core.publication.details import decisions_marker, read_details
from arena_core.publication.kept import kept_files
from arena_core.publication.live import live_files
from arena_core.publication.memo import Memo
from arena_core.publication.plan import Plan
from arena_core.publication.reads import Reads
from arena_core.publication.slots import DIGESTS
from arena_core.site.board_pages import Keyed, global_tables
from arena_core.site.panel_design import panel_weeks
from arena_core.site.render import SiteRenderer
from arena_core.site.results import results_marker


def site_files(
    plan: Plan, reads: Reads, computed: Computed, renderer: SiteRenderer
) -> list[LazyFile]:
    scope, boards = plan.scope, computed.boards
    files = [
        f for table in global_tables(boards, keyed(reads.memo)) for f in table_files("data", table)
    ]
    if scope.site_wide:
        releases = reads.stores.lineups.releases()
        files += lazy_files(
            renderer.global_pages(
                boards, reads.cohorts, returns=computed.returns, feed=computed.feed,
                costs=computed.costs, spend=computed.spend, universe_weeks=computed.weeks,
                releases=releases, panel_weeks=panel_weeks(reads.panel_questions),
            )
        )  # fmt: skip
        files += lazy_files(exports.table_files("data", "costs", computed.costs))
        rows = reads.markets.rows()
        names = {spec.family_id: spec.display_name for spec in families(reads.cohorts)}
        files += lazy_files(
            exports.table_files("data", "markets", rows) | renderer.markets_index(rows, names)
        )
        for week, found in computed.universes.items():
            universe = exports.table_files("data/universes", "universe", found, week.isoformat())
            files += lazy_files(universe)
        files += lazy_files(renderer.market_files(computed.markets))
        for view in computed.views:  # those whose results moved: drawn within the hour
            files += decision_files(reads, renderer, view)
    else:
        files += lazy_files(
            renderer.home_page(
                boards, reads.cohorts, returns=computed.returns, feed=computed.feed,
                spend=computed.spend,
            )
        )  # fmt: skip
    if scope.cohort_pages:
        for view in computed.views:
            files += lazy_files(renderer.cohort_files(view, tables=True))
    if scope.live:
        files += lazy_files(live_files(reads.views, reads.stores, reads.live))
    if scope.bundle:
        files += kept_files(reads, renderer, {f.path for f in files}, computed.weeks)
        files += package_files(reads, computed, files)
    return files


def table_files(prefix: str, table: Table) -> list[LazyFile]:
    """A table's CSV and JSON, their digests passed on when known (a kept table's bodies are
    made only if they must be written)."""
    csv_digest, json_digest = table.known_digests or (None, None)
    return [
        LazyFile(f"{prefix}/{table.name}.csv", lambda: table.csv, csv_digest),
        LazyFile(f"{prefix}/{table.name}.json", lambda: table.json, json_digest),
    ]


def keyed(memo: Memo) -> Keyed:
    """Tables whose files are a function of a key (None: of nothing known): their digests as
    the memo keeps them under it, else computed (then kept)."""

    def table(name: str, rows: Callable[[], Sequence[exports.Row]], key: str | None) -> Table:
        made = Table(name, rows)
        if key is None:
            return made
        found = memo.get(DIGESTS, f"board/tables/{name}", key, lambda: made.digests)
        return made if made.known_digests == found else Table(name, rows, digests=found)

    return table


def decision_files(reads: Reads, renderer: SiteRenderer, view: CohortView) -> list[LazyFile]:
    """A live cohort's prompts and replies tables and its decision pages, through the memo:
    drawn (and their decisions read in full) only when what they show changed."""
    cohort_id = view.cohort.cohort_id
    files: list[LazyFile] = []
    records = view.records()
    by_id = {r.decision_id: r for r in records}
    # Each decision read in full once, and only where something drawn needs it: a page drawn
    # again (a settlement moved its results) reads its own decision, not the cohort's.
    detail = cache(lambda decision_id: read_details(by_id[decision_id], reads.blobs))

    def detail_tables() -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for table, rows in detail_rows([detail(r.decision_id) for r in records]).items():
            found |= exports.table_files(f"data/cohorts/{cohort_id}", table, rows)
        return found

    marker = decisions_marker(records).decode()
    files += reads.memo.files(f"cohort/{cohort_id}/details", marker, detail_tables)
    results = results_marker(view)
    named = {d.record.decision_id: d.named for a in view.agents for d in a.decisions}
    for record in records:
        decision_id = record.decision_id
        inputs = [
            f"{record.status.value} {record.updated_at.isoformat()}",
            results.get(decision_id),
            _markets_of(view, record),
            sorted(named.get(decision_id, {}).items()),  # the markets its reasoning names
        ]

        def page(found: str = decision_id) -> dict[str, bytes]:
            return renderer.decision_pages(view, detail(found))

        files += reads.memo.files(f"cohort/{cohort_id}/decision/{decision_id}", inputs, page)
    return files


def _markets_of(view: CohortView, record: DecisionRecord) -> dict[str, tuple[str, bool]]:
    """The markets a decision's page names (its bets' and its forecasts'), as it names them:
    a market's question can change upstream, and its page is then drawn again."""
    outcome = record.outcome
    if outcome is None:
        return {}
    ids = {getattr(t.instruction, "market_id", None) for t in outcome.trades}
    ids |= {f.market_id for f in outcome.forecasts}
    return {m: (view.question(m), m in view.markets) for m in sorted(i for i in ids if i)}


def package_files(reads: Reads, computed: Computed, files: Sequence[LazyFile]) -> list[LazyFile]:
    """``datapackage.json`` and ``dataset.zip``: the zip of every data file of the site, as this
    publication computed or sealed them (never read back from the site)."""
    package = datapackage(
        GLOBAL_TABLES + SITE_TABLES,
        {c.cohort_id: cohort_tables(c) for c in reads.cohorts},
        computed.weeks,
        reads.now,
    )
    data = {
        f.path: f
        for f in files
        if f.path.startswith("data/") and f.path.endswith((".csv", ".json"))
    }
    data[PACKAGE] = LazyFile.of(PACKAGE, package)

    def body(path: str) -> bytes | None:
        try:
            return data[path].body()
        except ArenaError:
            return None  # a source that cannot be read now (an audit object): left out

    return [data[PACKAGE], LazyFile.of(BUNDLE, bundle(list(data), body))]

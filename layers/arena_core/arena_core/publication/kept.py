"""The files a publication does not redraw, handed to the writer as kept (written only where the
site lacks them or holds them otherwise than published: the weekly publication's repair) and
read for ``dataset.zip``: every sealed cohort's files, the pages of final markets, and the
universes of past weeks."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from datetime import date
from functools import cache

from arena_core.dataset import exports
from arena_core.dataset.universes import universe_path, universe_table
from arena_core.ports.publisher import LazyFile
from arena_core.publication.markets import market_views, touching
from arena_core.publication.reads import Reads
from arena_core.publication.sealing import final_files
from arena_core.site.paths import page_path
from arena_core.site.render import SiteRenderer


def kept_files(
    reads: Reads, renderer: SiteRenderer, present: Collection[str], weeks: Iterable[date]
) -> list[LazyFile]:
    """Every file of the site this publication did not make (``present``), kept."""
    files = []
    for record in reads.sealed.records():
        redraw = cache(_redraw(reads, renderer, record.cohort_id))
        data = reads.sealed.data(record.cohort_id)
        for path in record.files:
            if path not in present:
                body = _from(data, path) if path in data else _from_call(redraw, path)
                files.append(LazyFile(path, body, kept=True))
    for market_id in sorted(reads.markets.final):
        path = page_path("markets", market_id)
        if path not in present:
            files.append(LazyFile(path, _market_page(reads, renderer, market_id), kept=True))
    for week in weeks:
        for name in (f"{universe_path(week)}.csv", f"{universe_path(week)}.json"):
            if name not in present:
                files.append(LazyFile(name, _universe(reads, week, name), kept=True))
    return files


def _from(data: dict[str, bytes], path: str) -> Callable[[], bytes]:
    return lambda: data[path]


def _from_call(made: Callable[[], dict[str, bytes]], path: str) -> Callable[[], bytes]:
    return lambda: made()[path]


def _redraw(reads: Reads, renderer: SiteRenderer, cohort_id: str) -> Callable[[], dict[str, bytes]]:
    """A sealed cohort's pages drawn again from the stores (to repair one)."""

    def draw() -> dict[str, bytes]:
        cohort = next(c for c in reads.cohorts if c.cohort_id == cohort_id)
        view = reads.reader.cohort_view(cohort, charts=True)
        return final_files(
            view, renderer, views=reads.views, stores=reads.stores, blobs=reads.blobs
        )

    return draw


def _market_page(reads: Reads, renderer: SiteRenderer, market_id: str) -> Callable[[], bytes]:
    def draw() -> bytes:
        index = reads.sealed.markets()
        cohorts = [c for c in reads.cohorts if c.cohort_id in set(touching(index, [market_id]))]
        views = [reads.reader.cohort_view(c, charts=False) for c in cohorts]
        found = market_views(
            reads.stores, [market_id], reads.cohorts, views,
            asked=reads.sealed.asked(), marks_until=reads.now,
        )  # fmt: skip
        return renderer.market_files(found)[page_path("markets", market_id)]

    return draw


def _universe(reads: Reads, week: date, name: str) -> Callable[[], bytes]:
    """A past week's universe table, from its capture (``NotFoundError`` if unreadable)."""

    def made() -> bytes:
        rows = universe_table(reads.blobs, week)
        return exports.table_files("data/universes", "universe", rows, week.isoformat())[name]

    return made

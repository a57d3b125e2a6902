"""Sealing a completed cohort: read whole once, its final pages and tables drawn, and its record
kept (``publication/sealed.py``), by the first site-wide publication that finds it completed."""

from __future__ import annotations

from collections.abc import Callable

from arena_core.dataset.costs import cost_rows
from arena_core.dataset.records import CohortView
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.publisher import LazyFile, lazy_files
from arena_core.publication.carried import CarriedViews
from arena_core.publication.cohorts import SiteStores, positions_of
from arena_core.publication.details import read_details
from arena_core.publication.live import live_files
from arena_core.publication.reads import Reads
from arena_core.publication.sealed import data_archive, seal
from arena_core.site.render import SiteRenderer


def final_files(
    view: CohortView,
    renderer: SiteRenderer,
    *,
    views: CarriedViews,
    stores: SiteStores,
    blobs: BlobStore | None,
) -> dict[str, bytes]:
    """Every readers' file of a completed cohort: its pages, tables, decision pages, prompts
    and final live figures (its decisions read in full)."""
    view.details = [read_details(record, blobs) for record in view.records()]
    view.details_partial = False
    return renderer.cohort_files(view, tables=True) | live_files(views, stores, [view.cohort])


def seal_completed(
    reads: Reads, renderer: Callable[[], SiteRenderer]
) -> tuple[list[LazyFile], list[str]]:
    """Seal each completed cohort not sealed yet whose final snapshots can all be read (an
    index still catching up leaves a cohort to the next publication): the files their pages
    and tables are published as, and the cohorts sealed."""
    files: list[LazyFile] = []
    sealed: list[str] = []
    stores, views = reads.stores, reads.views
    for cohort in reads.to_seal():
        finals = views.latest_snapshots(cohort)
        if len(finals) != len(cohort.lineup):
            continue
        view = reads.reader.cohort_view(cohort, charts=True)
        made = final_files(view, renderer(), views=views, stores=stores, blobs=reads.blobs)
        data = {path: body for path, body in made.items() if path.startswith("data/")}
        record = seal(view, finals, positions_of(stores, cohort), cost_rows([view]), made)
        reads.sealed.add(record, data, data_archive(data))
        files += lazy_files(made)
        sealed.append(cohort.cohort_id)
    return files, sealed

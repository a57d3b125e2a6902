"""The live cohorts' figures (``site/live.py``): each agent's latest snapshot and each position
marked at its market's current price, one small JSON per cohort."""

from __future__ import annotations

from collections.abc import Iterable

from arena_core.domain.cohort import Cohort
from arena_core.ports.view_store import ViewStore
from arena_core.publication.cohorts import SiteStores
from arena_core.site.live import live_file, live_path, live_values


def live_files(views: ViewStore, stores: SiteStores, cohorts: Iterable[Cohort]) -> dict[str, bytes]:
    """One JSON of the live figures per cohort (what its pages' script shows): the active ones,
    and a completed one as it is sealed, whose file then holds its final figures (its pages
    keep naming it)."""
    files = {}
    for cohort in cohorts:
        latest = views.latest_snapshots(cohort)
        positions = {a: stores.ledger.positions(a) for a in latest}
        held = sorted({p.market_id for ps in positions.values() for p in ps if p.is_open})
        markets = stores.markets.get_markets(held)
        as_of = max((s.taken_at for s in latest.values()), default=None)
        values = live_values(latest, positions, markets)
        files[live_path(cohort.cohort_id)] = live_file(cohort, values, as_of)
    return files

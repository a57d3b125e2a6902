"""The week's forecast panel (methodology ``v1+panel``): drawn once from the panel listing (every
active binary market above the liquidity floor closing within the design's strata), stored with
the prices at capture and its stratum and eligibility counts, and reused by every agent and
every rerun. Markets asked by the panels of the design's previous weeks are left out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from arena_core.domain.cohort import week_start_for
from arena_core.domain.market import Market
from arena_core.domain.panel import Panel, select_panel
from arena_core.domain.panel_design import PANEL_SIZE, PanelDesign, panel_design
from arena_core.ports.blob_store import BlobStore

WEEK = timedelta(days=7)


@dataclass(frozen=True)
class PanelSettings:
    size: int = PANEL_SIZE  # K: panel markets per run

    @property
    def design(self) -> PanelDesign:
        return panel_design(self.size)


def panel_key(run_at: datetime) -> str:
    return f"panels/week-{week_start_for(run_at).date().isoformat()}.json"


def stored_panel(blobs: BlobStore, run_at: datetime) -> Panel | None:
    """The panel stored for ``run_at``'s week, if one was drawn."""
    found = blobs.find(panel_key(run_at))
    return None if found is None else Panel.model_validate_json(blobs.get(found))


def recently_asked(blobs: BlobStore, run_at: datetime, weeks: int) -> set[str]:
    """The markets the panels of the ``weeks`` weeks before ``run_at``'s asked."""
    asked: set[str] = set()
    for back in range(1, weeks + 1):
        panel = stored_panel(blobs, run_at - back * WEEK)
        if panel is not None:
            asked |= {m.market_id for m in panel.markets}
    return asked


def captured_panel(
    blobs: BlobStore,
    listing: Callable[[], Sequence[Market]],
    run_at: datetime,
    settings: PanelSettings,
) -> Panel:
    """The week's panel: the stored one, or drawn from ``listing()`` (asked only then) and
    stored now. The draw is deterministic for the week, so two runs racing to store it store
    the same panel."""
    existing = stored_panel(blobs, run_at)
    if existing is not None:
        return existing
    design = settings.design
    panel = select_panel(
        listing(),
        week_start=week_start_for(run_at),
        run_at=run_at,
        design=design,
        recent=recently_asked(blobs, run_at, design.fresh_weeks),
    )
    blobs.put(panel_key(run_at), panel.model_dump_json().encode())
    return panel

"""The week's forecast panel (methodology ``v1+panel``): drawn once from the captured universe,
stored beside it with the prices at capture, and reused by every agent and every rerun."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from arena_core.domain.cohort import week_start_for
from arena_core.domain.market import Market
from arena_core.domain.panel import PANEL_HORIZON, PANEL_SIZE, Panel, select_panel
from arena_core.ports.blob_store import BlobStore


@dataclass(frozen=True)
class PanelSettings:
    size: int = PANEL_SIZE  # K: panel markets per run
    horizon: timedelta = PANEL_HORIZON  # they must close within this after the run


def panel_key(run_at: datetime) -> str:
    return f"panels/week-{week_start_for(run_at).date().isoformat()}.json"


def captured_panel(
    blobs: BlobStore, universe: Sequence[Market], run_at: datetime, settings: PanelSettings
) -> Panel:
    """The week's panel: the stored one, or drawn from ``universe`` and stored now. The draw is
    deterministic for the week, so two runs racing to store it store the same panel."""
    key = panel_key(run_at)
    existing = blobs.find(key)
    if existing is not None:
        return Panel.model_validate_json(blobs.get(existing))
    panel = select_panel(
        universe,
        week_start=week_start_for(run_at),
        run_at=run_at,
        size=settings.size,
        horizon=settings.horizon,
    )
    blobs.put(key, panel.model_dump_json().encode())
    return panel

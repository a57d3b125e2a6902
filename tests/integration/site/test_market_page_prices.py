"""A market page plots the price at every hourly mark the arena took, not only at the weekly
captures, read with one query of the hourly sheets per publication (issue 28 §2)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.market_record import Capture
from arena_core.ports.market_store import MarketStore
from arena_core.services.publish_site import FULL, WEEKLY, PublishSiteService
from tests.support.builders import RUN_AT, binary
from tests.support.scenario import build

PASSES = 24 * 6  # a day of 10-minute passes: 24 first passes of an hour


class MarksRecorder:
    """The scenario's market store, recording the windows the hourly sheets are read over."""

    def __init__(self, markets: MarketStore) -> None:
        self._markets = markets
        self.windows: list[tuple[datetime, datetime]] = []

    def marks(self, start: datetime, end: datetime) -> Any:
        self.windows.append((start, end))
        return self._markets.marks(start, end)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._markets, name)


def chart_points(page: str) -> int:
    """The points of the page's (only) line."""
    (line,) = re.findall(r'<polyline[^>]*points="([^"]*)"', page)
    return len(line.split())


def test_the_price_chart_has_every_hourly_mark_read_in_one_query(tmp_path: Path) -> None:
    scenario = build(tmp_path, weeks=1, snapshots_per_week=PASSES)
    # The scenario decides without a Prepare step: the week's capture, as Prepare records it.
    scenario.stores.markets.record_captures([Capture.of(binary("m1", "0.40"), RUN_AT)])
    recorder = MarksRecorder(scenario.stores.markets)
    stores = replace(scenario.stores, markets=cast(MarketStore, recorder))
    service = PublishSiteService(
        stores, LocalFolderPublisher(tmp_path), scenario.blobs, scenario.clock
    )
    service.run(WEEKLY)

    (cohort,) = scenario.stores.cohorts.cohorts()
    assert recorder.windows == [(cohort.created_at, scenario.clock.now())]
    captures = scenario.stores.markets.captures("m1")
    every = scenario.stores.markets.marks(cohort.created_at, scenario.clock.now())
    sheets = [s for s in every if "m1" in s.prices]  # the settling pass's has m1 resolved
    assert len(captures) == 1 and len(sheets) == 24
    page = (tmp_path / "markets/m1.html").read_text()
    # the capture, each hour's mark, what a share paid at the resolution
    assert chart_points(page) == len(captures) + len(sheets) + 1
    assert "Price of Yes at each hourly mark and capture" in page

    service.run(FULL)  # the hourly publication draws no market page: no sheet read
    assert len(recorder.windows) == 1
